//! Host side of `column-stats`: buffer handles, cube counts and launches of the kernels in
//! `kernels.rs`.

mod kernels;

use cubecl::prelude::*;
use cubecl::server::Handle;

/// Rows are split into `ROW_CHUNKS` chunks, one per unit along `y` of the cube.
pub const ROW_CHUNKS: u32 = 8;

// Host half of the `column_partials` case in kernels.rs: a 2-D cube (32 columns x 8 row
// chunks) over which that kernel's `partials[ABSOLUTE_POS_X]` store is not unique.
pub fn launch_column_partials<R: Runtime>(
    client: &ComputeClient<R::Server>,
    matrix: &Handle,
    partials: &Handle,
    rows: usize,
    cols: usize,
) {
    assert_eq!(rows as u32 % ROW_CHUNKS, 0, "rows must split into whole chunks");
    unsafe {
        kernels::column_partials::launch::<f32, R>(
            client,
            CubeCount::Static((cols as u32).div_ceil(32), 1, 1),
            CubeDim::new(32, ROW_CHUNKS, 1),
            ArrayArg::from_raw_parts::<f32>(matrix, rows * cols, 1),
            ArrayArg::from_raw_parts::<f32>(partials, ROW_CHUNKS as usize * cols, 1),
            ScalarArg::new(rows as u32),
            ScalarArg::new(cols as u32),
        );
    }
}

//@ case: correct
// Launch of `normalize_columns` from kernels.rs: cube count rounded up on both axes, arguments in parameter order (matrix, norms, rows, cols).
pub fn launch_normalize_columns<R: Runtime>(
    client: &ComputeClient<R::Server>,
    matrix: &Handle,
    col_norms: &Handle,
    rows: usize,
    cols: usize,
) {
    unsafe {
        kernels::normalize_columns::launch_unchecked::<f32, R>(
            client,
            CubeCount::Static((cols as u32).div_ceil(16), (rows as u32).div_ceil(16), 1),
            CubeDim::new(16, 16, 1),
            ArrayArg::from_raw_parts::<f32>(matrix, rows * cols, 1),
            ArrayArg::from_raw_parts::<f32>(col_norms, cols, 1),
            ScalarArg::new(rows as u32),
            ScalarArg::new(cols as u32),
        );
    }
}

//@ case: hazard launch_arg_mismatch
// Launch of `blur_rows` that forgets its `#[comptime] radius` argument: 3 launch arguments for a kernel with 4 parameters.
pub fn launch_blur_rows<R: Runtime>(
    client: &ComputeClient<R::Server>,
    input: &Handle,
    output: &Handle,
    rows: usize,
    width: usize,
) {
    let len = rows * width;
    unsafe {
        kernels::blur_rows::launch_unchecked::<f32, R>( //~ ERROR launch_arg_mismatch
            client,
            CubeCount::Static((len as u32).div_ceil(256), 1, 1),
            CubeDim::new(256, 1, 1),
            ArrayArg::from_raw_parts::<f32>(input, len, 1),
            ArrayArg::from_raw_parts::<f32>(output, len, 1),
            ScalarArg::new(width as u32),
        );
    }
}

//@ case: hazard unknown_launch_kernel
// Launch of `sharpen_rows`, which neither kernels.rs nor this file defines.
pub fn launch_sharpen_rows<R: Runtime>(
    client: &ComputeClient<R::Server>,
    input: &Handle,
    output: &Handle,
    rows: usize,
    width: usize,
) {
    let len = rows * width;
    unsafe {
        kernels::sharpen_rows::launch_unchecked::<f32, R>( //~ ERROR unknown_launch_kernel
            client,
            CubeCount::Static((len as u32).div_ceil(256), 1, 1),
            CubeDim::new(256, 1, 1),
            ArrayArg::from_raw_parts::<f32>(input, len, 1),
            ArrayArg::from_raw_parts::<f32>(output, len, 1),
            ScalarArg::new(width as u32),
            2,
        );
    }
}
