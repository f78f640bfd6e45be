//! Host-side dispatch of the kernels in `lib.rs` (krnl 0.1 builder API).

use crate::{kernels, ELEMENTWISE_THREADS};
use krnl::{
    anyhow::Result,
    buffer::{Buffer, Slice, SliceMut},
    device::Device,
};

pub fn relu(x: Slice<f32>, mut y: SliceMut<f32>) -> Result<()> {
    if let Some((x, y)) = x.as_host_slice().zip(y.as_host_slice_mut()) {
        x.iter().zip(y.iter_mut()).for_each(|(x, y)| *y = x.max(0.0));
        return Ok(());
    }
    kernels::relu::builder()?
        .with_threads(ELEMENTWISE_THREADS)
        .build(y.device())?
        .dispatch(x, y)
}

pub fn one_hot(labels: Slice<u32>, classes: u32, device: Device) -> Result<Buffer<f32>> {
    let mut y = Buffer::zeros(device.clone(), labels.len() * classes as usize)?;
    kernels::one_hot::builder()?
        .with_threads(ELEMENTWISE_THREADS)
        .build(device)?
        .with_global_threads(y.len() as u32)
        .dispatch(labels, classes, y.as_slice_mut())?;
    Ok(y)
}

pub fn bias_add(bias: Slice<f32>, y: SliceMut<f32>) -> Result<()> {
    let n = y.len() as u32;
    kernels::bias_add::builder()? //~ ERROR launch_arg_mismatch
        .with_threads(ELEMENTWISE_THREADS)
        .build(y.device())?
        .with_global_threads(n)
        .dispatch(bias, y)
}

//@ case: hazard unknown_launch_kernel
// ReLU backward dispatches `kernels::relu_backward`, which the `#[module]` in lib.rs does not define.
pub fn relu_backward(x: Slice<f32>, dy: Slice<f32>, dx: SliceMut<f32>) -> Result<()> {
    kernels::relu_backward::builder()? //~ ERROR unknown_launch_kernel
        .with_threads(ELEMENTWISE_THREADS)
        .build(dx.device())?
        .dispatch(x, dy, dx)
}
