//! Hydro kernels over the real zones of a mesh with ghost zones, as RAJAPerf's apps write
//! them: the host computes the first and last real zone (`fpz..=lpz`) and the strides of a
//! row and a plane (`jp`, `kp`); each GPU thread takes zone `fpz + position` and reads its
//! corner neighbours at `i + 1`, `i + jp`, `i + kp`, .., which the ghost zones keep inside.
#![feature(gpu_offload)]
#![cfg_attr(target_arch = "nvptx64", feature(abi_gpu_kernel, stdarch_nvptx))]
#![cfg_attr(target_arch = "nvptx64", no_std, no_main)]

use core::offload::offload_kernel;

#[cfg(target_arch = "nvptx64")]
use core::arch::nvptx::{_block_dim_x, _block_idx_x, _thread_idx_x};

/// Nodes per side including two ghost layers, and all nodes.
const SIDE: usize = 102;
const NODES: usize = SIDE * SIDE * SIDE;

#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}

#[cfg(target_arch = "nvptx64")]
fn position() -> usize {
    unsafe { (_block_idx_x() * _block_dim_x() + _thread_idx_x()) as usize }
}

//@ case: correct
// VOL3D-like: an inclusive last zone and neighbours through host strides.
#[offload_kernel]
fn corner_sum(x: &[f64; NODES], vol: &mut [f64; NODES], fpz: usize, lpz: usize, jp: usize, kp: usize) {
    let i = fpz + position();
    if i > lpz {
        return;
    }
    let i1 = i + 1;
    let i3 = i + 1 + jp;
    let i7 = i + 1 + jp + kp;
    vol[i] = (x[i7] - x[i]) + (x[i3] - x[i1]) + (x[i + kp] - x[i + jp]);
}

//@ case: correct
// The same range with an exclusive end.
#[offload_kernel]
fn gradient(p: &[f64; NODES], g: &mut [f64; NODES], first: usize, end: usize, jp: usize) {
    let i = first + position();
    if i < end {
        g[i] = p[i + jp] - p[i];
    }
}

//@ case: hazard unchecked_thread_index
// No runtime start: `n` is the zone count and `i > n` lets zone `n` through, one past the end.
#[offload_kernel]
fn scale_zones(v: &mut [f64; NODES], n: usize) {
    let i = position();
    if i > n {
        return;
    }
    v[i] *= 0.5; //~ WARN unchecked_thread_index
}

#[cfg(not(target_arch = "nvptx64"))]
fn main() {}
