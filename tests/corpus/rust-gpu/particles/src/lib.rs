#![cfg_attr(target_arch = "spirv", no_std)]
//! Particle simulation shaders (rust-gpu, compiled with spirv-builder) and, for the host build, the
//! wgpu code in `host.rs` that creates their pipelines and dispatches them. Each case below is a
//! shader entry point together with its dispatch in `host.rs`.

use spirv_std::arch::atomic_i_add;
use spirv_std::glam::UVec3;
use spirv_std::memory::{Scope, Semantics};
use spirv_std::spirv;

#[cfg(not(target_arch = "spirv"))]
pub mod host;

/// Invocations per workgroup of the particle passes. `#[spirv(compute(threads(..)))]` only accepts
/// integer literals, so the entry points below spell `64`; the host sizes its dispatches with these.
pub const PARTICLE_WG: u32 = 64;
pub const GRID_WG: u32 = 64;

#[repr(C)]
#[derive(Copy, Clone)]
#[cfg_attr(not(target_arch = "spirv"), derive(bytemuck::Pod, bytemuck::Zeroable))]
pub struct SimParams {
    pub dt: f32,
    pub gravity: f32,
    pub cell_size: f32,
    pub restitution: f32,
    pub count: u32,
    pub grid_dim: u32,
    pub _pad: [u32; 2],
}

#[repr(C)]
#[derive(Copy, Clone)]
#[cfg_attr(not(target_arch = "spirv"), derive(bytemuck::Pod, bytemuck::Zeroable))]
pub struct Particle {
    pub pos: [f32; 2],
    pub vel: [f32; 2],
}

//@ case: correct
// Semi-implicit Euler step: early return past the particle count; the constant-index writes go to a local copy, not to the buffer.
#[spirv(compute(threads(64)))]
pub fn integrate_cs(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(uniform, descriptor_set = 0, binding = 0)] params: &SimParams,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 1)] particles: &mut [Particle],
) {
    let i = id.x as usize;
    if i >= particles.len() || id.x >= params.count {
        return;
    }
    let mut p = particles[i];
    p.vel[1] -= params.gravity * params.dt;
    p.pos[0] += p.vel[0] * params.dt;
    p.pos[1] += p.vel[1] * params.dt;
    if p.pos[1] < 0.0 {
        p.pos[1] = -p.pos[1];
        p.vel[1] = -p.vel[1] * params.restitution;
    }
    particles[i] = p;
}

//@ case: correct
// Binning pass that builds its global index by hand as workgroup_id.x * PARTICLE_WG + local_invocation_id.x (PARTICLE_WG == 64 == threads), then counts per cell atomically.
#[spirv(compute(threads(64)))]
pub fn scatter_cs(
    #[spirv(workgroup_id)] wg: UVec3,
    #[spirv(local_invocation_id)] lid: UVec3,
    #[spirv(uniform, descriptor_set = 0, binding = 0)] params: &SimParams,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 1)] particles: &[Particle],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 2)] cell_counts: &mut [u32],
) {
    let i = (wg.x * PARTICLE_WG + lid.x) as usize;
    if i < particles.len() {
        let p = particles[i];
        let last = params.grid_dim - 1;
        let cx = ((p.pos[0] / params.cell_size) as u32).min(last);
        let cy = ((p.pos[1] / params.cell_size) as u32).min(last);
        let cell = (cy * params.grid_dim + cx) as usize;
        if cell < cell_counts.len() {
            unsafe {
                atomic_i_add::<u32, { Scope::Device as u32 }, { Semantics::NONE.bits() }>(&mut cell_counts[cell], 1);
            }
        }
    }
}

//@ case: hazard thread_index_collision
// Grid clear indexed by local_invocation_id.x only, while host.rs dispatches cells / GRID_WG workgroups: every workgroup clears cells 0..64 and the rest stay stale.
#[spirv(compute(threads(64)))]
pub fn clear_grid_cs(
    #[spirv(local_invocation_id)] lid: UVec3,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 2)] cell_counts: &mut [u32],
) {
    let cell = lid.x as usize;
    if cell < cell_counts.len() {
        cell_counts[cell] = 0; //~ WARN thread_index_collision
    }
}
