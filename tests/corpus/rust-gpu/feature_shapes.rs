#![cfg_attr(target_arch = "spirv", no_std)]
//! Field-update shaders of an FDTD solver crate that builds for the CPU too: the entry points
//! are declared under `#[cfg_attr(.., spirv(compute(..)))]`, one block shape per cargo
//! feature (1-D, 2-D or 3-D launches of the same kernel).

use spirv_std::glam::{UVec3, Vec4};
use spirv_std::spirv;

#[repr(C)]
#[derive(Copy, Clone)]
pub struct Grid {
    pub nx: u32,
    pub ny: u32,
    pub nz: u32,
}

fn cell(id: UVec3, g: &Grid) -> Option<usize> {
    if id.x < g.nx && id.y < g.ny && id.z < g.nz {
        Some(((id.z * g.ny + id.y) * g.nx + id.x) as usize)
    } else {
        None
    }
}

//@ case: correct
// The magnetic-field update, one invocation per cell: the cell's linear index comes from a helper that returns `None` outside the grid; the shape differs per feature.
#[cfg_attr(feature = "dim1", spirv(compute(threads(64))))]
#[cfg_attr(feature = "dim3", spirv(compute(threads(4, 4, 4))))]
pub fn update_h(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(uniform, descriptor_set = 0, binding = 0)] grid: &Grid,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 1)] h: &mut [Vec4],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 2)] e: &[Vec4],
) {
    if let Some(c) = cell(id, grid) {
        h[c] = h[c] - 0.5 * e[c];
    }
}

//@ case: hazard unchecked_thread_index
// The source injection forgets the check: a launch rounded up to whole blocks runs invocations past the last cell.
#[cfg_attr(feature = "dim1", spirv(compute(threads(64))))]
pub fn inject(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] e: &mut [Vec4],
    #[spirv(push_constant)] amplitude: &f32,
) {
    let i = id.x as usize;
    e[i] += Vec4::splat(*amplitude); //~ WARN unchecked_thread_index
}

//@ case: hazard unsafe_in_kernel
// Skips the bounds check by writing through a pointer made in place from the storage buffer (after a guard that already made the index safe): an `unsafe` block that a plain `e[i] = ..` does not need.
#[spirv(compute(threads(64)))]
pub fn zero_fill(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] e: &mut [Vec4],
) {
    let i = id.x as usize;
    if i < e.len() {
        unsafe { *e.as_mut_ptr().add(i) = Vec4::ZERO; } //~ WARN unsafe_in_kernel
    }
}
