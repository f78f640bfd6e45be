//! Float math in rustc 1.96 offload kernels: the device pass builds with `core` only, where
//! `f64` has no `sqrt` method (std's, over the C math library); `core::f64::math::sqrt`
//! (feature `core_float_math`) is the core spelling.
#![cfg_attr(not(target_os = "linux"), feature(abi_gpu_kernel, rustc_attrs, stdarch_nvptx, core_float_math))]
#![cfg_attr(not(target_os = "linux"), no_std, no_main)]
#![cfg_attr(target_os = "linux", feature(core_intrinsics))]
#![allow(internal_features)]

pub const N: usize = 1 << 16;

#[cfg(not(target_os = "linux"))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}

#[cfg(not(target_os = "linux"))]
fn gid() -> usize {
    use core::arch::nvptx::{_block_dim_x, _block_idx_x, _thread_idx_x};
    unsafe { (_block_idx_x() * _block_dim_x() + _thread_idx_x()) as usize }
}

//@ case: correct
// Sound speed with core's `sqrt` function.
#[cfg(not(target_os = "linux"))]
#[rustc_offload_kernel]
pub extern "gpu-kernel" fn sound_speed(p: &[f64; N], rho: &[f64; N], c: &mut [f64; N]) {
    let i = gid();
    if i < N {
        c[i] = core::f64::math::sqrt(1.4 * p[i] / rho[i]);
    }
}

//@ case: hazard host_only_api_in_kernel
// The `sqrt` method is std's: the device pass fails with E0599.
#[cfg(not(target_os = "linux"))]
#[rustc_offload_kernel]
pub extern "gpu-kernel" fn magnitude(x: &[f64; N], y: &[f64; N], m: &mut [f64; N]) {
    let i = gid();
    if i < N {
        let s = x[i] * x[i] + y[i] * y[i];
        m[i] = (s as f64).sqrt(); //~ ERROR host_only_api_in_kernel
    }
}

#[cfg(target_os = "linux")]
unsafe extern "C" {
    fn sound_speed(p: &[f64; N], rho: &[f64; N], c: &mut [f64; N]);
    fn magnitude(x: &[f64; N], y: &[f64; N], m: &mut [f64; N]);
}

#[cfg(target_os = "linux")]
fn main() {
    let (p, rho, x, y) = ([1.0; N], [1.0; N], [3.0; N], [4.0; N]);
    let (mut c, mut m) = ([0.0; N], [0.0; N]);
    // the host has std: its `sqrt` is fine here
    let check = (3.0f64 * 3.0 + 4.0 * 4.0).sqrt();
    unsafe {
        core::intrinsics::offload(sound_speed, [256, 1, 1], [256, 1, 1], (&p, &rho, &mut c));
        core::intrinsics::offload(magnitude, [256, 1, 1], [256, 1, 1], (&x, &y, &mut m));
    }
    assert_eq!(m[0], check);
}
