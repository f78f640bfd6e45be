//! A set of single-source GPU kernels for rustc's offload (`core::intrinsics::offload`,
//! `-Zoffload`, rust-lang/rust #131513), written the way offload-ls expects them: each
//! kernel is a plain function item (no `macro_rules!` wrapper), so offload-ls sees it.
//!
//! The file is compiled twice (`offload-ls build`; docs/offload-notes.md):
//!   * device pass, `--cfg offload_device`: `#![no_std]`, only the kernels. On nvptx64 a
//!     kernel is `#[rustc_offload_kernel] extern "gpu-kernel"` and handles ONE element per
//!     GPU thread, behind a bounds guard `if i < N`; on x86_64 (libomptarget's Virtual Host
//!     Device, which calls each kernel exactly once) it is `extern "C"` and loops over all
//!     indices.
//!   * host pass: a normal std binary; the kernels are `unsafe extern "C"` declarations,
//!     launched with `core::intrinsics::offload(k, [workgroups,1,1], [threads,1,1], (args,))`.
//!
//! Arrays are passed as `&[T; N]` (mapped "to") and `&mut [T; N]` (mapped "tofrom"), never as
//! slices: with rustc 1.96 a slice's length is dropped and nothing is copied
//! (docs/offload-notes.md, "What the host pass copies").
//!
//! Scalars (`a` of saxpy/daxpy, `q` of triad) are passed by reference, `&f32` / `&f64`
//! (mapped "to", 4 / 8 bytes). By value they arrive corrupted with rustc 1.96 + libomptarget 22:
//! the host pass gives a by-value scalar the kernel-launch map type 0x20 (TARGET_PARAM) without
//! 0x100 (LITERAL), so the runtime maps it like a pointer and the kernel receives
//! `value + (device address - host address)` (measured: 2.5f32 arrived as -1.06e-31,
//! -0.75f64 as -0.7449).
#![cfg_attr(all(offload_device, target_arch = "nvptx64"), feature(abi_gpu_kernel))]
#![cfg_attr(offload_device, feature(rustc_attrs))]
#![cfg_attr(not(offload_device), feature(core_intrinsics))]
#![cfg_attr(all(offload_device, target_arch = "nvptx64"), feature(stdarch_nvptx))]
#![cfg_attr(offload_device, no_std, no_main)]
#![allow(internal_features)]
// rustc's gpu-kernel ABI lint asks for primitives and raw pointers; with offload the host pass
// maps `&[T; N]` / `&mut [T; N]` by their types (docs/rules/raw_pointer_kernel_param.md)
#![allow(improper_gpu_kernel_arg)]

/// Elements per array (a multiple of BLOCK).
pub const N: usize = 1 << 16;
/// Elements of the guard test (NOT a multiple of BLOCK: the last workgroup is partly idle).
pub const N_ODD: usize = 50_000;
/// Threads per workgroup.
pub const BLOCK: u32 = 256;
/// FIR filter length.
pub const TAPS: usize = 16;

// ------------------------------------------------------------------ device side
#[cfg(offload_device)]
mod device {
    use super::{N, N_ODD, TAPS};
    #[cfg(target_arch = "nvptx64")]
    use core::arch::nvptx::{_block_dim_x, _block_idx_x, _thread_idx_x};

    #[panic_handler]
    fn panic(_: &core::panic::PanicInfo) -> ! {
        loop {}
    }

    // One element of each kernel; shared by the nvptx64 and the x86_64 kernels.

    #[inline(always)]
    fn saxpy_at(i: usize, a: f32, x: &[f32; N], y: &mut [f32; N]) {
        y[i] = a * x[i] + y[i];
    }

    #[inline(always)]
    fn daxpy_at(i: usize, a: f64, x: &[f64; N], y: &mut [f64; N]) {
        y[i] += a * x[i];
    }

    #[inline(always)]
    fn triad_at(i: usize, a: &mut [f64; N], b: &[f64; N], c: &[f64; N], q: f64) {
        a[i] = b[i] + q * c[i];
    }

    /// Causal FIR filter: out[i] = sum over k <= min(i, TAPS-1) of coeff[k] * x[i-k].
    #[inline(always)]
    fn fir_at(i: usize, coeff: &[f32; TAPS], x: &[f32; N], out: &mut [f32; N]) {
        let mut acc = 0.0f32;
        for k in 0..TAPS {
            if k <= i {
                acc += coeff[k] * x[i - k];
            }
        }
        out[i] = acc;
    }

    #[inline(always)]
    fn hash_at(i: usize, x: &[u32; N_ODD], out: &mut [u32; N_ODD]) {
        out[i] = x[i].wrapping_mul(0x9E37_79B1).rotate_left(13) ^ (i as u32);
    }

    // ---- nvptx64: one element per GPU thread, global index guarded by `if i < len`.

    /// y = a*x + y (f32).
    #[cfg(target_arch = "nvptx64")]
    #[unsafe(no_mangle)]
    #[rustc_offload_kernel]
    pub extern "gpu-kernel" fn saxpy(a: &f32, x: &[f32; N], y: &mut [f32; N]) {
        let i = unsafe { (_block_idx_x() as usize) * (_block_dim_x() as usize) + (_thread_idx_x() as usize) };
        if i < N {
            saxpy_at(i, *a, x, y);
        }
    }

    /// RAJAPerf Stream DAXPY: y += a*x (f64).
    #[cfg(target_arch = "nvptx64")]
    #[unsafe(no_mangle)]
    #[rustc_offload_kernel]
    pub extern "gpu-kernel" fn daxpy(a: &f64, x: &[f64; N], y: &mut [f64; N]) {
        let i = unsafe { (_block_idx_x() as usize) * (_block_dim_x() as usize) + (_thread_idx_x() as usize) };
        if i < N {
            daxpy_at(i, *a, x, y);
        }
    }

    /// RAJAPerf Stream TRIAD: a = b + q*c (f64).
    #[cfg(target_arch = "nvptx64")]
    #[unsafe(no_mangle)]
    #[rustc_offload_kernel]
    pub extern "gpu-kernel" fn triad(a: &mut [f64; N], b: &[f64; N], c: &[f64; N], q: &f64) {
        let i = unsafe { (_block_idx_x() as usize) * (_block_dim_x() as usize) + (_thread_idx_x() as usize) };
        if i < N {
            triad_at(i, a, b, c, *q);
        }
    }

    /// FIR filter with TAPS coefficients (f32).
    #[cfg(target_arch = "nvptx64")]
    #[unsafe(no_mangle)]
    #[rustc_offload_kernel]
    pub extern "gpu-kernel" fn fir(coeff: &[f32; TAPS], x: &[f32; N], out: &mut [f32; N]) {
        let i = unsafe { (_block_idx_x() as usize) * (_block_dim_x() as usize) + (_thread_idx_x() as usize) };
        if i < N {
            fir_at(i, coeff, x, out);
        }
    }

    /// Integer hash over N_ODD elements: the launch rounds the grid up, so the guard
    /// `if i < N_ODD` is what keeps the last workgroup's idle threads from writing out of bounds.
    #[cfg(target_arch = "nvptx64")]
    #[unsafe(no_mangle)]
    #[rustc_offload_kernel]
    pub extern "gpu-kernel" fn hash_u32(x: &[u32; N_ODD], out: &mut [u32; N_ODD]) {
        let i = unsafe { (_block_idx_x() as usize) * (_block_dim_x() as usize) + (_thread_idx_x() as usize) };
        if i < N_ODD {
            hash_at(i, x, out);
        }
    }

    // ---- x86_64, libomptarget's Virtual Host Device: called once, loops over all indices.

    #[cfg(not(target_arch = "nvptx64"))]
    #[unsafe(no_mangle)]
    #[rustc_offload_kernel]
    pub extern "C" fn saxpy(a: &f32, x: &[f32; N], y: &mut [f32; N]) {
        for i in 0..N {
            saxpy_at(i, *a, x, y);
        }
    }

    #[cfg(not(target_arch = "nvptx64"))]
    #[unsafe(no_mangle)]
    #[rustc_offload_kernel]
    pub extern "C" fn daxpy(a: &f64, x: &[f64; N], y: &mut [f64; N]) {
        for i in 0..N {
            daxpy_at(i, *a, x, y);
        }
    }

    #[cfg(not(target_arch = "nvptx64"))]
    #[unsafe(no_mangle)]
    #[rustc_offload_kernel]
    pub extern "C" fn triad(a: &mut [f64; N], b: &[f64; N], c: &[f64; N], q: &f64) {
        for i in 0..N {
            triad_at(i, a, b, c, *q);
        }
    }

    #[cfg(not(target_arch = "nvptx64"))]
    #[unsafe(no_mangle)]
    #[rustc_offload_kernel]
    pub extern "C" fn fir(coeff: &[f32; TAPS], x: &[f32; N], out: &mut [f32; N]) {
        for i in 0..N {
            fir_at(i, coeff, x, out);
        }
    }

    #[cfg(not(target_arch = "nvptx64"))]
    #[unsafe(no_mangle)]
    #[rustc_offload_kernel]
    pub extern "C" fn hash_u32(x: &[u32; N_ODD], out: &mut [u32; N_ODD]) {
        for i in 0..N_ODD {
            hash_at(i, x, out);
        }
    }
}

// ------------------------------------------------------------------ host side
#[cfg(not(offload_device))]
unsafe extern "C" {
    fn saxpy(a: &f32, x: &[f32; N], y: &mut [f32; N]);
    fn daxpy(a: &f64, x: &[f64; N], y: &mut [f64; N]);
    fn triad(a: &mut [f64; N], b: &[f64; N], c: &[f64; N], q: &f64);
    fn fir(coeff: &[f32; TAPS], x: &[f32; N], out: &mut [f32; N]);
    fn hash_u32(x: &[u32; N_ODD], out: &mut [u32; N_ODD]);
}

/// Workgroups for N elements (N is a multiple of BLOCK).
#[cfg(not(offload_device))]
const WORKGROUPS: u32 = N as u32 / BLOCK;
/// Workgroups for N_ODD elements, rounded up.
#[cfg(not(offload_device))]
const WORKGROUPS_ODD: u32 = (N_ODD as u32).div_ceil(BLOCK);

#[cfg(not(offload_device))]
#[inline(never)]
fn launch_saxpy(a: &f32, x: &[f32; N], y: &mut [f32; N]) {
    core::intrinsics::offload(saxpy, [WORKGROUPS, 1, 1], [BLOCK, 1, 1], (a, x, y))
}

#[cfg(not(offload_device))]
#[inline(never)]
fn launch_daxpy(a: &f64, x: &[f64; N], y: &mut [f64; N]) {
    core::intrinsics::offload(daxpy, [WORKGROUPS, 1, 1], [BLOCK, 1, 1], (a, x, y))
}

#[cfg(not(offload_device))]
#[inline(never)]
fn launch_triad(a: &mut [f64; N], b: &[f64; N], c: &[f64; N], q: &f64) {
    core::intrinsics::offload(triad, [WORKGROUPS, 1, 1], [BLOCK, 1, 1], (a, b, c, q))
}

#[cfg(not(offload_device))]
#[inline(never)]
fn launch_fir(coeff: &[f32; TAPS], x: &[f32; N], out: &mut [f32; N]) {
    core::intrinsics::offload(fir, [WORKGROUPS, 1, 1], [BLOCK, 1, 1], (coeff, x, out))
}

#[cfg(not(offload_device))]
#[inline(never)]
fn launch_hash_u32(x: &[u32; N_ODD], out: &mut [u32; N_ODD]) {
    core::intrinsics::offload(hash_u32, [WORKGROUPS_ODD, 1, 1], [BLOCK, 1, 1], (x, out))
}

/// A heap array of M elements, element i = f(i).
#[cfg(not(offload_device))]
fn boxed<T, const M: usize>(f: impl Fn(usize) -> T) -> Box<[T; M]> {
    let v: Vec<T> = (0..M).map(f).collect();
    match v.into_boxed_slice().try_into() {
        Ok(b) => b,
        Err(_) => unreachable!("length is M by construction"),
    }
}

/// Compare a kernel's result with the host's reference; print one line; true if all match.
/// `close(got, want)` decides equality (exact for integers, a tolerance for floats).
#[cfg(not(offload_device))]
fn verify<T: PartialEq + Copy + std::fmt::Debug>(
    name: &str,
    got: &[T],
    want: &[T],
    close: impl Fn(T, T) -> bool,
) -> bool {
    let bad: Vec<usize> = (0..want.len()).filter(|&i| !close(got[i], want[i])).collect();
    if bad.is_empty() {
        println!("OK {name}: {} elements", want.len());
        true
    } else {
        let i = bad[0];
        println!(
            "FAIL {name}: {} of {} elements wrong, first at [{i}]: got {:?}, expected {:?}",
            bad.len(),
            want.len(),
            got[i],
            want[i]
        );
        false
    }
}

#[cfg(not(offload_device))]
fn close_f32(got: f32, want: f32) -> bool {
    // nvptx fuses a*x+y into one FMA (one rounding instead of two): allow a few ulps.
    (got - want).abs() <= 1e-5 * want.abs().max(1.0)
}

#[cfg(not(offload_device))]
fn close_f64(got: f64, want: f64) -> bool {
    (got - want).abs() <= 1e-12 * want.abs().max(1.0)
}

#[cfg(not(offload_device))]
fn main() {
    let mut ok = true;

    // saxpy: y = a*x + y
    let a32 = 2.5f32;
    let x32: Box<[f32; N]> = boxed(|i| (i % 1000) as f32 * 0.001);
    let mut y32: Box<[f32; N]> = boxed(|i| 1.0 - (i % 7) as f32);
    let want: Vec<f32> = (0..N).map(|i| a32 * x32[i] + y32[i]).collect();
    launch_saxpy(&a32, &x32, &mut y32);
    ok &= verify("saxpy", &y32[..], &want, close_f32);

    // daxpy: y += a*x
    let a64 = -0.75f64;
    let x64: Box<[f64; N]> = boxed(|i| (i as f64).sqrt());
    let mut y64: Box<[f64; N]> = boxed(|i| (i % 13) as f64);
    let want: Vec<f64> = (0..N).map(|i| y64[i] + a64 * x64[i]).collect();
    launch_daxpy(&a64, &x64, &mut y64);
    ok &= verify("daxpy", &y64[..], &want, close_f64);

    // triad: a = b + q*c
    let q = 3.25f64;
    let mut ta: Box<[f64; N]> = boxed(|_| -1.0);
    let tb: Box<[f64; N]> = boxed(|i| i as f64 * 0.5);
    let tc: Box<[f64; N]> = boxed(|i| 1.0 / (1.0 + i as f64));
    let want: Vec<f64> = (0..N).map(|i| tb[i] + q * tc[i]).collect();
    launch_triad(&mut ta, &tb, &tc, &q);
    ok &= verify("triad", &ta[..], &want, close_f64);

    // fir: out[i] = sum_k coeff[k] * x[i-k]
    let coeff: [f32; TAPS] = core::array::from_fn(|k| 1.0 / (k as f32 + 1.0));
    let signal: Box<[f32; N]> = boxed(|i| ((i * 7919) % 101) as f32 * 0.01 - 0.5);
    let mut out: Box<[f32; N]> = boxed(|_| f32::NAN);
    let want: Vec<f32> = (0..N)
        .map(|i| (0..TAPS.min(i + 1)).map(|k| coeff[k] * signal[i - k]).sum())
        .collect();
    launch_fir(&coeff, &signal, &mut out);
    ok &= verify("fir", &out[..], &want, close_f32);

    // hash_u32: N_ODD elements, grid rounded up; exact comparison
    let hx: Box<[u32; N_ODD]> = boxed(|i| (i as u32).wrapping_mul(2_654_435_761));
    let mut hout: Box<[u32; N_ODD]> = boxed(|_| 0);
    let want: Vec<u32> = (0..N_ODD)
        .map(|i| hx[i].wrapping_mul(0x9E37_79B1).rotate_left(13) ^ (i as u32))
        .collect();
    launch_hash_u32(&hx, &mut hout);
    ok &= verify("hash_u32", &hout[..], &want, |g, w| g == w);

    if !ok {
        std::process::exit(1);
    }
}
