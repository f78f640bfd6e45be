//! Image kernels of a CUDA ray tracer written with cuda_std: one thread per pixel of a
//! `dims = [height, width]` image, pixels row by row, per-pixel random states in a device
//! buffer the host allocated with one state per pixel.

#![cfg_attr(target_os = "cuda", no_std)]
#![allow(improper_ctypes_definitions, clippy::missing_safety_doc)]

use cuda_std::prelude::*;

#[repr(C)]
pub struct Rng {
    pub state: u64,
}

//@ case: correct
// The row stride is the width (`dims[1]`), the column's bound.
#[kernel]
pub unsafe fn seed(states: *mut Rng, dims: [usize; 2], seed: u64) {
    let x = (thread::block_idx_x() * thread::block_dim_x() + thread::thread_idx_x()) as usize;
    let y = (thread::block_idx_y() * thread::block_dim_y() + thread::thread_idx_y()) as usize;
    if x >= dims[1] || y >= dims[0] {
        return;
    }
    let px = y * dims[1] + x;
    (*states.add(px)).state = seed ^ px as u64;
}

//@ case: hazard unchecked_thread_index
// The row stride is the HEIGHT: for a tall image the last rows index past the end, for a
// wide one two threads share a state.
#[kernel]
pub unsafe fn render(states: *mut Rng, out: *mut f32, dims: [usize; 2]) {
    let x = (thread::block_idx_x() * thread::block_dim_x() + thread::thread_idx_x()) as usize;
    let y = (thread::block_idx_y() * thread::block_dim_y() + thread::thread_idx_y()) as usize;
    if x >= dims[1] || y >= dims[0] {
        return;
    }
    let px = y * dims[0] + x;
    let rng = &mut *states.add(px); //~ WARN unchecked_thread_index
    rng.state = rng.state.wrapping_mul(6364136223846793005).wrapping_add(1);
    *out.add(y * dims[1] + x) = (rng.state >> 40) as f32;
}
