//! Kernels of a bare `no_std` nvptx crate (launched through the driver API) that compute the
//! global index with `wrapping_mul` / `wrapping_add`, as overflow-checked debug builds would
//! otherwise insert panics.

#![cfg_attr(target_arch = "nvptx64", no_std, no_main)]
#![feature(abi_ptx, stdarch_nvptx)]

use core::arch::nvptx::{_block_dim_x, _block_idx_x, _thread_idx_x};

#[panic_handler]
fn on_panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}

//@ case: correct
// Guarded by the element count the host passes.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn add(a: *const f32, b: *const f32, c: *mut f32, n: usize) {
    let i = _block_dim_x().wrapping_mul(_block_idx_x()).wrapping_add(_thread_idx_x()) as usize;
    if i < n {
        *c.add(i) = *a.add(i) + *b.add(i);
    }
}

//@ case: hazard unchecked_thread_index
// No guard: the threads of the last block past `n` write out of bounds.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn fill(out: *mut f32, value: f32) {
    let i = _block_dim_x().wrapping_mul(_block_idx_x()).wrapping_add(_thread_idx_x());
    *out.offset(i as isize) = value; //~ WARN unchecked_thread_index
}
