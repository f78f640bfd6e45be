//! Fixed-size records, one per thread: a block cipher's 16-byte state as four `u32` words and
//! an RGBA pixel as four bytes (cuda_std kernels, launched by `cust` with `n_records` records).

#![cfg_attr(target_os = "cuda", no_std)]
#![allow(improper_ctypes_definitions, clippy::missing_safety_doc)]

use cuda_std::prelude::*;

//@ case: correct
// The guard is on the record number; the words are `base + 0..4` of record `i`.
#[kernel]
pub unsafe fn rotate_words(input: &[u32], output: *mut u32, n_records: usize) {
    let i = thread::index_1d() as usize;
    if i >= n_records {
        return;
    }
    let base = i * 4;
    let w = [input[base], input[base + 1], input[base + 2], input[base + 3]];
    *output.add(base) = w[1];
    *output.add(base + 1) = w[2];
    *output.add(base + 2) = w[3];
    *output.add(base + 3) = w[0];
}

//@ case: correct
// Four channels per pixel, the stride written first.
#[kernel]
pub unsafe fn premultiply(rgba: *mut u8, pixels: usize) {
    let p = thread::index_1d() as usize;
    if p < pixels {
        let at = 4 * p;
        let a = *rgba.add(at + 3) as u32;
        for c in 0..3 {
            let v = *rgba.add(at + c) as u32;
            *rgba.add(at + c) = (v * a / 255) as u8;
        }
    }
}

//@ case: hazard unchecked_thread_index
// The guard counts ELEMENTS of `src` (its `.len()`), not records: the second half of the
// threads read two words past the end.
#[kernel]
pub unsafe fn swap_pairs(src: &[u32], dst: *mut u32) {
    let i = thread::index_1d() as usize;
    if i < src.len() {
        let base = i * 2;
        *dst.add(base) = src[base + 1]; //~ WARN unchecked_thread_index //~ WARN unchecked_thread_index
    }
}

//@ case: hazard unchecked_thread_index
// A runtime channel count: one pixel of `channels` bytes per thread, but the guard counts the
// bytes of `rgb` (its `.len()`), not pixels, so the threads past `len / channels` read past the end.
#[kernel]
pub unsafe fn luminance(rgb: &[u8], luma: *mut u8, channels: u32) {
    let p = thread::index_1d() as usize;
    if p < rgb.len() {
        let c = channels as usize;
        let g = rgb[c * p + 1] as u32; //~ WARN unchecked_thread_index
        *luma.add(p) = g as u8;
    }
}

//@ case: correct
// The same with the pixel count passed by the host as the guard.
#[kernel]
pub unsafe fn luminance_px(rgb: &[u8], luma: *mut u8, channels: u32, pixels: usize) {
    let p = thread::index_1d() as usize;
    if p < pixels {
        let c = channels as usize;
        let g = rgb[c * p + 1] as u32;
        *luma.add(p) = g as u8;
    }
}
