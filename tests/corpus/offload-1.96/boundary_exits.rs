//! 1-D stencils whose boundary points leave early: `if i >= N || i == 0 || i == N - 1`
//! returns on the first and the last point, so the interior reads `u[i - 1]` and `u[i + 1]`.
#![cfg_attr(not(target_os = "linux"), feature(abi_gpu_kernel, rustc_attrs, core_intrinsics, stdarch_nvptx))]
#![cfg_attr(not(target_os = "linux"), no_std, no_main)]
#![allow(internal_features)]

#[cfg(not(target_os = "linux"))]
use core::arch::nvptx::{_block_dim_x, _block_idx_x, _thread_idx_x};

pub const N: usize = 1 << 20;

#[cfg(not(target_os = "linux"))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}

//@ case: correct
// The exit on `i == N - 1` keeps `i + 1` below `N`.
#[cfg(not(target_os = "linux"))]
#[rustc_offload_kernel]
pub extern "gpu-kernel" fn laplace(u: &[f32; N], out: &mut [f32; N]) {
    let i = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    if i >= N || i == 0 || i == N - 1 {
        return;
    }
    out[i] = u[i - 1] - 2.0 * u[i] + u[i + 1];
}

//@ case: correct
// The same with the exits in two `if`s.
#[cfg(not(target_os = "linux"))]
#[rustc_offload_kernel]
pub extern "gpu-kernel" fn gradient(u: &[f32; N], out: &mut [f32; N]) {
    let i = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    if i >= N {
        return;
    }
    if i == 0 || i == N - 1 {
        out[i] = 0.0;
        return;
    }
    out[i] = 0.5 * (u[i + 1] - u[i - 1]);
}

//@ case: hazard unchecked_thread_index
// The exit is on the wrong point (`N - 2`): `i == N - 1` reads `u[N]`.
#[cfg(not(target_os = "linux"))]
#[rustc_offload_kernel]
pub extern "gpu-kernel" fn forward_diff(u: &[f32; N], out: &mut [f32; N]) {
    let i = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    if i >= N || i == N - 2 {
        return;
    }
    out[i] = u[i + 1] - u[i]; //~ WARN unchecked_thread_index
}

#[cfg(target_os = "linux")]
fn main() {}
