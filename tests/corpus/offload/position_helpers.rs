//! Kernels in today's spelling that read the thread's position through small helpers of the
//! crate (`global_x()`, `global_xy()`-style functions over `core::arch::nvptx`), as kernel
//! crates written against the verbose intrinsics usually do.

#![feature(gpu_offload)]
#![cfg_attr(target_arch = "nvptx64", feature(abi_gpu_kernel, stdarch_nvptx))]
#![cfg_attr(target_arch = "nvptx64", no_std, no_main)]

use core::offload::offload_kernel;

#[cfg(target_arch = "nvptx64")]
use core::arch::nvptx::{_block_dim_x, _block_dim_y, _block_idx_x, _block_idx_y, _thread_idx_x, _thread_idx_y};

pub const N: usize = 50_000;
pub const W: usize = 300;
pub const H: usize = 200;

/// This thread's position in a 1-D launch.
#[inline(always)]
fn global_x() -> usize {
    unsafe { (_block_idx_x() * _block_dim_x() + _thread_idx_x()) as usize }
}

/// This thread's row in a 2-D launch.
#[inline(always)]
fn global_y() -> usize {
    let y = unsafe { _block_idx_y() * _block_dim_y() + _thread_idx_y() };
    return y as usize;
}

//@ case: correct
// Scales the array: the position from the helper is checked against N first.
#[offload_kernel]
pub fn scale(a: f32, x: &mut [f32; N]) {
    let i = global_x();
    if i < N {
        x[i] *= a;
    }
}

//@ case: correct
// A 2-D grid over a W x H image: both helper coordinates are checked before the row-major index.
#[offload_kernel]
pub fn brighten(img: &mut [f32; W * H], by: f32) {
    let (x, y) = (global_x(), global_y());
    if x < W && y < H {
        img[y * W + x] += by;
    }
}

//@ case: hazard unchecked_thread_index
// Copies x into y with the helper's position and no check: the last workgroup's extra threads write past N.
#[offload_kernel]
pub fn copy(x: &[f32; N], y: &mut [f32; N]) {
    let i = global_x();
    y[i] = x[i]; //~ WARN unchecked_thread_index //~ WARN unchecked_thread_index
}

#[cfg(not(target_arch = "nvptx64"))]
pub fn run(x: &[f32; N], y: &mut [f32; N]) {
    core::offload::offload! {
        kernel = copy,
        workgroup_dim = [(N as u32).div_ceil(256), 1, 1],
        thread_dim = [256, 1, 1],
        args = (x, y),
    }
}
