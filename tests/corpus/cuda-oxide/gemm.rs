//! Matrix kernels in cuda-oxide's idiom: a naive SGEMM on a 2-D grid whose checked index
//! `thread::index_2d_runtime(n)` is `Some` only for columns below `n`, and a decode step on a
//! (heads, tokens) grid of one block per (head, token) tile.

use cuda_device::{cuda_module, kernel, thread, DisjointSlice};

#[cuda_module]
pub mod gemm_kernels {
    use super::*;

    pub const HEAD_DIM: u32 = 128;

    //@ case: correct
    // C = A * B (m x k by k x n): `index_2d_runtime(n)` is `Some` only when the column is below `n`, so `b[i * n + col]` stays in B; the row is checked against `m`.
    #[kernel]
    pub fn sgemm_naive(m: u32, n: u32, k: u32, a: &[f32], b: &[f32], mut c: DisjointSlice<f32, thread::Runtime2DIndex>) {
        let row = thread::index_2d_row();
        let col = thread::index_2d_col();
        if let Some(c_idx) = unsafe { thread::index_2d_runtime(n as usize) } {
            if row < m as usize {
                let (n, k) = (n as usize, k as usize);
                let mut sum = 0.0f32;
                let mut i = 0usize;
                while i < k {
                    sum += a[row * k + i] * b[i * n + col];
                    i += 1;
                }
                if let Some(e) = c.get_mut(c_idx) {
                    *e = sum;
                }
            }
        }
    }

    //@ case: correct
    // One block per (head, token): the block's tile of `z` ([tokens, heads, HEAD_DIM], row stride `z_stride`) is `t * z_stride + hv * HEAD_DIM`, and each thread below HEAD_DIM takes one element of it.
    #[kernel]
    pub unsafe fn gate(z: *const f32, out: *mut f32, z_stride: u32) {
        let hv = thread::blockIdx_x();
        let t = thread::blockIdx_y();
        let tid = thread::threadIdx_x();
        if tid < HEAD_DIM {
            let at = (t * z_stride + hv * HEAD_DIM + tid) as usize;
            let v = *z.add(at);
            *out.add(at) = v / (1.0 + (-v).exp());
        }
    }

    //@ case: hazard unchecked_thread_index
    // The same tile read with the thread check dropped ("the block is HEAD_DIM wide"): a launch with wider blocks reads into the next tile and past the end of `z` (each block's copy goes to its own `tile` buffer).
    #[kernel]
    pub unsafe fn gate_unchecked(z: *const f32, tile: *mut f32, z_stride: u32) {
        let hv = thread::blockIdx_x();
        let t = thread::blockIdx_y();
        let tid = thread::threadIdx_x();
        let at = (t * z_stride + hv * HEAD_DIM + tid) as usize;
        *tile.add(tid as usize) = *z.add(at); //~ WARN unchecked_thread_index
    }
}
