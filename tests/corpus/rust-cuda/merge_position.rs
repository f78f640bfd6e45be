//! A merge sort's merge step, one thread per element: each thread computes where its element
//! lands in the merged run as its own position plus a count from a binary search, built up
//! with `+=` (the CUDA family's `idx - mid + lower_bound(..)` spelled in steps).

#![cfg_attr(target_os = "cuda", no_std)]
#![allow(improper_ctypes_definitions, clippy::missing_safety_doc)]

use cuda_std::prelude::*;

/// How many of `a[lo..hi]` (sorted) are below `v`: a binary search, in `lo..=hi`.
unsafe fn rank_in(a: *const u32, mut lo: usize, mut hi: usize, v: u32) -> usize {
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if *a.add(mid) < v {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

//@ case: correct
// The output position is the thread's index plus a search result (a function of the
// position, which the search keeps inside the run): not a plain offset past the check.
#[kernel]
pub unsafe fn merge_runs(src: *const u32, dst: *mut u32, n: usize, width: usize) {
    let idx = thread::index_1d() as usize;
    if idx >= n {
        return;
    }
    let lo = idx / (2 * width) * (2 * width);
    let hi = n.min(lo + 2 * width);
    let mid = hi.min(lo + width);
    let v = *src.add(idx);
    let at = if idx < mid {
        let mut c = idx;
        c += rank_in(src, mid, hi, v) - mid;
        c
    } else {
        let mut c = idx - mid;
        c += rank_in(src, lo, mid, v);
        c
    };
    *dst.add(at) = v;
}

//@ case: hazard unchecked_thread_index
// The same step with a constant offset added by `+=`: the last thread that passes the check
// writes one element past the end.
#[kernel]
pub unsafe fn shift_right(src: *const u32, dst: *mut u32, n: usize) {
    let idx = thread::index_1d() as usize;
    if idx >= n {
        return;
    }
    let mut at = idx;
    at += 1;
    *dst.add(at) = *src.add(idx); //~ WARN unchecked_thread_index
}
