//! Element-wise kernels of a small tensor library, written with krnl (`#[module]` / `#[kernel]`,
//! compiled to SPIR-V by krnlc), each module followed by the host function that builds and
//! dispatches its kernel.

use krnl::{
    anyhow::Result,
    buffer::{Slice, SliceMut},
    macros::module,
};

//@ case: correct
// Item (foreach) SAXPY: krnl hands each invocation its own `x` and `&mut y`, so there is no index and the `*y +=` store is per item.
#[module]
pub mod saxpy_item {
    #[cfg(not(target_arch = "spirv"))]
    use krnl::krnl_core;
    use krnl_core::macros::kernel;

    pub fn saxpy_impl(x: f32, alpha: f32, y: &mut f32) {
        *y += alpha * x;
    }

    #[kernel(threads(256))]
    pub fn saxpy(#[item] x: f32, alpha: f32, #[item] y: &mut f32) {
        saxpy_impl(x, alpha, y);
    }
}

pub fn saxpy(x: Slice<f32>, alpha: f32, mut y: SliceMut<f32>) -> Result<()> {
    if let Some((x, y)) = x.as_host_slice().zip(y.as_host_slice_mut()) {
        for (x, y) in x.iter().copied().zip(y) {
            saxpy_item::saxpy_impl(x, alpha, y);
        }
        return Ok(());
    }
    saxpy_item::saxpy::builder()?
        .build(y.device())?
        .dispatch(x, alpha, y)
}

//@ case: correct
// Global-slice SAXPY: UnsafeSlice write at the global id under `i < x.len().min(y.len())`.
#[module]
pub mod saxpy_global {
    #[cfg(not(target_arch = "spirv"))]
    use krnl::krnl_core;
    use krnl_core::macros::kernel;

    #[kernel(threads(256))]
    pub fn saxpy_global(#[global] x: Slice<f32>, alpha: f32, #[global] y: UnsafeSlice<f32>) {
        use krnl_core::buffer::UnsafeIndex;

        let i = kernel.global_id() as usize;
        if i < x.len().min(y.len()) {
            unsafe {
                *y.unsafe_index_mut(i) += alpha * x[i];
            }
        }
    }
}

pub fn saxpy_slices(x: Slice<f32>, alpha: f32, y: SliceMut<f32>) -> Result<()> {
    let n = x.len().min(y.len());
    saxpy_global::saxpy_global::builder()?
        .build(y.device())?
        .with_global_threads(n as u32)
        .dispatch(x, alpha, y)
}

//@ case: correct
// Gradient clipping with an early return for the threads past the end of the last group.
#[module]
pub mod clip {
    #[cfg(not(target_arch = "spirv"))]
    use krnl::krnl_core;
    use krnl_core::macros::kernel;

    #[kernel(threads(128))]
    pub fn clip_grad(max_norm: f32, #[global] grad: UnsafeSlice<f32>) {
        use krnl_core::buffer::UnsafeIndex;

        let i = kernel.global_id() as usize;
        if i >= grad.len() {
            return;
        }
        unsafe {
            let g = grad.unsafe_index_mut(i);
            *g = g.clamp(-max_norm, max_norm);
        }
    }
}

pub fn clip_grad(max_norm: f32, grad: SliceMut<f32>) -> Result<()> {
    let n = grad.len() as u32;
    clip::clip_grad::builder()?
        .build(grad.device())?
        .with_global_threads(n)
        .dispatch(max_norm, grad)
}

//@ case: hazard unchecked_thread_index
// ReLU over global slices with no bounds check: global_threads is rounded up to a multiple of 256, so the tail threads index past both slices.
#[module]
pub mod relu {
    #[cfg(not(target_arch = "spirv"))]
    use krnl::krnl_core;
    use krnl_core::macros::kernel;

    #[kernel(threads(256))]
    pub fn relu_global(#[global] x: Slice<f32>, #[global] y: UnsafeSlice<f32>) {
        use krnl_core::buffer::UnsafeIndex;

        let i = kernel.global_id() as usize;
        let v = x[i].max(0.0); //~ WARN unchecked_thread_index
        unsafe {
            *y.unsafe_index_mut(i) = v; //~ WARN unchecked_thread_index
        }
    }
}

pub fn relu_slices(x: Slice<f32>, y: SliceMut<f32>) -> Result<()> {
    relu::relu_global::builder()?
        .build(y.device())?
        .with_global_threads(y.len() as u32)
        .dispatch(x, y)
}

//@ case: hazard launch_arg_mismatch
// In-place scale whose `#[item] y: &mut f32` is dispatched with `y.as_slice()`, an immutable Slice where a SliceMut is required.
#[module]
pub mod scale {
    #[cfg(not(target_arch = "spirv"))]
    use krnl::krnl_core;
    use krnl_core::macros::kernel;

    #[kernel(threads(256))]
    pub fn scale_inplace(alpha: f32, #[item] y: &mut f32) {
        *y *= alpha;
    }
}

pub fn scale_inplace(alpha: f32, y: SliceMut<f32>) -> Result<()> {
    scale::scale_inplace::builder()?
        .build(y.device())?
        .dispatch(alpha, y.as_slice()) //~ ERROR launch_arg_mismatch
}

//@ case: hazard launch_arg_mismatch
// axpby takes `b: f32`, but the host wrapper passes its `b: f64` parameter straight through.
#[module]
pub mod blas1 {
    #[cfg(not(target_arch = "spirv"))]
    use krnl::krnl_core;
    use krnl_core::macros::kernel;

    #[kernel(threads(256))]
    pub fn axpby(a: f32, #[item] x: f32, b: f32, #[item] y: &mut f32) {
        *y = a * x + b * *y;
    }
}

pub fn axpby(a: f32, x: Slice<f32>, b: f64, y: SliceMut<f32>) -> Result<()> {
    blas1::axpby::builder()?
        .build(y.device())?
        .dispatch(a, x, b, y) //~ ERROR launch_arg_mismatch
}

//@ case: correct
// Cross-entropy loss per row as an item kernel: `kernel.item_id()` runs over `0..items()` (one invocation per element of the `#[item]` output, dispatched exactly), and the row it reads from the global logits is that item's.
#[module]
pub mod row_loss {
    #[cfg(not(target_arch = "spirv"))]
    use krnl::krnl_core;
    use krnl_core::macros::kernel;

    #[kernel]
    pub fn cross_entropy(#[global] x: Slice<f32>, #[global] t: Slice<u32>, classes: u32, #[item] loss: &mut f32) {
        let row = kernel.item_id();
        let label = t[row as usize];
        let mut m = x[(row * classes) as usize];
        for c in 1..classes {
            m = m.max(x[(row * classes + c) as usize]);
        }
        let mut sum = 0.0f32;
        for c in 0..classes {
            sum += (x[(row * classes + c) as usize] - m).exp();
        }
        *loss = m + sum.ln() - x[(row * classes + label) as usize];
    }
}

pub fn cross_entropy(x: Slice<f32>, t: Slice<u32>, classes: u32, loss: SliceMut<f32>) -> Result<()> {
    row_loss::cross_entropy::builder()?.build(loss.device())?.dispatch(x, t, classes, loss)
}
