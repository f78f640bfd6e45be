//! A tiled matrix kernel written for rustc 1.96's offload the way early offload benchmarks
//! write it: the host declaration takes `*const [i32; DIM]` (so the host pass maps the whole
//! matrix) while the device kernel takes the element pointer `*const i32` and does its own
//! address arithmetic. Both are one thin pointer in the kernel ABI: the declarations agree.
//! The raw pointers themselves are still reported (unsafe dereferences, no `noalias`).
#![cfg_attr(not(target_os = "linux"), feature(abi_gpu_kernel, rustc_attrs, stdarch_nvptx))]
#![cfg_attr(not(target_os = "linux"), no_std, no_main)]
#![cfg_attr(target_os = "linux", feature(core_intrinsics))]
#![allow(internal_features)]

pub const SIDE: usize = 512;
pub const DIM: usize = SIDE * SIDE;
pub const TILE: u32 = 16;

#[cfg(not(target_os = "linux"))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}

//@ case: hazard raw_pointer_kernel_param
// The declaration maps each matrix; the kernel indexes it through element pointers.
#[cfg(target_os = "linux")]
unsafe extern "C" {
    fn matmul(a: *const [i32; DIM], b: *const [i32; DIM], c: *mut [i32; DIM]);
}

#[cfg(target_os = "linux")]
pub fn multiply(a: &[i32; DIM], b: &[i32; DIM], c: &mut [i32; DIM]) {
    let grid = (SIDE as u32) / TILE;
    unsafe {
        core::intrinsics::offload(matmul, [grid, grid, 1], [TILE, TILE, 1],
                                  (a as *const [i32; DIM], b as *const [i32; DIM], c as *mut [i32; DIM]))
    }
}

#[cfg(not(target_os = "linux"))]
#[rustc_offload_kernel]
pub unsafe extern "gpu-kernel" fn matmul(a: *const i32, b: *const i32, c: *mut i32) { //~ WARN raw_pointer_kernel_param //~ WARN raw_pointer_kernel_param //~ WARN raw_pointer_kernel_param //~ WARN unsafe_in_kernel
    use core::arch::nvptx::{_block_dim_x, _block_dim_y, _block_idx_x, _block_idx_y, _thread_idx_x, _thread_idx_y};
    let col = (_block_idx_x() * _block_dim_x() + _thread_idx_x()) as usize;
    let row = (_block_idx_y() * _block_dim_y() + _thread_idx_y()) as usize;
    if row < SIDE && col < SIDE {
        let mut acc = 0i32;
        for k in 0..SIDE {
            acc += *a.add(row * SIDE + k) * *b.add(k * SIDE + col);
        }
        *c.add(row * SIDE + col) = acc;
    }
}

#[cfg(target_os = "linux")]
fn main() {}
