//! Block-cooperative kernels: shared-memory tiles (`static mut SharedArray` inside the
//! kernel), barriers, tree reductions and scoped atomics, with their host launches.

use core::cell::Cell;
use std::error::Error;
use std::sync::Arc;

use cuda_core::{CudaContext, DeviceBuffer, LaunchConfig};
use cuda_device::atomic::{AtomicOrdering, DeviceAtomicF32};
use cuda_device::{cuda_module, kernel, thread, DisjointSlice, SharedArray};

const TILE: usize = 16;

//@ case: correct
// Tiled SGEMM: `static mut SharedArray` tiles filled and read with the thread's position in its block between `sync_threads()`; global loads bounds-checked, C stored through a raw pointer under `row < m && col < n`.
#[cuda_module]
mod gemm_kernels {
    use super::*;

    #[kernel]
    pub unsafe fn sgemm_tiled(m: u32, n: u32, k: u32, a: &[f32], b: &[f32], c: *mut f32) {
        static mut TA: SharedArray<f32, 256> = SharedArray::UNINIT;
        static mut TB: SharedArray<f32, 256> = SharedArray::UNINIT;

        let (m, n, k) = (m as usize, n as usize, k as usize);
        let tx = thread::threadIdx_x() as usize;
        let ty = thread::threadIdx_y() as usize;
        let row = thread::blockIdx_y() as usize * TILE + ty;
        let col = thread::blockIdx_x() as usize * TILE + tx;
        let slot = ty * TILE + tx;

        let mut acc = 0.0f32;
        let mut t = 0usize;
        while t < k {
            let ak = t + tx;
            let bk = t + ty;
            unsafe {
                TA[slot] = if row < m && ak < k { a[row * k + ak] } else { 0.0 };
                TB[slot] = if bk < k && col < n { b[bk * n + col] } else { 0.0 };
            }
            thread::sync_threads();
            let mut e = 0usize;
            while e < TILE {
                acc += unsafe { TA[ty * TILE + e] * TB[e * TILE + tx] };
                e += 1;
            }
            thread::sync_threads();
            t += TILE;
        }

        if row < m && col < n {
            unsafe {
                *c.add(row * n + col) = acc;
            }
        }
    }
}

fn run_sgemm(ctx: &Arc<CudaContext>, m: u32, n: u32, k: u32, a: &[f32], b: &[f32]) -> Result<Vec<f32>, Box<dyn Error>> {
    let stream = ctx.default_stream();
    let module = gemm_kernels::load(ctx)?;
    let a_dev = DeviceBuffer::from_host(&stream, a)?;
    let b_dev = DeviceBuffer::from_host(&stream, b)?;
    let c_dev = DeviceBuffer::<f32>::zeroed(&stream, (m * n) as usize)?;
    let cfg = LaunchConfig {
        grid_dim: (n.div_ceil(16), m.div_ceil(16), 1),
        block_dim: (16, 16, 1),
        shared_mem_bytes: 0,
    };
    // SAFETY: 16 x 16 blocks match TILE; C holds m * n elements.
    unsafe {
        module.sgemm_tiled(&stream, cfg, m, n, k, &a_dev, &b_dev, c_dev.cu_deviceptr() as *mut f32)?;
    }
    Ok(c_dev.to_host_vec(&stream)?)
}

//@ case: correct
// Block sum: tree reduction over a `SharedArray` (`if tid < s { SUMS[tid] += SUMS[tid + s] }` between barriers), then thread 0 adds the block total with `DeviceAtomicF32::fetch_add`.
#[cuda_module]
mod sum_kernels {
    use super::*;

    #[kernel]
    pub unsafe fn block_sum(input: &[f32], total: *mut f32) {
        static mut SUMS: SharedArray<f32, 256> = SharedArray::UNINIT;

        let tid = thread::threadIdx_x() as usize;
        let i = thread::index_1d().get();
        unsafe {
            SUMS[tid] = if i < input.len() { input[i] } else { 0.0 };
        }
        thread::sync_threads();

        let mut s = 128usize;
        while s > 0 {
            if tid < s {
                unsafe {
                    SUMS[tid] += SUMS[tid + s];
                }
            }
            thread::sync_threads();
            s /= 2;
        }

        if tid == 0 {
            let acc = unsafe { DeviceAtomicF32::from_ptr(total) };
            acc.fetch_add(unsafe { SUMS[0] }, AtomicOrdering::Relaxed);
        }
    }
}

fn run_block_sum(ctx: &Arc<CudaContext>, values: &[f32]) -> Result<f32, Box<dyn Error>> {
    let stream = ctx.default_stream();
    let module = sum_kernels::load(ctx)?;
    let input = DeviceBuffer::from_host(&stream, values)?;
    let total = DeviceBuffer::<f32>::zeroed(&stream, 1)?;
    let cfg = LaunchConfig {
        grid_dim: ((values.len() as u32).div_ceil(256), 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    unsafe {
        module.block_sum(&stream, cfg, &input, total.cu_deviceptr() as *mut f32)?;
    }
    Ok(total.to_host_vec(&stream)?[0])
}

//@ case: hazard static_mut_in_kernel
// Counts replaced NaNs in a module-level `static mut` (an ordinary device global, not a `SharedArray`): every thread's `+= 1` races, and the host's copy of the static never sees the count.
static mut NAN_COUNT: u32 = 0;

#[cuda_module]
mod nan_kernels {
    use super::*;

    #[kernel]
    pub fn scrub_nans(mut data: DisjointSlice<f32>) {
        let idx = thread::index_1d();
        if let Some(v) = data.get_mut(idx) {
            if v.is_nan() {
                *v = 0.0;
                unsafe { //~ WARN unsafe_in_kernel
                    NAN_COUNT += 1; //~ ERROR static_mut_in_kernel
                }
            }
        }
    }
}

//@ case: hazard unindexed_kernel_write
// Kinetic energy summed into one `*mut f32` with a plain `+=`: every thread read-modify-writes the same word, so most contributions are lost (a `DeviceAtomicF32` or a block reduction is needed).
#[cuda_module]
mod energy_kernels {
    use super::*;

    #[kernel]
    pub unsafe fn kinetic_energy(mass: &[f32], speed: &[f32], energy: *mut f32) {
        let i = thread::index_1d().get();
        if i < mass.len() && i < speed.len() {
            unsafe {
                *energy += 0.5 * mass[i] * speed[i] * speed[i]; //~ WARN unindexed_kernel_write
            }
        }
    }
}

//@ case: hazard interior_mutability_kernel_arg
// Raises a "found" flag through `&Cell<u32>`: `Cell` is not `Sync`, so concurrent `set` calls from many threads are a data race (`DeviceAtomicU32` is the device-safe flag).
#[cuda_module]
mod search_kernels {
    use super::*;

    #[kernel]
    pub fn contains(haystack: &[u32], needle: u32, found: &Cell<u32>) { //~ WARN interior_mutability_kernel_arg
        let i = thread::index_1d().get();
        if i < haystack.len() && haystack[i] == needle {
            found.set(1);
        }
    }
}

//@ case: correct
// An mbarrier in shared memory (`static mut BAR: Barrier`, cuda-oxide keeps it there as it keeps `SharedArray`): thread 0 initialises it, every thread arrives and waits.
#[cuda_module]
mod mbarrier_kernels {
    use super::*;
    use cuda_device::barrier::{mbarrier_arrive, mbarrier_init, mbarrier_wait, Barrier};

    #[kernel]
    pub fn barrier_sync(mut out: DisjointSlice<u32>) {
        static mut BAR: Barrier = Barrier::UNINIT;
        let tid = thread::threadIdx_x();
        if tid == 0 {
            unsafe { mbarrier_init(&raw mut BAR, thread::blockDim_x()) };
        }
        thread::sync_threads();
        let token = unsafe { mbarrier_arrive(&raw const BAR) };
        unsafe { mbarrier_wait(&raw const BAR, token) };
        if let Some(slot) = out.get_mut(thread::index_1d()) {
            *slot = tid;
        }
    }
}
