#![cfg_attr(target_arch = "spirv", no_std)]
//! Shaders of a particle-sim crate (rust-gpu): a setup pass that fills a parameter block once,
//! a periodic (wrap-around) grid update that reduces positions with `Rem`, and bindless-style
//! `RuntimeArray` buffers, whose `index` / `index_mut` do not check bounds.

use core::ops::Rem;
use spirv_std::glam::{UVec2, UVec3, Vec3Swizzles};
use spirv_std::{spirv, RuntimeArray};

#[repr(C)]
#[derive(Copy, Clone)]
pub struct Sizes {
    pub count: u32,
    pub width: u32,
    pub height: u32,
}

//@ case: correct
// Dispatched as one invocation (`threads(1)`, no invocation id): it writes the constants block for the frame.
#[spirv(compute(threads(1)))]
pub fn write_constants(
    #[spirv(push_constant)] sizes: &Sizes,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] constants: &mut [f32],
) {
    constants[0] = 1.0 / sizes.width as f32;
    constants[1] = 1.0 / sizes.height as f32;
    constants[2] = (sizes.width * sizes.height) as f32;
}

//@ case: hazard unindexed_kernel_write
// 64 invocations per workgroup and no invocation id: every invocation stores the same element.
#[spirv(compute(threads(64)))]
pub fn clear_flag(#[spirv(storage_buffer, descriptor_set = 0, binding = 0)] flags: &mut [u32]) {
    flags[0] = 0; //~ WARN unindexed_kernel_write
}

//@ case: correct
// Periodic boundary: the id is reduced modulo the grid with `Rem::rem` on the vector, so the
// flat index stays below `width * height` for any dispatch size.
#[spirv(compute(threads(8, 8)))]
pub fn wrap_copy(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(push_constant)] sizes: &Sizes,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] src: &[f32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 1)] dst: &mut [f32],
) {
    let grid = UVec2::new(sizes.width, sizes.height);
    let cell = id.xy().rem(grid);
    let at = (cell.y * sizes.width + cell.x) as usize;
    dst[at] = src[at];
}

//@ case: correct
// The scalar spelling of the same wrap-around.
#[spirv(compute(threads(64)))]
pub fn wrap_shift(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] src: &[f32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 1)] dst: &mut [f32],
) {
    let n = dst.len();
    let from = (id.x as usize + 1).rem(n);
    let to = (id.x as usize).rem(n);
    dst[to] = src[from];
}

//@ case: correct
// `RuntimeArray` has no length: the element count arrives in the push constants and guards both accesses.
#[spirv(compute(threads(64)))]
pub fn scale_particles(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(push_constant)] sizes: &Sizes,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] mass: &RuntimeArray<f32>,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 1)] weight: &mut RuntimeArray<f32>,
) {
    let i = id.x;
    if i >= sizes.count {
        return;
    }
    unsafe {
        *weight.index_mut(i as usize) = *mass.index(i as usize) * 9.81;
    }
}

//@ case: hazard unchecked_thread_index
// Off by one: `i == count` passes the check, and `index_mut` writes one element past the end unchecked.
#[spirv(compute(threads(64)))]
pub fn damp_particles(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(push_constant)] sizes: &Sizes,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] speed: &mut RuntimeArray<f32>,
) {
    let i = id.x;
    if i > sizes.count {
        return;
    }
    unsafe {
        let v = speed.index_mut(i as usize); //~ WARN unchecked_thread_index
        *v *= 0.99;
    }
}
