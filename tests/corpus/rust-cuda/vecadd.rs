//! Element-wise kernels of a BLAS-1 style kernel crate, compiled to PTX by `cuda_builder`
//! (rustc_codegen_nvvm) and loaded by the host with `cust`.

#![cfg_attr(target_os = "cuda", no_std)]
#![allow(improper_ctypes_definitions, clippy::missing_safety_doc)]

use cuda_std::prelude::*;
use cuda_std::GpuFloat;

//@ case: correct
// Adds two `&[f32]` slices into a raw output pointer; the global index is bounded by both slice lengths first.
#[kernel]
pub unsafe fn add_vectors(lhs: &[f32], rhs: &[f32], out: *mut f32) {
    let i = thread::index_1d() as usize;
    if i < lhs.len() && i < rhs.len() {
        *out.add(i) = lhs[i] + rhs[i];
    }
}

//@ case: correct
// SAXPY over raw device pointers with a grid-stride loop: every access sits inside `while i < n`.
#[kernel]
pub unsafe fn saxpy(n: usize, alpha: f32, x: *const f32, y: *mut f32) {
    let stride = (thread::block_dim_x() * thread::grid_dim_x()) as usize;
    let mut i = thread::index_1d() as usize;
    while i < n {
        *y.add(i) = alpha * *x.add(i) + *y.add(i);
        i += stride;
    }
}

//@ case: correct
// Leaky ReLU: threads past the end of the buffer leave through an early `return` before touching memory.
#[kernel]
pub unsafe fn leaky_relu(x: *const f32, y: *mut f32, n: usize, slope: f32) {
    let i = thread::index_1d() as usize;
    if i >= n {
        return;
    }
    let v = *x.add(i);
    *y.add(i) = if v > 0.0 { v } else { slope * v };
}

//@ case: hazard unchecked_thread_index
// In-place scaling through `data.add(i)` with nothing bounding `i`: the grid is rounded up to whole blocks, so the last block writes past the buffer.
#[kernel]
pub unsafe fn scale_in_place(data: *mut f32, factor: f32) {
    let i = thread::index_1d() as usize;
    *data.add(i) *= factor; //~ WARN unchecked_thread_index
}

//@ case: hazard unindexed_kernel_write
// Meant to hand the buffer's last element to the next pass, but every in-range thread stores its own element to `*last`: the value left behind is whichever thread wrote last.
#[kernel]
pub unsafe fn copy_keep_last(src: *const f32, dst: *mut f32, n: usize, last: *mut f32) {
    let i = thread::index_1d() as usize;
    if i < n {
        let v = *src.add(i);
        *dst.add(i) = v;
        *last = v; //~ WARN unindexed_kernel_write
    }
}

//@ case: hazard static_mut_in_kernel
// Counts clamped elements in an ordinary `static mut` (global memory, not `#[address_space(shared)]`): every thread races on the counter and the host's copy never changes.
static mut CLAMPED_COUNT: u32 = 0;

#[kernel]
pub unsafe fn clamp_and_count(data: *mut f32, n: usize, lo: f32, hi: f32) {
    let i = thread::index_1d() as usize;
    if i < n {
        let v = *data.add(i);
        if v < lo || v > hi {
            unsafe { //~ WARN unsafe_in_kernel
                CLAMPED_COUNT += 1; //~ ERROR static_mut_in_kernel
            }
        }
        *data.add(i) = v.max(lo).min(hi);
    }
}

//@ case: hazard host_only_api_in_kernel
// Hann window built with `std::f32::consts::PI`: the device crate is `no_std`, so the `std::` path does not exist on the GPU (`core::f32::consts::PI` does).
#[kernel]
pub unsafe fn hann_window(window: *mut f32, n: usize) {
    let i = thread::index_1d() as usize;
    if i < n {
        let phase = 2.0 * std::f32::consts::PI * i as f32 / (n - 1) as f32; //~ ERROR host_only_api_in_kernel
        *window.add(i) = 0.5 - 0.5 * phase.cos();
    }
}

//@ case: correct
// Writes through a reference to the thread's element (`let out = &mut *c.add(i); *out = ..`), the global index under `i < n`.
#[kernel]
pub unsafe fn vec_add_ref(a: *const f32, b: *const f32, c: *mut f32, n: usize) {
    let i = thread::index_1d() as usize;
    if i < n {
        let out = &mut *c.add(i);
        *out = *a.add(i) + *b.add(i);
    }
}

//@ case: hazard thread_index_collision
// The same element reference with the block index added instead of scaled by the block size: thread 1 of block 0 and thread 0 of block 1 write the same element.
#[kernel]
pub unsafe fn vec_add_ref_unscaled(a: *const f32, b: *const f32, c: *mut f32, n: usize) {
    let i = (thread::block_idx_x() + thread::thread_idx_x()) as usize;
    if i < n {
        let out = &mut *c.add(i);
        *out = *a.add(i) + *b.add(i); //~ WARN thread_index_collision
    }
}
