//! A kernel crate built on an offload front-end crate whose own `offload!` macro wraps
//! `core::intrinsics::offload` and names the launch shape `grid_dim` / `block_dim` (as the
//! front end of rustc's offload author does): that macro is not `core::offload::offload!`,
//! so its fields are the front end's, not core's.
#![feature(gpu_offload)]
#![cfg_attr(target_arch = "nvptx64", feature(abi_gpu_kernel, stdarch_nvptx))]
#![cfg_attr(target_arch = "nvptx64", no_std, no_main)]

use core::offload::offload_kernel;
#[cfg(not(target_arch = "nvptx64"))]
use offload_frontend::offload;

#[cfg(target_arch = "nvptx64")]
use core::arch::nvptx::{_block_dim_x, _block_idx_x, _thread_idx_x};

const SAMPLES: usize = 1 << 16;
const THREADS: u32 = 128;
const BLOCKS: u32 = (SAMPLES as u32) / THREADS;

#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}

#[cfg(target_arch = "nvptx64")]
fn sample() -> usize {
    unsafe { (_block_idx_x() * _block_dim_x() + _thread_idx_x()) as usize }
}

//@ case: correct
// The front end's launch: grid_dim / block_dim are its fields.
#[offload_kernel]
fn gain(g: &f32, signal: &mut [f32; SAMPLES]) {
    let i = sample();
    if i < SAMPLES {
        signal[i] *= *g;
    }
}

#[cfg(not(target_arch = "nvptx64"))]
fn amplify(g: &f32, signal: &mut [f32; SAMPLES]) {
    offload! {
        kernel = gain,
        grid_dim = [BLOCKS, 1, 1],
        block_dim = [THREADS, 1, 1],
        args = (g, signal),
    };
}

//@ case: hazard malformed_offload_launch
// core's macro by its full path is still checked in the same file.
#[offload_kernel]
fn offset(d: &f32, signal: &mut [f32; SAMPLES]) {
    let i = sample();
    if i < SAMPLES {
        signal[i] += *d;
    }
}

#[cfg(not(target_arch = "nvptx64"))]
fn shift(d: &f32, signal: &mut [f32; SAMPLES]) {
    core::offload::offload! {
        kernel = offset,
        grid_dim = [BLOCKS, 1, 1], //~ ERROR malformed_offload_launch
        thread_dim = [THREADS, 1, 1],
        args = (d, signal),
    };
}

#[cfg(not(target_arch = "nvptx64"))]
fn main() {}
