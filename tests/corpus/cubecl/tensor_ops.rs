//! Tensor kernels in the style of a deep-learning backend built on CubeCL: unchecked launches
//! that guard themselves with `is_in_bounds` + `terminate!()`, positions split with a
//! `FastDivmod`, per-row offsets read from a buffer, one 3-element record per unit, and the
//! launch arguments CubeCL adds for `address_type = "dynamic"` kernels and vector sizes.

use cubecl::prelude::*;
use cubecl::server::Handle;

//@ case: correct
// Element-wise negation; units past the output leave through `is_in_bounds` + `terminate!()`.
#[cube(launch_unchecked)]
fn negate_kernel<F: Float>(input: &Tensor<F>, output: &mut Tensor<F>) {
    if !output.is_in_bounds(ABSOLUTE_POS) {
        terminate!();
    }
    output[ABSOLUTE_POS] = -input[ABSOLUTE_POS];
}

//@ case: correct
// Cross product of packed xyz vectors: each unit owns one 3-element record, guarded at its start.
#[cube(launch_unchecked)]
fn cross3_kernel<F: Float>(a: &Tensor<F>, b: &Tensor<F>, out: &mut Tensor<F>) {
    let base = ABSOLUTE_POS * 3;
    if !out.is_in_bounds(base) {
        terminate!();
    }
    let (ax, ay, az) = (a[base], a[base + 1], a[base + 2]);
    let (bx, by, bz) = (b[base], b[base + 1], b[base + 2]);
    out[base] = ay * bz - az * by;
    out[base + 1] = az * bx - ax * bz;
    out[base + 2] = ax * by - ay * bx;
}

//@ case: correct
// Mirror of the last axis: the source position comes from a `FastDivmod` split of the unit's position.
#[cube(launch_unchecked)]
fn mirror_rows_kernel<F: Float>(input: &Tensor<F>, output: &mut Tensor<F>, row_len: FastDivmod, width: u32) {
    if ABSOLUTE_POS >= output.len() {
        terminate!();
    }
    let (row, col) = row_len.div_mod(ABSOLUTE_POS);
    output[ABSOLUTE_POS] = input[row * width + (width - 1 - col)];
}

//@ case: correct
// Scatter of ones to the row each unit reads from an offsets buffer (a value read from memory, not a position).
#[cube(launch_unchecked)]
fn mark_rows_kernel(offsets: &Array<u32>, marks: &mut Array<u32>, count: u32) {
    if ABSOLUTE_POS >= count {
        terminate!();
    }
    let row = offsets.read(ABSOLUTE_POS);
    marks[row] = 1;
}

//@ case: correct
// A kernel compiled for a run-time address type: its launch passes the `AddressType` before the arguments.
#[cube(launch_unchecked, address_type = "dynamic")]
fn fill_kernel<F: Float>(out: &mut Tensor<F>, value: F) {
    if !out.is_in_bounds(ABSOLUTE_POS) {
        terminate!();
    }
    out[ABSOLUTE_POS] = value;
}

pub fn fill<R: Runtime>(client: &ComputeClient<R::Server>, out: &Handle, shape: &[usize], strides: &[usize], value: f32) {
    let len: usize = shape.iter().product();
    unsafe {
        fill_kernel::launch_unchecked::<f32, R>(
            client,
            CubeCount::Static((len as u32).div_ceil(256), 1, 1),
            CubeDim::new_1d(256),
            AddressType::from_len(len),
            TensorArg::from_raw_parts::<f32>(out, strides, shape, 1),
            ScalarArg::new(value),
        );
    }
}

//@ case: correct
// A kernel over vectors of a run-time width `N`: the launch passes the width before the array.
#[cube(launch)]
fn zero_vectors_kernel<N: Size>(out: &mut Array<Vector<f32, N>>) {
    out[ABSOLUTE_POS] = Vector::new(0.0);
}

pub fn zero_vectors<R: Runtime>(client: &ComputeClient<R::Server>, out: Handle, len: usize, width: usize) {
    zero_vectors_kernel::launch::<R>(
        client,
        CubeCount::Static((len as u32).div_ceil(128), 1, 1),
        CubeDim::new_1d(128),
        width,
        unsafe { ArrayArg::from_raw_parts(out, len) },
    );
}

//@ case: hazard launch_arg_mismatch
// The same fill launched without its value: the arguments do not reach the count even with CubeCL's own.
pub fn fill_missing_value<R: Runtime>(client: &ComputeClient<R::Server>, out: &Handle, shape: &[usize], strides: &[usize]) {
    unsafe {
        fill_kernel::launch_unchecked::<f32, R>( //~ ERROR launch_arg_mismatch
            client,
            CubeCount::Static(1, 1, 1),
            CubeDim::new_1d(256),
            TensorArg::from_raw_parts::<f32>(out, strides, shape, 1),
        );
    }
}
