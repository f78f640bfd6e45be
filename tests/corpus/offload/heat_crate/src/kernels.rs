//! Device kernels of the 1-D heat solver. The array length `NPTS` and every launch are in
//! main.rs.

use core::offload::offload_kernel;

#[cfg(target_arch = "nvptx64")]
use core::arch::nvptx::{_block_dim_x, _block_idx_x, _thread_idx_x};

use crate::NPTS;

/// Dirichlet boundaries: thread 0 pins the left end, thread 1 the right end.
#[offload_kernel]
pub fn apply_boundary(u: &mut [f32; NPTS], left: f32, right: f32) {
    let t = unsafe { _thread_idx_x() } as usize;
    if t == 0 {
        u[0] = left;
    } else if t == 1 {
        u[NPTS - 1] = right;
    }
}

//@ case: correct
// Explicit Euler step on interior points: `i > 0 && i < NPTS - 1` covers i - 1 and i + 1 (NPTS from main.rs).
#[offload_kernel]
pub fn heat_step(u: &[f32; NPTS], u_next: &mut [f32; NPTS], r: f32) {
    let i = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    if i > 0 && i < NPTS - 1 {
        u_next[i] = u[i] + r * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
    }
}

//@ case: hazard thread_index_collision
// Residual indexed by thread-in-workgroup only, launched by main.rs over WORKGROUPS workgroups.
#[offload_kernel]
pub fn local_residual(u: &[f32; NPTS], u_prev: &[f32; NPTS], change: &mut [f32; NPTS]) {
    let t = unsafe { _thread_idx_x() } as usize;
    if t < NPTS {
        change[t] = (u[t] - u_prev[t]).abs(); //~ WARN thread_index_collision
    }
}

//@ case: correct
// Largest entry on one thread: main.rs launches it without dimensions, so the defaults give one thread.
#[offload_kernel]
pub fn max_abs(change: &[f32; NPTS], peak: &mut f32) {
    let mut m = 0.0f32;
    for k in 0..NPTS {
        m = m.max(change[k].abs());
    }
    *peak = m;
}
