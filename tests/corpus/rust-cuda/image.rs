//! Image kernels of a small CUDA path tracer: one thread per pixel, launched on 2-D grids
//! of 16 x 16 blocks covering `width x height`.

#![cfg_attr(target_os = "cuda", no_std)]
#![allow(improper_ctypes_definitions, clippy::missing_safety_doc)]

use cuda_std::prelude::*;

/// Anything a primary ray can hit; returns the distance along `dir` to the nearest hit.
pub trait Hittable {
    fn hit(&self, origin: [f32; 3], dir: [f32; 3], t_max: f32) -> Option<f32>;
}

fn primary_ray(x: u32, y: u32, width: u32, height: u32) -> ([f32; 3], [f32; 3]) {
    let aspect = width as f32 / height as f32;
    let u = (x as f32 + 0.5) / width as f32 * 2.0 - 1.0;
    let v = 1.0 - (y as f32 + 0.5) / height as f32 * 2.0;
    ([0.0, 0.0, 0.0], [u * aspect, v, -1.0])
}

fn aces(c: f32) -> u32 {
    let t = (c * (2.51 * c + 0.03)) / (c * (2.43 * c + 0.59) + 0.14);
    (t.max(0.0).min(1.0) * 255.0) as u32
}

//@ case: correct
// Tone-maps the HDR framebuffer: 2-D index from `thread::index_2d()`, early return outside the image, then one pixel per thread at `y * width + x`.
#[kernel]
pub unsafe fn tonemap(hdr: *const [f32; 3], ldr: *mut u32, width: u32, height: u32, exposure: f32) {
    let px = thread::index_2d();
    if px.x >= width || px.y >= height {
        return;
    }
    let idx = (px.y * width + px.x) as usize;
    let [r, g, b] = *hdr.add(idx);
    *ldr.add(idx) = aces(r * exposure) | (aces(g * exposure) << 8) | (aces(b * exposure) << 16) | (255 << 24);
}

//@ case: hazard heap_owning_kernel_arg
// Depth pass that takes the scene as `&dyn Hittable`: the trait object's data pointer and vtable are host addresses the GPU cannot dereference or call through.
#[kernel]
pub unsafe fn depth_pass(depth: *mut f32, width: u32, height: u32, scene: &dyn Hittable) { //~ ERROR heap_owning_kernel_arg
    let x = thread::block_idx_x() * thread::block_dim_x() + thread::thread_idx_x();
    let y = thread::block_idx_y() * thread::block_dim_y() + thread::thread_idx_y();
    if x < width && y < height {
        let (origin, dir) = primary_ray(x, y, width, height);
        let t = scene.hit(origin, dir, f32::MAX).unwrap_or(f32::INFINITY);
        *depth.add((y * width + x) as usize) = t;
    }
}

//@ case: correct
// Box blur with clamp-to-edge sampling: the tap's coordinates are `mut` variables clamped in place (`iy = max(0, min(iy, height - 1))`) before the read, so every tap lies inside the image.
#[kernel]
pub unsafe fn box_blur_clamped(src: &[f32], dst: *mut f32, width: usize, height: usize, radius: usize) {
    let x = (thread::block_idx_x() * thread::block_dim_x() + thread::thread_idx_x()) as usize;
    let y = (thread::block_idx_y() * thread::block_dim_y() + thread::thread_idx_y()) as usize;
    if x >= width || y >= height {
        return;
    }
    let mut acc = 0.0f32;
    for dy in 0..2 * radius + 1 {
        let mut iy = y + dy;
        iy = core::cmp::max(radius, core::cmp::min(iy, height - 1 + radius)) - radius;
        for dx in 0..2 * radius + 1 {
            let mut ix = x + dx;
            ix = ix.min(width - 1 + radius) - radius;
            acc += src[iy * width + ix];
        }
    }
    let taps = ((2 * radius + 1) * (2 * radius + 1)) as f32;
    *dst.add(y * width + x) = acc / taps;
}
