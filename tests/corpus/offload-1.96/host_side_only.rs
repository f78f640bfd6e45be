//! The host half of a kernel whose device half is built from another file (as rustc's own
//! codegen tests split them: tests/codegen-llvm/gpu_offload/*_host.rs and *_device.rs). The
//! host only declares the kernel in an `unsafe extern "C"` block and launches it through
//! `core::intrinsics::offload`; the definition is not in this crate's sources.
#![feature(core_intrinsics)]
#![allow(internal_features)]

const LEN: usize = 6;

unsafe extern "C" {
    pub fn halve(values: &mut [f32; LEN]);
    pub fn accumulate(total: &mut f64, parts: &[f64; LEN]);
}

//@ case: correct
// Launches the declared kernel on one workgroup of LEN threads; the kernel guards its index.
pub fn run_halve() -> [f32; LEN] {
    let mut v = [2.0f32, 4.0, 6.0, 8.0, 10.0, 12.0];
    core::intrinsics::offload::<_, _, ()>(halve, [1, 1, 1], [LEN as u32, 1, 1], (&mut v,));
    v
}

//@ case: correct
// A single-thread launch that sums the parts into one scalar on the device.
pub fn run_accumulate() -> f64 {
    let parts = [0.5f64; LEN];
    let mut total = 0.0f64;
    core::intrinsics::offload::<_, _, ()>(accumulate, [1, 1, 1], [1, 1, 1], (&mut total, &parts));
    total
}
