//! Kernels that stage data in the launch's dynamic workgroup memory: the pointer
//! `core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<T>()` returns is block-shared
//! memory, usable only through a raw pointer (as a shared `static` is), so dereferencing it
//! is the idiom; the buffers themselves are references.
#![cfg_attr(not(target_os = "linux"), feature(abi_gpu_kernel, rustc_attrs, core_intrinsics, gpu_intrinsics))]
#![cfg_attr(not(target_os = "linux"), feature(gpu_launch_sized_workgroup_mem, stdarch_amdgpu))]
#![cfg_attr(not(target_os = "linux"), no_std, no_main)]
#![allow(internal_features)]

#[cfg(not(target_os = "linux"))]
use core::arch::amdgpu::{s_barrier, workgroup_id_x, workitem_id_x};

pub const TILE: usize = 256;
pub const N: usize = TILE * 1024;

#[cfg(not(target_os = "linux"))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}

//@ case: correct
// Reverse each tile through workgroup memory (two halves of one launch-sized region).
#[cfg(not(target_os = "linux"))]
#[rustc_offload_kernel]
pub extern "gpu-kernel" fn reverse_tiles(x: &[f32; N], y: &mut [f32; N]) {
    let t = workitem_id_x() as usize;
    let g = workgroup_id_x() as usize * TILE + t;
    let stage = core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<f32>() as *mut [f32; TILE];
    let spare = unsafe { core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<f32>().add(TILE) } as *mut [f32; TILE];
    if t < TILE && g < N {
        unsafe {
            (*stage)[t] = x[g];
            (*spare)[t] = 0.0;
        }
    }
    s_barrier();
    if t < TILE && g < N {
        y[g] = unsafe { (*stage)[TILE - 1 - t] + (*spare)[t] };
    }
}

//@ case: correct
// Two halves of the workgroup memory as element pointers, made in their own `let`s (a cast,
// then an offset of the cast): still block-shared memory, dereferenced as the idiom.
#[cfg(not(target_os = "linux"))]
#[rustc_offload_kernel]
pub extern "gpu-kernel" fn pair_sums(x: &[f32; N], y: &mut [f32; N]) {
    let t = workitem_id_x() as usize;
    let g = workgroup_id_x() as usize * TILE + t;
    let raw = core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<[u8; 2 * TILE * 4]>();
    let lo = raw as *mut f32;
    let hi = unsafe { lo.add(TILE) };
    if t < TILE && g < N {
        unsafe {
            *lo.add(t) = x[g];
            *hi.add(t) = 2.0 * x[g];
        }
    }
    s_barrier();
    if t < TILE && g < N {
        y[g] = unsafe { *lo.add(TILE - 1 - t) + *hi.add(t) };
    }
}

#[cfg(target_os = "linux")]
fn main() {}
