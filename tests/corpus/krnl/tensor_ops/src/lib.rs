//! Element-wise tensor kernels written with krnl 0.1. The `#[module]` below is compiled to SPIR-V
//! by krnlc (into krnl-cache.rs); `ops.rs` builds and dispatches the kernels. In krnl 0.1 the
//! threads per group are chosen on the host with `.with_threads(..)`, from the constant below.
//! Each case is a kernel here together with its dispatch in `ops.rs`.

use krnl::macros::module;

pub mod ops;

/// Threads per group for the element-wise kernels.
pub const ELEMENTWISE_THREADS: u32 = 128;

#[module]
pub mod kernels {
    #[cfg(not(target_arch = "spirv"))]
    use krnl::krnl_core;
    use krnl_core::macros::kernel;

    //@ case: correct
    // ReLU item kernel, dispatched from ops.rs with `.with_threads(ELEMENTWISE_THREADS)` and items inferred from the slices.
    #[kernel]
    pub fn relu(#[item] x: f32, #[item] y: &mut f32) {
        *y = if x > 0.0 { x } else { 0.0 };
    }

    //@ case: correct
    // One-hot encoding over global slices: the write is guarded by `i < y.len()`, the label read by `row < labels.len()`.
    #[kernel]
    pub fn one_hot(#[global] labels: Slice<u32>, classes: u32, #[global] y: UnsafeSlice<f32>) {
        use krnl_core::buffer::UnsafeIndex;

        let i = kernel.global_id();
        if i < y.len() {
            let classes = classes as usize;
            let (row, class) = (i / classes, i % classes);
            if row < labels.len() {
                let hot = labels[row] as usize == class;
                unsafe {
                    *y.unsafe_index_mut(i) = if hot { 1.0 } else { 0.0 };
                }
            }
        }
    }

    //@ case: hazard launch_arg_mismatch
    // bias_add takes (bias, y, channels), but ops.rs dispatches it with two arguments and never passes `channels`.
    #[kernel]
    pub fn bias_add(#[global] bias: Slice<f32>, #[global] y: UnsafeSlice<f32>, channels: u32) {
        use krnl_core::buffer::UnsafeIndex;

        let i = kernel.global_id();
        if i < y.len() {
            let c = i % channels as usize;
            if c < bias.len() {
                unsafe {
                    *y.unsafe_index_mut(i) += bias[c];
                }
            }
        }
    }
}
