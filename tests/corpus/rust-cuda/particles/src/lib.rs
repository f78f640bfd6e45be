//! Device kernels of the particle simulation. Particles are `[x, y, z, w]` / `[vx, vy, vz, 0]`
//! records; the density grid is a row-major `GRID_W x GRID_H` image. Launched from main.rs.

#![cfg_attr(target_os = "cuda", no_std)]
#![allow(improper_ctypes_definitions, clippy::missing_safety_doc)]

use cuda_std::prelude::*;

//@ case: correct
// Semi-implicit Euler position update: one particle per thread, guarded by `i < n`.
#[kernel]
pub unsafe fn integrate(pos: *mut [f32; 4], vel: *const [f32; 4], n: usize, dt: f32) {
    let i = thread::index_1d() as usize;
    if i < n {
        let v = *vel.add(i);
        let p = &mut *pos.add(i);
        p[0] += v[0] * dt;
        p[1] += v[1] * dt;
        p[2] += v[2] * dt;
    }
}

//@ case: correct
// Gravity on the velocities with a grid-stride loop, so any grid size covers all `n` particles.
#[kernel]
pub unsafe fn apply_gravity(vel: *mut [f32; 4], n: usize, g: f32, dt: f32) {
    let stride = (thread::block_dim_x() * thread::grid_dim_x()) as usize;
    let mut i = thread::index_1d() as usize;
    while i < n {
        (*vel.add(i))[1] += g * dt;
        i += stride;
    }
}

//@ case: hazard thread_index_collision
// Colours density cells with a 1-D `index_1d()`, but main.rs launches it with 16 x 16 blocks on a 2-D grid: threads that differ only in y get the same index and write the same pixel, and most of the image is never written.
#[kernel]
pub unsafe fn shade_density(density: *const f32, color: *mut u32, cells: usize, scale: f32) {
    let i = thread::index_1d() as usize;
    if i < cells {
        let d = (*density.add(i) * scale).min(1.0);
        let level = (d * 255.0) as u32;
        *color.add(i) = 0xff00_0000 | (level << 16) | (level << 8) | 255; //~ WARN thread_index_collision
    }
}
