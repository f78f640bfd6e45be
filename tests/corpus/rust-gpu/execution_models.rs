#![cfg_attr(target_arch = "spirv", no_std)]
//! Shaders of a rust-gpu compute crate in two execution models: OpenCL-style
//! `#[spirv(kernel(threads(..)))]` entry points over `#[spirv(cross_workgroup)]` buffers, and
//! Vulkan `#[spirv(compute(threads(1)))]` ones dispatched with one workgroup per element.

use spirv_std::glam::{U64Vec3, UVec3};
use spirv_std::spirv;

//@ case: correct
// OpenCL-model SAXPY: the global id is checked against the output's length.
#[spirv(kernel(threads(64)))]
pub fn saxpy_cl(
    #[spirv(global_invocation_id)] gid: U64Vec3,
    #[spirv(cross_workgroup)] x: &[f32],
    #[spirv(cross_workgroup)] y: &mut [f32],
    a: f32,
) {
    let i = gid.x as usize;
    if i < y.len() && i < x.len() {
        y[i] += a * x[i];
    }
}

//@ case: hazard unchecked_thread_index
// The same OpenCL-model kernel without the check: a global size rounded up to whole workgroups runs work-items past the end.
#[spirv(kernel(threads(64)))]
pub fn scale_cl(
    #[spirv(global_invocation_id)] gid: U64Vec3,
    #[spirv(cross_workgroup)] y: &mut [f32],
    a: f32,
) {
    y[gid.x as usize] *= a; //~ WARN unchecked_thread_index
}

//@ case: correct
// One invocation per workgroup (`threads(1)`), dispatched with one workgroup per agent: the global id is the workgroup id, so no invocation runs past the last agent.
#[spirv(compute(threads(1)))]
pub fn age_agents(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] ages: &mut [u32],
) {
    ages[id.x as usize] += 1;
}
