//! Row-per-cube CubeCL kernels of a fused-activation / sorting crate, and the host type that
//! launches them (its `fn new` is host code: the kernels' `F::new(..)` is CubeCL's
//! `Float::new`, not this one).

use cubecl::prelude::*;

pub struct Gpu {
    label: String,
}

impl Gpu {
    pub fn new() -> Self {
        eprintln!("using the default adapter");
        Gpu { label: std::env::var("GPU_LABEL").unwrap_or_default() }
    }
}

//@ case: correct
// One cube per row of `2 * h` values: `gate` and `up` are the two halves of the row.
#[cube(launch_unchecked)]
fn swiglu<F: Float>(gu: &Array<F>, out: &mut Array<F>, h: u32) {
    let row = CUBE_POS_X;
    let base = row * (2 * h);
    let mut i = UNIT_POS_X;
    while i < h {
        let gate = gu[(base + i) as usize];
        let up = gu[(base + h + i) as usize];
        out[(row * h + i) as usize] = gate / (F::new(1.0) + F::exp(-gate)) * up;
        i += CUBE_DIM_X;
    }
}

//@ case: correct
// One cube per 16-bucket histogram, the bucket from the unit index through a `let`.
#[cube(launch_unchecked)]
fn clear_histograms(hist: &mut Array<u32>) {
    let bucket = UNIT_POS_X;
    let cube = CUBE_POS_X;
    if bucket < 16u32 {
        hist[(cube * 16u32 + bucket) as usize] = 0u32;
    }
}

pub fn launch_swiglu<R: Runtime>(client: &ComputeClient<R::Server>, gu: &cubecl::server::Handle,
                                 out: &cubecl::server::Handle, rows: u32, h: u32) {
    let _gpu = Gpu::new();
    unsafe {
        swiglu::launch_unchecked::<f32, R>(
            client,
            CubeCount::Static(rows, 1, 1),
            CubeDim::new_1d(256),
            ArrayArg::from_raw_parts::<f32>(gu, (rows * 2 * h) as usize, 1),
            ArrayArg::from_raw_parts::<f32>(out, (rows * h) as usize, 1),
            ScalarArg::new(h),
        );
    }
}
