//! An amdgpu kernel crate built on amdgpu-rs's `amdgpu_device_libs` (device-libs bitcode
//! linked by its build script): its prelude brings `println!` over a host call and a device
//! `#[global_allocator]`, so `alloc` works in the kernels.

#![feature(abi_gpu_kernel)]
#![no_std]

extern crate alloc;

use alloc::vec::Vec;
use amdgpu_device_libs::prelude::*;

//@ case: correct
// Printing from one work-item of each workgroup, through the device library's host call.
#[unsafe(no_mangle)]
pub extern "gpu-kernel" fn report(counts: *const u32, n: u32) {
    let id = workgroup_id_x() * 256 + workitem_id_x();
    if workitem_id_x() == 0 && id < n {
        println!("workgroup {}: first count {}", workgroup_id_x(), unsafe { *counts.add(id as usize) });
    }
}

//@ case: correct
// A per-thread scratch `Vec` from the device allocator.
#[unsafe(no_mangle)]
pub extern "gpu-kernel" fn histogram(values: *const u8, out: *mut u32, n: u32) {
    let id = workgroup_id_x() * 256 + workitem_id_x();
    if id >= n {
        return;
    }
    let mut seen: Vec<u8> = Vec::with_capacity(4);
    seen.push(unsafe { *values.add(id as usize) });
    unsafe { *out.add(id as usize) = seen.len() as u32 };
}

//@ case: hazard host_only_api_in_kernel
// `HashMap` is `std`'s, not `alloc`'s: it does not exist in a `no_std` kernel crate, allocator or not.
#[unsafe(no_mangle)]
pub extern "gpu-kernel" fn dedup(values: *const u32, out: *mut u32, n: u32) {
    let id = workgroup_id_x() * 256 + workitem_id_x();
    if id >= n {
        return;
    }
    let mut m = std::collections::HashMap::new(); //~ ERROR host_only_api_in_kernel
    m.insert(unsafe { *values.add(id as usize) }, id);
    unsafe { *out.add(id as usize) = m.len() as u32 };
}
