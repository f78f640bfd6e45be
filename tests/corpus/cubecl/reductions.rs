//! Reductions for the metrics pass of a training loop: per-cube partial sums in shared
//! memory, a plane-level row sum, a privatized atomic histogram, and the single-unit
//! kernel that folds the partials, with their host launchers.

use cubecl::prelude::*;
use cubecl::server::Handle;

const REDUCE_CUBE: u32 = 256;

//@ case: correct
// Tree reduction in shared memory: `UNIT_POS` indexes the tile between `sync_cube()` barriers, and one unit per cube writes `partials[CUBE_POS]`.
#[cube(launch_unchecked)]
fn partial_sums_kernel<F: Float>(input: &Array<F>, partials: &mut Array<F>, #[comptime] cube_size: u32) {
    let mut tile = SharedMemory::<F>::new(cube_size);

    let mut value = F::new(0.0);
    if ABSOLUTE_POS < input.len() {
        value = input[ABSOLUTE_POS];
    }
    tile[UNIT_POS] = value;
    sync_cube();

    let mut stride = CUBE_DIM / 2;
    while stride > 0 {
        if UNIT_POS < stride {
            tile[UNIT_POS] += tile[UNIT_POS + stride];
        }
        sync_cube();
        stride /= 2;
    }

    if UNIT_POS == 0 {
        partials[CUBE_POS] = tile[0];
    }
}

/// Returns the number of partial sums written to `partials` (one per cube).
pub fn partial_sums<R: Runtime>(
    client: &ComputeClient<R::Server>,
    input: &Handle,
    partials: &Handle,
    len: usize,
) -> usize {
    let cubes = (len as u32).div_ceil(REDUCE_CUBE);
    unsafe {
        partial_sums_kernel::launch_unchecked::<f32, R>(
            client,
            CubeCount::Static(cubes, 1, 1),
            CubeDim::new(REDUCE_CUBE, 1, 1),
            ArrayArg::from_raw_parts::<f32>(input, len, 1),
            ArrayArg::from_raw_parts::<f32>(partials, cubes as usize, 1),
            REDUCE_CUBE,
        );
    }
    cubes as usize
}

//@ case: correct
// Single-unit launch (one cube of one unit) that folds the partials: the unindexed store `mean[0]` has exactly one writer.
#[cube(launch_unchecked)]
fn finalize_mean_kernel<F: Float>(partials: &Array<F>, count: u32, mean: &mut Array<F>) {
    let mut acc = F::new(0.0);
    for i in 0..partials.len() {
        acc += partials[i];
    }
    mean[0] = acc / F::cast_from(count);
}

pub fn finalize_mean<R: Runtime>(
    client: &ComputeClient<R::Server>,
    partials: &Handle,
    num_partials: usize,
    count: u32,
    mean: &Handle,
) {
    unsafe {
        finalize_mean_kernel::launch_unchecked::<f32, R>(
            client,
            CubeCount::Static(1, 1, 1),
            CubeDim::new(1, 1, 1),
            ArrayArg::from_raw_parts::<f32>(partials, num_partials, 1),
            ScalarArg::new(count),
            ArrayArg::from_raw_parts::<f32>(mean, 1, 1),
        );
    }
}

//@ case: correct
// Privatized histogram: shared-memory `Atomic<u32>` bins zeroed and merged by a cube-stride loop over `UNIT_POS`, global bins updated with `Atomic::add`.
#[cube(launch_unchecked)]
fn histogram_kernel(pixels: &Array<u32>, bins: &mut Array<Atomic<u32>>, #[comptime] num_bins: u32) {
    let local = SharedMemory::<Atomic<u32>>::new(num_bins);

    let mut b = UNIT_POS;
    while b < num_bins {
        Atomic::store(&local[b], 0u32);
        b += CUBE_DIM;
    }
    sync_cube();

    if ABSOLUTE_POS < pixels.len() {
        let bin = pixels[ABSOLUTE_POS] % num_bins;
        Atomic::add(&local[bin], 1u32);
    }
    sync_cube();

    let mut c = UNIT_POS;
    while c < num_bins {
        Atomic::add(&bins[c], Atomic::load(&local[c]));
        c += CUBE_DIM;
    }
}

pub fn histogram<R: Runtime>(client: &ComputeClient<R::Server>, pixels: &Handle, len: usize) -> Handle {
    let bins = client.create(u32::as_bytes(&[0u32; 256]));
    let cubes = (len as u32).div_ceil(REDUCE_CUBE);
    unsafe {
        histogram_kernel::launch_unchecked::<R>(
            client,
            CubeCount::Static(cubes, 1, 1),
            CubeDim::new(REDUCE_CUBE, 1, 1),
            ArrayArg::from_raw_parts::<u32>(pixels, len, 1),
            ArrayArg::from_raw_parts::<u32>(&bins, 256, 1),
            256,
        );
    }
    bins
}

//@ case: correct
// Single-cube launch (`CubeCount::Static(1, 1, 1)`, 256 units): `UNIT_POS` alone is unique over the launch, so the scan result is stored at `cdf[UNIT_POS]`.
#[cube(launch)]
fn histogram_cdf_kernel(bins: &Array<u32>, cdf: &mut Array<f32>, #[comptime] num_bins: u32) {
    let mut scan = SharedMemory::<u32>::new(num_bins);
    scan[UNIT_POS] = bins[UNIT_POS];
    sync_cube();

    let mut offset = 1u32;
    while offset < num_bins {
        let mut addend = 0u32;
        if UNIT_POS >= offset {
            addend = scan[UNIT_POS - offset];
        }
        sync_cube();
        scan[UNIT_POS] += addend;
        sync_cube();
        offset *= 2;
    }

    let total = scan[num_bins - 1];
    cdf[UNIT_POS] = f32::cast_from(scan[UNIT_POS]) / f32::cast_from(total);
}

pub fn histogram_cdf<R: Runtime>(client: &ComputeClient<R::Server>, bins: &Handle, cdf: &Handle) {
    unsafe {
        histogram_cdf_kernel::launch::<R>(
            client,
            CubeCount::Static(1, 1, 1),
            CubeDim::new(256, 1, 1),
            ArrayArg::from_raw_parts::<u32>(bins, 256, 1),
            ArrayArg::from_raw_parts::<f32>(cdf, 256, 1),
            256,
        );
    }
}

//@ case: correct
// One cube per row, no larger than one plane (`plane_size_min` units): units stride over the columns, `plane_sum` combines them, unit 0 writes `row_sums[CUBE_POS]`.
#[cube(launch)]
fn row_sum_plane_kernel<F: Float>(matrix: &Array<F>, row_sums: &mut Array<F>, cols: u32) {
    let row_start = CUBE_POS * cols;
    let mut acc = F::new(0.0);
    let mut c = UNIT_POS;
    while c < cols {
        acc += matrix[row_start + c];
        c += CUBE_DIM;
    }
    let total = plane_sum(acc);
    if UNIT_POS == 0 {
        row_sums[CUBE_POS] = total;
    }
}

pub fn row_sums<R: Runtime>(
    client: &ComputeClient<R::Server>,
    matrix: &Handle,
    row_sums: &Handle,
    rows: usize,
    cols: usize,
) {
    let plane_size = client.properties().hardware.plane_size_min;
    unsafe {
        row_sum_plane_kernel::launch::<f32, R>(
            client,
            CubeCount::Static(rows as u32, 1, 1),
            CubeDim::new(plane_size, 1, 1),
            ArrayArg::from_raw_parts::<f32>(matrix, rows * cols, 1),
            ArrayArg::from_raw_parts::<f32>(row_sums, rows, 1),
            ScalarArg::new(cols as u32),
        );
    }
}

//@ case: correct
// Gradient clipping by a precomputed global norm: every unit scales its own element, and only the unit at `ABSOLUTE_POS == 0` records the applied scale in `applied_scale[0]`.
#[cube(launch_unchecked)]
fn clip_by_global_norm_kernel<F: Float>(
    grads: &mut Array<F>,
    sum_sq: &Array<F>,
    applied_scale: &mut Array<F>,
    max_norm: F,
) {
    let norm = F::sqrt(sum_sq[0]);
    let scale = F::min(F::new(1.0), max_norm / (norm + F::new(1e-6)));
    if ABSOLUTE_POS < grads.len() {
        grads[ABSOLUTE_POS] = grads[ABSOLUTE_POS] * scale;
    }
    if ABSOLUTE_POS == 0 {
        applied_scale[0] = scale;
    }
}

pub fn clip_by_global_norm<R: Runtime>(
    client: &ComputeClient<R::Server>,
    grads: &Handle,
    sum_sq: &Handle,
    applied_scale: &Handle,
    len: usize,
    max_norm: f32,
) {
    let cubes = (len as u32).div_ceil(REDUCE_CUBE);
    unsafe {
        clip_by_global_norm_kernel::launch_unchecked::<f32, R>(
            client,
            CubeCount::Static(cubes, 1, 1),
            CubeDim::new(REDUCE_CUBE, 1, 1),
            ArrayArg::from_raw_parts::<f32>(grads, len, 1),
            ArrayArg::from_raw_parts::<f32>(sum_sq, 1, 1),
            ArrayArg::from_raw_parts::<f32>(applied_scale, 1, 1),
            ScalarArg::new(max_norm),
        );
    }
}

//@ case: hazard unindexed_kernel_write
// Naive global sum: every unit of every cube does a read-modify-write of `total[0]`, so updates are lost.
#[cube(launch)]
fn sum_naive_kernel<F: Float>(input: &Array<F>, total: &mut Array<F>) {
    total[0] += input[ABSOLUTE_POS]; //~ WARN unindexed_kernel_write
}

pub fn sum_naive<R: Runtime>(client: &ComputeClient<R::Server>, input: &Handle, len: usize) -> Handle {
    let total = client.create(f32::as_bytes(&[0.0f32]));
    let cubes = (len as u32).div_ceil(REDUCE_CUBE);
    unsafe {
        sum_naive_kernel::launch::<f32, R>(
            client,
            CubeCount::Static(cubes, 1, 1),
            CubeDim::new(REDUCE_CUBE, 1, 1),
            ArrayArg::from_raw_parts::<f32>(input, len, 1),
            ArrayArg::from_raw_parts::<f32>(&total, 1, 1),
        );
    }
    total
}

//@ case: hazard unindexed_kernel_write
// Squared residual norm accumulated into `history[step]`: `step` is one value for the whole launch, so all units race on one slot.
#[cube(launch)]
fn record_residual_kernel<F: Float>(residual: &Array<F>, history: &mut Array<F>, step: u32) {
    let r = residual[ABSOLUTE_POS];
    history[step] += r * r; //~ WARN unindexed_kernel_write
}

pub fn record_residual<R: Runtime>(
    client: &ComputeClient<R::Server>,
    residual: &Handle,
    history: &Handle,
    len: usize,
    max_steps: usize,
    step: u32,
) {
    let cubes = (len as u32).div_ceil(REDUCE_CUBE);
    unsafe {
        record_residual_kernel::launch::<f32, R>(
            client,
            CubeCount::Static(cubes, 1, 1),
            CubeDim::new(REDUCE_CUBE, 1, 1),
            ArrayArg::from_raw_parts::<f32>(residual, len, 1),
            ArrayArg::from_raw_parts::<f32>(history, max_steps, 1),
            ScalarArg::new(step),
        );
    }
}

//@ case: hazard thread_index_collision
// Per-cube inclusive scan whose result is stored at `output[UNIT_POS]` (meant `ABSOLUTE_POS`): with many cubes every cube overwrites the first 256 elements.
#[cube(launch_unchecked)]
fn cube_scan_kernel<F: Float>(input: &Array<F>, output: &mut Array<F>, #[comptime] cube_size: u32) {
    let mut scratch = SharedMemory::<F>::new(cube_size);

    let mut value = F::new(0.0);
    if ABSOLUTE_POS < input.len() {
        value = input[ABSOLUTE_POS];
    }
    scratch[UNIT_POS] = value;
    sync_cube();

    let mut offset = 1u32;
    while offset < CUBE_DIM {
        let mut addend = F::new(0.0);
        if UNIT_POS >= offset {
            addend = scratch[UNIT_POS - offset];
        }
        sync_cube();
        scratch[UNIT_POS] += addend;
        sync_cube();
        offset *= 2;
    }

    if ABSOLUTE_POS < output.len() {
        output[UNIT_POS] = scratch[UNIT_POS]; //~ WARN thread_index_collision
    }
}

pub fn cube_scan<R: Runtime>(client: &ComputeClient<R::Server>, input: &Handle, output: &Handle, len: usize) {
    let cubes = (len as u32).div_ceil(REDUCE_CUBE);
    unsafe {
        cube_scan_kernel::launch_unchecked::<f32, R>(
            client,
            CubeCount::Static(cubes, 1, 1),
            CubeDim::new(REDUCE_CUBE, 1, 1),
            ArrayArg::from_raw_parts::<f32>(input, len, 1),
            ArrayArg::from_raw_parts::<f32>(output, len, 1),
            REDUCE_CUBE,
        );
    }
}
