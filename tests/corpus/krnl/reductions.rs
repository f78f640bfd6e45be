//! Reductions and histograms with krnl: group memory (`#[group]`), barriers, subgroup-free tree
//! sums, atomics, and the host functions that dispatch them with `.with_groups(..)` /
//! `.with_global_threads(..)`.

use krnl::{
    anyhow::Result,
    buffer::{Buffer, Slice, SliceMut},
    device::Device,
    macros::module,
};

//@ case: correct
// Block sum in `#[group]` memory indexed by thread_id, halving strides between group barriers (called in `unsafe`, spirv-std 0.9), one store per group under `thread_id == 0`.
#[module]
pub mod block_sum {
    #[cfg(not(target_arch = "spirv"))]
    use krnl::krnl_core;
    use krnl_core::macros::kernel;

    #[kernel(threads(256))]
    pub fn block_sum(
        #[global] x: Slice<f32>,
        #[group] x_group: UnsafeSlice<f32, 256>,
        #[global] partials: UnsafeSlice<f32>,
    ) {
        use krnl_core::buffer::UnsafeIndex;
        use krnl_core::spirv_std::arch::workgroup_memory_barrier_with_group_sync as group_barrier;

        let global_id = kernel.global_id() as usize;
        let group_id = kernel.group_id() as usize;
        let thread_id = kernel.thread_id() as usize;
        let value = if global_id < x.len() { x[global_id] } else { 0.0 };
        unsafe {
            *x_group.unsafe_index_mut(thread_id) = value;
            group_barrier();
        }
        let mut stride = 128;
        while stride > 0 {
            if thread_id < stride {
                unsafe {
                    let other = *x_group.unsafe_index(thread_id + stride);
                    *x_group.unsafe_index_mut(thread_id) += other;
                }
            }
            unsafe {
                group_barrier();
            }
            stride /= 2;
        }
        if thread_id == 0 && group_id < partials.len() {
            unsafe {
                *partials.unsafe_index_mut(group_id) = *x_group.unsafe_index(0);
            }
        }
    }
}

pub fn block_sums(x: Slice<f32>, device: Device) -> Result<Buffer<f32>> {
    let groups = (x.len() as u32).div_ceil(256);
    let mut partials = Buffer::zeros(device.clone(), groups as usize)?;
    block_sum::block_sum::builder()?
        .build(device)?
        .with_groups(groups)
        .dispatch(x, partials.as_slice_mut())?;
    Ok(partials)
}

//@ case: correct
// Byte histogram: every thread adds into shared bins with spirv-std's atomic_i_add through `unsafe_index_mut`; the bin index is masked to 0..256.
#[module]
pub mod histogram {
    #[cfg(not(target_arch = "spirv"))]
    use krnl::krnl_core;
    use krnl_core::macros::kernel;

    #[kernel(threads(256))]
    pub fn byte_histogram(#[global] words: Slice<u32>, #[global] bins: UnsafeSlice<u32>) {
        use krnl_core::buffer::UnsafeIndex;
        use krnl_core::spirv_std::arch::atomic_i_add;
        use krnl_core::spirv_std::memory::{Scope, Semantics};

        let i = kernel.global_id() as usize;
        if i < words.len() && bins.len() == 256 {
            let word = words[i];
            let mut shift = 0;
            while shift < 32 {
                let bin = ((word >> shift) & 0xff) as usize;
                unsafe {
                    atomic_i_add::<u32, { Scope::Device as u32 }, { Semantics::NONE.bits() }>(
                        bins.unsafe_index_mut(bin),
                        1,
                    );
                }
                shift += 8;
            }
        }
    }
}

pub fn byte_histogram(words: Slice<u32>, device: Device) -> Result<Buffer<u32>> {
    let mut bins = Buffer::zeros(device.clone(), 256)?;
    histogram::byte_histogram::builder()?
        .build(device)?
        .with_global_threads(words.len() as u32)
        .dispatch(words, bins.as_slice_mut())?;
    Ok(bins)
}

//@ case: correct
// Final fold of the block partials by a single writer: only global thread 0 stores out[0], in a one-group dispatch.
#[module]
pub mod finalize {
    #[cfg(not(target_arch = "spirv"))]
    use krnl::krnl_core;
    use krnl_core::macros::kernel;

    #[kernel(threads(64))]
    pub fn sum_partials(#[global] partials: Slice<f32>, #[global] out: UnsafeSlice<f32>) {
        use krnl_core::buffer::UnsafeIndex;

        if kernel.global_id() == 0 {
            let mut acc = 0.0;
            let mut k = 0;
            while k < partials.len() {
                acc += partials[k];
                k += 1;
            }
            unsafe {
                *out.unsafe_index_mut(0) = acc;
            }
        }
    }
}

pub fn sum(x: Slice<f32>, device: Device) -> Result<f32> {
    let partials = block_sums(x, device.clone())?;
    let mut out = Buffer::zeros(device.clone(), 1)?;
    finalize::sum_partials::builder()?
        .build(device)?
        .with_groups(1)
        .dispatch(partials.as_slice(), out.as_slice_mut())?;
    Ok(out.into_vec()?[0])
}

//@ case: hazard unindexed_kernel_write
// Sum of squares where every in-range thread does a plain `+=` on total[0]: a lost-update race across the whole dispatch.
#[module]
pub mod sum_squares {
    #[cfg(not(target_arch = "spirv"))]
    use krnl::krnl_core;
    use krnl_core::macros::kernel;

    #[kernel(threads(256))]
    pub fn sum_squares_naive(#[global] x: Slice<f32>, #[global] total: UnsafeSlice<f32>) {
        use krnl_core::buffer::UnsafeIndex;

        let i = kernel.global_id() as usize;
        if i < x.len() {
            unsafe {
                *total.unsafe_index_mut(0) += x[i] * x[i]; //~ WARN unindexed_kernel_write
            }
        }
    }
}

pub fn sum_squares(x: Slice<f32>, device: Device) -> Result<f32> {
    let mut total = Buffer::zeros(device.clone(), 1)?;
    sum_squares::sum_squares_naive::builder()?
        .build(device)?
        .with_global_threads(x.len() as u32)
        .dispatch(x, total.as_slice_mut())?;
    Ok(total.into_vec()?[0])
}

//@ case: hazard thread_index_collision
// Squares written at group_id() + thread_id() with no `* threads()`: neighbouring groups overlap by all but one element.
#[module]
pub mod square {
    #[cfg(not(target_arch = "spirv"))]
    use krnl::krnl_core;
    use krnl_core::macros::kernel;

    #[kernel(threads(128))]
    pub fn square(#[global] x: Slice<f32>, #[global] y: UnsafeSlice<f32>) {
        use krnl_core::buffer::UnsafeIndex;

        let i = (kernel.group_id() + kernel.thread_id()) as usize;
        if i < x.len() && i < y.len() {
            unsafe {
                *y.unsafe_index_mut(i) = x[i] * x[i]; //~ WARN thread_index_collision
            }
        }
    }
}

pub fn square_slices(x: Slice<f32>, y: SliceMut<f32>) -> Result<()> {
    square::square::builder()?
        .build(y.device())?
        .with_global_threads(y.len() as u32)
        .dispatch(x, y)
}

//@ case: hazard thread_index_collision
// Per-row scale factors applied at thread_id() (the position inside the group) while dispatched over the whole buffer: every group rescales entries 0..64 and the rest are never touched.
#[module]
pub mod row_scale {
    #[cfg(not(target_arch = "spirv"))]
    use krnl::krnl_core;
    use krnl_core::macros::kernel;

    #[kernel(threads(64))]
    pub fn row_scale(#[global] scales: Slice<f32>, #[global] rows: UnsafeSlice<f32>) {
        use krnl_core::buffer::UnsafeIndex;

        let row = kernel.thread_id() as usize;
        if row < rows.len() && row < scales.len() {
            unsafe {
                *rows.unsafe_index_mut(row) *= scales[row]; //~ WARN thread_index_collision
            }
        }
    }
}

pub fn row_scale(scales: Slice<f32>, rows: SliceMut<f32>) -> Result<()> {
    let n = rows.len() as u32;
    row_scale::row_scale::builder()?
        .build(rows.device())?
        .with_global_threads(n)
        .dispatch(scales, rows)
}
