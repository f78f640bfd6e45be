//! Kernels together with the host functions that launch them through `cust::launch!`
//! (`launch!(module.kernel<<<grid, block, shared_mem_bytes, stream>>>(args..))`).

#![cfg_attr(target_os = "cuda", no_std)]
#![allow(improper_ctypes_definitions, clippy::missing_safety_doc)]

use cuda_std::address_space;
use cuda_std::prelude::*;

#[cfg(not(target_os = "cuda"))]
use cust::{error::CudaResult, launch, prelude::*};

const THREADS: u32 = 256;

//@ case: correct
// A kernel with `&[f32]` parameters: `launch!` passes each slice as two arguments (device pointer, length), so six arguments for four parameters is right.
#[kernel]
pub unsafe fn weighted_sum(a: &[f32], b: &[f32], w: f32, out: *mut f32) {
    let i = thread::index_1d() as usize;
    if i < a.len() && i < b.len() {
        *out.add(i) = w * a[i] + (1.0 - w) * b[i];
    }
}

#[cfg(not(target_os = "cuda"))]
pub fn run_weighted_sum(
    module: &Module,
    stream: &Stream,
    a: &DeviceBuffer<f32>,
    b: &DeviceBuffer<f32>,
    out: &mut DeviceBuffer<f32>,
    w: f32,
) -> CudaResult<()> {
    let grid = (a.len() as u32 + THREADS - 1) / THREADS;
    unsafe {
        launch!(module.weighted_sum<<<grid, THREADS, 0, stream>>>(
            a.as_device_ptr(),
            a.len(),
            b.as_device_ptr(),
            b.len(),
            w,
            out.as_device_ptr()
        ))?;
    }
    stream.synchronize()
}

//@ case: correct
// Second pass of a mean, launched as a single block: threads stride over the partials with their in-block index, and only `thread::index_1d() == 0` stores the mean and prints it with cuda_std's `println!`.
#[kernel]
pub unsafe fn finish_mean(partials: *const f32, count: usize, n_total: usize, mean: *mut f32) {
    #[address_space(shared)]
    static mut SUMS: [f32; 256] = [0.0; 256];

    let tid = thread::thread_idx_x() as usize;
    let mut acc = 0.0f32;
    let mut j = tid;
    while j < count {
        acc += *partials.add(j);
        j += thread::block_dim_x() as usize;
    }
    SUMS[tid] = acc;
    thread::sync_threads();

    let mut s = 128;
    while s > 0 {
        if tid < s {
            SUMS[tid] += SUMS[tid + s];
        }
        thread::sync_threads();
        s /= 2;
    }

    if thread::index_1d() == 0 {
        *mean = SUMS[0] / n_total as f32;
        cuda_std::println!("mean of {} values: {}", n_total, *mean);
    }
}

#[cfg(not(target_os = "cuda"))]
pub fn run_finish_mean(
    module: &Module,
    stream: &Stream,
    partials: &DeviceBuffer<f32>,
    n_total: usize,
    mean: &mut DeviceBox<f32>,
) -> CudaResult<()> {
    let count = partials.len();
    unsafe {
        launch!(module.finish_mean<<<1, THREADS, 0, stream>>>(
            partials.as_device_ptr(),
            count,
            n_total,
            mean.as_device_ptr()
        ))?;
    }
    stream.synchronize()
}

//@ case: hazard thread_index_collision
// Adds the block index to the thread index without multiplying by the block size: thread 1 of block 0 and thread 0 of block 1 both write `out[1]`.
#[kernel]
pub unsafe fn add_scalar(x: *const f32, out: *mut f32, n: usize, s: f32) {
    let i = (thread::block_idx_x() + thread::thread_idx_x()) as usize;
    if i < n {
        *out.add(i) = *x.add(i) + s; //~ WARN thread_index_collision
    }
}

#[cfg(not(target_os = "cuda"))]
pub fn run_add_scalar(module: &Module, stream: &Stream, x: &DeviceBuffer<f32>, out: &mut DeviceBuffer<f32>, s: f32) -> CudaResult<()> {
    let n = x.len();
    let grid = (n as u32 + THREADS - 1) / THREADS;
    unsafe {
        launch!(module.add_scalar<<<grid, THREADS, 0, stream>>>(x.as_device_ptr(), out.as_device_ptr(), n, s))?;
    }
    stream.synchronize()
}

//@ case: hazard thread_index_collision
// Indexes with `thread_idx_x()` alone but is launched with `ceil(n / 128)` blocks: every block writes the same first 128 elements and the rest are never written.
#[kernel]
pub unsafe fn init_ramp(out: *mut f32, n: usize) {
    let i = thread::thread_idx_x() as usize;
    if i < n {
        *out.add(i) = i as f32 / n as f32; //~ WARN thread_index_collision
    }
}

#[cfg(not(target_os = "cuda"))]
pub fn run_init_ramp(module: &Module, stream: &Stream, out: &mut DeviceBuffer<f32>) -> CudaResult<()> {
    let n = out.len();
    let grid = (n as u32 + 127) / 128;
    unsafe {
        launch!(module.init_ramp<<<grid, 128, 0, stream>>>(out.as_device_ptr(), n))?;
    }
    stream.synchronize()
}

//@ case: hazard launch_arg_mismatch
// The launch forgets the element count: `axpby` takes five parameters and the launch passes four, so the kernel reads `n` from whatever follows in the argument buffer.
#[kernel]
pub unsafe fn axpby(alpha: f32, x: *const f32, beta: f32, y: *mut f32, n: usize) {
    let i = thread::index_1d() as usize;
    if i < n {
        *y.add(i) = alpha * *x.add(i) + beta * *y.add(i);
    }
}

#[cfg(not(target_os = "cuda"))]
pub fn run_axpby(module: &Module, stream: &Stream, alpha: f32, x: &DeviceBuffer<f32>, beta: f32, y: &mut DeviceBuffer<f32>) -> CudaResult<()> {
    let grid = (y.len() as u32 + THREADS - 1) / THREADS;
    unsafe {
        launch!(module.axpby<<<grid, THREADS, 0, stream>>>( //~ ERROR launch_arg_mismatch
            alpha,
            x.as_device_ptr(),
            beta,
            y.as_device_ptr()
        ))?;
    }
    stream.synchronize()
}
