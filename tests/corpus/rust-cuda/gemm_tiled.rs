//! Single-precision matrix multiply kernels (row-major, C = A * B with A: m x k, B: k x n).
//! Launched from the host with 16 x 16 thread blocks on a (ceil(n / 16), ceil(m / 16)) grid.

#![cfg_attr(target_os = "cuda", no_std)]
#![allow(improper_ctypes_definitions, clippy::missing_safety_doc)]

use cuda_std::address_space;
use cuda_std::prelude::*;

const TILE: usize = 16;

//@ case: correct
// Tiled SGEMM: A and B tiles staged in `#[address_space(shared)] static mut` arrays indexed by the thread's position in its block, between `sync_threads()` barriers; global loads and the store are bounds-checked.
#[kernel]
pub unsafe fn sgemm_tiled(m: usize, n: usize, k: usize, a: *const f32, b: *const f32, c: *mut f32) {
    #[address_space(shared)]
    static mut A_TILE: [f32; TILE * TILE] = [0.0; TILE * TILE];
    #[address_space(shared)]
    static mut B_TILE: [f32; TILE * TILE] = [0.0; TILE * TILE];

    let tx = thread::thread_idx_x() as usize;
    let ty = thread::thread_idx_y() as usize;
    let row = thread::block_idx_y() as usize * TILE + ty;
    let col = thread::block_idx_x() as usize * TILE + tx;

    let mut acc = 0.0f32;
    let tiles = (k + TILE - 1) / TILE;
    for t in 0..tiles {
        let a_col = t * TILE + tx;
        let b_row = t * TILE + ty;
        A_TILE[ty * TILE + tx] = if row < m && a_col < k { *a.add(row * k + a_col) } else { 0.0 };
        B_TILE[ty * TILE + tx] = if b_row < k && col < n { *b.add(b_row * n + col) } else { 0.0 };
        thread::sync_threads();

        for e in 0..TILE {
            acc += A_TILE[ty * TILE + e] * B_TILE[e * TILE + tx];
        }
        thread::sync_threads();
    }

    if row < m && col < n {
        *c.add(row * n + col) = acc;
    }
}

//@ case: correct
// Naive SGEMM over `&[f32]` inputs: one output element per thread, everything under `row < m && col < n`.
#[kernel]
pub unsafe fn sgemm_naive(a: &[f32], b: &[f32], c: *mut f32, m: usize, n: usize, k: usize, alpha: f32, beta: f32) {
    let col = (thread::block_idx_x() * thread::block_dim_x() + thread::thread_idx_x()) as usize;
    let row = (thread::block_idx_y() * thread::block_dim_y() + thread::thread_idx_y()) as usize;
    if row < m && col < n {
        let mut dot = 0.0f32;
        for p in 0..k {
            dot += a[row * k + p] * b[p * n + col];
        }
        let out = c.add(row * n + col);
        *out = alpha * dot + beta * *out;
    }
}

//@ case: hazard unchecked_thread_index
// The same tiling with the bounds checks on the global loads dropped ("sizes are multiples of 16"): for any other m, n or k the edge tiles read past the rows and the end of A and B.
#[kernel]
pub unsafe fn sgemm_tiled_unchecked(m: usize, n: usize, k: usize, a: *const f32, b: *const f32, c: *mut f32) {
    #[address_space(shared)]
    static mut AS: [f32; TILE * TILE] = [0.0; TILE * TILE];
    #[address_space(shared)]
    static mut BS: [f32; TILE * TILE] = [0.0; TILE * TILE];

    let tx = thread::thread_idx_x() as usize;
    let ty = thread::thread_idx_y() as usize;
    let row = thread::block_idx_y() as usize * TILE + ty;
    let col = thread::block_idx_x() as usize * TILE + tx;

    let mut acc = 0.0f32;
    let tiles = (k + TILE - 1) / TILE;
    for t in 0..tiles {
        AS[ty * TILE + tx] = *a.add(row * k + t * TILE + tx); //~ WARN unchecked_thread_index
        BS[ty * TILE + tx] = *b.add((t * TILE + ty) * n + col); //~ WARN unchecked_thread_index
        thread::sync_threads();
        for e in 0..TILE {
            acc += AS[ty * TILE + e] * BS[e * TILE + tx];
        }
        thread::sync_threads();
    }

    if row < m && col < n {
        *c.add(row * n + col) = acc;
    }
}

//@ case: correct
// Tiled SGEMM loading its tiles with the column written inline: the load guard compares the
// same `(tile + tx)` expression the index uses, and the row with the row count.
#[kernel]
pub unsafe fn sgemm_tiles_inline(a: &[f32], b: &[f32], c: *mut f32, m: usize, n: usize, k: usize) {
    const T: usize = 16;
    #[address_space(shared)]
    static mut A_TILE: [f32; 256] = [0.0; 256];
    #[address_space(shared)]
    static mut B_TILE: [f32; 256] = [0.0; 256];
    let tx = thread::thread_idx_x() as usize;
    let ty = thread::thread_idx_y() as usize;
    let row = thread::block_idx_y() as usize * T + ty;
    let col = thread::block_idx_x() as usize * T + tx;
    let mut acc = 0.0f32;
    let mut tile = 0;
    while tile < k {
        A_TILE[ty * T + tx] = if row < m && (tile + tx) < k { a[row * k + (tile + tx)] } else { 0.0 };
        B_TILE[ty * T + tx] = if col < n && (tile + ty) < k { b[(tile + ty) * n + col] } else { 0.0 };
        thread::sync_threads();
        for e in 0..T {
            acc += A_TILE[ty * T + e] * B_TILE[e * T + tx];
        }
        thread::sync_threads();
        tile += T;
    }
    if row < m && col < n {
        *c.add(row * n + col) = acc;
    }
}

//@ case: hazard unchecked_thread_index
// CUDA-SDK-style tiles over A's block row: the `for` variable starts at `wa * TILE * by`, so each value it takes is block-derived; the A-tile load has no bounds check ("wa is a multiple of 16"), the B-tile load and the store are guarded.
#[kernel]
pub unsafe fn sgemm_sdk_rows(a: &[f32], b: &[f32], c: &mut [f32], wa: usize, wb: usize) {
    #[address_space(shared)]
    static mut AT: [f32; TILE * TILE] = [0.0; TILE * TILE];
    #[address_space(shared)]
    static mut BT: [f32; TILE * TILE] = [0.0; TILE * TILE];
    let bx = thread::block_idx_x() as usize;
    let by = thread::block_idx_y() as usize;
    let tx = thread::thread_idx_x() as usize;
    let ty = thread::thread_idx_y() as usize;
    let a_first = wa * TILE * by;
    let a_last = a_first + wa - 1;
    let mut b_at = TILE * bx;
    let mut sum = 0.0f32;
    for a_at in (a_first..=a_last).step_by(TILE) {
        AT[ty * TILE + tx] = a[a_at + wa * ty + tx]; //~ WARN unchecked_thread_index
        let bi = b_at + wb * ty + tx;
        BT[ty * TILE + tx] = if bi < b.len() { b[bi] } else { 0.0 };
        thread::sync_threads();
        for e in 0..TILE {
            sum += AT[ty * TILE + e] * BT[e * TILE + tx];
        }
        thread::sync_threads();
        b_at += TILE * wb;
    }
    let ci = wb * TILE * by + TILE * bx + wb * ty + tx;
    if ci < c.len() {
        c[ci] = sum;
    }
}

//@ case: correct
// Tiled SGEMM whose tile loads write the column without parentheses (`row * k + kk + tx`) under the guard on the column sum `(kk + tx) < k`.
#[kernel]
pub unsafe fn sgemm_tiles_flat(a: *const f32, b: *const f32, c: *mut f32, m: usize, n: usize, k: usize) {
    #[address_space(shared)]
    static mut TA: [f32; TILE * TILE] = [0.0; TILE * TILE];
    #[address_space(shared)]
    static mut TB: [f32; TILE * TILE] = [0.0; TILE * TILE];
    let tx = thread::thread_idx_x() as usize;
    let ty = thread::thread_idx_y() as usize;
    let row = thread::block_idx_y() as usize * TILE + ty;
    let col = thread::block_idx_x() as usize * TILE + tx;
    let mut acc = 0.0f32;
    let mut kk = 0;
    while kk < k {
        TA[ty * TILE + tx] = if row < m && (kk + tx) < k { *a.add(row * k + kk + tx) } else { 0.0 };
        TB[ty * TILE + tx] = if col < n && (kk + ty) < k { *b.add((kk + ty) * n + col) } else { 0.0 };
        thread::sync_threads();
        for e in 0..TILE {
            acc += TA[ty * TILE + e] * TB[e * TILE + tx];
        }
        thread::sync_threads();
        kk += TILE;
    }
    if row < m && col < n {
        *c.add(row * n + col) = acc;
    }
}

//@ case: correct
// The tile loads' guards name the column as `TILE * t + tx` while the index writes `t * TILE + tx`: one value, multiplied in either order.
#[kernel]
pub unsafe fn sgemm_tiles_commuted(a: &[f32], b: &[f32], c: *mut f32, n: usize) {
    let row = (thread::block_idx_y() * thread::block_dim_y() + thread::thread_idx_y()) as usize;
    let col = (thread::block_idx_x() * thread::block_dim_x() + thread::thread_idx_x()) as usize;
    let tx = thread::thread_idx_x() as usize;
    let ty = thread::thread_idx_y() as usize;
    let mut s = 0.0f32;
    for t in 0..(n + TILE - 1) / TILE {
        s += if TILE * t + tx < n && row < n { a[row * n + t * TILE + tx] } else { 0.0 };
        s += if TILE * t + ty < n && col < n { b[n * (t * TILE + ty) + col] } else { 0.0 };
    }
    if row < n && col < n {
        *c.add(row * n + col) = s;
    }
}
