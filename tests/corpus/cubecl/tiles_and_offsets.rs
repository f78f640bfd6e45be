//! `launch_unchecked` kernels of an image-codec crate (CubeCL): one cube per tile of 64 blocks,
//! per-point records sized by another array's length, and offsets started from a quotient of
//! the position, each with its host launch.

use cubecl::prelude::*;

const BLOCKS_PER_TILE: u32 = 64;
const COEFFS: u32 = 64;

//@ case: correct
// One cube per tile (`CubeCount` = tiles, 64 units): each cube writes its own 4096 values.
#[cube(launch_unchecked)]
fn clear_tiles(coeffs: &mut Array<f32>) {
    let tile = CUBE_POS as u32;
    let block = UNIT_POS as u32;
    if block >= BLOCKS_PER_TILE {
        terminate!();
    }
    let base = tile * (BLOCKS_PER_TILE * COEFFS) + block * COEFFS;
    let mut c = 0u32;
    while c < COEFFS {
        coeffs[(base + c) as usize] = 0.0;
        c += 1u32;
    }
}

pub fn launch_clear<R: Runtime>(client: &ComputeClient<R::Server>, coeffs: &cubecl::server::Handle, tiles: u32) {
    unsafe {
        clear_tiles::launch_unchecked::<R>(
            client,
            CubeCount::Static(tiles, 1, 1),
            CubeDim::new_1d(BLOCKS_PER_TILE),
            ArrayArg::from_raw_parts::<f32>(coeffs, (tiles * BLOCKS_PER_TILE * COEFFS) as usize, 1),
        );
    }
}

//@ case: correct
// Two densities per point, bounded by the one-per-point output's length (it is indexed by `p` itself).
#[cube(launch_unchecked)]
fn spin_sum<F: Float>(rho: &Array<F>, out: &mut Array<F>) {
    let p = ABSOLUTE_POS;
    if p < out.len() {
        out[p] = rho[p * 2] + rho[p * 2 + 1];
    }
}

//@ case: hazard unchecked_thread_index
// Bounded by the two-per-point input's own length: `p` counts its elements, not points.
#[cube(launch_unchecked)]
fn spin_diff<F: Float>(rho: &Array<F>, out: &mut Array<F>) {
    let p = ABSOLUTE_POS;
    if p < rho.len() {
        let d = rho[p * 2] - rho[p * 2 + 1]; //~ WARN unchecked_thread_index //~ WARN unchecked_thread_index
        out[p / 2] = d;
    }
}

//@ case: correct
// An offset started from the update number (a quotient of the position) and built up over the
// strides: its bound is what the division leaves, not worked out.
#[cube(launch_unchecked)]
fn gather_rows<F: Float>(values: &Tensor<F>, out: &mut Tensor<F>, row_len: u32, units: u32) {
    if ABSOLUTE_POS >= units as usize {
        terminate!();
    }
    let row = ABSOLUTE_POS / row_len as usize;
    let mut off = row * values.stride(0);
    #[unroll]
    for d in 1..3 {
        off += (ABSOLUTE_POS % row_len as usize) * values.stride(d);
    }
    out[ABSOLUTE_POS] = values[off];
}

//@ case: correct
// Batched matrix fill, one cube-z per batch: the per-batch offset is added to the index with `+=` after the row/column checks; every batch's plane is its own, so no two cubes write one element.
#[cube(launch_unchecked)]
fn batched_fill(out: &mut Tensor<f32>, value: f32) {
    let rows = out.shape(1);
    let cols = out.shape(2);
    let batch = CUBE_POS_Z;
    let m = ABSOLUTE_POS_X;
    let n = ABSOLUTE_POS_Y;
    if m >= rows || n >= cols {
        terminate!();
    }
    let mut at = m * cols + n;
    at += batch * (rows * cols);
    out[at] = value;
}

pub fn launch_batched_fill<R: Runtime>(client: &ComputeClient<R::Server, R::Channel>, out: TensorArg<R>, rows: u32, cols: u32, batches: u32) {
    unsafe {
        batched_fill::launch_unchecked::<R>(client, CubeCount::Static(rows.div_ceil(16), cols.div_ceil(16), batches),
            CubeDim::new(16, 16, 1), out, ScalarArg::new(0.0f32));
    }
}
