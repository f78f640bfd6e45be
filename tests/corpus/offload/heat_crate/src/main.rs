//! 1-D heat equation (explicit Euler) on the GPU with nightly `core::offload`.
//!
//! The kernels live in `kernels.rs`; this file holds the grid size they use and every launch.
#![feature(gpu_offload)]
#![cfg_attr(target_arch = "nvptx64", feature(abi_gpu_kernel, stdarch_nvptx))]
#![cfg_attr(target_arch = "nvptx64", no_std, no_main)]

mod kernels;

/// Grid points (kernels.rs sizes its arrays with it).
pub const NPTS: usize = 1 << 16;
/// Threads per workgroup.
pub const THREADS: u32 = 256;
/// Workgroups covering NPTS points exactly.
pub const WORKGROUPS: u32 = (NPTS as u32) / THREADS;
/// Diffusion number r = alpha * dt / dx^2 (explicit Euler is stable for r <= 1/2).
const R: f32 = 0.4;
const STEPS: usize = 2000;

#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}

#[cfg(not(target_arch = "nvptx64"))]
fn zeros() -> Box<[f32; NPTS]> {
    match vec![0.0f32; NPTS].into_boxed_slice().try_into() {
        Ok(b) => b,
        Err(_) => unreachable!("NPTS points"),
    }
}

#[cfg(not(target_arch = "nvptx64"))]
fn main() {
    let mut u = zeros();
    for x in &mut u[NPTS / 2 - 64..NPTS / 2 + 64] {
        *x = 1.0;
    }
    pin_boundaries(&mut u, 0.0, 0.0);
    let mut u_next = u.clone();

    for _ in 0..STEPS {
        core::offload::offload! {
            kernel = kernels::heat_step,
            workgroup_dim = [WORKGROUPS, 1, 1],
            thread_dim = [THREADS, 1, 1],
            args = (&*u, &mut *u_next, R),
        }
        core::mem::swap(&mut u, &mut u_next);
    }

    // |u - u_prev| per point, over the same WORKGROUPS x THREADS launch
    let mut change = zeros();
    core::offload::offload! {
        kernel = kernels::local_residual,
        workgroup_dim = [WORKGROUPS, 1, 1],
        thread_dim = [THREADS, 1, 1],
        args = (&*u, &*u_next, &mut *change),
    }

    // largest change, on one thread (default launch dimensions)
    let mut peak = 0.0f32;
    core::offload::offload! { kernel = kernels::max_abs, args = (&*change, &mut peak) }

    let profile: Vec<f32> = u.iter().step_by(NPTS / 16).copied().collect();
    println!("after {STEPS} steps: largest change {peak:.3e}");
    println!("profile: {profile:?}");
}

//@ case: hazard unknown_launch_kernel
// The boundary kernel in kernels.rs is `apply_boundary`; this launch names `apply_dirichlet`.
#[cfg(not(target_arch = "nvptx64"))]
fn pin_boundaries(u: &mut [f32; NPTS], left: f32, right: f32) {
    core::offload::offload! {
        kernel = kernels::apply_dirichlet, //~ ERROR unknown_launch_kernel
        workgroup_dim = [1, 1, 1],
        thread_dim = [2, 1, 1],
        args = (u, left, right),
    }
}
