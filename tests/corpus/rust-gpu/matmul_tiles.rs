#![cfg_attr(target_arch = "spirv", no_std)]
//! Matrix-multiply shaders of a wgpu benchmark crate: each invocation computes a 1 x 4 strip
//! of the result (four neighbouring columns of one row).

use spirv_std::glam::UVec3;
use spirv_std::spirv;

#[repr(C)]
#[derive(Copy, Clone)]
pub struct Dims {
    pub m: u32,
    pub n: u32,
    pub k: u32,
}

//@ case: correct
// The strip's last column is checked (`col + 3 < n`), so all four columns of the row exist.
#[spirv(compute(threads(16, 16)))]
pub fn matmul_strip(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(uniform, descriptor_set = 0, binding = 0)] d: &Dims,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 1)] a: &[f32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 2)] b: &[f32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 3)] c: &mut [f32],
) {
    let (n, k) = (d.n as usize, d.k as usize);
    let row = id.y as usize;
    let col = id.x as usize * 4;
    if row >= d.m as usize || col + 3 >= n {
        return;
    }
    let mut acc = [0.0f32; 4];
    for i in 0..k {
        let x = a[row * k + i];
        for j in 0..4 {
            acc[j] += x * b[i * n + col + j];
        }
    }
    for j in 0..4 {
        c[row * n + col + j] = acc[j];
    }
}

//@ case: hazard unchecked_thread_index
// Only the strip's first column is checked (`col < n`): unless `n` is a multiple of 4, the last strip of each row spills into the next row, and on the last row past the end of `c`.
#[spirv(compute(threads(16, 16)))]
pub fn matmul_strip_first_col(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(uniform, descriptor_set = 0, binding = 0)] d: &Dims,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 1)] a: &[f32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 2)] b: &[f32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 3)] c: &mut [f32],
) {
    let (n, k) = (d.n as usize, d.k as usize);
    let row = id.y as usize;
    let col = id.x as usize * 4;
    if row >= d.m as usize || col >= n {
        return;
    }
    let mut acc = 0.0f32;
    for i in 0..k {
        acc += a[row * k + i] * b[i * n + col];
    }
    c[row * n + col] = acc;
    c[row * n + col + 1] = acc; //~ WARN unchecked_thread_index
}
