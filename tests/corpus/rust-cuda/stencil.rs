//! 2-D stencils on a row-major `w x h` grid of f32, with the host functions that launch
//! them (cust) on 16 x 16 thread blocks.

#![cfg_attr(target_os = "cuda", no_std)]
#![allow(improper_ctypes_definitions, clippy::missing_safety_doc)]

use cuda_std::prelude::*;

#[cfg(not(target_os = "cuda"))]
use cust::{error::CudaResult, launch, prelude::*};

#[cfg(not(target_os = "cuda"))]
fn grid_for(w: usize, h: usize) -> (u32, u32) {
    ((w as u32 + 15) / 16, (h as u32 + 15) / 16)
}

//@ case: correct
// Jacobi step of the heat equation: 2-D global index, interior-only guard, neighbours read at `c +- 1` and `c +- w`; the host ping-pongs two distinct buffers.
#[kernel]
pub unsafe fn heat_step(src: *const f32, dst: *mut f32, w: usize, h: usize, alpha: f32) {
    let x = (thread::block_idx_x() * thread::block_dim_x() + thread::thread_idx_x()) as usize;
    let y = (thread::block_idx_y() * thread::block_dim_y() + thread::thread_idx_y()) as usize;
    if x > 0 && y > 0 && x < w - 1 && y < h - 1 {
        let c = y * w + x;
        let lap = *src.add(c - 1) + *src.add(c + 1) + *src.add(c - w) + *src.add(c + w) - 4.0 * *src.add(c);
        *dst.add(c) = *src.add(c) + alpha * lap;
    }
}

#[cfg(not(target_os = "cuda"))]
pub fn run_heat(
    module: &Module,
    stream: &Stream,
    a: &mut DeviceBuffer<f32>,
    b: &mut DeviceBuffer<f32>,
    w: usize,
    h: usize,
    steps: usize,
) -> CudaResult<()> {
    let grid = grid_for(w, h);
    let block = (16u32, 16u32);
    for step in 0..steps {
        let (src, dst) = if step % 2 == 0 {
            (a.as_device_ptr(), b.as_device_ptr())
        } else {
            (b.as_device_ptr(), a.as_device_ptr())
        };
        unsafe {
            launch!(module.heat_step<<<grid, block, 0, stream>>>(src, dst, w, h, 0.2f32))?;
        }
    }
    stream.synchronize()
}

//@ case: hazard aliased_launch_args
// Horizontal 3-tap box blur launched in place: the same pointer is passed as `src` and `dst`, so a thread may read a neighbour that another thread has already blurred.
#[kernel]
pub unsafe fn blur_rows(src: *const f32, dst: *mut f32, w: usize, h: usize) {
    let x = (thread::block_idx_x() * thread::block_dim_x() + thread::thread_idx_x()) as usize;
    let y = (thread::block_idx_y() * thread::block_dim_y() + thread::thread_idx_y()) as usize;
    if x < w && y < h {
        let row = y * w;
        let left = if x > 0 { x - 1 } else { x };
        let right = if x + 1 < w { x + 1 } else { x };
        *dst.add(row + x) = (*src.add(row + left) + *src.add(row + x) + *src.add(row + right)) / 3.0;
    }
}

#[cfg(not(target_os = "cuda"))]
pub fn blur_in_place(module: &Module, stream: &Stream, image: &mut DeviceBuffer<f32>, w: usize, h: usize) -> CudaResult<()> {
    let grid = grid_for(w, h);
    let pixels = image.as_device_ptr();
    unsafe {
        launch!(module.blur_rows<<<grid, (16u32, 16u32), 0, stream>>>(
            pixels,
            pixels, //~ ERROR aliased_launch_args
            w,
            h
        ))?;
    }
    stream.synchronize()
}
