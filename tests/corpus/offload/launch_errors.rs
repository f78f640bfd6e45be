//! Launch sites of a particle-physics post-processing tool (nightly `core::offload`):
//! `core::offload::offload! { kernel, workgroup_dim, thread_dim, dyn_cache, device, args }`,
//! where `kernel` and `args` are required, each field may appear once, and `device` is a
//! non-negative constant (omitted, the runtime's default device is used).
#![feature(gpu_offload)]
#![cfg_attr(target_arch = "nvptx64", feature(abi_gpu_kernel, stdarch_nvptx))]
#![cfg_attr(target_arch = "nvptx64", no_std, no_main)]

use core::offload::offload_kernel;

#[cfg(target_arch = "nvptx64")]
use core::arch::nvptx::{_block_dim_x, _block_idx_x, _thread_idx_x};

/// Hits per event buffer.
const HITS: usize = 1 << 18;
const THREADS: u32 = 256;
const WORKGROUPS: u32 = (HITS as u32) / THREADS;
/// The second GPU of the node does the post-processing.
const ANALYSIS_GPU: i32 = 1;

#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}

//@ case: correct
// An unmarked function as the kernel (as in rustc's tests), all six fields in another order, one thread.
fn clear_energies(energy: &mut [f32; HITS]) {
    for k in 0..HITS {
        energy[k] = 0.0;
    }
}

#[cfg(not(target_arch = "nvptx64"))]
fn reset(energy: &mut [f32; HITS]) {
    core::offload::offload! {
        args = (energy,),
        thread_dim = [1, 1, 1],
        kernel = clear_energies,
        dyn_cache = 0,
        device = ANALYSIS_GPU,
        workgroup_dim = [1, 1, 1],
    }
}

//@ case: correct
// A kernel defined in a module and launched by path; calibration constants by value.
mod calibration {
    #[cfg(target_arch = "nvptx64")]
    use core::arch::nvptx::{_block_dim_x, _block_idx_x, _thread_idx_x};

    use super::HITS;

    #[core::offload::offload_kernel]
    pub fn apply_gain(gain: f32, pedestal: f32, adc: &[u16; HITS], energy: &mut [f32; HITS]) {
        let i = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
        if i < HITS {
            energy[i] = gain * (adc[i] as f32 - pedestal);
        }
    }
}

#[cfg(not(target_arch = "nvptx64"))]
fn calibrate(adc: &[u16; HITS], energy: &mut [f32; HITS]) {
    core::offload::offload! {
        kernel = calibration::apply_gain,
        workgroup_dim = [WORKGROUPS, 1, 1],
        thread_dim = [THREADS, 1, 1],
        device = ANALYSIS_GPU,
        args = (0.0125f32, 97.5f32, adc, energy),
    }
}

//@ case: hazard launch_arg_mismatch
// `axpby` takes `a: f32`, but `a` is bound as `f64` before the launch.
#[offload_kernel]
fn axpby(a: f32, x: &[f32; HITS], b: f32, y: &mut [f32; HITS]) {
    let i = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    if i < HITS {
        y[i] = a * x[i] + b * y[i];
    }
}

#[cfg(not(target_arch = "nvptx64"))]
fn blend(x: &[f32; HITS], y: &mut [f32; HITS]) {
    let a: f64 = 0.75;
    let b = 0.25f32;
    core::offload::offload! {
        kernel = axpby,
        workgroup_dim = [WORKGROUPS, 1, 1],
        thread_dim = [THREADS, 1, 1],
        args = (a, x, b, y), //~ ERROR launch_arg_mismatch
    }
}

//@ case: hazard malformed_offload_launch
// The launch has no `args` field.
#[offload_kernel]
fn reset_flags(flags: &mut [u8; HITS]) {
    let i = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    if i < HITS {
        flags[i] = 0;
    }
}

#[cfg(not(target_arch = "nvptx64"))]
fn clear_flags(_flags: &mut [u8; HITS]) {
    core::offload::offload! { //~ ERROR malformed_offload_launch
        kernel = reset_flags,
        workgroup_dim = [WORKGROUPS, 1, 1],
        thread_dim = [THREADS, 1, 1],
    }
}

//@ case: hazard malformed_offload_launch
// `thread_dim` is given twice (a leftover from tuning the workgroup size).
#[offload_kernel]
fn clamp_energy(energy: &mut [f32; HITS], e_max: f32) {
    let i = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    if i < HITS {
        energy[i] = energy[i].min(e_max);
    }
}

#[cfg(not(target_arch = "nvptx64"))]
fn saturate(energy: &mut [f32; HITS]) {
    core::offload::offload! {
        kernel = clamp_energy,
        workgroup_dim = [WORKGROUPS, 1, 1],
        thread_dim = [THREADS, 1, 1],
        thread_dim = [128, 1, 1], //~ ERROR malformed_offload_launch
        args = (energy, 250.0f32),
    }
}

//@ case: hazard malformed_offload_launch
// `block_dim` is CUDA's name; the field is `thread_dim`.
#[offload_kernel]
fn zero_suppress(energy: &mut [f32; HITS], threshold: f32) {
    let i = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    if i < HITS && energy[i] < threshold {
        energy[i] = 0.0;
    }
}

#[cfg(not(target_arch = "nvptx64"))]
fn suppress_noise(energy: &mut [f32; HITS]) {
    core::offload::offload! {
        kernel = zero_suppress,
        workgroup_dim = [WORKGROUPS, 1, 1],
        block_dim = [THREADS, 1, 1], //~ ERROR malformed_offload_launch
        args = (energy, 0.5f32),
    }
}

//@ case: hazard malformed_offload_launch
// `device = -1` (OpenMP's "default device") is rejected: omit `device` for the default.
#[offload_kernel]
fn time_walk(t: &mut [f32; HITS], energy: &[f32; HITS], k: f32) {
    let i = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    if i < HITS && energy[i] > 0.0 {
        t[i] -= k / energy[i];
    }
}

#[cfg(not(target_arch = "nvptx64"))]
fn correct_times(t: &mut [f32; HITS], energy: &[f32; HITS]) {
    core::offload::offload! {
        kernel = time_walk,
        workgroup_dim = [WORKGROUPS, 1, 1],
        thread_dim = [THREADS, 1, 1],
        device = -1, //~ ERROR malformed_offload_launch
        args = (t, energy, 1.8f32),
    }
}

//@ case: hazard unknown_launch_kernel
// The kernel is `normalize`; the launch names `normalise`, which this crate does not define.
#[offload_kernel]
fn normalize(energy: &mut [f32; HITS], inv_total: f32) {
    let i = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    if i < HITS {
        energy[i] *= inv_total;
    }
}

#[cfg(not(target_arch = "nvptx64"))]
fn to_fractions(energy: &mut [f32; HITS], total: f32) {
    core::offload::offload! {
        kernel = normalise, //~ ERROR unknown_launch_kernel
        workgroup_dim = [WORKGROUPS, 1, 1],
        thread_dim = [THREADS, 1, 1],
        args = (energy, 1.0 / total),
    }
}

// ------------------------------------------------------------------ host driver

#[cfg(not(target_arch = "nvptx64"))]
fn main() {
    let adc: Vec<u16> = (0..HITS).map(|k| (k % 4096) as u16).collect();
    let adc: Box<[u16; HITS]> = adc.into_boxed_slice().try_into().expect("HITS samples");
    let mut energy: Box<[f32; HITS]> = vec![0.0f32; HITS].into_boxed_slice().try_into().expect("HITS");
    let mut t: Box<[f32; HITS]> = vec![12.5f32; HITS].into_boxed_slice().try_into().expect("HITS");
    let mut flags = Box::new([1u8; HITS]);

    reset(&mut energy);
    calibrate(&adc, &mut energy);
    let copy = energy.clone();
    blend(&copy, &mut energy);
    clear_flags(&mut flags);
    saturate(&mut energy);
    suppress_noise(&mut energy);
    correct_times(&mut t, &energy);
    let total: f32 = energy.iter().sum();
    to_fractions(&mut energy, total);

    let top: Vec<f32> = energy.iter().copied().filter(|&e| e > 1.0e-5).take(4).collect();
    println!("total {total:.3}, t[100] = {}, first fractions {top:?}", t[100]);
}
