//! Fine stage: average each cell with its previous value.
use core::offload::offload_kernel;

#[cfg(target_arch = "nvptx64")]
use core::arch::nvptx::{_block_dim_x, _block_idx_x, _thread_idx_x};

use crate::CELLS;

//@ case: correct
// One cell per thread, guarded; reads `previous` at the same index.
#[offload_kernel]
pub fn apply(field: &mut [f32; CELLS], previous: &[f32; CELLS]) {
    let i = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    if i < CELLS {
        field[i] = 0.5 * (field[i] + previous[i]);
    }
}
