//! Launches of raw-pointer kernels written for rustc 1.96's offload (host declarations under
//! `cfg(target_os = "linux")`): the pointers' mutability must match the kernel's, or the
//! runtime does not copy the written buffer back.
#![cfg_attr(not(target_os = "linux"), feature(abi_gpu_kernel, rustc_attrs, stdarch_nvptx))]
#![cfg_attr(not(target_os = "linux"), no_std, no_main)]
#![cfg_attr(target_os = "linux", feature(core_intrinsics))]
#![allow(internal_features)]

pub const TAPS: usize = 16;
pub const LEN: usize = 4096;

#[cfg(not(target_os = "linux"))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}

//@ case: hazard launch_arg_mismatch
// The wrapper takes (out, in) but launches with (in, out): the kernel writes into the input
// buffer, mapped "to" only, and `out` never changes.
#[cfg(target_os = "linux")]
unsafe extern "C" {
    fn fir_kernel(out: *mut [f64; LEN], input: *const [f64; LEN], coeff: *const [f64; TAPS]);
}

#[cfg(target_os = "linux")]
pub unsafe fn fir(out: *mut [f64; LEN], input: *const [f64; LEN], coeff: *const [f64; TAPS]) {
    core::intrinsics::offload(fir_kernel, [LEN as u32 / 256, 1, 1], [256, 1, 1], (input, out, coeff)) //~ ERROR launch_arg_mismatch
}

#[cfg(not(target_os = "linux"))]
#[rustc_offload_kernel]
pub unsafe extern "gpu-kernel" fn fir_kernel(out: *mut [f64; LEN], input: *const [f64; LEN], coeff: *const [f64; TAPS]) { //~ WARN raw_pointer_kernel_param //~ WARN raw_pointer_kernel_param //~ WARN raw_pointer_kernel_param //~ WARN unsafe_in_kernel
    let i = (core::arch::nvptx::_block_idx_x() * core::arch::nvptx::_block_dim_x() + core::arch::nvptx::_thread_idx_x())
        as usize;
    if i + TAPS <= LEN {
        let mut s = 0.0;
        for j in 0..TAPS {
            s += (*coeff)[j] * (*input)[i + j];
        }
        (*out)[i] = s;
    }
}

//@ case: correct
// The reference version, launched in the right order; the guard `i + TAPS <= LEN` keeps every
// tap `i + j` (j < TAPS) inside the input.
#[cfg(target_os = "linux")]
unsafe extern "C" {
    fn fir_ref(out: &mut [f64; LEN], input: &[f64; LEN], coeff: &[f64; TAPS]);
}

#[cfg(target_os = "linux")]
pub fn fir_checked(out: &mut [f64; LEN], input: &[f64; LEN], coeff: &[f64; TAPS]) {
    core::intrinsics::offload(fir_ref, [LEN as u32 / 256, 1, 1], [256, 1, 1], (out, input, coeff))
}

#[cfg(not(target_os = "linux"))]
#[rustc_offload_kernel]
pub extern "gpu-kernel" fn fir_ref(out: &mut [f64; LEN], input: &[f64; LEN], coeff: &[f64; TAPS]) {
    let i = unsafe {
        (core::arch::nvptx::_block_idx_x() * core::arch::nvptx::_block_dim_x() + core::arch::nvptx::_thread_idx_x())
            as usize
    };
    if i + TAPS <= LEN {
        let mut s = 0.0;
        for j in 0..TAPS {
            s += coeff[j] * input[i + j];
        }
        out[i] = s;
    }
}

#[cfg(target_os = "linux")]
fn main() {}
