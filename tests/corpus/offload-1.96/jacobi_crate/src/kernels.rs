//! Device kernels of the Jacobi solver, compiled by the device pass only (`mod kernels` is
//! under `#[cfg(not(target_os = "linux"))]` in main.rs). Array lengths come from main.rs.

use core::arch::nvptx::{_block_dim_x, _block_dim_y, _block_idx_x, _block_idx_y, _thread_idx_x, _thread_idx_y};

use crate::{CELLS, NX, NY};

/// Sets the bottom row (y = 0) to the wall temperature; one workgroup of NX threads.
/// Declared and launched in main.rs.
#[unsafe(no_mangle)]
#[rustc_offload_kernel]
pub extern "gpu-kernel" fn set_hot_wall(u: &mut [f32; CELLS], t_wall: &f64) {
    let x = unsafe { _thread_idx_x() } as usize;
    if x < NX {
        u[x] = *t_wall as f32;
    }
}

//@ case: correct
// Jacobi sweep on 16 x 16 tiles, interior points only; NX, NY and CELLS are main.rs's constants.
#[unsafe(no_mangle)]
#[rustc_offload_kernel]
pub extern "gpu-kernel" fn jacobi_step(u: &[f32; CELLS], u_new: &mut [f32; CELLS]) {
    let x = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    let y = unsafe { _block_idx_y() * _block_dim_y() + _thread_idx_y() } as usize;
    if x > 0 && x < NX - 1 && y > 0 && y < NY - 1 {
        u_new[y * NX + x] = 0.25
            * (u[y * NX + x - 1] + u[y * NX + x + 1] + u[(y - 1) * NX + x] + u[(y + 1) * NX + x]);
    }
}

//@ case: hazard thread_index_collision
// Residual with a 1-D index that main.rs launches on 16 x 16 tiles: threads sharing `i` write the same r[i].
#[unsafe(no_mangle)]
#[rustc_offload_kernel]
pub extern "gpu-kernel" fn residual(u: &[f32; CELLS], u_new: &[f32; CELLS], r: &mut [f32; CELLS]) {
    let i = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    if i < CELLS {
        r[i] = (u_new[i] - u[i]).abs(); //~ WARN thread_index_collision
    }
}
