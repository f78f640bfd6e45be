//! 2-D kernels of a dense layer: a shared-memory tiled matmul, a tiled transpose, a
//! batched scale and a bias add, launched on 2-D cubes (`CubeDim::new(16, 16, 1)`) or
//! 2-D cube counts, with their host launchers.

use cubecl::prelude::*;
use cubecl::server::Handle;

const TILE: u32 = 16;

//@ case: correct
// Tiled matmul: two `TILE x TILE` shared tiles indexed by `UNIT_POS_X/Y`, `sync_cube()` before and after each tile's use, loads and the store guarded on both axes.
#[cube(launch_unchecked)]
fn matmul_tiled_kernel<F: Float>(
    lhs: &Array<F>,
    rhs: &Array<F>,
    out: &mut Array<F>,
    m: u32,
    k: u32,
    n: u32,
    #[comptime] tile: u32,
) {
    let mut lhs_tile = SharedMemory::<F>::new(tile * tile);
    let mut rhs_tile = SharedMemory::<F>::new(tile * tile);

    let row = CUBE_POS_Y * tile + UNIT_POS_Y;
    let col = CUBE_POS_X * tile + UNIT_POS_X;
    let local = UNIT_POS_Y * tile + UNIT_POS_X;

    let mut acc = F::new(0.0);
    let num_tiles = (k + tile - 1) / tile;

    for t in 0..num_tiles {
        let lhs_col = t * tile + UNIT_POS_X;
        let rhs_row = t * tile + UNIT_POS_Y;

        if row < m && lhs_col < k {
            lhs_tile[local] = lhs[row * k + lhs_col];
        } else {
            lhs_tile[local] = F::new(0.0);
        }
        if rhs_row < k && col < n {
            rhs_tile[local] = rhs[rhs_row * n + col];
        } else {
            rhs_tile[local] = F::new(0.0);
        }
        sync_cube();

        #[unroll]
        for i in 0..tile {
            acc += lhs_tile[UNIT_POS_Y * tile + i] * rhs_tile[i * tile + UNIT_POS_X];
        }
        sync_cube();
    }

    if row < m && col < n {
        out[row * n + col] = acc;
    }
}

pub fn matmul<R: Runtime>(
    client: &ComputeClient<R::Server>,
    lhs: &Handle,
    rhs: &Handle,
    out: &Handle,
    m: usize,
    k: usize,
    n: usize,
) {
    let cube_count = CubeCount::Static((n as u32).div_ceil(TILE), (m as u32).div_ceil(TILE), 1);
    unsafe {
        matmul_tiled_kernel::launch_unchecked::<f32, R>(
            client,
            cube_count,
            CubeDim::new(TILE, TILE, 1),
            ArrayArg::from_raw_parts::<f32>(lhs, m * k, 1),
            ArrayArg::from_raw_parts::<f32>(rhs, k * n, 1),
            ArrayArg::from_raw_parts::<f32>(out, m * n, 1),
            ScalarArg::new(m as u32),
            ScalarArg::new(k as u32),
            ScalarArg::new(n as u32),
            TILE,
        );
    }
}

//@ case: correct
// Tiled transpose through a padded shared tile: 2-D guards with `ABSOLUTE_POS_X/Y` on the load, swapped cube coordinates and guards on the store, one barrier between.
#[cube(launch_unchecked)]
fn transpose_kernel<F: Float>(input: &Array<F>, output: &mut Array<F>, rows: u32, cols: u32, #[comptime] tile: u32) {
    let mut buffer = SharedMemory::<F>::new(tile * (tile + 1));

    let x = ABSOLUTE_POS_X;
    let y = ABSOLUTE_POS_Y;
    if x < cols && y < rows {
        buffer[UNIT_POS_Y * (tile + 1) + UNIT_POS_X] = input[y * cols + x];
    }
    sync_cube();

    let out_col = CUBE_POS_Y * tile + UNIT_POS_X;
    let out_row = CUBE_POS_X * tile + UNIT_POS_Y;
    if out_col < rows && out_row < cols {
        output[out_row * rows + out_col] = buffer[UNIT_POS_X * (tile + 1) + UNIT_POS_Y];
    }
}

pub fn transpose<R: Runtime>(
    client: &ComputeClient<R::Server>,
    input: &Handle,
    output: &Handle,
    rows: usize,
    cols: usize,
) {
    unsafe {
        transpose_kernel::launch_unchecked::<f32, R>(
            client,
            CubeCount::Static((cols as u32).div_ceil(TILE), (rows as u32).div_ceil(TILE), 1),
            CubeDim::new(TILE, TILE, 1),
            ArrayArg::from_raw_parts::<f32>(input, rows * cols, 1),
            ArrayArg::from_raw_parts::<f32>(output, rows * cols, 1),
            ScalarArg::new(rows as u32),
            ScalarArg::new(cols as u32),
            TILE,
        );
    }
}

//@ case: hazard thread_index_collision
// Batched scale launched on a 2-D cube count (`y` = batch) but stored at the 1-D `ABSOLUTE_POS_X` without the batch offset: every batch writes the same first row.
#[cube(launch)]
fn scale_batched_kernel<F: Float>(input: &Array<F>, scales: &Array<F>, output: &mut Array<F>, batch_stride: u32) {
    let batch = CUBE_POS_Y;
    let i = ABSOLUTE_POS_X;
    if i < batch_stride {
        output[i] = input[batch * batch_stride + i] * scales[batch]; //~ WARN thread_index_collision
    }
}

pub fn scale_batched<R: Runtime>(
    client: &ComputeClient<R::Server>,
    input: &Handle,
    scales: &Handle,
    output: &Handle,
    batch: usize,
    batch_stride: usize,
) {
    let len = batch * batch_stride;
    unsafe {
        scale_batched_kernel::launch::<f32, R>(
            client,
            CubeCount::Static((batch_stride as u32).div_ceil(256), batch as u32, 1),
            CubeDim::new(256, 1, 1),
            ArrayArg::from_raw_parts::<f32>(input, len, 1),
            ArrayArg::from_raw_parts::<f32>(scales, batch, 1),
            ArrayArg::from_raw_parts::<f32>(output, len, 1),
            ScalarArg::new(batch_stride as u32),
        );
    }
}

//@ case: hazard unchecked_thread_index
// 2-D bias add guarded on the column only: the cube count is rounded up along `y` too, so units with `row >= rows` index past the end.
#[cube(launch_unchecked)]
fn add_bias_2d_kernel<F: Float>(x: &Array<F>, bias: &Array<F>, out: &mut Array<F>, cols: u32) {
    let row = ABSOLUTE_POS_Y;
    let col = ABSOLUTE_POS_X;
    if col < cols {
        let idx = row * cols + col;
        let v = x[idx] + bias[col]; //~ WARN unchecked_thread_index
        out[idx] = v; //~ WARN unchecked_thread_index
    }
}

pub fn add_bias_2d<R: Runtime>(
    client: &ComputeClient<R::Server>,
    x: &Handle,
    bias: &Handle,
    out: &Handle,
    rows: usize,
    cols: usize,
) {
    unsafe {
        add_bias_2d_kernel::launch_unchecked::<f32, R>(
            client,
            CubeCount::Static((cols as u32).div_ceil(TILE), (rows as u32).div_ceil(TILE), 1),
            CubeDim::new(TILE, TILE, 1),
            ArrayArg::from_raw_parts::<f32>(x, rows * cols, 1),
            ArrayArg::from_raw_parts::<f32>(bias, cols, 1),
            ArrayArg::from_raw_parts::<f32>(out, rows * cols, 1),
            ScalarArg::new(cols as u32),
        );
    }
}
