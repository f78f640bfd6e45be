//! BLAS-1 / STREAM vector kernels with nightly `core::offload`.
//!
//! `#[offload_kernel]` turns each kernel into an `unsafe extern "gpu-kernel"` function for the
//! device pass (nvptx64) and into a host stub; `core::offload::offload!` launches it. Scalars may
//! be passed by value (mapped as literals) or by reference; arrays as `&[T; N]` / `&mut [T; N]`.
#![feature(gpu_offload)]
#![cfg_attr(target_arch = "nvptx64", feature(abi_gpu_kernel, stdarch_nvptx))]
#![cfg_attr(target_arch = "nvptx64", no_std, no_main)]

use core::offload::offload_kernel;

#[cfg(target_arch = "nvptx64")]
use core::arch::nvptx::{_block_dim_x, _block_idx_x, _thread_idx_x};

/// Vector length (a multiple of the workgroup size).
const N: usize = 1 << 20;
/// Threads per workgroup.
const THREADS: u32 = 256;
/// Workgroups that cover N elements exactly.
const WORKGROUPS: u32 = (N as u32) / THREADS;

#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}

//@ case: correct
// SAXPY with the scalar `a` passed by value; the global index is bounded by `if i < N`.
#[offload_kernel]
fn saxpy(a: f32, x: &[f32; N], y: &mut [f32; N]) {
    let i = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    if i < N {
        y[i] = a * x[i] + y[i];
    }
}

#[cfg(not(target_arch = "nvptx64"))]
fn run_saxpy(a: f32, x: &[f32; N], y: &mut [f32; N]) {
    core::offload::offload! {
        kernel = saxpy,
        workgroup_dim = [WORKGROUPS, 1, 1],
        thread_dim = [THREADS, 1, 1],
        args = (a, x, y),
    }
}

//@ case: correct
// Generic fill kernel, instantiated at the launch as `fill::<f32>`; idle threads return early.
#[offload_kernel]
fn fill<T: Copy>(value: T, out: &mut [T; N]) {
    let i = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    if i >= N {
        return;
    }
    out[i] = value;
}

#[cfg(not(target_arch = "nvptx64"))]
fn run_fill(value: f32, out: &mut [f32; N]) {
    core::offload::offload! {
        kernel = fill::<f32>,
        workgroup_dim = [WORKGROUPS, 1, 1],
        thread_dim = [THREADS, 1, 1],
        args = (value, out),
    }
}

//@ case: correct
// STREAM TRIAD, `q: &f64` by reference; exactly N threads, stated with `assert!(i < N)`.
#[offload_kernel]
fn triad(a: &mut [f64; N], b: &[f64; N], c: &[f64; N], q: &f64) {
    let i = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    assert!(i < N);
    a[i] = b[i] + *q * c[i];
}

#[cfg(not(target_arch = "nvptx64"))]
fn run_triad(a: &mut [f64; N], b: &[f64; N], c: &[f64; N], q: &f64) {
    core::offload::offload! {
        kernel = triad,
        workgroup_dim = [WORKGROUPS, 1, 1],
        thread_dim = [THREADS, 1, 1],
        args = (a, b, c, q),
    }
}

//@ case: hazard raw_pointer_kernel_param
// In-place scaling through `x: *mut f32`: the runtime maps ONE f32, the other threads write past it.
#[offload_kernel]
fn scale_ptr(x: *mut f32, factor: f32) { //~ WARN raw_pointer_kernel_param
    let i = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    if i < N {
        unsafe { *x.add(i) *= factor }; //~ WARN unsafe_in_kernel
    }
}

#[cfg(not(target_arch = "nvptx64"))]
fn run_scale_ptr(x: &mut [f32; N], factor: f32) {
    core::offload::offload! {
        kernel = scale_ptr,
        workgroup_dim = [WORKGROUPS, 1, 1],
        thread_dim = [THREADS, 1, 1],
        args = (x.as_mut_ptr(), factor),
    }
}

//@ case: hazard launch_arg_mismatch
// `lerp` takes `t: f32`, the launch passes the literal `0.25f64`.
#[offload_kernel]
fn lerp(t: f32, x: &[f32; N], y: &mut [f32; N]) {
    let i = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    if i < N {
        y[i] = x[i] + t * (y[i] - x[i]);
    }
}

#[cfg(not(target_arch = "nvptx64"))]
fn run_lerp(x: &[f32; N], y: &mut [f32; N]) {
    core::offload::offload! {
        kernel = lerp,
        workgroup_dim = [WORKGROUPS, 1, 1],
        thread_dim = [THREADS, 1, 1],
        args = (0.25f64, x, y), //~ ERROR launch_arg_mismatch
    }
}

// ------------------------------------------------------------------ host driver

#[cfg(not(target_arch = "nvptx64"))]
fn boxed<T, const L: usize>(f: impl Fn(usize) -> T) -> Box<[T; L]> {
    let v: Vec<T> = (0..L).map(f).collect();
    match v.into_boxed_slice().try_into() {
        Ok(b) => b,
        Err(_) => unreachable!("length is L by construction"),
    }
}

#[cfg(not(target_arch = "nvptx64"))]
fn main() {
    let x: Box<[f32; N]> = boxed(|i| (i % 1000) as f32 * 1.0e-3);
    let mut y: Box<[f32; N]> = boxed(|_| 0.0);
    run_fill(1.0, &mut y);
    run_saxpy(2.5, &x, &mut y);
    run_scale_ptr(&mut y, 0.5);
    run_lerp(&x, &mut y);

    let b: Box<[f64; N]> = boxed(|i| i as f64 * 0.5);
    let c: Box<[f64; N]> = boxed(|i| 1.0 / (1.0 + i as f64));
    let mut a: Box<[f64; N]> = boxed(|_| 0.0);
    run_triad(&mut a, &b, &c, &3.25);

    let bad: Vec<usize> = (0..N).filter(|&i| a[i] != b[i] + 3.25 * c[i]).take(5).collect();
    println!("y[0..4] = {:?}, a[N-1] = {}", &y[..4], a[N - 1]);
    if bad.is_empty() {
        println!("triad OK");
    } else {
        println!("triad wrong at {bad:?}");
    }
}
