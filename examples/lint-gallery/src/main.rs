//! lint-gallery: every offload-ls rule fires at least once in this file, and each instance
//! is marked by a comment naming its rule (on its line, or on the line before the item). The kernels follow the single-source layout of
//! examples/offload-kernels (device pass with `--cfg offload_device`, host pass launching with
//! `core::intrinsics::offload`). `host_does_the_same`, at the end, does the same things in
//! host code, outside any kernel and launch, and must get no findings.
//!
//! This crate is meant to be linted, not run: the device pass fails on the host-only APIs
//! below, and the host pass on the aliased launch (see README.md).
#![cfg_attr(offload_device, feature(abi_gpu_kernel, rustc_attrs, stdarch_nvptx))]
#![cfg_attr(not(offload_device), feature(core_intrinsics))]
#![cfg_attr(offload_device, no_std, no_main)]
#![allow(internal_features)]

pub const N: usize = 1024;

// ------------------------------------------------------------------ device side
#[cfg(offload_device)]
mod device {
    use super::N;
    use core::arch::nvptx::{_block_dim_x, _block_idx_x, _thread_idx_x};
    use core::cell::Cell;

    static mut CALLS: u32 = 0;

    #[panic_handler]
    fn panic(_: &core::panic::PanicInfo) -> ! {
        loop {}
    }

    // raw_pointer_kernel_param: `out: *mut [f32; N]` (no `noalias`, and `unsafe` to use)
    // raw_pointer_kernel_param: `one: *mut f32` (the runtime copies ONE f32, 4 bytes)
    #[rustc_offload_kernel]
    pub extern "gpu-kernel" fn raw_pointers(out: *mut [f32; N], one: *mut f32) {
        // unsafe_in_kernel: dereferences the raw pointers (references need no `unsafe`)
        unsafe {
            let i = (_block_idx_x() * _block_dim_x() + _thread_idx_x()) as usize;
            if i < N {
                (*out)[i] = *one;
            }
        }
    }

    /// A correct kernel, launched below with aliased arguments.
    #[rustc_offload_kernel]
    pub extern "gpu-kernel" fn scale_into(y: &mut [f32; N], x: &[f32; N]) {
        let i = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
        if i < N {
            y[i] = 2.0 * x[i];
        }
    }

    #[rustc_offload_kernel]
    pub extern "gpu-kernel" fn same_element(y: &mut [f32; N], x: &[f32; N]) {
        y[0] = x[0] + 1.0; // unindexed_kernel_write: every one of the 1024 threads writes y[0]
    }

    #[rustc_offload_kernel]
    pub extern "gpu-kernel" fn unguarded(y: &mut [f32; N]) {
        let i = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
        y[i] = 1.0; // unchecked_thread_index: no `if i < N` before indexing with the thread index
    }

    #[rustc_offload_kernel]
    pub extern "gpu-kernel" fn overlapping_blocks(y: &mut [f32; N]) {
        let i = unsafe { _block_idx_x() + _thread_idx_x() } as usize;
        if i < N {
            y[i] = 1.0; // thread_index_collision: block index added without the block size
        }
    }

    #[rustc_offload_kernel]
    pub extern "gpu-kernel" fn host_apis(x: &[f32; N]) {
        println!("x[0] = {}", x[0]); // host_only_api_in_kernel: println!
        let copy = vec![0.0f32; N]; // host_only_api_in_kernel: vec!
        let start = std::time::Instant::now(); // host_only_api_in_kernel: std::
        report_sum(&copy, start);
    }

    /// Called by `host_apis`, so it is device code too.
    fn report_sum(v: &[f32], start: std::time::Instant) {
        let s: f32 = v.iter().sum();
        eprintln!("sum {s} after {:?}", start.elapsed()); // host_only_api_in_kernel: eprintln! in a function a kernel calls
    }

    #[rustc_offload_kernel]
    pub extern "gpu-kernel" fn heap_args(
        v: Vec<f32>,   // heap_owning_kernel_arg: Vec<f32> owns a host heap buffer
        r: &Vec<f32>,  // heap_owning_kernel_arg: &Vec<f32> (the Vec header, not its elements)
        name: String,  // heap_owning_kernel_arg: String
    ) {
        let _ = (v.len(), r.len(), name.len());
    }

    #[rustc_offload_kernel]
    pub extern "gpu-kernel" fn cell_arg(c: &Cell<f32>) { // interior_mutability_kernel_arg: &Cell<f32>
        c.set(c.get() + 1.0);
    }

    #[rustc_offload_kernel]
    pub extern "gpu-kernel" fn counts_calls(y: &mut [f32; N]) {
        // unsafe_in_kernel: `static mut` access needs `unsafe`
        unsafe {
            CALLS += 1; // static_mut_in_kernel: written by every GPU thread
            let i = (_block_idx_x() * _block_dim_x() + _thread_idx_x()) as usize;
            if i < N {
                y[i] = CALLS as f32; // static_mut_in_kernel: read
            }
        }
    }
}

// ------------------------------------------------------------------ host side
#[cfg(not(offload_device))]
unsafe extern "C" {
    fn raw_pointers(out: *mut [f32; N], one: *mut f32);
    fn scale_into(y: &mut [f32; N], x: &[f32; N]);
    fn same_element(y: &mut [f32; N], x: &[f32; N]);
    fn unguarded(y: &mut [f32; N]);
    fn overlapping_blocks(y: &mut [f32]); // kernel_decl_mismatch: the device kernel takes `&mut [f32; N]`
}

#[cfg(not(offload_device))]
fn main() {
    let mut x = [1.0f32; N];
    let mut y = [0.0f32; N];
    let mut one = 1.0f32;

    // aliased_launch_args: `&mut x` and `&x` in one launch
    let () = core::intrinsics::offload(scale_into, [4, 1, 1], [256, 1, 1], (&mut x, &x));

    // aliased_launch_args: `&x as *const _ as *mut [f32; N]` turns a shared borrow into a pointer the kernel writes through
    let () = core::intrinsics::offload(raw_pointers, [4, 1, 1], [256, 1, 1], (&x as *const _ as *mut [f32; N], &mut one as *mut f32));

    let () = core::intrinsics::offload(same_element, [4, 1, 1], [256, 1, 1], (&mut y, &x));
    let () = core::intrinsics::offload(unguarded, [4, 1, 1], [256, 1, 1], (&mut y,));
    let () = core::intrinsics::offload(overlapping_blocks, [4, 1, 1], [256, 1, 1], (&mut y[..],));

    // unknown_launch_kernel: no kernel `scale_int` (did you mean `scale_into`?)
    let () = core::intrinsics::offload(scale_int, [4, 1, 1], [256, 1, 1], (&mut y, &x));

    // launch_arg_mismatch: `&y` where the kernel writes through `&mut`
    let () = core::intrinsics::offload(unguarded, [4, 1, 1], [256, 1, 1], (&y,));

    // malformed_offload_launch: today's `offload!` spells the block `thread_dim` (no `block_dim` field)
    core::offload::offload! { kernel = unguarded, block_dim = [256, 1, 1], args = (&mut y,) }
    println!("{}", y[0]);
}

#[cfg(not(offload_device))]
static mut HOST_CALLS: u32 = 0;

/// Host code doing what the kernels above do: raw-pointer and heap-owning parameters, a
/// `&Cell`, `unsafe`, `y[0] = ..`, host-only APIs, a `static mut`, a shared-to-mutable cast
/// passed to an ordinary function. Not a kernel, not called by one, not a launch: no findings.
#[cfg(not(offload_device))]
#[allow(dead_code)]
fn host_does_the_same(
    out: *mut [f32; N],
    one: *mut f32,
    v: Vec<f32>,
    r: &Vec<f32>,
    name: String,
    c: &std::cell::Cell<f32>,
    y: &mut [f32; N],
) {
    let x = [0.0f32; N];
    unsafe {
        (*out)[0] = *one;
        HOST_CALLS += 1;
        y[1] = HOST_CALLS as f32;
    }
    y[0] = x[0] + 1.0;
    c.set(c.get() + 1.0);
    println!("{} {} {}", v.len(), r.len(), name);
    let copy = vec![0.0f32; N];
    let start = std::time::Instant::now();
    eprintln!("{} after {:?}", copy.len(), start.elapsed());
    fill_through(&x as *const _ as *mut _);
}

#[cfg(not(offload_device))]
#[allow(dead_code)]
fn fill_through(p: *mut [f32; N]) {
    let _ = p;
}
