//! A `#![no_std]` kernel crate built for `nvptx64-nvidia-cuda` whose PTX the host loads with
//! the CUDA driver API (a cudarc / cust style host: `load_ptx`, then a launch with device
//! buffers). The kernels are bare `extern "ptx-kernel"` functions: the host passes device
//! addresses, so raw-pointer parameters and `unsafe` dereferences are the idiom here and
//! nothing is copied by a parameter's type.

#![cfg_attr(target_arch = "nvptx64", no_std, no_main)]
#![feature(abi_ptx, stdarch_nvptx)]

use core::arch::nvptx::{_block_dim_x, _block_idx_x, _grid_dim_x, _thread_idx_x};

#[panic_handler]
fn on_panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}

/// This thread's position in a 1-D grid.
#[inline(always)]
unsafe fn global_x() -> usize {
    (_block_idx_x() * _block_dim_x() + _thread_idx_x()) as usize
}

//@ case: correct
// Element-wise sum of two device buffers into a third, threads past `n` do nothing.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn vector_sum(a: *const f32, b: *const f32, sum: *mut f32, n: usize) {
    let i = global_x();
    if i < n {
        *sum.add(i) = *a.add(i) + *b.add(i);
    }
}

//@ case: correct
// Fills a buffer with its indexes through `wrapping_add`, bounded by an early return.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn iota(out: *mut u32, len: u32) {
    let i = global_x() as u32;
    if i >= len {
        return;
    }
    *out.wrapping_add(i as usize) = i;
}

//@ case: correct
// Scales a buffer with a grid-stride loop: every access sits inside `while i < n`.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn scale_all(data: *mut f64, factor: f64, n: usize) {
    let stride = (_block_dim_x() * _grid_dim_x()) as usize;
    let mut i = global_x();
    while i < n {
        *data.add(i) *= factor;
        i += stride;
    }
}

//@ case: hazard unchecked_thread_index
// Squares a buffer but never compares the index with the buffer's length.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn square_unchecked(values: *mut f32) {
    let i = (_block_idx_x() * _block_dim_x() + _thread_idx_x()) as usize;
    let v = *values.wrapping_add(i); //~ WARN unchecked_thread_index
    *values.wrapping_add(i) = v * v; //~ WARN unchecked_thread_index
}

//@ case: correct
// Copies a `rows x cols` row-major matrix into its transpose, one element per thread of a
// 2-D grid (x: column, y: row), both coordinates checked first.
#[unsafe(no_mangle)]
pub unsafe extern "ptx-kernel" fn transpose(src: *const f32, dst: *mut f32, rows: usize, cols: usize) {
    let col = global_x();
    let row = (core::arch::nvptx::_block_idx_y() * core::arch::nvptx::_block_dim_y()
        + core::arch::nvptx::_thread_idx_y()) as usize;
    if row < rows && col < cols {
        *dst.add(col * rows + row) = *src.add(row * cols + col);
    }
}

// Shared memory of a bare nvptx crate: declared in an `extern` block and defined in the
// linked `shared.ll` as `@TILE = addrspace(3) global [256 x float] undef` (Rust has no
// shared-memory attribute of its own).
extern "C" {
    static mut TILE: [f32; 256];
}

//@ case: correct
// Reverses each 256-element block through the extern shared tile, between `_syncthreads()` barriers; global accesses are guarded by `n`.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn reverse_blocks(inp: *const f32, out: *mut f32, n: usize) {
    let t = core::arch::nvptx::_thread_idx_x() as usize;
    let i = core::arch::nvptx::_block_idx_x() as usize * 256 + t;
    TILE[t] = if i < n { *inp.add(i) } else { 0.0 };
    core::arch::nvptx::_syncthreads();
    if i < n {
        *out.add(i) = TILE[255 - t];
    }
}
