//! Open-addressing hash tables of a bare `no_std` nvptx crate (driver-API launches): one key
//! per thread, inserted with linear probing into a table of a power-of-two size.

#![cfg_attr(target_arch = "nvptx64", no_std, no_main)]
#![feature(abi_ptx, stdarch_nvptx, stdarch_nvptx_atomics)]

use core::arch::nvptx::{_block_dim_x, _block_idx_x, _thread_idx_x};
use core::sync::atomic::{AtomicU32, Ordering};

#[panic_handler]
fn on_panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}

#[inline(always)]
unsafe fn global_id() -> u64 {
    (_block_idx_x() as u64) * (_block_dim_x() as u64) + (_thread_idx_x() as u64)
}

fn hash(k: u32) -> u64 {
    (k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 17
}

//@ case: correct
// Linear probing: the slot starts at the thread's index plus the key's hash, masked to the table and every probe is masked again (`h = (h + 1) & mask`); the key is read through the raw pointer at the thread's index under `i.ge(&n)`'s early return.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn insert(keys: *const u32, slots: *mut AtomicU32, mask: u64, n: u64) {
    let i = global_id();
    if i.ge(&n) {
        return;
    }
    let key = *keys.add(i as usize);
    let mut h = (i + hash(key)) & mask;
    loop {
        let slot = &*slots.add(h as usize);
        match slot.compare_exchange(0, key, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => break,
            Err(found) if found == key => break,
            Err(_) => h = (h + 1) & mask,
        }
    }
}

//@ case: correct
// Counts per bucket: the bucket is the key read at the thread's index (`*keys.add(i)`), reduced with `%`; a `let mut` that is only ever reduced.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn bucket_counts(keys: *const u32, counts: *mut AtomicU32, buckets: u64, n: u64) {
    let i = global_id();
    if i < n {
        let mut b = (*keys.add(i as usize) as u64) % buckets;
        if b == 0 {
            b = buckets - 1;
        }
        (*counts.add(b as usize)).fetch_add(1, Ordering::Relaxed);
    }
}

//@ case: hazard unchecked_thread_index
// The probe step forgets the mask (`h += 1`): a run of full slots at the end of the table walks past it.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn insert_unmasked(keys: *const u32, slots: *mut AtomicU32, mask: u64, n: u64) {
    let i = global_id();
    if i >= n {
        return;
    }
    let key = *keys.add(i as usize);
    let mut h = (i ^ hash(key)) & mask;
    loop {
        let slot = &*slots.add(h as usize); //~ WARN unchecked_thread_index
        if slot.compare_exchange(0, key, Ordering::Relaxed, Ordering::Relaxed).is_ok() {
            break;
        }
        h += 1;
    }
}
