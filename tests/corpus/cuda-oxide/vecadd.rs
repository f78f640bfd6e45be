//! Element-wise kernels and their host launches in one source file (`cargo oxide run`):
//! each `#[cuda_module]` embeds its kernels' PTX and generates a typed launch method
//! `module.kernel(&stream, LaunchConfig, args..)`.

use std::error::Error;
use std::sync::Arc;

use cuda_core::{CudaContext, DeviceBuffer, LaunchConfig};
use cuda_device::{cuda_module, kernel, thread, DisjointSlice};

//@ case: correct
// Alpha blend with the safe `DisjointSlice` API: `get_mut(idx)` is `Some` only for threads inside the output, and the inputs are read at the same index.
#[cuda_module]
mod blend_kernels {
    use super::*;

    #[kernel]
    pub fn blend(fg: &[f32], bg: &[f32], alpha: f32, mut out: DisjointSlice<f32>) {
        let idx = thread::index_1d();
        let i = idx.get();
        if let Some(px) = out.get_mut(idx) {
            *px = alpha * fg[i] + (1.0 - alpha) * bg[i];
        }
    }
}

fn run_blend(ctx: &Arc<CudaContext>, fg: &[f32], bg: &[f32]) -> Result<Vec<f32>, Box<dyn Error>> {
    let stream = ctx.default_stream();
    let module = blend_kernels::load(ctx)?;
    let fg_dev = DeviceBuffer::from_host(&stream, fg)?;
    let bg_dev = DeviceBuffer::from_host(&stream, bg)?;
    let mut out_dev = DeviceBuffer::<f32>::zeroed(&stream, fg.len())?;
    // SAFETY: a 1-D launch with one thread per output element, as `index_1d` requires.
    unsafe {
        module.blend(&stream, LaunchConfig::for_num_elems(fg.len() as u32), &fg_dev, &bg_dev, 0.35f32, &mut out_dev)?;
    }
    Ok(out_dev.to_host_vec(&stream)?)
}

//@ case: correct
// Raw-pointer kernel (`pub unsafe fn` taking `*const f32` / `*mut f32`), guarded by `i < n`, launched with `cu_deviceptr()` casts.
#[cuda_module]
mod saxpy_kernels {
    use super::*;

    #[kernel]
    pub unsafe fn saxpy(n: u32, a: f32, x: *const f32, y: *mut f32) {
        let i = thread::index_1d().get();
        if i < n as usize {
            unsafe {
                *y.add(i) = a * *x.add(i) + *y.add(i);
            }
        }
    }
}

fn run_saxpy(ctx: &Arc<CudaContext>, a: f32, x: &[f32], y: &mut [f32]) -> Result<(), Box<dyn Error>> {
    let stream = ctx.default_stream();
    let module = saxpy_kernels::load(ctx)?;
    let x_dev = DeviceBuffer::from_host(&stream, x)?;
    let y_dev = DeviceBuffer::from_host(&stream, y)?;
    let n = y.len() as u32;
    // SAFETY: both buffers hold `n` f32s; 1-D launch.
    unsafe {
        module.saxpy(
            &stream,
            LaunchConfig::for_num_elems(n),
            n,
            a,
            x_dev.cu_deviceptr() as *const f32,
            y_dev.cu_deviceptr() as *mut f32,
        )?;
    }
    y.copy_from_slice(&y_dev.to_host_vec(&stream)?);
    Ok(())
}

//@ case: hazard unchecked_thread_index
// Squares a raw buffer with nothing bounding `i`: `for_num_elems` rounds the grid up to whole blocks, so the tail threads read and write past the allocation.
#[cuda_module]
mod square_kernels {
    use super::*;

    #[kernel]
    pub unsafe fn square_in_place(data: *mut f32) {
        let i = thread::index_1d().get();
        unsafe {
            let v = *data.add(i); //~ WARN unchecked_thread_index
            *data.add(i) = v * v; //~ WARN unchecked_thread_index
        }
    }
}

fn run_square(ctx: &Arc<CudaContext>, values: &[f32]) -> Result<Vec<f32>, Box<dyn Error>> {
    let stream = ctx.default_stream();
    let module = square_kernels::load(ctx)?;
    let dev = DeviceBuffer::from_host(&stream, values)?;
    unsafe {
        module.square_in_place(&stream, LaunchConfig::for_num_elems(values.len() as u32), dev.cu_deviceptr() as *mut f32)?;
    }
    Ok(dev.to_host_vec(&stream)?)
}

//@ case: hazard host_only_api_in_kernel
// Reports non-finite inputs with `println!` inside the kernel: std's printing does not exist on the device (cuda-oxide kernels print with `gpu_printf!`).
#[cuda_module]
mod finite_kernels {
    use super::*;

    #[kernel]
    pub fn check_finite(values: &[f32], mut flags: DisjointSlice<u32>) {
        let idx = thread::index_1d();
        let i = idx.get();
        if let Some(flag) = flags.get_mut(idx) {
            let v = values[i];
            if v.is_finite() {
                *flag = 0;
            } else {
                println!("non-finite value {} at index {}", v, i); //~ ERROR host_only_api_in_kernel
                *flag = 1;
            }
        }
    }
}

//@ case: hazard heap_owning_kernel_arg
// Takes its lookup table as `&Vec<f32>`: the kernel receives the address of the host's `Vec` header (pointer, capacity, length), not device memory.
#[cuda_module]
mod lut_kernels {
    use super::*;

    #[kernel]
    pub fn apply_lut(codes: &[u32], lut: &Vec<f32>, mut out: DisjointSlice<f32>) { //~ ERROR heap_owning_kernel_arg
        let idx = thread::index_1d();
        let i = idx.get();
        if let Some(o) = out.get_mut(idx) {
            *o = lut[codes[i] as usize % lut.len()];
        }
    }
}

fn run_lut(ctx: &Arc<CudaContext>, codes: &[u32], lut: Vec<f32>) -> Result<Vec<f32>, Box<dyn Error>> {
    let stream = ctx.default_stream();
    let module = lut_kernels::load(ctx)?;
    let codes_dev = DeviceBuffer::from_host(&stream, codes)?;
    let mut out_dev = DeviceBuffer::<f32>::zeroed(&stream, codes.len())?;
    unsafe {
        module.apply_lut(&stream, LaunchConfig::for_num_elems(codes.len() as u32), &codes_dev, &lut, &mut out_dev)?;
    }
    Ok(out_dev.to_host_vec(&stream)?)
}
