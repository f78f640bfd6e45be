//! Stand-in for Rust-CUDA's `cuda_std_macros`: `#[kernel]` leaves the function unchanged.
//! (The real attribute makes it `extern "ptx-kernel"` and `#[no_mangle]` when compiled for
//! nvptx64; on the host the function stays an ordinary `unsafe fn`, which is what lets
//! `cust::launch!`'s stand-in call it on the CPU.)

use proc_macro::TokenStream;

/// Identity attribute: returns the item unchanged.
#[proc_macro_attribute]
pub fn kernel(_attr: TokenStream, item: TokenStream) -> TokenStream {
    item
}
