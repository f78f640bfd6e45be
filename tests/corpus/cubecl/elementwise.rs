//! Element-wise activation and arithmetic kernels for a small CubeCL inference runtime,
//! with the host functions that launch them (cubecl 0.8 API: `ComputeClient<R::Server>`,
//! `ArrayArg::from_raw_parts::<E>(&handle, len, line_size)`, `ScalarArg::new(v)`).

use cubecl::prelude::*;
use cubecl::server::Handle;

const CUBE_SIZE: u32 = 256;

//@ case: correct
// Checked `#[cube(launch)]` kernel indexing `output[ABSOLUTE_POS]` without a guard: the tail units of the rounded-up launch read zeros and their writes are dropped.
#[cube]
fn gelu_scalar<F: Float>(x: F) -> F {
    let inv_sqrt2 = F::new(0.70710677);
    x * (F::erf(x * inv_sqrt2) + F::new(1.0)) * F::new(0.5)
}

#[cube(launch)]
fn gelu_kernel<F: Float>(input: &Array<F>, output: &mut Array<F>) {
    output[ABSOLUTE_POS] = gelu_scalar::<F>(input[ABSOLUTE_POS]);
}

pub fn gelu<R: Runtime>(client: &ComputeClient<R::Server>, input: &Handle, output: &Handle, len: usize) {
    let cubes = (len as u32).div_ceil(CUBE_SIZE);
    unsafe {
        gelu_kernel::launch::<f32, R>(
            client,
            CubeCount::Static(cubes, 1, 1),
            CubeDim::new(CUBE_SIZE, 1, 1),
            ArrayArg::from_raw_parts::<f32>(input, len, 1),
            ArrayArg::from_raw_parts::<f32>(output, len, 1),
        );
    }
}

//@ case: correct
// `launch_unchecked` kernel with the canonical `if ABSOLUTE_POS < output.len()` guard.
#[cube(launch_unchecked)]
fn relu_kernel<F: Float>(input: &Array<F>, output: &mut Array<F>) {
    if ABSOLUTE_POS < output.len() {
        output[ABSOLUTE_POS] = F::max(input[ABSOLUTE_POS], F::new(0.0));
    }
}

pub fn relu<R: Runtime>(client: &ComputeClient<R::Server>, input: &Handle, output: &Handle, len: usize) {
    let cubes = (len as u32).div_ceil(CUBE_SIZE);
    unsafe {
        relu_kernel::launch_unchecked::<f32, R>(
            client,
            CubeCount::Static(cubes, 1, 1),
            CubeDim::new(CUBE_SIZE, 1, 1),
            ArrayArg::from_raw_parts::<f32>(input, len, 1),
            ArrayArg::from_raw_parts::<f32>(output, len, 1),
        );
    }
}

//@ case: correct
// Vectorized `Line<F>` axpy: one unit per line of 4 floats, guarded by the array length in lines.
#[cube(launch_unchecked)]
fn axpy_kernel<F: Float>(alpha: F, x: &Array<Line<F>>, y: &mut Array<Line<F>>) {
    if ABSOLUTE_POS < y.len() {
        y[ABSOLUTE_POS] = x[ABSOLUTE_POS] * Line::new(alpha) + y[ABSOLUTE_POS];
    }
}

pub fn axpy<R: Runtime>(client: &ComputeClient<R::Server>, alpha: f32, x: &Handle, y: &Handle, len: usize) {
    let line_size = 4u8;
    assert_eq!(len % line_size as usize, 0, "axpy expects a multiple of the line size");
    let lines = (len / line_size as usize) as u32;
    unsafe {
        axpy_kernel::launch_unchecked::<f32, R>(
            client,
            CubeCount::Static(lines.div_ceil(CUBE_SIZE), 1, 1),
            CubeDim::new(CUBE_SIZE, 1, 1),
            ScalarArg::new(alpha),
            ArrayArg::from_raw_parts::<f32>(x, len, line_size),
            ArrayArg::from_raw_parts::<f32>(y, len, line_size),
        );
    }
}

//@ case: correct
// Early exit with `terminate!()` for the tail units, then unguarded indexing in a `launch_unchecked` kernel.
#[cube(launch_unchecked)]
fn clamp_kernel<F: Float>(input: &Array<F>, output: &mut Array<F>, lo: F, hi: F) {
    if ABSOLUTE_POS >= output.len() {
        terminate!();
    }
    output[ABSOLUTE_POS] = F::clamp(input[ABSOLUTE_POS], lo, hi);
}

pub fn clamp<R: Runtime>(
    client: &ComputeClient<R::Server>,
    input: &Handle,
    output: &Handle,
    len: usize,
    lo: f32,
    hi: f32,
) {
    let cubes = (len as u32).div_ceil(CUBE_SIZE);
    unsafe {
        clamp_kernel::launch_unchecked::<f32, R>(
            client,
            CubeCount::Static(cubes, 1, 1),
            CubeDim::new(CUBE_SIZE, 1, 1),
            ArrayArg::from_raw_parts::<f32>(input, len, 1),
            ArrayArg::from_raw_parts::<f32>(output, len, 1),
            ScalarArg::new(lo),
            ScalarArg::new(hi),
        );
    }
}

//@ case: correct
// A 16x16 (2-D) cube indexed by the linear `ABSOLUTE_POS`: it is unique over the whole launch whatever the cube shape, so nothing collides.
#[cube(launch_unchecked)]
fn add_bias_flat_kernel<F: Float>(x: &Array<F>, bias: &Array<F>, out: &mut Array<F>) {
    if ABSOLUTE_POS < out.len() {
        out[ABSOLUTE_POS] = x[ABSOLUTE_POS] + bias[ABSOLUTE_POS % bias.len()];
    }
}

pub fn add_bias_flat<R: Runtime>(
    client: &ComputeClient<R::Server>,
    x: &Handle,
    bias: &Handle,
    out: &Handle,
    rows: usize,
    features: usize,
) {
    let len = rows * features;
    let cube_dim = CubeDim::new(16, 16, 1);
    let cubes = (len as u32).div_ceil(16 * 16);
    unsafe {
        add_bias_flat_kernel::launch_unchecked::<f32, R>(
            client,
            CubeCount::Static(cubes, 1, 1),
            cube_dim,
            ArrayArg::from_raw_parts::<f32>(x, len, 1),
            ArrayArg::from_raw_parts::<f32>(bias, features, 1),
            ArrayArg::from_raw_parts::<f32>(out, len, 1),
        );
    }
}

//@ case: correct
// Grid-stride loop: a fixed number of cubes covers any length, stepping by `CUBE_COUNT * CUBE_DIM`.
#[cube(launch_unchecked)]
fn scale_strided_kernel<F: Float>(data: &mut Array<F>, factor: F) {
    let stride = CUBE_COUNT * CUBE_DIM;
    let mut i = ABSOLUTE_POS;
    while i < data.len() {
        data[i] = data[i] * factor;
        i += stride;
    }
}

pub fn scale_strided<R: Runtime>(client: &ComputeClient<R::Server>, data: &Handle, len: usize, factor: f32) {
    unsafe {
        scale_strided_kernel::launch_unchecked::<f32, R>(
            client,
            CubeCount::Static(120, 1, 1),
            CubeDim::new(CUBE_SIZE, 1, 1),
            ArrayArg::from_raw_parts::<f32>(data, len, 1),
            ScalarArg::new(factor),
        );
    }
}

//@ case: hazard unchecked_thread_index
// `launch_unchecked` kernel that reads and writes at `ABSOLUTE_POS` with no guard, launched with a rounded-up cube count.
#[cube(launch_unchecked)]
fn sigmoid_kernel<F: Float>(input: &Array<F>, output: &mut Array<F>) {
    let x = input[ABSOLUTE_POS]; //~ WARN unchecked_thread_index
    output[ABSOLUTE_POS] = F::new(1.0) / (F::new(1.0) + F::exp(-x)); //~ WARN unchecked_thread_index
}

pub fn sigmoid<R: Runtime>(client: &ComputeClient<R::Server>, input: &Handle, output: &Handle, len: usize) {
    let cubes = (len as u32).div_ceil(CUBE_SIZE);
    unsafe {
        sigmoid_kernel::launch_unchecked::<f32, R>(
            client,
            CubeCount::Static(cubes, 1, 1),
            CubeDim::new(CUBE_SIZE, 1, 1),
            ArrayArg::from_raw_parts::<f32>(input, len, 1),
            ArrayArg::from_raw_parts::<f32>(output, len, 1),
        );
    }
}

//@ case: hazard unchecked_thread_index
// The guard bounds `ABSOLUTE_POS`, but the read is at `ABSOLUTE_POS + shift` (a roll without the wrap-around): the last `shift` units read past the end.
#[cube(launch_unchecked)]
fn roll_kernel<F: Float>(input: &Array<F>, output: &mut Array<F>, shift: u32) {
    if ABSOLUTE_POS < output.len() {
        output[ABSOLUTE_POS] = input[ABSOLUTE_POS + shift]; //~ WARN unchecked_thread_index
    }
}

pub fn roll<R: Runtime>(
    client: &ComputeClient<R::Server>,
    input: &Handle,
    output: &Handle,
    len: usize,
    shift: u32,
) {
    let cubes = (len as u32).div_ceil(CUBE_SIZE);
    unsafe {
        roll_kernel::launch_unchecked::<f32, R>(
            client,
            CubeCount::Static(cubes, 1, 1),
            CubeDim::new(CUBE_SIZE, 1, 1),
            ArrayArg::from_raw_parts::<f32>(input, len, 1),
            ArrayArg::from_raw_parts::<f32>(output, len, 1),
            ScalarArg::new(shift),
        );
    }
}

//@ case: hazard thread_index_collision
// `CUBE_POS + UNIT_POS` without `* CUBE_DIM` (blockIdx + threadIdx): cube 1 unit 0 and cube 0 unit 1 both write element 1, and most of the output is never written.
#[cube(launch_unchecked)]
fn square_kernel<F: Float>(input: &Array<F>, output: &mut Array<F>) {
    let i = CUBE_POS + UNIT_POS;
    if i < output.len() {
        output[i] = input[i] * input[i]; //~ WARN thread_index_collision
    }
}

pub fn square<R: Runtime>(client: &ComputeClient<R::Server>, input: &Handle, output: &Handle, len: usize) {
    let cubes = (len as u32).div_ceil(CUBE_SIZE);
    unsafe {
        square_kernel::launch_unchecked::<f32, R>(
            client,
            CubeCount::Static(cubes, 1, 1),
            CubeDim::new(CUBE_SIZE, 1, 1),
            ArrayArg::from_raw_parts::<f32>(input, len, 1),
            ArrayArg::from_raw_parts::<f32>(output, len, 1),
        );
    }
}
