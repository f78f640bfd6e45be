//! Device code written the way Rust-CUDA kernels are: `#[kernel] pub unsafe fn`, raw-pointer
//! parameters, `thread::index_1d()` for the global index. Raw pointers and `unsafe` are
//! Rust-CUDA's idiom and are not reported; offload-ls reports the index without a bounds
//! guard in `scale` (unchecked_thread_index).

use cuda_std::{kernel, thread};

/// c[i] = a[i] + b[i] for i < n.
#[kernel]
pub unsafe fn add(a: *const f32, b: *const f32, c: *mut f32, n: usize) {
    let i = thread::index_1d() as usize;
    if i < n {
        unsafe { *c.add(i) = *a.add(i) + *b.add(i) };
    }
}

/// Rust-CUDA's own `vecadd` example: slices in, a raw pointer out.
#[kernel]
pub unsafe fn vecadd(a: &[f32], b: &[f32], c: *mut f32) {
    let idx = thread::index_1d() as usize;
    if idx < a.len() {
        let elem = unsafe { &mut *c.add(idx) };
        *elem = a[idx] + b[idx];
    }
}

/// x[i] *= s, WITHOUT a bounds guard: correct only when grid * block == len(x); a grid
/// rounded up writes past the end of `x`.
#[kernel]
pub unsafe fn scale(x: *mut f32, s: f32) {
    let i = thread::index_1d() as usize;
    unsafe { *x.add(i) *= s };
}

/// y[i] = a*x[i] + y[i] with a grid-stride loop: any grid size covers all n elements.
#[kernel]
pub unsafe fn saxpy_strided(n: usize, a: f32, x: *const f32, y: *mut f32) {
    let stride = (thread::block_dim_x() * thread::grid_dim_x()) as usize;
    let mut i = thread::index_1d() as usize;
    while i < n {
        unsafe { *y.add(i) = a * *x.add(i) + *y.add(i) };
        i += stride;
    }
}
