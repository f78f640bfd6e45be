//! Reductions, scans and histograms. Block sizes are powers of two, at most 256 threads;
//! the host launches one thread per input element unless a kernel says otherwise.

#![cfg_attr(target_os = "cuda", no_std)]
#![allow(improper_ctypes_definitions, clippy::missing_safety_doc)]

use core::cell::Cell;
use core::sync::atomic::Ordering;
use cuda_std::address_space;
use cuda_std::atomic::mid::atomic_fetch_add_f32_device;
use cuda_std::atomic::AtomicF32;
use cuda_std::prelude::*;
use cuda_std::shared_array;

const BLOCK: usize = 256;

//@ case: correct
// Block tree reduction in shared memory (`if tid < s { PARTIAL[tid] += PARTIAL[tid + s] }` between barriers); thread 0 adds the block's sum to the total atomically.
#[kernel]
pub unsafe fn sum_f32(input: &[f32], total: *mut f32) {
    #[address_space(shared)]
    static mut PARTIAL: [f32; BLOCK] = [0.0; BLOCK];

    let tid = thread::thread_idx_x() as usize;
    let i = thread::index_1d() as usize;
    PARTIAL[tid] = if i < input.len() { input[i] } else { 0.0 };
    thread::sync_threads();

    let mut s = BLOCK / 2;
    while s > 0 {
        if tid < s {
            PARTIAL[tid] += PARTIAL[tid + s];
        }
        thread::sync_threads();
        s /= 2;
    }

    if tid == 0 {
        atomic_fetch_add_f32_device(total, Ordering::Relaxed, PARTIAL[0]);
    }
}

//@ case: correct
// Dot product: grid-stride `for i in (start..n).step_by(stride)`, per-thread sums folded in dynamic shared memory, one `AtomicF32::fetch_add` per block.
#[kernel]
pub unsafe fn dot(x: &[f32], y: &[f32], result: &AtomicF32) {
    let cache = cuda_std::shared::dynamic_shared_mem::<f32>();
    let tid = thread::thread_idx_x() as usize;
    let threads = thread::block_dim_x() as usize;
    let stride = threads * thread::grid_dim_x() as usize;
    let start = thread::index_1d() as usize;
    let n = x.len().min(y.len());

    let mut acc = 0.0f32;
    for i in (start..n).step_by(stride) {
        acc += x[i] * y[i];
    }
    *cache.add(tid) = acc;
    thread::sync_threads();

    let mut half = threads / 2;
    while half > 0 {
        if tid < half {
            *cache.add(tid) += *cache.add(tid + half);
        }
        thread::sync_threads();
        half /= 2;
    }

    if tid == 0 {
        result.fetch_add(*cache, Ordering::Relaxed);
    }
}

//@ case: correct
// Per-block inclusive scan (Hillis-Steele) in a `shared_array!` ping-pong buffer, indexed only by the thread's position in its block; global reads and writes are guarded by `gid < n`.
#[kernel]
pub unsafe fn block_scan(input: *const f32, output: *mut f32, n: usize) {
    let buf = shared_array![f32; 2 * BLOCK];
    let tid = thread::thread_idx_x() as usize;
    let width = thread::block_dim_x() as usize;
    let gid = thread::index_1d() as usize;

    *buf.add(tid) = if gid < n { *input.add(gid) } else { 0.0 };
    thread::sync_threads();

    let mut src = 0usize;
    let mut offset = 1usize;
    while offset < width {
        let dst = 1 - src;
        let v = *buf.add(src * width + tid);
        *buf.add(dst * width + tid) = if tid >= offset { v + *buf.add(src * width + tid - offset) } else { v };
        thread::sync_threads();
        src = dst;
        offset *= 2;
    }

    if gid < n {
        *output.add(gid) = *buf.add(src * width + tid);
    }
}

//@ case: hazard unchecked_thread_index
// One folding step of a multi-launch reduction with `half = (len + 1) / 2`: for an odd `len` the last thread below `half` reads `x[i + half] == x[len]`; `i < half` does not bound `i + half`.
#[kernel]
pub unsafe fn fold_halves(x: *mut f32, len: usize) {
    let half = (len + 1) / 2;
    let i = thread::index_1d() as usize;
    if i < half {
        *x.add(i) += *x.add(i + half); //~ WARN unchecked_thread_index
    }
}

//@ case: hazard unindexed_kernel_write
// Sums into one `*mut f32` with a plain `+=`: every thread read-modify-writes the same word and updates are lost.
#[kernel]
pub unsafe fn sum_naive(input: &[f32], total: *mut f32) {
    let i = thread::index_1d() as usize;
    if i < input.len() {
        *total += input[i]; //~ WARN unindexed_kernel_write
    }
}

//@ case: hazard interior_mutability_kernel_arg
// Histogram through `&[Cell<u32>]`: `Cell` is not `Sync`, so thousands of threads doing `get`/`set` on one bin race and lose counts (a cuda_std atomic is needed).
#[kernel]
pub unsafe fn bucket_histogram(keys: &[u32], bins: &[Cell<u32>]) { //~ WARN interior_mutability_kernel_arg
    let i = thread::index_1d() as usize;
    if i < keys.len() {
        let bin = &bins[keys[i] as usize % bins.len()];
        bin.set(bin.get() + 1);
    }
}

//@ case: hazard unindexed_kernel_write
// The block reduction of `sum_f32`, but thread 0 of each block adds the block's sum with a plain `+=`: the blocks race on `*total` and lose sums (it needs the atomic).
#[kernel]
pub unsafe fn sum_blocks_racy(input: &[f32], total: *mut f32) {
    #[address_space(shared)]
    static mut SUMS: [f32; BLOCK] = [0.0; BLOCK];

    let tid = thread::thread_idx_x() as usize;
    let i = thread::index_1d() as usize;
    SUMS[tid] = if i < input.len() { input[i] } else { 0.0 };
    thread::sync_threads();
    let mut s = BLOCK / 2;
    while s > 0 {
        if tid < s {
            SUMS[tid] += SUMS[tid + s];
        }
        thread::sync_threads();
        s /= 2;
    }
    if tid == 0 {
        *total += SUMS[0]; //~ WARN unindexed_kernel_write
    }
}

//@ case: correct
// Reports an allocation failure the way `alloc` does: cuda_std gives kernels an allocator, so the `alloc` crate exists on the device.
#[kernel]
pub unsafe fn scratch_or_fail(bytes: usize, out: *mut u8) {
    let layout = core::alloc::Layout::from_size_align(bytes, 16).unwrap();
    let p = alloc::alloc::alloc(layout);
    if p.is_null() {
        alloc::alloc::handle_alloc_error(layout);
    }
    if thread::index_1d() == 0 {
        *out = 1;
    }
    alloc::alloc::dealloc(p, layout);
}
