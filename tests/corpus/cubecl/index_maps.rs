//! Gather / scatter style kernels of a tensor backend: the source position of each unit is
//! computed by a helper from its own position, or built up over the tensor's axes with `+=`
//! (quotients and remainders of the position times the strides), as a backend's index kernels
//! do for arbitrary layouts.

use cubecl::prelude::*;

/// The position in `src` of the element at contiguous position `pos` of a tensor shaped like `out`.
#[cube]
fn strided_offset(pos: u32, out: &Tensor<f32>, src: &Tensor<f32>) -> u32 {
    let mut offset = 0;
    for axis in 0..out.rank() {
        offset += pos / out.stride(axis) % out.shape(axis) * src.stride(axis);
    }
    offset
}

//@ case: correct
// Copy from a strided source: the source offset is what a helper returns for the unit's position.
#[cube(launch_unchecked)]
fn copy_strided_kernel(src: &Tensor<f32>, out: &mut Tensor<f32>) {
    if ABSOLUTE_POS >= out.len() {
        terminate!();
    }
    let from = strided_offset(ABSOLUTE_POS, out, src);
    out[ABSOLUTE_POS] = src[from];
}

//@ case: correct
// Gather along one axis: the offset is built up over the other axes with `+=`, then moved along the gathered axis.
#[cube(launch_unchecked)]
fn gather_axis_kernel(input: &Tensor<f32>, indices: &Tensor<u32>, output: &mut Tensor<f32>, axis: u32) {
    if !output.is_in_bounds(ABSOLUTE_POS) {
        terminate!();
    }
    let mut offset = 0;
    for i in 0..output.rank() {
        if i != axis {
            offset += ABSOLUTE_POS / output.stride(i) % output.shape(i) * input.stride(i);
        }
    }
    offset += indices[ABSOLUTE_POS] * input.stride(axis);
    output[ABSOLUTE_POS] = input[offset];
}

//@ case: correct
// Scatter-add into rows chosen by an index buffer: the row start comes from memory, the unit's position is added with `+=`.
#[cube(launch_unchecked)]
fn scatter_rows_kernel(rows: &Tensor<u32>, values: &Tensor<f32>, out: &mut Tensor<f32>) {
    if ABSOLUTE_POS >= values.len() {
        terminate!();
    }
    let mut at = rows[0] * out.stride(0);
    at += ABSOLUTE_POS;
    out[at] += values[ABSOLUTE_POS];
}

pub fn scatter_rows<R: Runtime>(client: &ComputeClient<R::Server>, rows: TensorArg<R>, values: TensorArg<R>,
                                out: TensorArg<R>, len: usize) {
    let cube_dim = CubeDim::default();
    let cube_count = CubeCount::Static((len as u32).div_ceil(256), 1, 1);
    unsafe { scatter_rows_kernel::launch_unchecked::<R>(client, cube_count, cube_dim, rows, values, out) }
}

//@ case: hazard unchecked_thread_index
// A 2-D clear whose exit test is off by one (`x > width` instead of `x >= width`): the column `x == width` is let through and writes into the next row, and on the last row past the end.
#[cube(launch_unchecked)]
fn clear_plane(dst: &mut Array<f32>, width: u32, height: u32) {
    let x = ABSOLUTE_POS_X;
    let y = ABSOLUTE_POS_Y;
    if x > width || y >= height {
        terminate!();
    }
    let at = y * width + x;
    dst[at as usize] = 0.0; //~ WARN unchecked_thread_index
}
