//! Kernels launched through the lower-level `cuda_launch!` macro on a module loaded by name
//! (`load_kernel_module`): the caller promises that `args: [..]` matches each kernel's
//! parameters (`slice(buf)` for `&[T]`, `slice_mut(buf)` for `DisjointSlice<T>`).

use std::error::Error;
use std::sync::Arc;

use cuda_core::{CudaContext, CudaModule, DeviceBuffer, LaunchConfig};
use cuda_device::thread::Index2D;
use cuda_device::{gpu_printf, kernel, thread, DisjointSlice, SharedArray};
use cuda_host::{cuda_launch, load_kernel_module};

const FRAME_W: usize = 1920;

fn kernels(ctx: &Arc<CudaContext>) -> Result<Arc<CudaModule>, Box<dyn Error>> {
    Ok(load_kernel_module(ctx, "launches")?)
}

//@ case: correct
// Grid-stride loop written with the CUDA-style special registers (`blockIdx_x() * blockDim_x() + threadIdx_x()`, stride `blockDim_x() * gridDim_x()`), launched on a fixed 80-block grid smaller than the data.
#[kernel]
pub unsafe fn fill_affine(out: *mut f32, n: u32, scale: f32, offset: f32) {
    let mut i = (thread::blockIdx_x() * thread::blockDim_x() + thread::threadIdx_x()) as usize;
    let stride = (thread::blockDim_x() * thread::gridDim_x()) as usize;
    while i < n as usize {
        unsafe {
            *out.add(i) = scale * i as f32 + offset;
        }
        i += stride;
    }
}

fn run_fill_affine(ctx: &Arc<CudaContext>, n: u32) -> Result<Vec<f32>, Box<dyn Error>> {
    let stream = ctx.default_stream();
    let module = kernels(ctx)?;
    let out = DeviceBuffer::<f32>::zeroed(&stream, n as usize)?;
    let cfg = LaunchConfig { grid_dim: (80, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
    // SAFETY: argument list matches `fill_affine`; `out` holds `n` f32s.
    unsafe {
        cuda_launch! {
            kernel: fill_affine,
            stream: stream,
            module: module,
            config: cfg,
            args: [out.cu_deviceptr() as *mut f32, n, 1.5f32, -0.25f32]
        }?;
    }
    Ok(out.to_host_vec(&stream)?)
}

//@ case: correct
// Second pass of a mean/variance reduction launched as a single block: threads stride over the partials with their in-block index, and only thread 0 stores the two results.
#[kernel]
pub unsafe fn finalize_moments(partial_sum: &[f32], partial_sq: &[f32], count: u32, moments: *mut f32) {
    static mut S1: SharedArray<f32, 256> = SharedArray::UNINIT;
    static mut S2: SharedArray<f32, 256> = SharedArray::UNINIT;

    let tid = thread::threadIdx_x() as usize;
    let mut a = 0.0f32;
    let mut b = 0.0f32;
    let mut j = tid;
    while j < partial_sum.len() && j < partial_sq.len() {
        a += partial_sum[j];
        b += partial_sq[j];
        j += thread::blockDim_x() as usize;
    }
    unsafe {
        S1[tid] = a;
        S2[tid] = b;
    }
    thread::sync_threads();

    let mut s = 128usize;
    while s > 0 {
        if tid < s {
            unsafe {
                S1[tid] += S1[tid + s];
                S2[tid] += S2[tid + s];
            }
        }
        thread::sync_threads();
        s /= 2;
    }

    if tid == 0 {
        let n = count as f32;
        unsafe {
            let mean = S1[0] / n;
            *moments = mean;
            *moments.add(1) = S2[0] / n - mean * mean;
        }
    }
}

fn run_finalize_moments(
    ctx: &Arc<CudaContext>,
    partial_sum: &DeviceBuffer<f32>,
    partial_sq: &DeviceBuffer<f32>,
    count: u32,
) -> Result<(f32, f32), Box<dyn Error>> {
    let stream = ctx.default_stream();
    let module = kernels(ctx)?;
    let moments = DeviceBuffer::<f32>::zeroed(&stream, 2)?;
    let cfg = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
    unsafe {
        cuda_launch! {
            kernel: finalize_moments,
            stream: stream,
            module: module,
            config: cfg,
            args: [slice(partial_sum), slice(partial_sq), count, moments.cu_deviceptr() as *mut f32]
        }?;
    }
    let m = moments.to_host_vec(&stream)?;
    Ok((m[0], m[1]))
}

//@ case: correct
// `cuda_launch!` with `slice(..)` / `slice_mut(..)` arguments, one per `&[f32]` / `DisjointSlice<f32>` parameter, and a `gpu_printf!` from the first thread only.
#[kernel]
pub fn clamp_copy(src: &[f32], lo: f32, hi: f32, mut dst: DisjointSlice<f32>) {
    let idx = thread::index_1d();
    let i = idx.get();
    if i == 0 {
        gpu_printf!("clamp_copy: %u elements\n", src.len() as u32);
    }
    if let Some(d) = dst.get_mut(idx) {
        *d = src[i].max(lo).min(hi);
    }
}

fn run_clamp_copy(ctx: &Arc<CudaContext>, values: &[f32]) -> Result<Vec<f32>, Box<dyn Error>> {
    let stream = ctx.default_stream();
    let module = kernels(ctx)?;
    let src_dev = DeviceBuffer::from_host(&stream, values)?;
    let mut dst_dev = DeviceBuffer::<f32>::zeroed(&stream, values.len())?;
    unsafe {
        cuda_launch! {
            kernel: clamp_copy,
            stream: stream,
            module: module,
            config: LaunchConfig::for_num_elems(values.len() as u32),
            args: [slice(src_dev), 0.0f32, 1.0f32, slice_mut(dst_dev)]
        }?;
    }
    Ok(dst_dev.to_host_vec(&stream)?)
}

//@ case: correct
// Const-stride 2-D index `thread::index_2d::<FRAME_W>()` under a 16 x 16-block 2-D launch: `row * FRAME_W + col` is unique per thread, and `get_mut` bounds it by the output.
#[kernel]
pub fn levels(img: &[f32], black: f32, inv_range: f32, mut out: DisjointSlice<f32, Index2D<FRAME_W>>) {
    if let Some(idx) = thread::index_2d::<FRAME_W>() {
        let i = idx.get();
        if let Some(o) = out.get_mut(idx) {
            *o = ((img[i] - black) * inv_range).max(0.0).min(1.0);
        }
    }
}

fn run_levels(ctx: &Arc<CudaContext>, frame: &[f32], rows: u32) -> Result<Vec<f32>, Box<dyn Error>> {
    let stream = ctx.default_stream();
    let module = kernels(ctx)?;
    let img_dev = DeviceBuffer::from_host(&stream, frame)?;
    let mut out_dev = DeviceBuffer::<f32>::zeroed(&stream, frame.len())?;
    let cfg = LaunchConfig {
        grid_dim: ((FRAME_W as u32).div_ceil(16), rows.div_ceil(16), 1),
        block_dim: (16, 16, 1),
        shared_mem_bytes: 0,
    };
    unsafe {
        cuda_launch! {
            kernel: levels,
            stream: stream,
            module: module,
            config: cfg,
            args: [slice(img_dev), 0.05f32, 1.25f32, slice_mut(out_dev)]
        }?;
    }
    Ok(out_dev.to_host_vec(&stream)?)
}

//@ case: hazard thread_index_collision
// A 1-D `index_1d()` kernel launched with 16 x 16 blocks on a 2-D grid: threads that differ only in y share an index, so pixels are scaled several times and the lower rows never.
#[kernel]
pub unsafe fn brighten(pixels: *mut f32, count: u32, gain: f32) {
    let i = thread::index_1d().get();
    if i < count as usize {
        unsafe {
            *pixels.add(i) = *pixels.add(i) * gain; //~ WARN thread_index_collision
        }
    }
}

fn run_brighten(ctx: &Arc<CudaContext>, frame: &mut [f32], width: u32, height: u32) -> Result<(), Box<dyn Error>> {
    let stream = ctx.default_stream();
    let module = kernels(ctx)?;
    let dev = DeviceBuffer::from_host(&stream, frame)?;
    let cfg = LaunchConfig {
        grid_dim: (width.div_ceil(16), height.div_ceil(16), 1),
        block_dim: (16, 16, 1),
        shared_mem_bytes: 0,
    };
    unsafe {
        cuda_launch! {
            kernel: brighten,
            stream: stream,
            module: module,
            config: cfg,
            args: [dev.cu_deviceptr() as *mut f32, width * height, 1.2f32]
        }?;
    }
    frame.copy_from_slice(&dev.to_host_vec(&stream)?);
    Ok(())
}

//@ case: hazard launch_arg_mismatch
// `cuda_launch!` checks nothing: the literal `0.9f64` is marshalled as 8 bytes for the kernel's `f32` parameter `momentum`.
#[kernel]
pub unsafe fn momentum_step(w: *mut f32, grad: *const f32, vel: *mut f32, n: u32, lr: f32, momentum: f32) {
    let i = thread::index_1d().get();
    if i < n as usize {
        unsafe {
            let v = momentum * *vel.add(i) - lr * *grad.add(i);
            *vel.add(i) = v;
            *w.add(i) += v;
        }
    }
}

fn run_momentum_step(
    ctx: &Arc<CudaContext>,
    w: &DeviceBuffer<f32>,
    grad: &DeviceBuffer<f32>,
    vel: &DeviceBuffer<f32>,
    n: u32,
    lr: f32,
) -> Result<(), Box<dyn Error>> {
    let stream = ctx.default_stream();
    let module = kernels(ctx)?;
    unsafe {
        cuda_launch! {
            kernel: momentum_step,
            stream: stream,
            module: module,
            config: LaunchConfig::for_num_elems(n),
            args: [
                w.cu_deviceptr() as *mut f32,
                grad.cu_deviceptr() as *const f32,
                vel.cu_deviceptr() as *mut f32,
                n,
                lr,
                0.9f64 //~ ERROR launch_arg_mismatch
            ]
        }?;
    }
    Ok(())
}

//@ case: hazard aliased_launch_args
// Delta encoding launched in place: one pointer is passed as both `src` and `dst`, so a thread may read `src[i - 1]` after its neighbour has already overwritten it.
#[kernel]
pub unsafe fn delta_encode(src: *const i32, dst: *mut i32, n: u32) {
    let i = thread::index_1d().get();
    if i < n as usize {
        unsafe {
            let prev = if i == 0 { 0 } else { *src.add(i - 1) };
            *dst.add(i) = *src.add(i) - prev;
        }
    }
}

fn run_delta_encode(ctx: &Arc<CudaContext>, samples: &[i32]) -> Result<Vec<i32>, Box<dyn Error>> {
    let stream = ctx.default_stream();
    let module = kernels(ctx)?;
    let buf = DeviceBuffer::from_host(&stream, samples)?;
    let n = samples.len() as u32;
    let data = buf.cu_deviceptr() as *mut i32;
    unsafe {
        cuda_launch! {
            kernel: delta_encode,
            stream: stream,
            module: module,
            config: LaunchConfig::for_num_elems(n),
            args: [
                data,
                data, //~ ERROR aliased_launch_args
                n
            ]
        }?;
    }
    Ok(buf.to_host_vec(&stream)?)
}
