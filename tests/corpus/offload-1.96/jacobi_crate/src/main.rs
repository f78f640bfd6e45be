//! 2-D Laplace solver (Jacobi iteration) on the GPU with rustc 1.96's offload.
//!
//! The device kernels live in `kernels.rs` (compiled by the device pass only); this file holds
//! the grid sizes they use, the host-side `extern` declarations of the kernels and the launches.
#![cfg_attr(not(target_os = "linux"), feature(abi_gpu_kernel, rustc_attrs, stdarch_nvptx))]
#![cfg_attr(not(target_os = "linux"), no_std, no_main)]
#![cfg_attr(target_os = "linux", feature(core_intrinsics))]
#![allow(internal_features)]

#[cfg(not(target_os = "linux"))]
mod kernels;

/// Grid points per side (kernels.rs sizes its arrays with these).
pub const NX: usize = 256;
pub const NY: usize = 256;
pub const CELLS: usize = NX * NY;
/// Threads per side of a 2-D workgroup.
pub const TILE: u32 = 16;
/// Jacobi sweeps per solve.
pub const ITERS: usize = 500;

#[cfg(not(target_os = "linux"))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}

#[cfg(target_os = "linux")]
unsafe extern "C" {
    fn jacobi_step(u: &[f32; CELLS], u_new: &mut [f32; CELLS]);
    fn residual(u: &[f32; CELLS], u_new: &[f32; CELLS], r: &mut [f32; CELLS]);
}

#[cfg(target_os = "linux")]
#[inline(never)]
fn sweep(u: &[f32; CELLS], u_new: &mut [f32; CELLS]) {
    core::intrinsics::offload(jacobi_step, [NX as u32 / TILE, NY as u32 / TILE, 1], [TILE, TILE, 1], (u, u_new))
}

#[cfg(target_os = "linux")]
#[inline(never)]
fn change(u: &[f32; CELLS], u_new: &[f32; CELLS], r: &mut [f32; CELLS]) {
    // same 16 x 16 tiles as the sweep
    core::intrinsics::offload(residual, [NX as u32 / TILE, NY as u32 / TILE, 1], [TILE, TILE, 1], (u, u_new, r))
}

#[cfg(target_os = "linux")]
fn zeros() -> Box<[f32; CELLS]> {
    match vec![0.0f32; CELLS].into_boxed_slice().try_into() {
        Ok(b) => b,
        Err(_) => unreachable!("CELLS values"),
    }
}

#[cfg(target_os = "linux")]
fn main() {
    let mut u = zeros();
    heat_wall(&mut u, &100.0);
    let mut u_new = u.clone();
    for _ in 0..ITERS {
        sweep(&u, &mut u_new);
        core::mem::swap(&mut u, &mut u_new);
    }
    sweep(&u, &mut u_new);
    let mut r = zeros();
    change(&u, &u_new, &mut r);
    let worst = r.iter().copied().fold(0.0f32, f32::max);
    let centre: Vec<f32> = (0..NX).step_by(32).map(|x| u[(NY / 2) * NX + x]).collect();
    println!("max change after {ITERS} sweeps: {worst:.3e}");
    println!("centre row: {centre:?}");
}

//@ case: hazard kernel_decl_mismatch
// kernels.rs takes the wall temperature as `&f64`, this declaration still says `&f32`.
#[cfg(target_os = "linux")]
unsafe extern "C" {
    fn set_hot_wall(u: &mut [f32; CELLS], t_wall: &f32); //~ ERROR kernel_decl_mismatch
}

#[cfg(target_os = "linux")]
#[inline(never)]
fn heat_wall(u: &mut [f32; CELLS], t_wall: &f32) {
    core::intrinsics::offload(set_hot_wall, [1, 1, 1], [NX as u32, 1, 1], (u, t_wall))
}
