//! Coarse stage: relax every cell towards zero by a weight.
use core::offload::offload_kernel;

#[cfg(target_arch = "nvptx64")]
use core::arch::nvptx::{_block_dim_x, _block_idx_x, _thread_idx_x};

use crate::CELLS;

//@ case: correct
// One cell per thread, guarded.
#[offload_kernel]
pub fn apply(field: &mut [f32; CELLS], weight: f32) {
    let i = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    if i < CELLS {
        field[i] *= 1.0 - weight;
    }
}
