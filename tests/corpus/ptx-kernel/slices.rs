//! Per-thread chunk reductions of a bare `no_std` nvptx crate (launched through the driver
//! API): each thread sums a slice `data[start..stop]` of its own.

#![cfg_attr(target_arch = "nvptx64", no_std, no_main)]
#![feature(abi_ptx, stdarch_nvptx)]

use core::arch::nvptx::{_block_dim_x, _block_idx_x, _thread_idx_x};
use core::cmp::min;

#[panic_handler]
fn on_panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}

const CHUNK: usize = 4;

fn chunk_bounds() -> (usize, usize) {
    let i = unsafe { _thread_idx_x() + _block_idx_x() * _block_dim_x() } as usize;
    (i * CHUNK, i * CHUNK + CHUNK)
}

//@ case: correct
// The chunk's start may equal the length (an empty slice) and its end is clamped to the length: `data[start..stop]` never panics.
#[no_mangle]
pub extern "ptx-kernel" fn chunk_sums(data: &[f32], sums: &mut [f32]) {
    let (start, mut stop) = chunk_bounds();
    if start > data.len() {
        return;
    }
    stop = min(stop, data.len());
    let s: f32 = data[start..stop].iter().sum();
    if start / CHUNK < sums.len() {
        sums[start / CHUNK] = s;
    }
}

//@ case: hazard unchecked_thread_index
// The start is checked but the end is not clamped: the last chunk of a length that is not a multiple of 4 slices past the end.
#[no_mangle]
pub extern "ptx-kernel" fn chunk_max(data: &[f32], maxima: &mut [f32]) {
    let start = unsafe { _thread_idx_x() + _block_idx_x() * _block_dim_x() } as usize * CHUNK;
    if start >= data.len() || start / CHUNK >= maxima.len() {
        return;
    }
    let m = data[start..start + CHUNK].iter().fold(f32::MIN, |a, &b| a.max(b)); //~ WARN unchecked_thread_index
    maxima[start / CHUNK] = m;
}
