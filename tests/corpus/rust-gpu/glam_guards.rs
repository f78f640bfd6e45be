#![cfg_attr(target_arch = "spirv", no_std)]
//! Field-update shaders of an FDTD solver (rust-gpu) that guard and clamp with glam's
//! vector operations: `id.cmpge(dims).any()` early returns and `.min(..)` clamps.

use spirv_std::glam::{UVec2, UVec3, USizeVec2};
use spirv_std::spirv;

//@ case: correct
// Threads outside the grid return on the vector compare; the flat index is then in the grid.
#[spirv(compute(threads(8, 8, 1)))]
pub fn update_e(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(uniform, descriptor_set = 0, binding = 0)] dims: &UVec3,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 1)] e: &mut [f32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 2)] h: &[f32],
) {
    if id.cmpge(*dims).any() {
        return;
    }
    let cell = (id.y * dims.x + id.x) as usize;
    e[cell] += 0.5 * h[cell];
}

//@ case: correct
// The index clamped to the last cell of the grid (`.min(len - 1)`) reads the per-cell coefficients too.
#[spirv(compute(threads(64)))]
pub fn damp(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] field: &mut [f32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 1)] coeff: &[f32],
) {
    let cell = (id.x as usize).min(field.len() - 1);
    field[cell] *= coeff[cell];
}

//@ case: correct
// Neighbours clamped per component with a vector `.min`, each component read as an index.
#[spirv(compute(threads(64)))]
pub fn curl(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(uniform, descriptor_set = 0, binding = 0)] step: &UVec2,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 1)] field: &mut [f32],
) {
    let i = id.x as usize;
    if i >= field.len() {
        return;
    }
    let next = (step.as_usizevec2() + i).min(USizeVec2::splat(field.len() - 1));
    field[i] += field[next.x] - field[next.y];
}

//@ case: hazard unchecked_thread_index
// `cmpge(..).all()` returns only when every component is out: a thread with just `x` past the
// edge goes on and writes past its row.
#[spirv(compute(threads(8, 8, 1)))]
pub fn update_h(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(uniform, descriptor_set = 0, binding = 0)] dims: &UVec3,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 1)] h: &mut [f32],
) {
    if id.cmpge(*dims).all() {
        return;
    }
    h[(id.y * dims.x + id.x) as usize] = 0.0; //~ WARN unchecked_thread_index
}

//@ case: correct
// A one-invocation setup pass that declares the invocation id and never reads it.
#[spirv(compute(threads(1)))]
pub fn reset_counters(
    #[spirv(global_invocation_id)] _id: UVec3,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] counters: &mut [u32],
) {
    counters[0] = 0;
    counters[1] = 0;
}
