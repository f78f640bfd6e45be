//! Training-loop kernels written with krnl: buffer fills, an Adam update, and kernels whose
//! parameters or bodies use things the krnlc-built SPIR-V module cannot have (host heap types,
//! `std` allocation, a `static mut`, raw pointers).

use krnl::{
    anyhow::Result,
    buffer::{Buffer, Slice, SliceMut},
    device::Device,
    macros::module,
};

//@ case: correct
// Grid-stride fill: a fixed 128-group dispatch walks the whole slice, stepping by global_threads() under `while i < y.len()`.
#[module]
pub mod fill {
    #[cfg(not(target_arch = "spirv"))]
    use krnl::krnl_core;
    use krnl_core::macros::kernel;

    #[kernel(threads(256))]
    pub fn fill_f32(value: f32, #[global] y: UnsafeSlice<f32>) {
        use krnl_core::buffer::UnsafeIndex;

        let mut i = kernel.global_id() as usize;
        while i < y.len() {
            unsafe {
                *y.unsafe_index_mut(i) = value;
            }
            i += kernel.global_threads() as usize;
        }
    }
}

pub fn fill(value: f32, y: SliceMut<f32>) -> Result<()> {
    fill::fill_f32::builder()?
        .build(y.device())?
        .with_groups(128)
        .dispatch(value, y)
}

//@ case: correct
// Adam step as an item kernel: the moment and weight updates go through per-item `&mut f32`, and the hyper-parameters are f32 push constants.
#[module]
pub mod adam {
    #[cfg(not(target_arch = "spirv"))]
    use krnl::krnl_core;
    use krnl_core::macros::kernel;
    #[cfg_attr(not(target_arch = "spirv"), allow(unused_imports))]
    use krnl_core::num_traits::Float;

    #[kernel(threads(256))]
    pub fn adam_step(
        lr: f32,
        beta1: f32,
        beta2: f32,
        eps: f32,
        #[item] grad: f32,
        #[item] m: &mut f32,
        #[item] v: &mut f32,
        #[item] w: &mut f32,
    ) {
        *m = beta1 * *m + (1.0 - beta1) * grad;
        *v = beta2 * *v + (1.0 - beta2) * grad * grad;
        *w -= lr * *m / (v.sqrt() + eps);
    }
}

pub struct AdamState {
    pub m: Buffer<f32>,
    pub v: Buffer<f32>,
    pub step: i32,
}

pub fn adam_step(state: &mut AdamState, lr: f32, grad: Slice<f32>, w: SliceMut<f32>) -> Result<()> {
    let (beta1, beta2, eps) = (0.9f32, 0.999f32, 1e-8f32);
    state.step += 1;
    // bias correction folded into the step size
    let lr_t = lr * (1.0 - beta2.powi(state.step)).sqrt() / (1.0 - beta1.powi(state.step));
    adam::adam_step::builder()?
        .build(w.device())?
        .dispatch(lr_t, beta1, beta2, eps, grad, state.m.as_slice_mut(), state.v.as_slice_mut(), w)
}

//@ case: hazard heap_owning_kernel_arg
// Embedding lookup that takes its table as a `Vec<f32>` push argument: a host heap allocation cannot be passed to a kernel (it must be a `#[global] Slice<f32>`).
#[module]
pub mod embedding {
    #[cfg(not(target_arch = "spirv"))]
    use krnl::krnl_core;
    use krnl_core::macros::kernel;

    #[kernel(threads(256))]
    pub fn embed(
        #[global] tokens: Slice<u32>,
        table: Vec<f32>, //~ ERROR heap_owning_kernel_arg
        dim: u32,
        #[global] out: UnsafeSlice<f32>,
    ) {
        use krnl_core::buffer::UnsafeIndex;

        let i = kernel.global_id() as usize;
        if i < out.len() {
            let dim = dim as usize;
            let token = tokens[i / dim] as usize;
            unsafe {
                *out.unsafe_index_mut(i) = table[token * dim + i % dim];
            }
        }
    }
}

pub fn embed(tokens: Slice<u32>, table: &[f32], dim: u32, out: SliceMut<f32>) -> Result<()> {
    embedding::embed::builder()?
        .build(out.device())?
        .with_global_threads(out.len() as u32)
        .dispatch(tokens, table.to_vec(), dim, out)
}

//@ case: hazard host_only_api_in_kernel
// 3-tap smoothing that builds its taps with `vec!` into a `Vec<f32>` inside the kernel body: no allocator exists on the device (a `[f32; 3]` would do).
#[module]
pub mod smooth {
    #[cfg(not(target_arch = "spirv"))]
    use krnl::krnl_core;
    use krnl_core::macros::kernel;

    #[kernel(threads(256))]
    pub fn smooth3(#[global] x: Slice<f32>, #[global] y: UnsafeSlice<f32>) {
        use krnl_core::buffer::UnsafeIndex;

        let taps: Vec<f32> = vec![0.25, 0.5, 0.25]; //~ ERROR host_only_api_in_kernel //~ ERROR host_only_api_in_kernel
        let i = kernel.global_id() as usize;
        if i < y.len() && i < x.len() {
            let last = x.len() - 1;
            let mut acc = 0.0;
            let mut k = 0;
            while k < 3 {
                let j = (i + k).saturating_sub(1).min(last);
                acc += taps[k] * x[j];
                k += 1;
            }
            unsafe {
                *y.unsafe_index_mut(i) = acc;
            }
        }
    }
}

pub fn smooth3(x: Slice<f32>, y: SliceMut<f32>) -> Result<()> {
    smooth::smooth3::builder()?
        .build(y.device())?
        .with_global_threads(y.len() as u32)
        .dispatch(x, y)
}

//@ case: hazard static_mut_in_kernel
// Dropout whose seed lives in a `static mut` that the host "sets": the SPIR-V module only ever sees the initial value, so every step draws the same mask.
#[module]
pub mod dropout {
    #[cfg(not(target_arch = "spirv"))]
    use krnl::krnl_core;
    use krnl_core::macros::kernel;

    pub static mut DROPOUT_SEED: u32 = 0x9e37_79b9;

    #[kernel(threads(256))]
    pub fn dropout(p_keep: f32, #[item] x: f32, #[item] y: &mut f32) {
        let mut h = unsafe { DROPOUT_SEED } ^ (kernel.item_id() as u32).wrapping_mul(0x85eb_ca6b); //~ WARN unsafe_in_kernel //~ ERROR static_mut_in_kernel
        h ^= h >> 13;
        h = h.wrapping_mul(0xc2b2_ae35);
        h ^= h >> 16;
        let u = (h >> 8) as f32 / 16_777_216.0;
        *y = if u < p_keep { x / p_keep } else { 0.0 };
    }
}

pub fn dropout(seed: u32, p_keep: f32, x: Slice<f32>, y: SliceMut<f32>) -> Result<()> {
    unsafe {
        dropout::DROPOUT_SEED = seed;
    }
    dropout::dropout::builder()?
        .build(y.device())?
        .dispatch(p_keep, x, y)
}

//@ case: hazard raw_pointer_kernel_param
// Scale kernel ported from CUDA taking `y: *mut f32` as a push argument and writing through it in `unsafe`; krnl kernels take `#[global] UnsafeSlice<f32>`.
#[module]
pub mod scale_ptr {
    #[cfg(not(target_arch = "spirv"))]
    use krnl::krnl_core;
    use krnl_core::macros::kernel;

    #[kernel(threads(256))]
    pub fn scale_raw(alpha: f32, y: *mut f32, n: u32) { //~ WARN raw_pointer_kernel_param
        let i = kernel.global_id() as usize;
        if i < n as usize {
            unsafe { //~ WARN unsafe_in_kernel
                *y.add(i) *= alpha;
            }
        }
    }
}

pub fn scale_host(alpha: f32, y: &mut [f32], device: Device) -> Result<()> {
    let n = y.len() as u32;
    scale_ptr::scale_raw::builder()?
        .build(device)?
        .with_global_threads(n)
        .dispatch(alpha, y.as_mut_ptr(), n)
}

//@ case: correct
// The older krnl spelling of a writable global buffer, `&[UnsafeCell<u32>]`: only thread 0 of a
// single-group dispatch writes the flag, so the deliberate `UnsafeCell` is no race.
#[module]
pub mod flags {
    #[cfg(not(target_arch = "spirv"))]
    use krnl::krnl_core;
    use core::cell::UnsafeCell;
    use krnl_core::macros::kernel;

    #[kernel(threads(64))]
    pub unsafe fn raise_flag(#[builtin] thread_id: u32, flag: &[UnsafeCell<u32>]) {
        if thread_id == 0 {
            unsafe { *flag[0].get() = 1 };
        }
    }
}
