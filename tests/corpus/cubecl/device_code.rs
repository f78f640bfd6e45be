//! What may appear inside `#[cube]` code of a preprocessing/quantization module: comptime
//! host evaluation, device printing and unchecked indexing that are fine, and host-only
//! APIs, heap/cell/raw-pointer parameters, raw-pointer `unsafe` and a `static mut` that are
//! not.

use core::cell::Cell;
use cubecl::prelude::*;
use cubecl::server::Handle;

//@ case: correct
// `comptime!` runs on the host while the kernel is expanded, so `std` (here `PI` and `f32::sqrt`) is fine inside it: only the folded constant reaches the GPU.
#[cube(launch)]
fn gaussian_pdf_kernel<F: Float>(x: &Array<F>, out: &mut Array<F>, mean: F, inv_sigma: F) {
    let inv_sqrt_2pi = F::new(comptime!(1.0f32 / (2.0f32 * std::f32::consts::PI).sqrt()));
    let z = (x[ABSOLUTE_POS] - mean) * inv_sigma;
    out[ABSOLUTE_POS] = inv_sqrt_2pi * inv_sigma * F::exp(F::new(-0.5) * z * z);
}

pub fn gaussian_pdf<R: Runtime>(
    client: &ComputeClient<R::Server>,
    x: &Handle,
    out: &Handle,
    len: usize,
    mean: f32,
    sigma: f32,
) {
    let cubes = (len as u32).div_ceil(256);
    unsafe {
        gaussian_pdf_kernel::launch::<f32, R>(
            client,
            CubeCount::Static(cubes, 1, 1),
            CubeDim::new(256, 1, 1),
            ArrayArg::from_raw_parts::<f32>(x, len, 1),
            ArrayArg::from_raw_parts::<f32>(out, len, 1),
            ScalarArg::new(mean),
            ScalarArg::new(1.0 / sigma),
        );
    }
}

//@ case: correct
// Device-side printing with CubeCL's `debug_print!` (printf on the GPU), restricted to unit 0 of the launch.
#[cube(launch)]
fn nan_flags_kernel(values: &Array<f32>, flags: &mut Array<u32>) {
    let v = values[ABSOLUTE_POS];
    let is_nan = v != v;
    flags[ABSOLUTE_POS] = u32::cast_from(is_nan);
    if ABSOLUTE_POS == 0 {
        debug_print!("nan_flags: values[0] = %f\n", v);
    }
}

pub fn nan_flags<R: Runtime>(client: &ComputeClient<R::Server>, values: &Handle, flags: &Handle, len: usize) {
    let cubes = (len as u32).div_ceil(256);
    unsafe {
        nan_flags_kernel::launch::<R>(
            client,
            CubeCount::Static(cubes, 1, 1),
            CubeDim::new(256, 1, 1),
            ArrayArg::from_raw_parts::<f32>(values, len, 1),
            ArrayArg::from_raw_parts::<u32>(flags, len, 1),
        );
    }
}

//@ case: correct
// Checked kernel that skips the bounds check on provably in-bounds row reads with the `unsafe` method `index_unchecked` (no raw pointer involved).
#[cube(launch)]
fn row_max_kernel<F: Float>(matrix: &Array<F>, row_max: &mut Array<F>, cols: u32) {
    let row = ABSOLUTE_POS;
    if row < row_max.len() {
        let base = row * cols;
        let mut best = unsafe { *matrix.index_unchecked(base) };
        for c in 1..cols {
            best = F::max(best, unsafe { *matrix.index_unchecked(base + c) });
        }
        row_max[row] = best;
    }
}

pub fn row_max<R: Runtime>(
    client: &ComputeClient<R::Server>,
    matrix: &Handle,
    row_max: &Handle,
    rows: usize,
    cols: usize,
) {
    assert!(cols > 0);
    unsafe {
        row_max_kernel::launch::<f32, R>(
            client,
            CubeCount::Static((rows as u32).div_ceil(128), 1, 1),
            CubeDim::new(128, 1, 1),
            ArrayArg::from_raw_parts::<f32>(matrix, rows * cols, 1),
            ArrayArg::from_raw_parts::<f32>(row_max, rows, 1),
            ScalarArg::new(cols as u32),
        );
    }
}

//@ case: hazard host_only_api_in_kernel
// `println!` in a kernel body: there is no stdout on the GPU (CubeCL's device print is `debug_print!`).
#[cube(launch)]
fn normalize_by_norm_kernel<F: Float>(input: &Array<F>, norm: &Array<F>, output: &mut Array<F>) {
    let n = norm[0];
    println!("normalizing by {}", n); //~ ERROR host_only_api_in_kernel
    output[ABSOLUTE_POS] = input[ABSOLUTE_POS] / n;
}

pub fn normalize_by_norm<R: Runtime>(
    client: &ComputeClient<R::Server>,
    input: &Handle,
    norm: &Handle,
    output: &Handle,
    len: usize,
) {
    let cubes = (len as u32).div_ceil(256);
    unsafe {
        normalize_by_norm_kernel::launch::<f32, R>(
            client,
            CubeCount::Static(cubes, 1, 1),
            CubeDim::new(256, 1, 1),
            ArrayArg::from_raw_parts::<f32>(input, len, 1),
            ArrayArg::from_raw_parts::<f32>(norm, 1, 1),
            ArrayArg::from_raw_parts::<f32>(output, len, 1),
        );
    }
}

//@ case: hazard host_only_api_in_kernel
// A `#[cube]` helper gathering a window into a `Vec`: kernels have no allocator (device scratch is `SharedMemory` or a comptime-sized local `Array`).
#[cube]
fn window_range<F: Float>(signal: &Array<F>, center: u32, #[comptime] radius: u32) -> F {
    let mut window = Vec::new(); //~ ERROR host_only_api_in_kernel
    #[unroll]
    for d in 0..2 * radius + 1 {
        window.push(signal[center + d - radius]);
    }
    let mut lo = window[0];
    let mut hi = window[0];
    for v in window {
        lo = F::min(lo, v);
        hi = F::max(hi, v);
    }
    hi - lo
}

#[cube(launch)]
fn local_range_kernel<F: Float>(signal: &Array<F>, output: &mut Array<F>, #[comptime] radius: u32) {
    let i = ABSOLUTE_POS;
    if i >= radius && i + radius < signal.len() {
        output[i] = window_range::<F>(signal, i, radius);
    }
}

pub fn local_range<R: Runtime>(client: &ComputeClient<R::Server>, signal: &Handle, output: &Handle, len: usize) {
    let cubes = (len as u32).div_ceil(256);
    unsafe {
        local_range_kernel::launch::<f32, R>(
            client,
            CubeCount::Static(cubes, 1, 1),
            CubeDim::new(256, 1, 1),
            ArrayArg::from_raw_parts::<f32>(signal, len, 1),
            ArrayArg::from_raw_parts::<f32>(output, len, 1),
            3,
        );
    }
}

//@ case: hazard host_only_api_in_kernel
// `std::cmp::min` on runtime values inside a kernel: a host function, not a cube function (`Min::min` / `u32::min` is the device form).
#[cube(launch)]
fn clamp_token_ids_kernel(token_ids: &Array<u32>, output: &mut Array<u32>, vocab_size: u32) {
    output[ABSOLUTE_POS] = std::cmp::min(token_ids[ABSOLUTE_POS], vocab_size - 1); //~ ERROR host_only_api_in_kernel
}

pub fn clamp_token_ids<R: Runtime>(
    client: &ComputeClient<R::Server>,
    token_ids: &Handle,
    output: &Handle,
    len: usize,
    vocab_size: u32,
) {
    let cubes = (len as u32).div_ceil(256);
    unsafe {
        clamp_token_ids_kernel::launch::<R>(
            client,
            CubeCount::Static(cubes, 1, 1),
            CubeDim::new(256, 1, 1),
            ArrayArg::from_raw_parts::<u32>(token_ids, len, 1),
            ArrayArg::from_raw_parts::<u32>(output, len, 1),
            ScalarArg::new(vocab_size),
        );
    }
}

//@ case: hazard heap_owning_kernel_arg
// Codebook passed as `&Vec<f32>`: a host heap header, not a device buffer (it should be an `&Array<f32>` bound with an `ArrayArg`).
#[cube(launch)]
fn dequantize_kernel(
    codes: &Array<u32>,
    codebook: &Vec<f32>, //~ ERROR heap_owning_kernel_arg
    output: &mut Array<f32>,
) {
    output[ABSOLUTE_POS] = codebook[codes[ABSOLUTE_POS] as usize];
}

//@ case: hazard interior_mutability_kernel_arg
// A `&Cell<u32>` counter bumped by every unit: non-`Sync` interior mutability shared by the whole launch, and never a device buffer (an `Array<Atomic<u32>>` is the device form).
#[cube(launch)]
fn count_saturated_kernel(
    activations: &Array<f32>,
    saturated: &Cell<u32>, //~ WARN interior_mutability_kernel_arg
) {
    if activations[ABSOLUTE_POS] >= 1.0 {
        saturated.set(saturated.get() + 1);
    }
}

//@ case: hazard raw_pointer_kernel_param
// Embedding table passed as `*const f32` and read through `unsafe` pointer arithmetic; cube parameters are `Array`/`Tensor` bindings, never host pointers.
#[cube(launch_unchecked)]
fn gather_rows_raw_kernel(
    table: *const f32, //~ WARN raw_pointer_kernel_param
    indices: &Array<u32>,
    output: &mut Array<f32>,
) {
    if ABSOLUTE_POS < output.len() {
        let idx = indices[ABSOLUTE_POS];
        output[ABSOLUTE_POS] = unsafe { *table.add(idx as usize) }; //~ WARN unsafe_in_kernel
    }
}

//@ case: hazard unsafe_in_kernel
// Writes through a raw pointer taken from the output `Array` with `as_mut_ptr()` inside `unsafe`, instead of indexing the array.
#[cube(launch_unchecked)]
fn fill_ones_kernel(output: &mut Array<f32>) {
    if ABSOLUTE_POS < output.len() {
        let base = output.as_mut_ptr();
        unsafe { *base.add(ABSOLUTE_POS as usize) = 1.0 }; //~ WARN unsafe_in_kernel
    }
}

pub fn fill_ones<R: Runtime>(client: &ComputeClient<R::Server>, output: &Handle, len: usize) {
    let cubes = (len as u32).div_ceil(256);
    unsafe {
        fill_ones_kernel::launch_unchecked::<R>(
            client,
            CubeCount::Static(cubes, 1, 1),
            CubeDim::new(256, 1, 1),
            ArrayArg::from_raw_parts::<f32>(output, len, 1),
        );
    }
}

//@ case: hazard static_mut_in_kernel
// A host `static mut` read inside a kernel: it is read once when the kernel is expanded and baked into the cached kernel, so later host updates are ignored.
static mut LEAKY_SLOPE: f32 = 0.01;

#[cube(launch)]
fn leaky_relu_kernel(input: &Array<f32>, output: &mut Array<f32>) {
    let x = input[ABSOLUTE_POS];
    let slope = unsafe { LEAKY_SLOPE }; //~ WARN unsafe_in_kernel //~ ERROR static_mut_in_kernel
    output[ABSOLUTE_POS] = select(x > 0.0, x, x * slope);
}

pub fn leaky_relu<R: Runtime>(
    client: &ComputeClient<R::Server>,
    input: &Handle,
    output: &Handle,
    len: usize,
    slope: f32,
) {
    unsafe {
        LEAKY_SLOPE = slope;
    }
    let cubes = (len as u32).div_ceil(256);
    unsafe {
        leaky_relu_kernel::launch::<R>(
            client,
            CubeCount::Static(cubes, 1, 1),
            CubeDim::new(256, 1, 1),
            ArrayArg::from_raw_parts::<f32>(input, len, 1),
            ArrayArg::from_raw_parts::<f32>(output, len, 1),
        );
    }
}
