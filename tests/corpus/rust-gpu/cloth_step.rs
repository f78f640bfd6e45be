//! A cloth-simulation step in the style of the Vulkan sample shaders ported to rust-gpu: one
//! invocation per particle of a `count_x x count_y` grid, a flat guard on the particle index,
//! then spring forces from the neighbours each behind its own per-axis guard.

use spirv_std::glam::{UVec3, Vec4};
use spirv_std::spirv;

#[repr(C)]
#[derive(Copy, Clone)]
pub struct Particle {
    pub pos: Vec4,
    pub vel: Vec4,
}

#[repr(C)]
#[derive(Copy, Clone)]
pub struct Grid {
    pub count_x: u32,
    pub count_y: u32,
    pub stiffness: f32,
    pub dt: f32,
}

fn pull(from: Vec4, to: Vec4, k: f32) -> Vec4 {
    (to - from) * k
}

//@ case: correct
// Neighbour forces: left/right under the x guards, up/down under the y guards plus `x < count_x`.
#[spirv(compute(threads(16, 16)))]
pub fn cloth_step_cs(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(uniform, descriptor_set = 0, binding = 0)] grid: &Grid,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 1)] current: &[Particle],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 2)] next: &mut [Particle],
) {
    let (w, h) = (grid.count_x, grid.count_y);
    let index = id.y * w + id.x;
    if index >= w * h {
        return;
    }
    let i = index as usize;
    let me = current[i].pos;
    let mut force = Vec4::ZERO;
    if id.x > 0 {
        force += pull(me, current[i - 1].pos, grid.stiffness);
    }
    if id.x < w - 1 {
        force += pull(me, current[i + 1].pos, grid.stiffness);
    }
    if id.y > 0 {
        force += pull(me, current[i - w as usize].pos, grid.stiffness);
    }
    if id.y < h - 1 && id.x < w {
        force += pull(me, current[i + w as usize].pos, grid.stiffness);
    }
    let vel = current[i].vel + force * grid.dt;
    next[i] = Particle { pos: me + vel * grid.dt, vel };
}

//@ case: hazard unchecked_thread_index
// The same step with the flat guard only: the lower neighbour `i + w` is past the end for the last row.
#[spirv(compute(threads(16, 16)))]
pub fn cloth_step_unguarded_cs(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(uniform, descriptor_set = 0, binding = 0)] grid: &Grid,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 1)] current: &[Particle],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 2)] next: &mut [Particle],
) {
    let (w, h) = (grid.count_x, grid.count_y);
    let index = id.y * w + id.x;
    if index >= w * h {
        return;
    }
    let i = index as usize;
    let below = current[i + w as usize].pos; //~ WARN unchecked_thread_index
    next[i] = Particle { pos: below, vel: current[i].vel };
}
