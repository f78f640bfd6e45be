//! Activation functions of a small inference engine with nightly `core::offload`'s partitioned
//! regions: a `Region<T, S>` argument hands each GPU thread the element its
//! `PartitioningStrategy` gives it (or `None`), so the kernel never computes an index itself.
#![feature(gpu_offload)]
#![cfg_attr(target_arch = "nvptx64", feature(abi_gpu_kernel, stdarch_nvptx))]
#![cfg_attr(target_arch = "nvptx64", no_std, no_main)]

use core::offload::{offload_kernel, LaunchError, PartitioningStrategy, Region};
use core::ptr::NonNull;

/// Activations of one layer.
const WIDTH: usize = 4096 * 64;
const THREADS: u32 = 256;

#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}

/// One element per thread of a 1-D launch: thread `block * block_dim + thread` owns element
/// `i`, threads past the end get `None`.
pub struct Linear1D;

unsafe impl PartitioningStrategy for Linear1D {
    type View<'a, T: 'a> = &'a T;
    type ViewMut<'a, T: 'a> = &'a mut T;

    fn index() -> usize {
        #[cfg(target_arch = "nvptx64")]
        {
            use core::arch::nvptx::{_block_dim_x, _block_idx_x, _thread_idx_x};
            unsafe { (_block_idx_x() * _block_dim_x() + _thread_idx_x()) as usize }
        }
        #[cfg(not(target_arch = "nvptx64"))]
        {
            0
        }
    }

    unsafe fn get<'a, T>(ptr: NonNull<T>, len: usize) -> Option<Self::View<'a, T>> {
        let i = Self::index();
        if i < len { Some(unsafe { ptr.add(i).as_ref() }) } else { None }
    }

    unsafe fn get_mut<'a, T>(ptr: NonNull<T>, len: usize) -> Option<Self::ViewMut<'a, T>> {
        let i = Self::index();
        if i < len { Some(unsafe { ptr.add(i).as_mut() }) } else { None }
    }

    fn check_launch(_len: usize, grid: [u32; 3], block: [u32; 3]) -> Result<(), LaunchError> {
        // a 2-D or 3-D launch would give several threads the same `index()`
        if grid[1] == 1 && grid[2] == 1 && block[1] == 1 && block[2] == 1 {
            Ok(())
        } else {
            Err(LaunchError::new("Linear1D needs a 1-D launch"))
        }
    }
}

//@ case: correct
// ReLU over a `Region<f32, Linear1D>` passed by value: each thread updates the element it is given.
#[offload_kernel]
fn relu(mut act: Region<'_, f32, Linear1D>) {
    if let Some(v) = act.get_mut() {
        *v = (*v).max(0.0);
    }
}

#[cfg(not(target_arch = "nvptx64"))]
fn activate(act: &mut [f32]) {
    let workgroups = (act.len() as u32).div_ceil(THREADS);
    let region = Region::<f32, Linear1D>::new(act);
    core::offload::offload! {
        kernel = relu,
        workgroup_dim = [workgroups, 1, 1],
        thread_dim = [THREADS, 1, 1],
        args = (region,),
    }
}

#[cfg(not(target_arch = "nvptx64"))]
fn main() {
    let mut act: Vec<f32> = (0..WIDTH).map(|k| (k % 21) as f32 - 10.0).collect();
    activate(&mut act);
    let negative = act.iter().filter(|&&v| v < 0.0).count();
    println!("{} activations, {negative} negative after ReLU, act[3] = {}", act.len(), act[3]);
}
