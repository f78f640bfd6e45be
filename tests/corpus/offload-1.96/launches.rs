//! Dense and structured-grid kernels of a small CFD post-processor, with the launch helpers
//! that call them through `core::intrinsics::offload(kernel, [workgroups], [threads], (args,))`
//! (rustc 1.96: four arguments, no `dyn_cache`, no device selection).
#![cfg_attr(not(target_os = "linux"), feature(abi_gpu_kernel, rustc_attrs, stdarch_nvptx))]
#![cfg_attr(not(target_os = "linux"), no_std, no_main)]
#![cfg_attr(target_os = "linux", feature(core_intrinsics))]
#![allow(internal_features)]

#[cfg(not(target_os = "linux"))]
use core::arch::nvptx::{_block_dim_x, _block_dim_y, _block_idx_x, _block_idx_y, _thread_idx_x, _thread_idx_y};

pub const BLOCK: u32 = 256;
/// Cells of the 1-D fields.
pub const N: usize = 1 << 16;
pub const WG: u32 = N as u32 / BLOCK;

#[cfg(not(target_os = "linux"))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}

//@ case: correct
// MATVEC, one row per thread, launched from an `#[inline(never)]` helper whose body is the offload call.
pub const ROWS: usize = 2048;
pub const COLS: usize = 512;

#[cfg(target_os = "linux")]
unsafe extern "C" {
    fn matvec(a: &[f32; ROWS * COLS], x: &[f32; COLS], y: &mut [f32; ROWS]);
}

#[cfg(not(target_os = "linux"))]
#[unsafe(no_mangle)]
#[rustc_offload_kernel]
pub extern "gpu-kernel" fn matvec(a: &[f32; ROWS * COLS], x: &[f32; COLS], y: &mut [f32; ROWS]) {
    let row = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    if row < ROWS {
        let mut acc = 0.0f32;
        for k in 0..COLS {
            acc += a[row * COLS + k] * x[k];
        }
        y[row] = acc;
    }
}

#[cfg(target_os = "linux")]
#[inline(never)]
fn launch_matvec(a: &[f32; ROWS * COLS], x: &[f32; COLS], y: &mut [f32; ROWS]) {
    core::intrinsics::offload(matvec, [ROWS as u32 / BLOCK, 1, 1], [BLOCK, 1, 1], (a, x, y))
}

//@ case: correct
// Transpose with a 2-D launch of 16 x 16 tiles: (r, c) are both bounded before `c * ROWS + r`.
#[cfg(target_os = "linux")]
unsafe extern "C" {
    fn transpose(inp: &[f32; ROWS * COLS], out: &mut [f32; COLS * ROWS]);
}

#[cfg(not(target_os = "linux"))]
#[unsafe(no_mangle)]
#[rustc_offload_kernel]
pub extern "gpu-kernel" fn transpose(inp: &[f32; ROWS * COLS], out: &mut [f32; COLS * ROWS]) {
    let c = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    let r = unsafe { _block_idx_y() * _block_dim_y() + _thread_idx_y() } as usize;
    if r < ROWS && c < COLS {
        out[c * ROWS + r] = inp[r * COLS + c];
    }
}

#[cfg(target_os = "linux")]
#[inline(never)]
fn launch_transpose(inp: &[f32; ROWS * COLS], out: &mut [f32; COLS * ROWS]) {
    core::intrinsics::offload(transpose, [COLS as u32 / 16, ROWS as u32 / 16, 1], [16, 16, 1], (inp, out))
}

//@ case: correct
// Explicit diffusion with two buffers swapped every step: each launch reads one and writes the other.
#[cfg(target_os = "linux")]
unsafe extern "C" {
    fn diffuse(src: &[f32; N], dst: &mut [f32; N], k: &f32);
}

#[cfg(not(target_os = "linux"))]
#[unsafe(no_mangle)]
#[rustc_offload_kernel]
pub extern "gpu-kernel" fn diffuse(src: &[f32; N], dst: &mut [f32; N], k: &f32) {
    let i = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    if i > 0 && i < N - 1 {
        dst[i] = src[i] + *k * (src[i - 1] - 2.0 * src[i] + src[i + 1]);
    }
}

#[cfg(target_os = "linux")]
fn run_diffusion(a: &mut [f32; N], b: &mut [f32; N], k: &f32, steps: usize) {
    for step in 0..steps {
        if step % 2 == 0 {
            core::intrinsics::offload::<_, _, ()>(diffuse, [WG, 1, 1], [BLOCK, 1, 1], (&*a, &mut *b, k));
        } else {
            core::intrinsics::offload::<_, _, ()>(diffuse, [WG, 1, 1], [BLOCK, 1, 1], (&*b, &mut *a, k));
        }
    }
}

//@ case: hazard launch_arg_mismatch
// The launch passes three arguments to `axpby`, which takes four (`b` was forgotten).
#[cfg(target_os = "linux")]
unsafe extern "C" {
    fn axpby(a: &f32, x: &[f32; N], b: &f32, y: &mut [f32; N]);
}

#[cfg(not(target_os = "linux"))]
#[unsafe(no_mangle)]
#[rustc_offload_kernel]
pub extern "gpu-kernel" fn axpby(a: &f32, x: &[f32; N], b: &f32, y: &mut [f32; N]) {
    let i = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    if i < N {
        y[i] = *a * x[i] + *b * y[i];
    }
}

#[cfg(target_os = "linux")]
#[inline(never)]
fn launch_axpby(a: &f32, x: &[f32; N], y: &mut [f32; N]) {
    core::intrinsics::offload(axpby, [WG, 1, 1], [BLOCK, 1, 1], (a, x, y)) //~ ERROR launch_arg_mismatch
}

//@ case: hazard launch_arg_mismatch
// `normalize` writes through `v: &mut`, but the launch passes `&v`: mapped "to" only, the result is lost.
#[cfg(target_os = "linux")]
unsafe extern "C" {
    fn normalize(v: &mut [f32; N], inv_norm: &f32);
}

#[cfg(not(target_os = "linux"))]
#[unsafe(no_mangle)]
#[rustc_offload_kernel]
pub extern "gpu-kernel" fn normalize(v: &mut [f32; N], inv_norm: &f32) {
    let i = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    if i < N {
        v[i] *= *inv_norm;
    }
}

#[cfg(target_os = "linux")]
fn normalized_profile() -> Vec<f32> {
    let mut v = [0.0f32; N];
    for (k, e) in v.iter_mut().enumerate() {
        *e = (k % 64) as f32;
    }
    let inv = 1.0 / v.iter().map(|e| e * e).sum::<f32>();
    core::intrinsics::offload::<_, _, ()>(normalize, [WG, 1, 1], [BLOCK, 1, 1], (&v, &inv)); //~ ERROR launch_arg_mismatch
    v.to_vec()
}

//@ case: hazard aliased_launch_args
// In-place relaxation: `src` and `dst` are reborrowed from one raw pointer to the same field.
#[cfg(target_os = "linux")]
unsafe extern "C" {
    fn relax(src: &[f32; N], dst: &mut [f32; N]);
}

#[cfg(not(target_os = "linux"))]
#[unsafe(no_mangle)]
#[rustc_offload_kernel]
pub extern "gpu-kernel" fn relax(src: &[f32; N], dst: &mut [f32; N]) {
    let i = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    if i > 0 && i < N - 1 {
        dst[i] = 0.5 * (src[i - 1] + src[i + 1]);
    }
}

#[cfg(target_os = "linux")]
fn relax_in_place(field: &mut [f32; N]) {
    let p = field as *mut [f32; N];
    unsafe {
        core::intrinsics::offload::<_, _, ()>(relax, [WG, 1, 1], [BLOCK, 1, 1], (&*p, &mut *p)); //~ ERROR aliased_launch_args
    }
}

//@ case: hazard aliased_launch_args
// Shock detector: the flag array is an immutable local, cast from `&` to `*mut` so the kernel can write it.
#[cfg(target_os = "linux")]
unsafe extern "C" {
    fn mark_shocks(flags: &mut [u8; N], pressure: &[f32; N]);
}

#[cfg(not(target_os = "linux"))]
#[unsafe(no_mangle)]
#[rustc_offload_kernel]
pub extern "gpu-kernel" fn mark_shocks(flags: &mut [u8; N], pressure: &[f32; N]) {
    let i = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    if i < N - 1 {
        flags[i] = ((pressure[i + 1] - pressure[i]).abs() > 0.25) as u8;
    }
}

#[cfg(target_os = "linux")]
fn count_shocks(pressure: &[f32; N]) -> usize {
    let flags = [0u8; N];
    let fp = &flags as *const [u8; N] as *mut [u8; N]; //~ ERROR aliased_launch_args
    unsafe { core::intrinsics::offload::<_, _, ()>(mark_shocks, [WG, 1, 1], [BLOCK, 1, 1], (&mut *fp, pressure)) };
    flags.iter().filter(|&&f| f != 0).count()
}

//@ case: hazard thread_index_collision
// Artificial viscosity indexed by `block + thread` (block size missing): neighbouring blocks overlap.
#[cfg(target_os = "linux")]
unsafe extern "C" {
    fn viscosity(q: &mut [f32; N], du: &[f32; N], rho: &[f32; N], c_q: &f32);
}

#[cfg(not(target_os = "linux"))]
#[unsafe(no_mangle)]
#[rustc_offload_kernel]
pub extern "gpu-kernel" fn viscosity(q: &mut [f32; N], du: &[f32; N], rho: &[f32; N], c_q: &f32) {
    let i = unsafe { _block_idx_x() + _thread_idx_x() } as usize;
    if i < N {
        let d = du[i].min(0.0);
        q[i] = *c_q * rho[i] * d * d; //~ WARN thread_index_collision
    }
}

#[cfg(target_os = "linux")]
#[inline(never)]
fn launch_viscosity(q: &mut [f32; N], du: &[f32; N], rho: &[f32; N], c_q: &f32) {
    core::intrinsics::offload(viscosity, [WG, 1, 1], [BLOCK, 1, 1], (q, du, rho, c_q))
}

// ------------------------------------------------------------------ host driver

#[cfg(target_os = "linux")]
fn main() {
    let a: Vec<f32> = (0..ROWS * COLS).map(|k| (k % 7) as f32).collect();
    let a: Box<[f32; ROWS * COLS]> = a.into_boxed_slice().try_into().expect("ROWS * COLS values");
    let x = [1.0f32; COLS];
    let mut y = [0.0f32; ROWS];
    launch_matvec(&a, &x, &mut y);

    let mut at: Box<[f32; COLS * ROWS]> = vec![0.0f32; COLS * ROWS].into_boxed_slice().try_into().expect("size");
    launch_transpose(&a, &mut at);

    let mut u = [0.0f32; N];
    u[N / 2] = 1.0;
    let mut v = u;
    run_diffusion(&mut u, &mut v, &0.2, 100);

    let mut w = [1.0f32; N];
    launch_axpby(&2.0, &u, &mut w);
    let profile = normalized_profile();
    relax_in_place(&mut u);
    let shocks = count_shocks(&u);

    let mut q = [0.0f32; N];
    launch_viscosity(&mut q, &v, &w, &1.5);

    println!("y[0] = {}, at[1] = {}, u[N/2] = {}", y[0], at[1], u[N / 2]);
    println!("profile[3] = {}, shocks = {shocks}, q[9] = {}", profile[3], q[9]);
}
