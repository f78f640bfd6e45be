//! Host driver of the denoiser: loads the crate's kernels by name and launches them with
//! `cuda_launch!` (the caller guarantees that each `args: [..]` list matches the kernel).

use std::error::Error;
use std::sync::Arc;

use cuda_core::{CudaContext, CudaModule, CudaStream, DeviceBuffer, LaunchConfig};
use cuda_host::{cuda_launch, load_kernel_module};
use denoise::kernels;

const WIDTH: u32 = 1280;
const HEIGHT: u32 = 720;

fn main() -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let module = load_kernel_module(&ctx, "denoise")?;

    let frame: Vec<f32> = (0..WIDTH * HEIGHT).map(|i| (u64::from(i) * 7919 % 256) as f32 / 255.0).collect();
    let noisy = DeviceBuffer::from_host(&stream, &frame)?;
    let smooth = DeviceBuffer::<f32>::zeroed(&stream, frame.len())?;
    let mut mask = DeviceBuffer::<u8>::zeroed(&stream, frame.len())?;

    box_blur(&stream, &module, &noisy, &smooth)?;
    median(&stream, &module, &smooth, &noisy)?;
    run_threshold(&stream, &module, &smooth, &mut mask, 0.5)?;

    let host_mask = mask.to_host_vec(&stream)?;
    println!("{} of {} pixels above threshold", host_mask.iter().filter(|&&m| m != 0).count(), host_mask.len());
    Ok(())
}

//@ case: correct
// 1-D launch of `threshold` with one `slice(..)` / `slice_mut(..)` per slice parameter and an `f32` level.
fn run_threshold(
    stream: &Arc<CudaStream>,
    module: &Arc<CudaModule>,
    src: &DeviceBuffer<f32>,
    mask: &mut DeviceBuffer<u8>,
    level: f32,
) -> Result<(), Box<dyn Error>> {
    unsafe {
        cuda_launch! {
            kernel: kernels::threshold,
            stream: stream.clone(),
            module: module.clone(),
            config: LaunchConfig::for_num_elems(WIDTH * HEIGHT),
            args: [slice(src), level, slice_mut(mask)]
        }?;
    }
    Ok(())
}

//@ case: hazard launch_arg_mismatch
// Launches `box_blur3` with three arguments for its four parameters (`height` is missing): the kernel reads its last parameter from past the argument list.
fn box_blur(stream: &Arc<CudaStream>, module: &Arc<CudaModule>, src: &DeviceBuffer<f32>, dst: &DeviceBuffer<f32>) -> Result<(), Box<dyn Error>> {
    let cfg = LaunchConfig {
        grid_dim: (WIDTH.div_ceil(16), HEIGHT.div_ceil(16), 1),
        block_dim: (16, 16, 1),
        shared_mem_bytes: 0,
    };
    unsafe {
        cuda_launch! {
            kernel: kernels::box_blur3, //~ ERROR launch_arg_mismatch
            stream: stream.clone(),
            module: module.clone(),
            config: cfg,
            args: [src.cu_deviceptr() as *const f32, dst.cu_deviceptr() as *mut f32, WIDTH]
        }?;
    }
    Ok(())
}

//@ case: hazard unknown_launch_kernel
// Launches `median3x3`, which no `#[kernel]` in the crate defines (lib.rs has `threshold` and `box_blur3`).
fn median(stream: &Arc<CudaStream>, module: &Arc<CudaModule>, src: &DeviceBuffer<f32>, dst: &DeviceBuffer<f32>) -> Result<(), Box<dyn Error>> {
    let cfg = LaunchConfig {
        grid_dim: (WIDTH.div_ceil(16), HEIGHT.div_ceil(16), 1),
        block_dim: (16, 16, 1),
        shared_mem_bytes: 0,
    };
    unsafe {
        cuda_launch! {
            kernel: kernels::median3x3, //~ ERROR unknown_launch_kernel
            stream: stream.clone(),
            module: module.clone(),
            config: cfg,
            args: [src.cu_deviceptr() as *const f32, dst.cu_deviceptr() as *mut f32, WIDTH, HEIGHT]
        }?;
    }
    Ok(())
}
