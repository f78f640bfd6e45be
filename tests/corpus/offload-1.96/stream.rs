//! RAJAPerf "Stream" group (DAXPY, TRIAD, COPY, ADD, DOT) ported to rustc 1.96's GPU offload.
//!
//! The file is compiled twice: the device pass for `nvptx64-nvidia-cuda` (target_os = "cuda")
//! keeps the `#[rustc_offload_kernel] extern "gpu-kernel"` kernels; the host pass (Linux) keeps
//! the `unsafe extern "C"` declarations, the launches through `core::intrinsics::offload` and
//! `main`. Arrays travel as `&[T; N]` (mapped "to") and `&mut [T; N]` (mapped "tofrom");
//! scalars as `&f64`, because by-value scalars arrive corrupted with rustc 1.96.
#![cfg_attr(not(target_os = "linux"), feature(abi_gpu_kernel, rustc_attrs, stdarch_nvptx))]
#![cfg_attr(not(target_os = "linux"), no_std, no_main)]
#![cfg_attr(target_os = "linux", feature(core_intrinsics))]
#![allow(internal_features)]

#[cfg(not(target_os = "linux"))]
use core::arch::nvptx::{_block_dim_x, _block_idx_x, _thread_idx_x};

/// RAJAPerf's default problem size for the stream kernels.
pub const N: usize = 1_000_000;
/// Threads per workgroup.
pub const BLOCK: u32 = 256;
/// Workgroups for N elements, rounded up: the last workgroup is partly idle.
pub const WORKGROUPS: u32 = (N as u32).div_ceil(BLOCK);
/// Per-thread partial sums of the two-pass dot product.
pub const NPART: usize = 16 * 1024;

pub type Real = f64;

#[cfg(not(target_os = "linux"))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}

//@ case: correct
// DAXPY y += a*x: global index from block/thread intrinsics, bounded by `if i < N`.
#[cfg(target_os = "linux")]
unsafe extern "C" {
    fn daxpy(a: &f64, x: &[f64; N], y: &mut [f64; N]);
}

#[cfg(not(target_os = "linux"))]
#[unsafe(no_mangle)]
#[rustc_offload_kernel]
pub extern "gpu-kernel" fn daxpy(a: &f64, x: &[f64; N], y: &mut [f64; N]) {
    let i = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    if i < N {
        y[i] += *a * x[i];
    }
}

#[cfg(target_os = "linux")]
#[inline(never)]
fn run_daxpy(a: &f64, x: &[f64; N], y: &mut [f64; N]) {
    core::intrinsics::offload(daxpy, [WORKGROUPS, 1, 1], [BLOCK, 1, 1], (a, x, y))
}

//@ case: correct
// TRIAD a = b + q*c: the idle tail threads leave through an early return before any access.
#[cfg(target_os = "linux")]
unsafe extern "C" {
    fn triad(a: &mut [f64; N], b: &[f64; N], c: &[f64; N], q: &f64);
}

#[cfg(not(target_os = "linux"))]
#[unsafe(no_mangle)]
#[rustc_offload_kernel]
pub extern "gpu-kernel" fn triad(a: &mut [f64; N], b: &[f64; N], c: &[f64; N], q: &f64) {
    let i = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    if i >= N {
        return;
    }
    a[i] = b[i] + *q * c[i];
}

#[cfg(target_os = "linux")]
#[inline(never)]
fn run_triad(a: &mut [f64; N], b: &[f64; N], c: &[f64; N], q: &f64) {
    core::intrinsics::offload(triad, [WORKGROUPS, 1, 1], [BLOCK, 1, 1], (a, b, c, q))
}

//@ case: correct
// DOT, pass 1: NPART threads each sum a strided slice into their own partial[t].
#[cfg(target_os = "linux")]
unsafe extern "C" {
    fn dot_partial(a: &[f64; N], b: &[f64; N], partial: &mut [f64; NPART]);
}

#[cfg(not(target_os = "linux"))]
#[unsafe(no_mangle)]
#[rustc_offload_kernel]
pub extern "gpu-kernel" fn dot_partial(a: &[f64; N], b: &[f64; N], partial: &mut [f64; NPART]) {
    let t = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    if t < NPART {
        let mut acc = 0.0;
        let mut k = t;
        while k < N {
            acc += a[k] * b[k];
            k += NPART;
        }
        partial[t] = acc;
    }
}

#[cfg(target_os = "linux")]
#[inline(never)]
fn run_dot_partial(a: &[f64; N], b: &[f64; N], partial: &mut [f64; NPART]) {
    core::intrinsics::offload(dot_partial, [NPART as u32 / BLOCK, 1, 1], [BLOCK, 1, 1], (a, b, partial))
}

//@ case: correct
// DOT, pass 2: a single-thread launch ([1,1,1] x [1,1,1]) folds the partials into dot[0].
#[cfg(target_os = "linux")]
unsafe extern "C" {
    fn dot_final(partial: &[f64; NPART], dot: &mut [f64; 1]);
}

#[cfg(not(target_os = "linux"))]
#[unsafe(no_mangle)]
#[rustc_offload_kernel]
pub extern "gpu-kernel" fn dot_final(partial: &[f64; NPART], dot: &mut [f64; 1]) {
    let mut acc = 0.0;
    for t in 0..NPART {
        acc += partial[t];
    }
    dot[0] = acc;
}

#[cfg(target_os = "linux")]
#[inline(never)]
fn run_dot_final(partial: &[f64; NPART], dot: &mut [f64; 1]) {
    core::intrinsics::offload(dot_final, [1, 1, 1], [1, 1, 1], (partial, dot))
}

//@ case: hazard raw_pointer_kernel_param
// COPY through `c: *mut Real`: the host maps ONE Real (8 bytes), every other thread writes past it.
#[cfg(target_os = "linux")]
unsafe extern "C" {
    fn stream_copy(a: &[Real; N], c: *mut Real);
}

#[cfg(not(target_os = "linux"))]
#[unsafe(no_mangle)]
#[rustc_offload_kernel]
pub extern "gpu-kernel" fn stream_copy(a: &[Real; N], c: *mut Real) { //~ WARN raw_pointer_kernel_param
    let i = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    if i < N {
        unsafe { *c.add(i) = a[i] }; //~ WARN unsafe_in_kernel
    }
}

#[cfg(target_os = "linux")]
#[inline(never)]
fn run_copy(a: &[Real; N], c: &mut [Real; N]) {
    core::intrinsics::offload(stream_copy, [WORKGROUPS, 1, 1], [BLOCK, 1, 1], (a, c.as_mut_ptr()))
}

//@ case: hazard unindexed_kernel_write
// Naive DOT: every one of the million threads adds into the same `*dot`, updates are lost.
#[cfg(target_os = "linux")]
unsafe extern "C" {
    fn dot_naive(a: &[f64; N], b: &[f64; N], dot: &mut f64);
}

#[cfg(not(target_os = "linux"))]
#[unsafe(no_mangle)]
#[rustc_offload_kernel]
pub extern "gpu-kernel" fn dot_naive(a: &[f64; N], b: &[f64; N], dot: &mut f64) {
    let i = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    if i < N {
        *dot += a[i] * b[i]; //~ WARN unindexed_kernel_write
    }
}

#[cfg(target_os = "linux")]
#[inline(never)]
fn run_dot_naive(a: &[f64; N], b: &[f64; N], dot: &mut f64) {
    core::intrinsics::offload(dot_naive, [WORKGROUPS, 1, 1], [BLOCK, 1, 1], (a, b, dot))
}

//@ case: hazard kernel_decl_mismatch
// ADD: the host declares `c` as a slice, the device kernel takes `&mut [f64; N]` (a thin pointer).
#[cfg(target_os = "linux")]
unsafe extern "C" {
    fn stream_add(a: &[f64; N], b: &[f64; N], c: &mut [f64]); //~ ERROR kernel_decl_mismatch
}

#[cfg(not(target_os = "linux"))]
#[unsafe(no_mangle)]
#[rustc_offload_kernel]
pub extern "gpu-kernel" fn stream_add(a: &[f64; N], b: &[f64; N], c: &mut [f64; N]) {
    let i = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    if i < N {
        c[i] = a[i] + b[i];
    }
}

#[cfg(target_os = "linux")]
#[inline(never)]
fn run_add(a: &[f64; N], b: &[f64; N], c: &mut [f64]) {
    core::intrinsics::offload(stream_add, [WORKGROUPS, 1, 1], [BLOCK, 1, 1], (a, b, c))
}

//@ case: hazard unchecked_thread_index
// Abscissae of the quadrature: the guard compares with PADDED (1024), but `x` holds 1000 values.
pub const N_NODES: usize = 1000;
pub const PADDED: usize = 1024;

#[cfg(target_os = "linux")]
unsafe extern "C" {
    fn linspace(x0: &f64, h: &f64, x: &mut [f64; N_NODES]);
}

#[cfg(not(target_os = "linux"))]
#[unsafe(no_mangle)]
#[rustc_offload_kernel]
pub extern "gpu-kernel" fn linspace(x0: &f64, h: &f64, x: &mut [f64; N_NODES]) {
    let i = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    if i < PADDED {
        x[i] = *x0 + (i as f64) * *h; //~ WARN unchecked_thread_index
    }
}

#[cfg(target_os = "linux")]
#[inline(never)]
fn run_linspace(x0: &f64, h: &f64, x: &mut [f64; N_NODES]) {
    core::intrinsics::offload(linspace, [PADDED as u32 / BLOCK, 1, 1], [BLOCK, 1, 1], (x0, h, x))
}

//@ case: hazard unsafe_in_kernel
// MUL-style scaling through `y.as_mut_ptr()` to skip the bounds check: a raw write where `y[i]` would do.
#[cfg(target_os = "linux")]
unsafe extern "C" {
    fn scale_in_place(q: &f64, y: &mut [f64; N]);
}

#[cfg(not(target_os = "linux"))]
#[unsafe(no_mangle)]
#[rustc_offload_kernel]
pub extern "gpu-kernel" fn scale_in_place(q: &f64, y: &mut [f64; N]) {
    let i = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    if i < N {
        let p = y.as_mut_ptr();
        unsafe { *p.add(i) *= *q }; //~ WARN unsafe_in_kernel
    }
}

#[cfg(target_os = "linux")]
#[inline(never)]
fn run_scale(q: &f64, y: &mut [f64; N]) {
    core::intrinsics::offload(scale_in_place, [WORKGROUPS, 1, 1], [BLOCK, 1, 1], (q, y))
}

//@ case: correct
// COPY with one explicit bounds check, then `get_unchecked` inside it (the `unsafe` covers only those calls).
#[cfg(target_os = "linux")]
unsafe extern "C" {
    fn copy_checked_once(a: &[f64; N], c: &mut [f64; N]);
}

#[cfg(not(target_os = "linux"))]
#[unsafe(no_mangle)]
#[rustc_offload_kernel]
pub extern "gpu-kernel" fn copy_checked_once(a: &[f64; N], c: &mut [f64; N]) {
    let i = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    if i < N {
        unsafe { *c.get_unchecked_mut(i) = *a.get_unchecked(i) };
    }
}

#[cfg(target_os = "linux")]
#[inline(never)]
fn run_copy_checked_once(a: &[f64; N], c: &mut [f64; N]) {
    core::intrinsics::offload(copy_checked_once, [WORKGROUPS, 1, 1], [BLOCK, 1, 1], (a, c))
}

// ------------------------------------------------------------------ host driver

#[cfg(target_os = "linux")]
fn boxed<T: Copy, const L: usize>(f: impl Fn(usize) -> T) -> Box<[T; L]> {
    let v: Vec<T> = (0..L).map(f).collect();
    match v.into_boxed_slice().try_into() {
        Ok(b) => b,
        Err(_) => unreachable!("length is L by construction"),
    }
}

#[cfg(target_os = "linux")]
fn main() {
    let a = 0.5f64;
    let q = 3.0f64;
    let x: Box<[f64; N]> = boxed(|i| (i % 17) as f64);
    let mut y: Box<[f64; N]> = boxed(|_| 1.0);
    run_daxpy(&a, &x, &mut y);

    let mut t: Box<[f64; N]> = boxed(|_| 0.0);
    run_triad(&mut t, &x, &y, &q);

    let mut partial: Box<[f64; NPART]> = boxed(|_| 0.0);
    let mut dot = [0.0f64; 1];
    run_dot_partial(&x, &y, &mut partial);
    run_dot_final(&partial, &mut dot);

    let mut c: Box<[Real; N]> = boxed(|_| 0.0);
    run_copy(&x, &mut c);
    run_copy_checked_once(&y, &mut c);
    let mut naive = 0.0f64;
    run_dot_naive(&x, &y, &mut naive);
    run_add(&x, &y, &mut c[..]);

    let mut nodes = [0.0f64; N_NODES];
    run_linspace(&0.0, &(1.0 / (N_NODES - 1) as f64), &mut nodes);
    run_scale(&q, &mut y);

    let checks: Vec<(&str, f64)> = vec![("dot", dot[0]), ("naive dot", naive), ("c[7]", c[7])];
    for (name, value) in &checks {
        println!("{name:>10} = {value:.6e}");
    }
    println!("t[N-1] = {}, nodes[999] = {}", t[N - 1], nodes[N_NODES - 1]);
}
