//! Dense linear algebra with nightly `core::offload`: matrix-vector and matrix-matrix products
//! on row-major `[f32; ROWS * COLS]` arrays, and an in-place scaling with a grid-stride loop.
#![feature(gpu_offload)]
#![cfg_attr(target_arch = "nvptx64", feature(abi_gpu_kernel, stdarch_nvptx))]
#![cfg_attr(target_arch = "nvptx64", no_std, no_main)]

use core::offload::{offload, offload_kernel};

#[cfg(target_arch = "nvptx64")]
use core::arch::nvptx::{
    _block_dim_x, _block_dim_y, _block_idx_x, _block_idx_y, _grid_dim_x, _thread_idx_x, _thread_idx_y,
};

/// A is M x K, B is K x P, C is M x P (row-major).
const M: usize = 2048;
const K: usize = 512;
const P: usize = 1024;
const THREADS: u32 = 128;

#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}

//@ case: correct
// GEMV y = A x, one row per thread; rows past M return before touching memory.
#[offload_kernel]
fn gemv(a: &[f32; M * K], x: &[f32; K], y: &mut [f32; M]) {
    let row = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    if row >= M {
        return;
    }
    let mut acc = 0.0f32;
    for k in 0..K {
        acc += a[row * K + k] * x[k];
    }
    y[row] = acc;
}

#[cfg(not(target_arch = "nvptx64"))]
fn mat_vec(a: &[f32; M * K], x: &[f32; K], y: &mut [f32; M]) {
    offload! {
        kernel = gemv,
        workgroup_dim = [(M as u32).div_ceil(THREADS), 1, 1],
        thread_dim = [THREADS, 1, 1],
        args = (a, x, y),
    }
}

//@ case: correct
// In-place scaling with a grid-stride loop: 264 workgroups walk all M * K entries, `while idx < M * K`.
#[offload_kernel]
fn scale_strided(alpha: f32, a: &mut [f32; M * K]) {
    let mut idx = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    let stride = unsafe { _grid_dim_x() * _block_dim_x() } as usize;
    while idx < M * K {
        a[idx] *= alpha;
        idx += stride;
    }
}

#[cfg(not(target_arch = "nvptx64"))]
fn scale(alpha: f32, a: &mut [f32; M * K]) {
    offload! {
        kernel = scale_strided,
        workgroup_dim = [264, 1, 1],
        thread_dim = [256, 1, 1],
        args = (alpha, a),
    }
}

//@ case: correct
// GEMM C = A B on a 2-D launch of 16 x 16 tiles: `row < M && col < P` guards `row * P + col`.
#[offload_kernel]
fn gemm(a: &[f32; M * K], b: &[f32; K * P], c: &mut [f32; M * P]) {
    let col = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    let row = unsafe { _block_idx_y() * _block_dim_y() + _thread_idx_y() } as usize;
    if row < M && col < P {
        let mut acc = 0.0f32;
        for k in 0..K {
            acc += a[row * K + k] * b[k * P + col];
        }
        c[row * P + col] = acc;
    }
}

#[cfg(not(target_arch = "nvptx64"))]
fn mat_mul(a: &[f32; M * K], b: &[f32; K * P], c: &mut [f32; M * P]) {
    offload! {
        kernel = gemm,
        workgroup_dim = [(P / 16) as u32, (M / 16) as u32, 1],
        thread_dim = [16, 16, 1],
        args = (a, b, c),
    }
}

//@ case: hazard host_only_api_in_kernel
// GEMV with a debugging `println!` left in: the device build has no `std` and no stdout.
#[offload_kernel]
fn gemv_traced(a: &[f32; M * K], x: &[f32; K], y: &mut [f32; M]) {
    let row = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    if row < M {
        let mut acc = 0.0f32;
        for k in 0..K {
            acc += a[row * K + k] * x[k];
        }
        y[row] = acc;
        if row == 0 {
            println!("gemv: y[0] = {acc}"); //~ ERROR host_only_api_in_kernel
        }
    }
}

#[cfg(not(target_arch = "nvptx64"))]
fn mat_vec_traced(a: &[f32; M * K], x: &[f32; K], y: &mut [f32; M]) {
    offload! {
        kernel = gemv_traced,
        workgroup_dim = [(M as u32).div_ceil(THREADS), 1, 1],
        thread_dim = [THREADS, 1, 1],
        args = (a, x, y),
    }
}

//@ case: hazard heap_owning_kernel_arg
// GEMV taking `x: &Vec<f32>`: only the Vec's header is copied, the kernel reads through a host address.
#[offload_kernel]
fn gemv_vec(a: &[f32; M * K], x: &Vec<f32>, y: &mut [f32; M]) { //~ ERROR heap_owning_kernel_arg
    let row = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    if row < M {
        let mut acc = 0.0f32;
        for k in 0..K {
            acc += a[row * K + k] * x[k];
        }
        y[row] = acc;
    }
}

#[cfg(not(target_arch = "nvptx64"))]
fn mat_vec_dyn(a: &[f32; M * K], x: &Vec<f32>, y: &mut [f32; M]) {
    offload! {
        kernel = gemv_vec,
        workgroup_dim = [(M as u32).div_ceil(THREADS), 1, 1],
        thread_dim = [THREADS, 1, 1],
        args = (a, x, y),
    }
}

// ------------------------------------------------------------------ host driver

#[cfg(not(target_arch = "nvptx64"))]
fn matrix<const L: usize>(f: impl Fn(usize) -> f32) -> Box<[f32; L]> {
    let v: Vec<f32> = (0..L).map(f).collect();
    match v.into_boxed_slice().try_into() {
        Ok(b) => b,
        Err(_) => unreachable!("length is L by construction"),
    }
}

#[cfg(not(target_arch = "nvptx64"))]
fn main() {
    let mut a = matrix::<{ M * K }>(|k| ((k % 17) as f32 - 8.0) * 0.125);
    let b = matrix::<{ K * P }>(|k| if k % (P + 1) == 0 { 1.0 } else { 0.0 });
    let x: Vec<f32> = (0..K).map(|k| 1.0 / (k + 1) as f32).collect();
    let x_arr: [f32; K] = x.as_slice().try_into().expect("K entries");
    let mut y = [0.0f32; M];

    mat_vec(&a, &x_arr, &mut y);
    mat_vec_traced(&a, &x_arr, &mut y);
    mat_vec_dyn(&a, &x, &mut y);
    scale(0.5, &mut a);
    let mut c = matrix::<{ M * P }>(|_| 0.0);
    mat_mul(&a, &b, &mut c);

    let host_y0: f32 = (0..K).map(|k| 2.0 * a[k] * x[k]).sum();
    println!("y[0] = {} (host {host_y0}), c[0] = {}, c[P + 1] = {}", y[0], c[0], c[P + 1]);
}
