//! Kernels on the offload front end's partitioned regions: `Region<T, Linear1D>` hands each
//! GPU thread its own element through `get_mut()`, which is `Some` only while the thread's
//! `Linear1D::index()` is below the region's length (the front end's bounds check), so the
//! other arrays indexed by that position inside the `if let` are guarded the same way.
#![feature(gpu_offload)]

use core::offload::offload_kernel;
use offload_frontend::partition::{Linear1D, PartitioningStrategy, Region};

const ZONES: usize = 1 << 20;

//@ case: correct
// PRESSURE-like: one pressure value per zone from two per-zone inputs.
#[offload_kernel]
fn pressure(mut p: Region<f64, Linear1D>, e: &[f64; ZONES], rho: &[f64; ZONES], gamma: f64) {
    let i = Linear1D::index();
    if let Some(out) = p.get_mut() {
        *out = (gamma - 1.0) * rho[i] * e[i];
    }
}

//@ case: correct
// The same with `let .. else`.
#[offload_kernel]
fn decay(mut q: Region<f64, Linear1D>, rate: &[f64; ZONES]) {
    let zone = Linear1D::index();
    let Some(v) = q.get_mut() else {
        return;
    };
    *v *= rate[zone];
}

//@ case: hazard unchecked_thread_index
// A neighbour one past the thread's own position is not covered by the region's check.
#[offload_kernel]
fn forward_diff(mut d: Region<f64, Linear1D>, x: &[f64; ZONES]) {
    let i = Linear1D::index();
    if let Some(v) = d.get_mut() {
        *v = x[i + 1] - x[i]; //~ WARN unchecked_thread_index
    }
}

//@ case: correct
// A let chain: the condition after `let Some(..) = q.get_mut()` runs only for a thread the region holds.
#[offload_kernel]
fn clip_energy(mut q: Region<f64, Linear1D>, delta: &[f64; ZONES], limit: f64) {
    let zone = Linear1D::index();
    if let Some(v) = q.get_mut() && delta[zone] > limit {
        *v = limit;
    }
}
