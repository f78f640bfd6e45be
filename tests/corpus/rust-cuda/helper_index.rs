//! Kernels that pass their global thread index to a device helper function of the same file
//! (the CUDA `__device__` helper idiom), which indexes a buffer with its parameter.

#![cfg_attr(target_os = "cuda", no_std)]
#![allow(improper_ctypes_definitions, clippy::missing_safety_doc)]

use cuda_std::prelude::*;

//@ case: hazard unchecked_thread_index
// A nested helper called with `index_1d()` and no check: the threads past `out`'s end write
// out of bounds.
#[kernel]
pub unsafe fn fill_ramp(out: *mut f32) {
    unsafe fn put(out: *mut f32, i: usize) {
        *out.add(i) = i as f32; //~ WARN unchecked_thread_index
    }
    put(out, thread::index_1d() as usize);
}

//@ case: hazard unchecked_thread_index
// A free helper with two index parameters (x, y) into a row-major image, called with the
// thread's 2-D position and no check on either axis.
#[kernel]
pub unsafe fn invert_image(img: *mut f32, width: usize) {
    let x = (thread::block_idx_x() * thread::block_dim_x() + thread::thread_idx_x()) as usize;
    let y = (thread::block_idx_y() * thread::block_dim_y() + thread::thread_idx_y()) as usize;
    invert_pixel(img, width, x, y);
}

unsafe fn invert_pixel(img: *mut f32, width: usize, x: usize, y: usize) {
    let p = img.add(y * width + x); //~ WARN unchecked_thread_index
    *p = 1.0 - *p;
}

//@ case: correct
// The helper is called from two kernels: one checks the index before the call, the other
// passes a block-local index (the thread within its block). Neither call is unguarded.
#[kernel]
pub unsafe fn bump_all(counts: *mut u32, n: usize) {
    let i = thread::index_1d() as usize;
    if i < n {
        bump(counts, i);
    }
}

#[kernel]
pub unsafe fn bump_block(counts: *mut u32) {
    bump(counts, thread::thread_idx_x() as usize);
}

unsafe fn bump(counts: *mut u32, i: usize) {
    *counts.add(i) += 1;
}

//@ case: correct
// The helper checks its parameter against the element count itself.
#[kernel]
pub unsafe fn halve(data: *mut f32, n: usize) {
    halve_at(data, n, thread::index_1d() as usize);
}

unsafe fn halve_at(data: *mut f32, n: usize, i: usize) {
    if i >= n {
        return;
    }
    *data.add(i) *= 0.5;
}
