//! The front end's own file (ZuseZ4-style `frontend.rs`): it defines the `offload!` macro it
//! launches with, whose fields are `grid_dim` / `block_dim`, around the offload intrinsic.
//! A bare `offload!` here calls this macro, not `core::offload::offload!`.
#![feature(gpu_offload, core_intrinsics)]
#![cfg_attr(target_arch = "nvptx64", feature(abi_gpu_kernel, stdarch_nvptx))]
#![cfg_attr(target_arch = "nvptx64", no_std, no_main)]

use core::offload::offload_kernel;

#[cfg(target_arch = "nvptx64")]
use core::arch::nvptx::{_block_dim_x, _block_idx_x, _thread_idx_x};

#[macro_export]
macro_rules! offload {
    (kernel = $k:expr, grid_dim = $g:expr, block_dim = $b:expr, args = $a:expr $(,)?) => {
        core::intrinsics::offload::<_, _, ()>($k, $g, $b, $a)
    };
}

const N: usize = 4096;

//@ case: correct
// Scales a vector through the file's own macro: `grid_dim` / `block_dim` are its fields, and the kernel guards its index.
#[offload_kernel]
fn scale(x: &mut [f32; N], a: f32) {
    #[cfg(target_arch = "nvptx64")]
    {
        let i = unsafe { (_block_idx_x() * _block_dim_x() + _thread_idx_x()) as usize };
        if i < N {
            x[i] *= a;
        }
    }
}

#[cfg(not(target_arch = "nvptx64"))]
pub fn run(x: &mut [f32; N]) {
    offload! {
        kernel = scale,
        grid_dim = [(N as u32).div_ceil(256), 1, 1],
        block_dim = [256, 1, 1],
        args = (x, 2.0f32),
    };
}
