//! A two-stage smoother with nightly `core::offload`: each stage module has its own kernel
//! named `apply`, with different parameters; launches name them by their module paths.
#![feature(gpu_offload)]
#![cfg_attr(target_arch = "nvptx64", feature(abi_gpu_kernel, stdarch_nvptx))]
#![cfg_attr(target_arch = "nvptx64", no_std, no_main)]

mod stage;

/// Cells of the field.
pub const CELLS: usize = 1 << 14;
const THREADS: u32 = 128;
const GROUPS: u32 = (CELLS as u32) / THREADS;

#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}

//@ case: correct
// The coarse stage's `apply` takes the field and a weight; the fine stage's `apply` takes two fields.
#[cfg(not(target_arch = "nvptx64"))]
fn main() {
    let mut field = vec![1.0f32; CELLS].into_boxed_slice();
    let field: &mut [f32; CELLS] = (&mut *field).try_into().unwrap();
    let previous = [0.5f32; CELLS];
    core::offload::offload! {
        kernel = stage::coarse::apply,
        workgroup_dim = [GROUPS, 1, 1],
        thread_dim = [THREADS, 1, 1],
        args = (&mut *field, 0.25f32),
    }
    core::offload::offload! {
        kernel = stage::fine::apply,
        workgroup_dim = [GROUPS, 1, 1],
        thread_dim = [THREADS, 1, 1],
        args = (&mut *field, &previous),
    }
}
