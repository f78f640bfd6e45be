//! Reductions with nightly `core::offload`: a two-stage sum with per-workgroup shared memory
//! (`dyn_cache` bytes, reached through `gpu_launch_sized_workgroup_mem`) and barriers, small
//! single-thread finishing kernels, and the usual mistakes.
#![feature(gpu_offload)]
#![cfg_attr(
    target_arch = "nvptx64",
    feature(abi_gpu_kernel, stdarch_nvptx, core_intrinsics, gpu_intrinsics, gpu_launch_sized_workgroup_mem)
)]
#![cfg_attr(target_arch = "nvptx64", no_std, no_main)]

use core::cell::Cell;
use core::offload::offload_kernel;

#[cfg(target_arch = "nvptx64")]
use core::arch::nvptx::{_block_dim_x, _block_idx_x, _syncthreads, _thread_idx_x};
#[cfg(target_arch = "nvptx64")]
use core::intrinsics::gpu::gpu_launch_sized_workgroup_mem;

/// Samples to reduce.
const N: usize = 1 << 22;
/// Threads per workgroup of the first stage (a power of two).
const BLOCK: usize = 256;
/// Workgroups of the first stage, one partial sum each.
const NBLK: usize = N / BLOCK;

#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}

//@ case: correct
// Stage 1: tree reduction in dynamic shared memory with barriers; thread 0 stores each workgroup's sum.
#[offload_kernel]
fn block_sums(x: &[f32; N], partial: &mut [f32; NBLK]) {
    let tid = unsafe { _thread_idx_x() } as usize;
    let blk = unsafe { _block_idx_x() } as usize;
    let i = blk * BLOCK + tid;
    let tile = gpu_launch_sized_workgroup_mem::<f32>();
    let v = if i < N { x[i] } else { 0.0 };
    unsafe { tile.add(tid).write(v) };
    unsafe { _syncthreads() };
    let mut s = BLOCK / 2;
    while s > 0 {
        if tid < s {
            unsafe { *tile.add(tid) += *tile.add(tid + s) };
        }
        unsafe { _syncthreads() };
        s /= 2;
    }
    if tid == 0 && blk < NBLK {
        partial[blk] = unsafe { tile.read() };
    }
}

#[cfg(not(target_arch = "nvptx64"))]
fn stage_one(x: &[f32; N], partial: &mut [f32; NBLK]) {
    core::offload::offload! {
        kernel = block_sums,
        workgroup_dim = [NBLK as u32, 1, 1],
        thread_dim = [BLOCK as u32, 1, 1],
        dyn_cache = (BLOCK * core::mem::size_of::<f32>()) as u32,
        args = (x, partial),
    }
}

//@ case: correct
// Stage 2 on a single thread (one workgroup of one thread): it alone writes total[0].
#[offload_kernel]
fn sum_partials(partial: &[f32; NBLK], total: &mut [f32; 1]) {
    let mut acc = 0.0f32;
    for b in 0..NBLK {
        acc += partial[b];
    }
    total[0] = acc;
}

#[cfg(not(target_arch = "nvptx64"))]
fn stage_two(partial: &[f32; NBLK], total: &mut [f32; 1]) {
    core::offload::offload! {
        kernel = sum_partials,
        workgroup_dim = [1, 1, 1],
        thread_dim = [1, 1, 1],
        args = (partial, total),
    }
}

//@ case: correct
// Range of the partials, launched without `workgroup_dim` / `thread_dim`: the defaults run one thread.
#[offload_kernel]
fn partial_range(partial: &[f32; NBLK], range: &mut [f32; 2]) {
    let mut lo = f32::MAX;
    let mut hi = f32::MIN;
    for b in 0..NBLK {
        lo = lo.min(partial[b]);
        hi = hi.max(partial[b]);
    }
    range[0] = lo;
    range[1] = hi;
}

#[cfg(not(target_arch = "nvptx64"))]
fn spread(partial: &[f32; NBLK], range: &mut [f32; 2]) {
    core::offload::offload! { kernel = partial_range, args = (partial, range) }
}

//@ case: hazard unindexed_kernel_write
// One-pass sum: all N threads add into the same `*total` with no synchronisation.
#[offload_kernel]
fn sum_racy(x: &[f32; N], total: &mut f32) {
    let i = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    if i < N {
        *total += x[i]; //~ WARN unindexed_kernel_write
    }
}

#[cfg(not(target_arch = "nvptx64"))]
fn sum_one_pass(x: &[f32; N]) -> f32 {
    let mut total = 0.0f32;
    core::offload::offload! {
        kernel = sum_racy,
        workgroup_dim = [NBLK as u32, 1, 1],
        thread_dim = [BLOCK as u32, 1, 1],
        args = (x, &mut total),
    }
    total
}

//@ case: hazard unchecked_thread_index
// Folding 1000 samples with strides 512, 256, ..: `i < stride` bounds `i`, not `i + stride` (up to 1023).
const SAMPLES: usize = 1000;

#[offload_kernel]
fn fold_half(x: &mut [f32; SAMPLES], stride: usize) {
    let i = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    if i < stride {
        x[i] += x[i + stride]; //~ WARN unchecked_thread_index
    }
}

#[cfg(not(target_arch = "nvptx64"))]
fn fold(x: &mut [f32; SAMPLES]) -> f32 {
    let mut stride = SAMPLES.next_power_of_two() / 2;
    while stride > 0 {
        core::offload::offload! {
            kernel = fold_half,
            workgroup_dim = [(stride as u32).div_ceil(128), 1, 1],
            thread_dim = [128, 1, 1],
            args = (&mut *x, stride),
        }
        stride /= 2;
    }
    x[0]
}

//@ case: hazard interior_mutability_kernel_arg
// Histogram through `&[Cell<u32>; BINS]`: mapped to the device only, the counts never come back.
const BINS: usize = 16;

#[offload_kernel]
fn histogram(keys: &[u32; N], bins: &[Cell<u32>; BINS]) { //~ WARN interior_mutability_kernel_arg
    let i = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    if i < N {
        let bin = &bins[keys[i] as usize % BINS];
        bin.set(bin.get() + 1);
    }
}

#[cfg(not(target_arch = "nvptx64"))]
fn count_keys(keys: &[u32; N]) -> [u32; BINS] {
    let bins: [Cell<u32>; BINS] = Default::default();
    core::offload::offload! {
        kernel = histogram,
        workgroup_dim = [NBLK as u32, 1, 1],
        thread_dim = [BLOCK as u32, 1, 1],
        args = (keys, &bins),
    }
    bins.map(Cell::into_inner)
}

// ------------------------------------------------------------------ host driver

#[cfg(not(target_arch = "nvptx64"))]
fn main() {
    let x: Vec<f32> = (0..N).map(|i| ((i % 97) as f32 - 48.0) * 1.0e-3).collect();
    let x: Box<[f32; N]> = x.into_boxed_slice().try_into().expect("N samples");
    let mut partial: Box<[f32; NBLK]> = vec![0.0f32; NBLK].into_boxed_slice().try_into().expect("NBLK");
    let mut total = [0.0f32; 1];
    let mut range = [0.0f32; 2];
    stage_one(&x, &mut partial);
    stage_two(&partial, &mut total);
    spread(&partial, &mut range);
    let racy = sum_one_pass(&x);

    let mut samples = [1.0f32; SAMPLES];
    let folded = fold(&mut samples);

    let keys: Vec<u32> = (0..N as u32).map(|k| k.wrapping_mul(2_654_435_761)).collect();
    let keys: Box<[u32; N]> = keys.into_boxed_slice().try_into().expect("N keys");
    let counts = count_keys(&keys);

    let host: f32 = x.iter().sum();
    println!("two-stage sum {} (host {host}), one-pass {racy}", total[0]);
    println!("partials in [{}, {}], folded {folded}, histogram {counts:?}", range[0], range[1]);
}
