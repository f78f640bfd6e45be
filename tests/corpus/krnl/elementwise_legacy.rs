//! Kernels of a crate written against krnl 0.0.x, where an `elementwise` kernel's `&mut T`
//! parameters are the invocation's own element (what `#[item]` says today).

use krnl_core::kernel;

//@ case: correct
// `elementwise`: `y` is this invocation's element; the store is no race.
#[kernel(threads(256), elementwise)]
pub fn fill_ones(y: &mut u32) {
    *y = 1;
}

//@ case: correct
// The same with an input element and a uniform scalar.
#[kernel(threads(256), elementwise)]
pub fn axpy_elem(x: &f32, alpha: f32, y: &mut f32) {
    *y += alpha * *x;
}

//@ case: hazard unindexed_kernel_write
// Not `elementwise`: `total` is one element that every invocation of the dispatch adds to.
#[kernel(threads(256))]
pub fn sum_all(#[global] x: &[f32], #[global] total: &mut [f32]) {
    let mut acc = 0.0;
    for v in x.iter() {
        acc += *v;
    }
    total[0] += acc; //~ WARN unindexed_kernel_write
}
