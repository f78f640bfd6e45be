//! CubeCL kernels that take `#[comptime]` parameters: the host expands them into the kernel
//! when it compiles it, so their types never reach the device.

use cubecl::prelude::*;

//@ case: correct
// A lookup table given at compile time (`#[comptime] table: Vec<u32>`) becomes constants in the kernel.
#[cube(launch)]
fn remap<F: Float>(input: &Array<u32>, output: &mut Array<F>, #[comptime] table: Vec<u32>) {
    let lut = Array::<u32>::from_data(table);
    if ABSOLUTE_POS < output.len() {
        output[ABSOLUTE_POS] = F::cast_from(lut[input[ABSOLUTE_POS] % 16]);
    }
}

//@ case: correct
// A comptime configuration struct holding a `String` name, used only for unrolling decisions.
#[cube(launch)]
fn scaled<F: Float>(x: &Array<F>, out: &mut Array<F>, factor: F, #[comptime] label: String) {
    if ABSOLUTE_POS < out.len() {
        out[ABSOLUTE_POS] = x[ABSOLUTE_POS] * factor;
    }
}

//@ case: hazard heap_owning_kernel_arg
// A runtime `Vec` parameter (no `#[comptime]`): its host buffer cannot be read on the device.
#[cube(launch)]
fn weighted<F: Float>(x: &Array<F>, out: &mut Array<F>, weights: Vec<F>) { //~ ERROR heap_owning_kernel_arg
    if ABSOLUTE_POS < out.len() {
        out[ABSOLUTE_POS] = x[ABSOLUTE_POS];
    }
}
