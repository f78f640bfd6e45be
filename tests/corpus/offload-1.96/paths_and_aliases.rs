//! rustc 1.96 offload kernels whose host declarations spell types with paths and aliases
//! (`core::sync::atomic::AtomicU32` on the host, `AtomicU32` imported on the device; a
//! `type Tile = [f32; N]` alias), and a 2-D image held as an array of rows.
#![cfg_attr(not(target_os = "linux"), feature(abi_gpu_kernel, rustc_attrs, stdarch_nvptx))]
#![cfg_attr(not(target_os = "linux"), no_std, no_main)]
#![cfg_attr(target_os = "linux", feature(core_intrinsics))]
#![allow(internal_features)]

pub const N: usize = 4096;
pub const W: usize = 64;
pub const H: usize = 64;
pub type Tile = [f32; N];

#[cfg(not(target_os = "linux"))]
use core::sync::atomic::{AtomicU32, Ordering};

#[cfg(not(target_os = "linux"))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}

#[cfg(not(target_os = "linux"))]
fn gx() -> usize {
    use core::arch::nvptx::{_block_dim_x, _block_idx_x, _thread_idx_x};
    unsafe { (_block_idx_x() * _block_dim_x() + _thread_idx_x()) as usize }
}

#[cfg(not(target_os = "linux"))]
fn gy() -> usize {
    use core::arch::nvptx::{_block_dim_y, _block_idx_y, _thread_idx_y};
    unsafe { (_block_idx_y() * _block_dim_y() + _thread_idx_y()) as usize }
}

#[cfg(target_os = "linux")]
unsafe extern "C" {
    fn histogram(x: &[u32; N], bins: &mut [core::sync::atomic::AtomicU32; 256]);
    fn pairs(y: &mut [f32; N]);
    fn halve(img: &[[f32; W]; H], out: &mut [[f32; W]; H]);
}

//@ case: correct
// The host spells the atomic with its path, the device imports it: the same type.
#[cfg(not(target_os = "linux"))]
#[rustc_offload_kernel]
pub extern "gpu-kernel" fn histogram(x: &[u32; N], bins: &mut [AtomicU32; 256]) {
    let i = gx();
    if i < N {
        bins[(x[i] & 255) as usize].fetch_add(1, Ordering::Relaxed);
    }
}

//@ case: correct
// The kernel takes the alias `Tile`, the declaration its array: the same type, 4096 elements;
// two elements per thread under `i < N / 2`.
#[cfg(not(target_os = "linux"))]
#[rustc_offload_kernel]
pub extern "gpu-kernel" fn pairs(y: &mut crate::Tile) {
    let i = gx();
    if i < N / 2 {
        y[2 * i] = 0.0;
        y[2 * i + 1] = 1.0;
    }
}

//@ case: correct
// A 2-D image as an array of rows: `out[y][x]` with both indexes from the 2-D launch.
#[cfg(not(target_os = "linux"))]
#[rustc_offload_kernel]
pub extern "gpu-kernel" fn halve(img: &[[f32; W]; H], out: &mut [[f32; W]; H]) {
    let (x, y) = (gx(), gy());
    if x < W && y < H {
        out[y][x] = img[y][x] * 0.5;
    }
}

#[cfg(target_os = "linux")]
fn main() {
    let x = [0u32; N];
    let bins: [core::sync::atomic::AtomicU32; 256] = [const { core::sync::atomic::AtomicU32::new(0) }; 256];
    let mut bins = bins;
    let mut y = [0.0f32; N];
    let img = [[1.0f32; W]; H];
    let mut out = [[0.0f32; W]; H];
    unsafe {
        core::intrinsics::offload(histogram, [16, 1, 1], [256, 1, 1], (&x, &mut bins));
        core::intrinsics::offload(pairs, [8, 1, 1], [256, 1, 1], (&mut y,));
        core::intrinsics::offload(halve, [4, 4, 1], [16, 16, 1], (&img, &mut out));
    }
}
