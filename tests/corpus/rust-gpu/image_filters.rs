#![cfg_attr(target_arch = "spirv", no_std)]
//! 2-D image compute shaders (rust-gpu) over packed RGBA8 / f32 planes, with their wgpu dispatches.

use core::cell::Cell;
use spirv_std::arch::workgroup_memory_barrier_with_group_sync;
use spirv_std::glam::{UVec3, Vec4};
use spirv_std::spirv;

#[repr(C)]
#[derive(Copy, Clone)]
#[cfg_attr(not(target_arch = "spirv"), derive(bytemuck::Pod, bytemuck::Zeroable))]
pub struct ImageDims {
    pub width: u32,
    pub height: u32,
    pub tiles_x: u32,
    pub gain: f32,
}

fn unpack_rgba8(p: u32) -> Vec4 {
    Vec4::new(
        (p & 0xff) as f32,
        ((p >> 8) & 0xff) as f32,
        ((p >> 16) & 0xff) as f32,
        (p >> 24) as f32,
    ) / 255.0
}

fn pack_rgba8(c: Vec4) -> u32 {
    let c = (c.clamp(Vec4::ZERO, Vec4::ONE) * 255.0).round();
    (c.x as u32) | ((c.y as u32) << 8) | ((c.z as u32) << 16) | ((c.w as u32) << 24)
}

#[cfg(not(target_arch = "spirv"))]
fn dispatch_2d(
    pass: &mut wgpu::ComputePass<'_>,
    pipeline: &wgpu::ComputePipeline,
    bind_group: &wgpu::BindGroup,
    dims: ImageDims,
    tile: u32,
) {
    pass.set_pipeline(pipeline);
    pass.set_bind_group(0, bind_group, &[]);
    pass.set_push_constants(0, bytemuck::bytes_of(&dims));
    pass.dispatch_workgroups(dims.width.div_ceil(tile), dims.height.div_ceil(tile), 1);
}

//@ case: correct
// Colour inversion on an 8x8-tiled 2-D dispatch: `x < w && y < h` guards the row-major index `y * w + x`.
#[spirv(compute(threads(8, 8)))]
pub fn invert_cs(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(push_constant)] dims: &ImageDims,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] src: &[u32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 1)] dst: &mut [u32],
) {
    let (x, y) = (id.x, id.y);
    if x < dims.width && y < dims.height {
        let idx = (y * dims.width + x) as usize;
        let c = unpack_rgba8(src[idx]);
        dst[idx] = pack_rgba8(Vec4::new(1.0 - c.x, 1.0 - c.y, 1.0 - c.z, c.w));
    }
}

#[cfg(not(target_arch = "spirv"))]
pub fn encode_invert(pass: &mut wgpu::ComputePass<'_>, pipeline: &wgpu::ComputePipeline, bind_group: &wgpu::BindGroup, width: u32, height: u32) {
    let dims = ImageDims { width, height, tiles_x: width.div_ceil(16), gain: 1.0 };
    dispatch_2d(pass, pipeline, bind_group, dims, 8);
}

//@ case: hazard thread_index_collision
// Brightness pass declared threads(8, 8) and dispatched in 2-D, but indexed by id.x alone: every row of invocations writes the same pixels.
#[spirv(compute(threads(8, 8)))]
pub fn brighten_cs(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(push_constant)] dims: &ImageDims,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] pixels: &mut [u32],
) {
    let i = id.x as usize;
    if i < pixels.len() {
        let c = unpack_rgba8(pixels[i]);
        pixels[i] = pack_rgba8(Vec4::new(c.x * dims.gain, c.y * dims.gain, c.z * dims.gain, c.w)); //~ WARN thread_index_collision
    }
}

#[cfg(not(target_arch = "spirv"))]
pub fn encode_brighten(pass: &mut wgpu::ComputePass<'_>, pipeline: &wgpu::ComputePipeline, bind_group: &wgpu::BindGroup, width: u32, height: u32, gain: f32) {
    let dims = ImageDims { width, height, tiles_x: width.div_ceil(16), gain };
    dispatch_2d(pass, pipeline, bind_group, dims, 8);
}

//@ case: hazard unchecked_thread_index
// Exposure on an f32 luminance plane that checks only the column: rows past the height (the dispatch rounds up to 8) index out of range.
#[spirv(compute(threads(8, 8)))]
pub fn exposure_cs(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(push_constant)] dims: &ImageDims,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] src: &[f32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 1)] dst: &mut [f32],
) {
    let idx = (id.y * dims.width + id.x) as usize;
    if id.x < dims.width {
        dst[idx] = src[idx] * dims.gain; //~ WARN unchecked_thread_index //~ WARN unchecked_thread_index
    }
}

#[cfg(not(target_arch = "spirv"))]
pub fn encode_exposure(pass: &mut wgpu::ComputePass<'_>, pipeline: &wgpu::ComputePipeline, bind_group: &wgpu::BindGroup, width: u32, height: u32, stops: f32) {
    let dims = ImageDims { width, height, tiles_x: width.div_ceil(16), gain: 2f32.powf(stops) };
    dispatch_2d(pass, pipeline, bind_group, dims, 8);
}

//@ case: correct
// 3x3 box blur: the centre is guarded by `x < w && y < h`, neighbour coordinates are clamped to the image edge.
#[spirv(compute(threads(16, 16)))]
pub fn box_blur_cs(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(push_constant)] dims: &ImageDims,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] src: &[u32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 1)] dst: &mut [u32],
) {
    let (x, y) = (id.x, id.y);
    if x < dims.width && y < dims.height {
        let mut acc = Vec4::ZERO;
        let mut dy = -1i32;
        while dy <= 1 {
            let mut dx = -1i32;
            while dx <= 1 {
                let sx = (x as i32 + dx).clamp(0, dims.width as i32 - 1) as u32;
                let sy = (y as i32 + dy).clamp(0, dims.height as i32 - 1) as u32;
                acc += unpack_rgba8(src[(sy * dims.width + sx) as usize]);
                dx += 1;
            }
            dy += 1;
        }
        dst[(y * dims.width + x) as usize] = pack_rgba8(acc / 9.0);
    }
}

#[cfg(not(target_arch = "spirv"))]
pub fn encode_box_blur(pass: &mut wgpu::ComputePass<'_>, pipeline: &wgpu::ComputePipeline, bind_group: &wgpu::BindGroup, width: u32, height: u32) {
    let dims = ImageDims { width, height, tiles_x: width.div_ceil(16), gain: 1.0 };
    dispatch_2d(pass, pipeline, bind_group, dims, 16);
}

//@ case: hazard interior_mutability_kernel_arg
// Dirty-tile tracking through `&[Cell<u32>]`: a read-only storage binding mutated via Cell, a plain non-atomic store raced by every pixel of the tile.
#[spirv(compute(threads(16, 16)))]
pub fn mark_dirty_tiles_cs(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(push_constant)] dims: &ImageDims,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] prev: &[u32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 1)] curr: &[u32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 2)] tile_dirty: &[Cell<u32>], //~ WARN interior_mutability_kernel_arg
) {
    if id.x < dims.width && id.y < dims.height {
        let idx = (id.y * dims.width + id.x) as usize;
        if prev[idx] != curr[idx] {
            let tile = ((id.y / 16) * dims.tiles_x + id.x / 16) as usize;
            if tile < tile_dirty.len() {
                tile_dirty[tile].set(1);
            }
        }
    }
}

#[cfg(not(target_arch = "spirv"))]
pub fn encode_dirty_tiles(pass: &mut wgpu::ComputePass<'_>, pipeline: &wgpu::ComputePipeline, bind_group: &wgpu::BindGroup, width: u32, height: u32) {
    let dims = ImageDims { width, height, tiles_x: width.div_ceil(16), gain: 1.0 };
    dispatch_2d(pass, pipeline, bind_group, dims, 16);
}

//@ case: correct
// Tiled transpose of an f32 plane: a padded 16x17 workgroup tile indexed by local ids, one barrier in uniform control flow, guarded global load and store.
#[spirv(compute(threads(16, 16)))]
pub fn transpose_cs(
    #[spirv(workgroup_id)] wg: UVec3,
    #[spirv(local_invocation_id)] lid: UVec3,
    #[spirv(push_constant)] dims: &ImageDims,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] src: &[f32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 1)] dst: &mut [f32],
    #[spirv(workgroup)] tile: &mut [[f32; 17]; 16],
) {
    let (lx, ly) = (lid.x as usize, lid.y as usize);
    let gx = wg.x * 16 + lid.x;
    let gy = wg.y * 16 + lid.y;
    tile[ly][lx] = if gx < dims.width && gy < dims.height {
        src[(gy * dims.width + gx) as usize]
    } else {
        0.0
    };
    workgroup_memory_barrier_with_group_sync();
    // transposed image: `height` columns, `width` rows
    let tx = wg.y * 16 + lid.x;
    let ty = wg.x * 16 + lid.y;
    if tx < dims.height && ty < dims.width {
        dst[(ty * dims.height + tx) as usize] = tile[lx][ly];
    }
}

#[cfg(not(target_arch = "spirv"))]
pub fn encode_transpose(pass: &mut wgpu::ComputePass<'_>, pipeline: &wgpu::ComputePipeline, bind_group: &wgpu::BindGroup, width: u32, height: u32) {
    let dims = ImageDims { width, height, tiles_x: width.div_ceil(16), gain: 1.0 };
    dispatch_2d(pass, pipeline, bind_group, dims, 16);
}
