//! Structured-grid stencils (1-D advection, 2-D edge detection, a horizontal blur) for nightly
//! `core::offload`: 1-D launches index with x only, 2-D launches combine x and y.
#![feature(gpu_offload)]
#![cfg_attr(target_arch = "nvptx64", feature(abi_gpu_kernel, stdarch_nvptx))]
#![cfg_attr(target_arch = "nvptx64", no_std, no_main)]

#[cfg(target_arch = "nvptx64")]
use core::arch::nvptx::{_block_dim_x, _block_dim_y, _block_idx_x, _block_idx_y, _thread_idx_x, _thread_idx_y};

/// Points of the 1-D advection grid.
const NX: usize = 100_000;
/// Image width and height (multiples of 16).
const W: usize = 1920;
const H: usize = 1072;

#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}

//@ case: correct
// Upwind advection: thread 0 alone writes the inflow u_next[0], threads 0 < i < NX their own point.
#[core::offload::offload_kernel]
fn upwind(courant: f32, inflow: f32, u: &[f32; NX], u_next: &mut [f32; NX]) {
    let i = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    if i == 0 {
        u_next[0] = inflow;
    } else if i < NX {
        u_next[i] = u[i] - courant * (u[i] - u[i - 1]);
    }
}

#[cfg(not(target_arch = "nvptx64"))]
fn advect(courant: f32, inflow: f32, a: &mut [f32; NX], b: &mut [f32; NX], steps: usize) {
    let workgroups = (NX as u32).div_ceil(128);
    for step in 0..steps {
        // ping-pong: even steps read `a` and write `b`, odd steps the other way round
        let (src, dst) = if step % 2 == 0 { (&*a, &mut *b) } else { (&*b, &mut *a) };
        core::offload::offload! {
            kernel = upwind,
            workgroup_dim = [workgroups, 1, 1],
            thread_dim = [128, 1, 1],
            args = (courant, inflow, src, dst),
        }
    }
}

//@ case: correct
// Sobel edges on 16 x 16 tiles: row and column kept one pixel inside the image before the 3 x 3 reads.
#[core::offload::offload_kernel]
fn sobel(img: &[f32; W * H], edges: &mut [f32; W * H]) {
    let col = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    let row = unsafe { _block_idx_y() * _block_dim_y() + _thread_idx_y() } as usize;
    if row > 0 && row < H - 1 && col > 0 && col < W - 1 {
        let p = |r: usize, c: usize| img[r * W + c];
        let gx = (p(row - 1, col + 1) + 2.0 * p(row, col + 1) + p(row + 1, col + 1))
            - (p(row - 1, col - 1) + 2.0 * p(row, col - 1) + p(row + 1, col - 1));
        let gy = (p(row + 1, col - 1) + 2.0 * p(row + 1, col) + p(row + 1, col + 1))
            - (p(row - 1, col - 1) + 2.0 * p(row - 1, col) + p(row - 1, col + 1));
        edges[row * W + col] = gx.abs() + gy.abs();
    }
}

#[cfg(not(target_arch = "nvptx64"))]
fn detect_edges(img: &[f32; W * H], edges: &mut [f32; W * H]) {
    core::offload::offload! {
        kernel = sobel,
        workgroup_dim = [(W / 16) as u32, (H / 16) as u32, 1],
        thread_dim = [16, 16, 1],
        args = (img, edges),
    }
}

//@ case: hazard thread_index_collision
// Horizontal blur with a 1-D index launched on 16 x 16 tiles: the thread rows of a tile share `i`.
#[core::offload::offload_kernel]
fn hblur(src: &[f32; W * H], dst: &mut [f32; W * H]) {
    let i = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    if i > 0 && i < W * H - 1 {
        dst[i] = (src[i - 1] + src[i] + src[i + 1]) / 3.0; //~ WARN thread_index_collision
    }
}

#[cfg(not(target_arch = "nvptx64"))]
fn blur(src: &[f32; W * H], dst: &mut [f32; W * H]) {
    core::offload::offload! {
        kernel = hblur,
        workgroup_dim = [(W / 16) as u32, (H / 16) as u32, 1],
        thread_dim = [16, 16, 1],
        args = (src, dst),
    }
}

// ------------------------------------------------------------------ host driver

#[cfg(not(target_arch = "nvptx64"))]
fn image<const L: usize>(f: impl Fn(usize) -> f32) -> Box<[f32; L]> {
    let v: Vec<f32> = (0..L).map(f).collect();
    match v.into_boxed_slice().try_into() {
        Ok(b) => b,
        Err(_) => unreachable!("length is L by construction"),
    }
}

#[cfg(not(target_arch = "nvptx64"))]
fn main() {
    let mut u = image::<NX>(|i| if (1000..2000).contains(&i) { 1.0 } else { 0.0 });
    let mut u_next = image::<NX>(|_| 0.0);
    advect(0.8, 0.0, &mut u, &mut u_next, 500); // even step count: the result is in `u`

    let img = image::<{ W * H }>(|k| ((k % W) / 64 % 2) as f32);
    let mut edges = image::<{ W * H }>(|_| 0.0);
    detect_edges(&img, &mut edges);
    let mut blurred = image::<{ W * H }>(|_| 0.0);
    blur(&img, &mut blurred);

    let strong: Vec<usize> = (0..W * H).filter(|&k| edges[k] > 1.0).take(8).collect();
    println!("front at {:?}", u.iter().position(|&v| v > 0.5));
    println!("first strong edges: {strong:?}, blurred[W + 64] = {}", blurred[W + 64]);
}
