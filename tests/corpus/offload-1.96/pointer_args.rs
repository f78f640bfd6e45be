//! Launch arguments that are raw pointers made with a buffer's pointer methods, as offload
//! wrappers of device libraries pass them (a one-thread BLAS-style `y = alpha x + y` wrapper).
//!
//! rustc 1.96 spelling: `#[rustc_offload_kernel] extern "gpu-kernel"` kernels for the device
//! pass, `core::intrinsics::offload` launches and `unsafe extern "C"` declarations on the host.
#![cfg_attr(not(target_os = "linux"), feature(abi_gpu_kernel, rustc_attrs))]
#![cfg_attr(not(target_os = "linux"), no_std, no_main)]
#![cfg_attr(target_os = "linux", feature(core_intrinsics))]
#![allow(internal_features)]

//@ case: hazard raw_pointer_kernel_param
// The wrapper takes its vectors as raw pointers to one element each (what the runtime copies).
#[cfg(not(target_os = "linux"))]
#[unsafe(no_mangle)]
#[rustc_offload_kernel]
pub extern "gpu-kernel" fn axpy_one(alpha: &f32, x: *const f32, y: *mut f32) {
    //~^ WARN raw_pointer_kernel_param
    //~^^ WARN raw_pointer_kernel_param
    unsafe { *y = *alpha * *x + *y }; //~ WARN unsafe_in_kernel
}

#[cfg(target_os = "linux")]
unsafe extern "C" {
    fn axpy_one(alpha: &f32, x: *const f32, y: *mut f32);
}

//@ case: hazard launch_arg_mismatch
// The output is passed with `y.as_ptr()`: a `*const` pointer, so the runtime maps it to the
// device only and the kernel's write never comes back (`as_mut_ptr()` was meant).
#[cfg(target_os = "linux")]
fn run_axpy_one() -> [f32; 1] {
    let x = [2.0f32];
    let mut y = [1.0f32];
    unsafe {
        core::intrinsics::offload(axpy_one, [1, 1, 1], [1, 1, 1], (&3.0f32, x.as_ptr(), y.as_ptr()));
        //~^ ERROR launch_arg_mismatch
    }
    y
}

//@ case: correct
// The same launch with the output's `as_mut_ptr()`: mapped there and back.
#[cfg(target_os = "linux")]
fn run_axpy_one_right() -> Vec<f32> {
    let x = vec![2.0f32];
    let mut y = vec![1.0f32];
    unsafe {
        core::intrinsics::offload(axpy_one, [1, 1, 1], [1, 1, 1], (&3.0f32, x.as_ptr(), y.as_mut_ptr()));
    }
    y
}
