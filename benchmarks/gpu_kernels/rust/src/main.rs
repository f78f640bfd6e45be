//! RAJAPerf-style f64 kernels offloaded with rustc's `core::intrinsics::offload`
//! (rustc `-Zoffload`, tracking issue rust-lang/rust#131513), for comparison with the
//! hand-written CUDA C++ of the same algorithms in `../cuda/kernels.cu`.
//!
//! Kernels (names as Nsight Compute reports them):
//!   * `daxpy` — RAJAPerf Stream_DAXPY: `y[i] += a * x[i]`, N = 2^24;
//!   * `triad` — RAJAPerf Stream_TRIAD: `a[i] = b[i] + alpha * c[i]`, N = 2^24;
//!   * `fir`   — RAJAPerf Apps_FIR, 16 taps: `out[i] = sum_j COEFF[j] * input[i + j]`
//!     for `i < N - 15`, N = 2^24; the coefficients are a compile-time constant array.
//!
//! One thread per element, 256 threads per block, grid = N / 256 blocks.
//!
//! The scalars `a` (DAXPY) and `alpha` (TRIAD) are passed as `&f64`, not by value: with
//! rustc 1.96's host codegen (`-Zoffload=Test`) a by-value scalar is mapped `firstprivate`
//! (0x300) by `__tgt_target_data_begin_mapper`, but its map type for the kernel launch is only
//! TARGET_PARAM (0x20, no LITERAL 0x100), so libomptarget treats it as a pointer to look up
//! and the kernel receives `bits(value) + (device address - host stack address)` instead of
//! the value (measured on the Virtual Host Device: a = 0.5 arrived as 0.49745, a different
//! value each run). `&f64` is mapped "to" (8 bytes) and read once per thread on the device.
//!
//! The same file is compiled twice (`offload-ls build`; docs/offload-notes.md):
//!   * device pass, `--cfg offload_device`: `no_std`, only the kernels; on nvptx64 each
//!     thread handles one index, on x86_64 (libomptarget's Virtual Host Device, which calls a
//!     kernel once) the kernel loops over all indices;
//!   * host pass: a std binary that declares the kernels `extern "C"` and launches them
//!     through `core::intrinsics::offload`.
//!
//! Usage: `gpu-kernels-bench [REPS]` (default 20). Each kernel is launched once as warm-up
//! and then REPS times; the result after the last launch is checked against a CPU reference
//! (exit status 1 on mismatch). Every launch maps its arrays to the device and back (the
//! mapping is per launch); Nsight Compute's `gpu__time_duration` excludes those copies.
#![cfg_attr(all(offload_device, target_arch = "nvptx64"), feature(abi_gpu_kernel))]
#![cfg_attr(offload_device, feature(rustc_attrs))]
#![cfg_attr(not(offload_device), feature(core_intrinsics))]
#![cfg_attr(all(offload_device, target_arch = "nvptx64"), feature(stdarch_nvptx))]
#![cfg_attr(offload_device, no_std, no_main)]
#![allow(internal_features)]

/// Elements per array (f64): 2^24, i.e. 128 MiB per array.
pub const N: usize = 1 << 24;
/// Threads per block (the CUDA version uses the same).
pub const BLOCK: u32 = 256;
/// FIR filter length (RAJAPerf Apps_FIR: FIR_COEFFLEN = 16).
pub const FIR_TAPS: usize = 16;
/// FIR coefficients (the values RAJAPerf Apps_FIR uses).
pub const COEFF: [f64; FIR_TAPS] = [
    3.0, -1.0, -1.0, -1.0, -1.0, 3.0, -1.0, -1.0, -1.0, -1.0, 3.0, -1.0, -1.0, -1.0, -1.0, 3.0,
];
/// Number of FIR outputs: `out[i]` for `i < FIR_OUT` reads `input[i..i + FIR_TAPS]`.
pub const FIR_OUT: usize = N - (FIR_TAPS - 1);

// ------------------------------------------------------------------ device side
#[cfg(offload_device)]
mod device {
    use super::{COEFF, FIR_OUT, FIR_TAPS, N};

    #[panic_handler]
    fn panic(_: &core::panic::PanicInfo) -> ! {
        loop {}
    }

    // ---- Stream DAXPY: y[i] += a * x[i]

    #[cfg(target_arch = "nvptx64")]
    #[unsafe(no_mangle)]
    #[rustc_offload_kernel]
    pub extern "gpu-kernel" fn daxpy(x: &[f64; N], y: &mut [f64; N], a: &f64) {
        use core::arch::nvptx::{_block_dim_x, _block_idx_x, _thread_idx_x};
        let i = unsafe {
            (_block_idx_x() as usize) * (_block_dim_x() as usize) + (_thread_idx_x() as usize)
        };
        if i < N {
            y[i] += *a * x[i];
        }
    }

    #[cfg(not(target_arch = "nvptx64"))]
    #[unsafe(no_mangle)]
    #[rustc_offload_kernel]
    pub extern "C" fn daxpy(x: &[f64; N], y: &mut [f64; N], a: &f64) {
        for i in 0..N {
            y[i] += *a * x[i];
        }
    }

    // ---- Stream TRIAD: a[i] = b[i] + alpha * c[i]

    #[cfg(target_arch = "nvptx64")]
    #[unsafe(no_mangle)]
    #[rustc_offload_kernel]
    pub extern "gpu-kernel" fn triad(a: &mut [f64; N], b: &[f64; N], c: &[f64; N], alpha: &f64) {
        use core::arch::nvptx::{_block_dim_x, _block_idx_x, _thread_idx_x};
        let i = unsafe {
            (_block_idx_x() as usize) * (_block_dim_x() as usize) + (_thread_idx_x() as usize)
        };
        if i < N {
            a[i] = b[i] + *alpha * c[i];
        }
    }

    #[cfg(not(target_arch = "nvptx64"))]
    #[unsafe(no_mangle)]
    #[rustc_offload_kernel]
    pub extern "C" fn triad(a: &mut [f64; N], b: &[f64; N], c: &[f64; N], alpha: &f64) {
        for i in 0..N {
            a[i] = b[i] + *alpha * c[i];
        }
    }

    // ---- Apps FIR, 16 taps: out[i] = sum_j COEFF[j] * input[i + j], i < N - 15

    #[cfg(target_arch = "nvptx64")]
    #[unsafe(no_mangle)]
    #[rustc_offload_kernel]
    pub extern "gpu-kernel" fn fir(input: &[f64; N], out: &mut [f64; N]) {
        use core::arch::nvptx::{_block_dim_x, _block_idx_x, _thread_idx_x};
        let i = unsafe {
            (_block_idx_x() as usize) * (_block_dim_x() as usize) + (_thread_idx_x() as usize)
        };
        if i < FIR_OUT {
            let mut sum = 0.0f64;
            for j in 0..FIR_TAPS {
                sum += COEFF[j] * input[i + j];
            }
            out[i] = sum;
        }
    }

    #[cfg(not(target_arch = "nvptx64"))]
    #[unsafe(no_mangle)]
    #[rustc_offload_kernel]
    pub extern "C" fn fir(input: &[f64; N], out: &mut [f64; N]) {
        for i in 0..FIR_OUT {
            let mut sum = 0.0f64;
            for j in 0..FIR_TAPS {
                sum += COEFF[j] * input[i + j];
            }
            out[i] = sum;
        }
    }
}

// ------------------------------------------------------------------ host side
#[cfg(not(offload_device))]
unsafe extern "C" {
    pub fn daxpy(x: &[f64; N], y: &mut [f64; N], a: &f64);
    pub fn triad(a: &mut [f64; N], b: &[f64; N], c: &[f64; N], alpha: &f64);
    pub fn fir(input: &[f64; N], out: &mut [f64; N]);
}

/// Grid size: one thread per element, N is a multiple of BLOCK.
#[cfg(not(offload_device))]
const BLOCKS: u32 = (N as u32) / BLOCK;

#[cfg(not(offload_device))]
#[inline(never)]
fn launch_daxpy(x: &[f64; N], y: &mut [f64; N], a: &f64) {
    core::intrinsics::offload(daxpy, [BLOCKS, 1, 1], [BLOCK, 1, 1], (x, y, a))
}

#[cfg(not(offload_device))]
#[inline(never)]
fn launch_triad(a: &mut [f64; N], b: &[f64; N], c: &[f64; N], alpha: &f64) {
    core::intrinsics::offload(triad, [BLOCKS, 1, 1], [BLOCK, 1, 1], (a, b, c, alpha))
}

#[cfg(not(offload_device))]
#[inline(never)]
fn launch_fir(input: &[f64; N], out: &mut [f64; N]) {
    core::intrinsics::offload(fir, [BLOCKS, 1, 1], [BLOCK, 1, 1], (input, out))
}

/// A heap array of N f64, element i = f(i).
#[cfg(not(offload_device))]
fn array(f: impl Fn(usize) -> f64) -> Box<[f64; N]> {
    let mut v: Box<[f64; N]> = vec![0.0f64; N].into_boxed_slice().try_into().unwrap();
    for (i, e) in v.iter_mut().enumerate() {
        *e = f(i);
    }
    v
}

/// Compares `got` with `want` (relative tolerance 1e-12, absolute near 0); returns the
/// number of mismatches and prints the first one.
#[cfg(not(offload_device))]
fn check(kernel: &str, got: &[f64], want: &[f64]) -> usize {
    let mut bad = 0;
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        if !((g - w).abs() <= 1e-12 * w.abs().max(1.0)) {
            if bad == 0 {
                eprintln!("FAIL {kernel}: element {i}: got {g:e}, expected {w:e}");
            }
            bad += 1;
        }
    }
    bad
}

/// Runs `launch` once as warm-up and then `reps` times; prints the median host wall time of
/// one launch (including the per-launch copies to and from the device).
#[cfg(not(offload_device))]
fn repeat(kernel: &str, reps: usize, mut launch: impl FnMut()) {
    launch();
    let mut ms = Vec::with_capacity(reps);
    for _ in 0..reps {
        let t = std::time::Instant::now();
        launch();
        ms.push(t.elapsed().as_secs_f64() * 1e3);
    }
    ms.sort_by(f64::total_cmp);
    if let Some(m) = ms.get(ms.len() / 2) {
        println!("host_wall {kernel} median_ms_incl_copies={m:.3}");
    }
}

#[cfg(not(offload_device))]
fn main() {
    let reps: usize = match std::env::args().nth(1) {
        None => 20,
        Some(s) => s.parse().unwrap_or_else(|_| {
            eprintln!("usage: gpu-kernels-bench [REPS]   (REPS: a non-negative integer, default 20)");
            std::process::exit(2)
        }),
    };
    let mut failures = 0;

    // DAXPY: y accumulates a*x once per launch (warm-up + reps launches).
    {
        let a = 0.5f64;
        let x = array(|i| 1.0 + (i % 1000) as f64 * 1e-3);
        let mut y = array(|i| 2.0 - (i % 777) as f64 * 1e-3);
        let mut want = y.clone();
        repeat("daxpy", reps, || launch_daxpy(&x, &mut y, &a));
        for _ in 0..reps + 1 {
            for i in 0..N {
                want[i] += a * x[i];
            }
        }
        std::hint::black_box(&y);
        match check("daxpy", &y[..], &want[..]) {
            0 => println!("OK daxpy N={N} reps={reps}"),
            bad => {
                println!("FAIL daxpy N={N} reps={reps}: {bad} wrong elements");
                failures += 1;
            }
        }
    }

    // TRIAD: same result after every launch.
    {
        let alpha = 0.25f64;
        let mut a = array(|_| -1.0);
        let b = array(|i| 1.0 + (i % 511) as f64 * 1e-3);
        let c = array(|i| 3.0 - (i % 313) as f64 * 1e-3);
        repeat("triad", reps, || launch_triad(&mut a, &b, &c, &alpha));
        let want: Vec<f64> = (0..N).map(|i| b[i] + alpha * c[i]).collect();
        std::hint::black_box(&a);
        match check("triad", &a[..], &want) {
            0 => println!("OK triad N={N} reps={reps}"),
            bad => {
                println!("FAIL triad N={N} reps={reps}: {bad} wrong elements");
                failures += 1;
            }
        }
    }

    // FIR: out[i] for i < FIR_OUT; the last FIR_TAPS-1 elements keep their initial value.
    {
        let input = array(|i| (i % 1021) as f64 * 1e-3 - 0.5);
        let mut out = array(|_| 0.0);
        repeat("fir", reps, || launch_fir(&input, &mut out));
        let want: Vec<f64> = (0..N)
            .map(|i| {
                if i >= FIR_OUT {
                    return 0.0;
                }
                let mut sum = 0.0f64;
                for j in 0..FIR_TAPS {
                    sum += COEFF[j] * input[i + j];
                }
                sum
            })
            .collect();
        std::hint::black_box(&out);
        match check("fir", &out[..], &want) {
            0 => println!("OK fir N={N} reps={reps}"),
            bad => {
                println!("FAIL fir N={N} reps={reps}: {bad} wrong elements");
                failures += 1;
            }
        }
    }

    if failures != 0 {
        std::process::exit(1);
    }
}
