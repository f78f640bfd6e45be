//! Host-side launch code of an optimizer/normalization module: how buffers, scalars,
//! tensors and comptime values map onto kernel parameters, in-place updates (one `&mut`
//! parameter, or an output aliasing an input through `ArrayArg::Alias`), and launches that
//! get the argument list wrong.

use cubecl::prelude::*;
use cubecl::server::Handle;

//@ case: correct
// In-place update through a single `&mut Array<Line<F>>` parameter, launched with the safe (checked) `launch`.
#[cube(launch)]
fn scale_in_place_kernel<F: Float>(data: &mut Array<Line<F>>, factor: F) {
    data[ABSOLUTE_POS] = data[ABSOLUTE_POS] * Line::new(factor);
}

pub fn scale_in_place<R: Runtime>(client: &ComputeClient<R::Server>, data: &Handle, len: usize, factor: f32) {
    let line_size = 4u8;
    assert_eq!(len % 4, 0);
    let lines = (len / 4) as u32;
    scale_in_place_kernel::launch::<f32, R>(
        client,
        CubeCount::Static(lines.div_ceil(256), 1, 1),
        CubeDim::new(256, 1, 1),
        unsafe { ArrayArg::from_raw_parts::<f32>(data, len, line_size) },
        ScalarArg::new(factor),
    );
}

//@ case: correct
// Element-wise `lhs += rhs` whose output is declared as an alias of input 0 (`ArrayArg::Alias`): each unit reads and writes only its own element.
#[cube(launch)]
fn add_kernel<F: Float>(lhs: &Array<F>, rhs: &Array<F>, out: &mut Array<F>) {
    out[ABSOLUTE_POS] = lhs[ABSOLUTE_POS] + rhs[ABSOLUTE_POS];
}

pub fn add_assign<R: Runtime>(client: &ComputeClient<R::Server>, lhs: &Handle, rhs: &Handle, len: usize) {
    let cubes = (len as u32).div_ceil(256);
    unsafe {
        add_kernel::launch::<f32, R>(
            client,
            CubeCount::Static(cubes, 1, 1),
            CubeDim::new(256, 1, 1),
            ArrayArg::from_raw_parts::<f32>(lhs, len, 1),
            ArrayArg::from_raw_parts::<f32>(rhs, len, 1),
            ArrayArg::Alias { input_pos: 0 },
        );
    }
}

//@ case: correct
// Row softmax over `Tensor<F>` arguments, one cube per row: a uniform early exit, shared-memory max and sum reductions between barriers, and the comptime cube size passed as a plain value.
#[cube]
fn cube_max<F: Float>(scratch: &mut SharedMemory<F>) -> F {
    let mut stride = CUBE_DIM / 2;
    while stride > 0 {
        if UNIT_POS < stride {
            scratch[UNIT_POS] = F::max(scratch[UNIT_POS], scratch[UNIT_POS + stride]);
        }
        sync_cube();
        stride /= 2;
    }
    scratch[0]
}

#[cube]
fn cube_sum<F: Float>(scratch: &mut SharedMemory<F>) -> F {
    let mut stride = CUBE_DIM / 2;
    while stride > 0 {
        if UNIT_POS < stride {
            scratch[UNIT_POS] += scratch[UNIT_POS + stride];
        }
        sync_cube();
        stride /= 2;
    }
    scratch[0]
}

#[cube(launch_unchecked)]
fn softmax_rows<F: Float>(input: &Tensor<F>, output: &mut Tensor<F>, #[comptime] cube_size: u32) {
    let row = CUBE_POS_X;
    if row >= input.shape(0) {
        terminate!();
    }
    let cols = input.shape(1);
    let in_row = row * input.stride(0);
    let out_row = row * output.stride(0);
    let mut scratch = SharedMemory::<F>::new(cube_size);

    let mut local_max = F::new(f32::NEG_INFINITY);
    let mut c = UNIT_POS;
    while c < cols {
        local_max = F::max(local_max, input[in_row + c]);
        c += CUBE_DIM;
    }
    scratch[UNIT_POS] = local_max;
    sync_cube();
    let row_max = cube_max::<F>(&mut scratch);
    sync_cube();

    let mut local_sum = F::new(0.0);
    let mut j = UNIT_POS;
    while j < cols {
        local_sum += F::exp(input[in_row + j] - row_max);
        j += CUBE_DIM;
    }
    scratch[UNIT_POS] = local_sum;
    sync_cube();
    let denom = cube_sum::<F>(&mut scratch);

    let mut k = UNIT_POS;
    while k < cols {
        output[out_row + k] = F::exp(input[in_row + k] - row_max) / denom;
        k += CUBE_DIM;
    }
}

pub fn softmax<R: Runtime>(
    client: &ComputeClient<R::Server>,
    input: &Handle,
    output: &Handle,
    rows: usize,
    cols: usize,
) {
    let shape = [rows, cols];
    let strides = [cols, 1];
    unsafe {
        softmax_rows::launch_unchecked::<f32, R>(
            client,
            CubeCount::Static(rows as u32, 1, 1),
            CubeDim::new(128, 1, 1),
            TensorArg::from_raw_parts::<f32>(input, &strides, &shape, 1),
            TensorArg::from_raw_parts::<f32>(output, &strides, &shape, 1),
            128,
        );
    }
}

//@ case: hazard aliased_launch_args
// A 3-point smoothing stencil launched with the same handle as `src` and `dst`: units read neighbours that other units are overwriting.
#[cube(launch)]
fn smooth3_kernel<F: Float>(src: &Array<F>, dst: &mut Array<F>) {
    let i = ABSOLUTE_POS;
    if i > 0 && i + 1 < src.len() {
        dst[i] = (src[i - 1] + src[i] + src[i + 1]) / F::new(3.0);
    }
}

pub fn smooth_in_place<R: Runtime>(client: &ComputeClient<R::Server>, field: &Handle, len: usize) {
    let cubes = (len as u32).div_ceil(256);
    unsafe {
        smooth3_kernel::launch::<f32, R>(
            client,
            CubeCount::Static(cubes, 1, 1),
            CubeDim::new(256, 1, 1),
            ArrayArg::from_raw_parts::<f32>(field, len, 1),
            ArrayArg::from_raw_parts::<f32>(field, len, 1), //~ ERROR aliased_launch_args
        );
    }
}

//@ case: hazard launch_arg_mismatch
// SGD-with-momentum step over `f32` buffers whose `momentum: f32` parameter is given a value bound as `f64`.
#[cube(launch)]
fn sgd_momentum_kernel(
    grad: &Array<f32>,
    velocity: &mut Array<f32>,
    weights: &mut Array<f32>,
    lr: f32,
    momentum: f32,
) {
    let v = velocity[ABSOLUTE_POS] * momentum + grad[ABSOLUTE_POS];
    velocity[ABSOLUTE_POS] = v;
    weights[ABSOLUTE_POS] -= lr * v;
}

pub fn sgd_momentum_step<R: Runtime>(
    client: &ComputeClient<R::Server>,
    grad: &Handle,
    velocity: &Handle,
    weights: &Handle,
    len: usize,
    lr: f32,
) {
    let momentum: f64 = 0.9;
    let cubes = (len as u32).div_ceil(256);
    unsafe {
        sgd_momentum_kernel::launch::<R>(
            client,
            CubeCount::Static(cubes, 1, 1),
            CubeDim::new(256, 1, 1),
            ArrayArg::from_raw_parts::<f32>(grad, len, 1),
            ArrayArg::from_raw_parts::<f32>(velocity, len, 1),
            ArrayArg::from_raw_parts::<f32>(weights, len, 1),
            ScalarArg::new(lr),
            ScalarArg::new(momentum), //~ ERROR launch_arg_mismatch
        );
    }
}

//@ case: hazard unknown_launch_kernel
// Launch of `softmax_row`, a kernel this file does not define (the kernel is `softmax_rows`).
pub fn softmax_last_dim<R: Runtime>(
    client: &ComputeClient<R::Server>,
    input: &Handle,
    output: &Handle,
    rows: usize,
    cols: usize,
) {
    let shape = [rows, cols];
    let strides = [cols, 1];
    unsafe {
        softmax_row::launch_unchecked::<f32, R>( //~ ERROR unknown_launch_kernel
            client,
            CubeCount::Static(rows as u32, 1, 1),
            CubeDim::new(128, 1, 1),
            TensorArg::from_raw_parts::<f32>(input, &strides, &shape, 1),
            TensorArg::from_raw_parts::<f32>(output, &strides, &shape, 1),
            128,
        );
    }
}
