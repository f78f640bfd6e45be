//! Per-pixel compute shaders of a path tracer in rust-gpu: one invocation per pixel of a
//! `width x height` image stored row by row in one storage buffer.

use spirv_std::glam::UVec3;
use spirv_std::spirv;

#[repr(C)]
pub struct Frame {
    pub width: u32,
    pub height: u32,
    pub samples: u32,
}

//@ case: correct
// Exclusive guards on both axes, then the row-major pixel index.
#[spirv(compute(threads(8, 8, 1)))]
pub fn accumulate(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(uniform, descriptor_set = 0, binding = 0)] frame: &Frame,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 1)] sum: &mut [f32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 2)] sample: &[f32],
) {
    if id.x >= frame.width || id.y >= frame.height {
        return;
    }
    let pixel = (id.y * frame.width + id.x) as usize;
    sum[pixel] += sample[pixel] / frame.samples as f32;
}

//@ case: hazard unchecked_thread_index
// `>` lets the invocations with id.x == width and id.y == height through: pixel
// `height * width + width` is past the end of the buffer.
#[spirv(compute(threads(8, 8, 1)))]
pub fn clear(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(uniform, descriptor_set = 0, binding = 0)] frame: &Frame,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 1)] sum: &mut [f32],
) {
    if id.x > frame.width || id.y > frame.height {
        return;
    }
    let pixel = (id.y * frame.width + id.x) as usize;
    sum[pixel] = 0.0; //~ WARN unchecked_thread_index
}
