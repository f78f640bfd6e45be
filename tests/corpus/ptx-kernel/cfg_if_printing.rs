//! A bare nvptx kernel crate that groups its device-only items with `cfg_if!`, among them its
//! own `print!` over CUDA's `vprintf` (launched through the driver API by its host).

#![feature(abi_ptx, stdarch_nvptx)]
#![cfg_attr(target_arch = "nvptx64", no_std)]

use core::arch::nvptx::{_block_dim_x, _block_idx_x, _thread_idx_x};

cfg_if::cfg_if! {
    if #[cfg(target_arch = "nvptx64")] {
        extern "C" {
            fn vprintf(format: *const u8, args: *const u8) -> i32;
        }
        macro_rules! print {
            ($fmt:expr) => {
                unsafe { vprintf($fmt.as_ptr(), core::ptr::null()) }
            };
        }
    }
}

//@ case: correct
// The file's own `print!` (a `vprintf` wrapper), from one thread of the launch.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn report(flags: *const u32, n: usize) {
    let i = (_block_idx_x() * _block_dim_x() + _thread_idx_x()) as usize;
    if i == 0 && n > 0 && *flags != 0 {
        print!("flag set\n\0");
    }
}

//@ case: hazard host_only_api_in_kernel
// `println!` is `std`'s: the crate defines only `print!`.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn report_line(flags: *const u32, n: usize) {
    let i = (_block_idx_x() * _block_dim_x() + _thread_idx_x()) as usize;
    if i < n && *flags.add(i) != 0 {
        println!("flag {}", i); //~ ERROR host_only_api_in_kernel
    }
}
