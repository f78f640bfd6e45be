//! Kernels in today's upstream spelling (rust-lang/rust #131513, nightly with the `offload`
//! component): `#[offload_kernel]` functions, one generic, launched with
//! `core::offload::offload!`, and `cfg(device)` for what only the device pass (or only the host
//! pass) compiles, as rustc's run-make offload tests write it.
//!
//! The same file builds with Debian's rustc 1.96, which has none of this: `offload-ls build`
//! lowers it into `target/offload-ls/lowered/upstream-offload/` (docs/upstream-offload.md).
//! Each kernel handles ONE element per GPU thread behind a bounds guard; on a machine without a
//! GPU the host image runs each launch's grid one thread at a time.
#![feature(gpu_offload, rustc_attrs)]
#![cfg_attr(target_arch = "nvptx64", feature(stdarch_nvptx))]
#![cfg_attr(device, no_std)]
#![cfg_attr(device, no_main)]
#![allow(internal_features)]

#[cfg(target_arch = "nvptx64")]
use core::arch::nvptx::{_block_dim_x, _block_dim_y, _block_idx_x, _block_idx_y, _thread_idx_x, _thread_idx_y};
use core::offload::offload_kernel;

/// Elements of the 1-D arrays (not a multiple of BLOCK: the last workgroup is partly idle).
pub const N: usize = 100_000;
/// Threads per workgroup of the 1-D launches.
pub const BLOCK: u32 = 256;
/// Grid of the stencil: NX x NY points, TILE x TILE threads per workgroup.
pub const NX: usize = 256;
pub const NY: usize = 192;
pub const TILE: u32 = 16;

#[cfg(device)]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}

/// This thread's position in the launch, (x, y).
#[cfg(device)]
#[inline(always)]
fn global_xy() -> (usize, usize) {
    unsafe {
        (
            (_block_idx_x() * _block_dim_x() + _thread_idx_x()) as usize,
            (_block_idx_y() * _block_dim_y() + _thread_idx_y()) as usize,
        )
    }
}

/// y = a*x + y.
#[offload_kernel]
pub fn saxpy(a: f32, x: &[f32; N], y: &mut [f32; N]) {
    let (i, _) = global_xy();
    if i < N {
        y[i] = a * x[i] + y[i];
    }
}

/// x = a*x for any number type: instantiated by its launches (`scale::<f32>`, `scale::<f64>`).
#[offload_kernel]
pub fn scale<T: Copy + core::ops::Mul<Output = T>>(a: T, x: &mut [T; N]) {
    let (i, _) = global_xy();
    if i < N {
        x[i] = a * x[i];
    }
}

/// One Jacobi sweep of the 5-point Laplace stencil on the interior of an NX x NY grid (row-major).
#[offload_kernel]
pub fn jacobi(u: &[f32; NX * NY], next: &mut [f32; NX * NY]) {
    let (x, y) = global_xy();
    if x > 0 && x < NX - 1 && y > 0 && y < NY - 1 {
        let c = y * NX + x;
        next[c] = 0.25 * (u[c - 1] + u[c + 1] + u[c - NX] + u[c + NX]);
    }
}

/// A heap array of M elements, element i = f(i).
#[cfg(not(device))]
fn boxed<T, const M: usize>(f: impl Fn(usize) -> T) -> Box<[T; M]> {
    let v: Vec<T> = (0..M).map(f).collect();
    match v.into_boxed_slice().try_into() {
        Ok(b) => b,
        Err(_) => unreachable!("length is M by construction"),
    }
}

/// Compare with the host's reference; print one line; true if every element is within `tol`.
#[cfg(not(device))]
fn verify(name: &str, got: &[f64], want: &[f64], tol: f64) -> bool {
    let bad: Vec<usize> = (0..want.len()).filter(|&i| (got[i] - want[i]).abs() > tol * want[i].abs().max(1.0)).collect();
    match bad.first() {
        None => println!("OK {name}: {} elements", want.len()),
        Some(&i) => println!("FAIL {name}: {} of {} wrong, first at [{i}]: got {}, expected {}", bad.len(), want.len(), got[i], want[i]),
    }
    bad.is_empty()
}

#[cfg(not(device))]
fn main() {
    let mut ok = true;
    let groups = (N as u32).div_ceil(BLOCK);

    let a = 2.5f32;
    let x: Box<[f32; N]> = boxed(|i| (i % 1000) as f32 * 0.001);
    let mut y: Box<[f32; N]> = boxed(|i| 1.0 - (i % 7) as f32);
    let want: Vec<f64> = (0..N).map(|i| (a * x[i] + y[i]) as f64).collect();
    core::offload::offload! {
        kernel = saxpy,
        workgroup_dim = [groups, 1, 1],
        thread_dim = [BLOCK, 1, 1],
        args = (a, &*x, &mut *y),
    }
    ok &= verify("saxpy", &y.iter().map(|&v| v as f64).collect::<Vec<_>>(), &want, 1e-6);

    let mut s32: Box<[f32; N]> = boxed(|i| i as f32 * 0.5);
    let mut s64: Box<[f64; N]> = boxed(|i| (i as f64).sqrt());
    let want32: Vec<f64> = (0..N).map(|i| (3.0f32 * (i as f32 * 0.5)) as f64).collect();
    let want64: Vec<f64> = (0..N).map(|i| -0.75 * (i as f64).sqrt()).collect();
    core::offload::offload! {
        kernel = scale::<f32>,
        workgroup_dim = [groups, 1, 1],
        thread_dim = [BLOCK, 1, 1],
        args = (3.0f32, &mut *s32),
    }
    core::offload::offload! {
        kernel = scale::<f64>,
        workgroup_dim = [groups, 1, 1],
        thread_dim = [BLOCK, 1, 1],
        args = (-0.75f64, &mut *s64),
    }
    ok &= verify("scale::<f32>", &s32.iter().map(|&v| v as f64).collect::<Vec<_>>(), &want32, 1e-6);
    ok &= verify("scale::<f64>", &s64[..], &want64, 1e-12);

    let u: Box<[f32; NX * NY]> = boxed(|c| ((c % NX) * (c / NX) % 17) as f32);
    let mut next: Box<[f32; NX * NY]> = boxed(|c| u[c]);
    let want: Vec<f64> = (0..NX * NY)
        .map(|c| {
            let (x, y) = (c % NX, c / NX);
            if x > 0 && x < NX - 1 && y > 0 && y < NY - 1 {
                (0.25 * (u[c - 1] + u[c + 1] + u[c - NX] + u[c + NX])) as f64
            } else {
                u[c] as f64
            }
        })
        .collect();
    core::offload::offload! {
        kernel = jacobi,
        workgroup_dim = [NX as u32 / TILE, NY as u32 / TILE, 1],
        thread_dim = [TILE, TILE, 1],
        args = (&*u, &mut *next),
    }
    ok &= verify("jacobi", &next.iter().map(|&v| v as f64).collect::<Vec<_>>(), &want, 1e-6);

    if !ok {
        std::process::exit(1);
    }
}
