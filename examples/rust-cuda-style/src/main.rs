//! Host side in Rust-CUDA style: load the module, create a stream, `launch!` the kernels with
//! `<<<grid, block, shared_mem, stream>>>`, check the results. The `cust` and `cuda_std`
//! crates here are local stand-ins (shim/) that run each kernel on the CPU once per GPU
//! thread, so `cargo run` checks the kernels' logic without a GPU or crates.io.

mod kernels;

use cust::prelude::*;
use kernels::{add, saxpy_strided, scale, vecadd};

/// With Rust-CUDA this is the PTX that cuda_builder compiled from the kernels crate
/// (`include_str!(concat!(env!("OUT_DIR"), "/kernels.ptx"))`); the stand-in ignores it.
static PTX: &str = "";

const N: usize = 100_000;
const BLOCK: u32 = 256;

/// Print one line for kernel `name`; true if `got[i] == want(i)` for every i (exact: the
/// CPU emulation computes the same f32 operations in the same order as the reference).
fn verify(name: &str, got: &[f32], want: impl Fn(usize) -> f32) -> bool {
    let bad: Vec<usize> = (0..got.len()).filter(|&i| got[i] != want(i)).collect();
    match bad.first() {
        None => {
            println!("OK {name}: {} elements", got.len());
            true
        }
        Some(&i) => {
            println!("FAIL {name}: {} of {} wrong, first at [{i}]: got {}, expected {}", bad.len(), got.len(), got[i], want(i));
            false
        }
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let module = Module::from_ptx(PTX, &[])?;
    let stream = Stream::new(StreamFlags::NON_BLOCKING, None)?;

    let a: Vec<f32> = (0..N).map(|i| i as f32 * 0.5).collect();
    let b: Vec<f32> = (0..N).map(|i| (i % 17) as f32).collect();
    let mut c = vec![0.0f32; N];
    let mut d = vec![0.0f32; N];
    let grid = (N as u32).div_ceil(BLOCK); // rounded up: the last block is partly idle

    unsafe {
        launch!(module.add<<<grid, BLOCK, 0, stream>>>(a.as_ptr(), b.as_ptr(), c.as_mut_ptr(), N))?;
        // The stand-in `launch!` (shim/cust) passes a slice whole; cust's passes each `&[f32]` as
        // (device pointer, length), which is what launch_arg_mismatch checks for.
        // offload-ls: allow(launch_arg_mismatch)
        launch!(module.vecadd<<<grid, BLOCK, 0, stream>>>(&a, &b, d.as_mut_ptr()))?;
    }
    stream.synchronize()?;
    let mut ok = verify("add", &c, |i| a[i] + b[i]);
    ok &= verify("vecadd", &d, |i| a[i] + b[i]);

    // `scale` has no bounds guard: launch exactly len(x) threads.
    let mut x: Vec<f32> = (0..(BLOCK * BLOCK) as usize).map(|i| i as f32).collect();
    unsafe {
        launch!(module.scale<<<BLOCK, BLOCK, 0, stream>>>(x.as_mut_ptr(), 3.0))?;
    }
    stream.synchronize()?;
    ok &= verify("scale", &x, |i| i as f32 * 3.0);

    // Grid-stride loop: 40 blocks cover all N elements.
    let mut y = b.clone();
    unsafe {
        launch!(module.saxpy_strided<<<40, BLOCK, 0, stream>>>(N, 2.0, a.as_ptr(), y.as_mut_ptr()))?;
    }
    stream.synchronize()?;
    ok &= verify("saxpy_strided", &y, |i| 2.0 * a[i] + b[i]);

    if !ok {
        std::process::exit(1);
    }
    Ok(())
}
