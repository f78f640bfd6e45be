//! Host driver: loads the PTX that build.rs produced from src/lib.rs and launches the
//! kernels with `cust::launch!`.

use cust::{error::CudaResult, launch, prelude::*};

static PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/kernels.ptx"));

const N: usize = 1 << 20;
const GRID_W: usize = 512;
const GRID_H: usize = 512;
const THREADS: u32 = 256;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let _ctx = cust::quick_init()?;
    let module = Module::from_ptx(PTX, &[])?;
    let stream = Stream::new(StreamFlags::NON_BLOCKING, None)?;

    let mut pos = DeviceBuffer::from_slice(&initial_positions())?;
    let mut vel = DeviceBuffer::from_slice(&vec![[0.0f32; 4]; N])?;
    let density = DeviceBuffer::from_slice(&vec![0.0f32; GRID_W * GRID_H])?;
    let mut color = DeviceBuffer::from_slice(&vec![0u32; GRID_W * GRID_H])?;

    for _ in 0..600 {
        step(&module, &stream, &mut pos, &mut vel, 1.0 / 60.0)?;
        drag_step(&module, &stream, &mut vel, 0.02)?;
    }
    shade(&module, &stream, &density, &mut color, 0.05)?;

    let mut pixels = vec![0u32; GRID_W * GRID_H];
    color.copy_to(&mut pixels[..])?;
    println!("centre pixel: {:#010x}", pixels[GRID_H / 2 * GRID_W + GRID_W / 2]);
    Ok(())
}

fn initial_positions() -> Vec<[f32; 4]> {
    (0..N)
        .map(|i| {
            let t = i as f32 / N as f32;
            [t.cos() * 10.0, 50.0 + t * 5.0, t.sin() * 10.0, 1.0]
        })
        .collect()
}

/// Launches lib.rs's `shade_density` (its labelled case is in lib.rs): the 16 x 16 block and
/// 2-D grid chosen here are what make that kernel's 1-D index collide.
fn shade(module: &Module, stream: &Stream, density: &DeviceBuffer<f32>, color: &mut DeviceBuffer<u32>, scale: f32) -> CudaResult<()> {
    let grid = ((GRID_W as u32 + 15) / 16, (GRID_H as u32 + 15) / 16);
    unsafe {
        launch!(module.shade_density<<<grid, (16, 16), 0, stream>>>(
            density.as_device_ptr(),
            color.as_device_ptr(),
            GRID_W * GRID_H,
            scale
        ))?;
    }
    stream.synchronize()
}

//@ case: correct
// One simulation step: 1-D launches of `apply_gravity` and `integrate` with argument lists matching their parameters.
fn step(module: &Module, stream: &Stream, pos: &mut DeviceBuffer<[f32; 4]>, vel: &mut DeviceBuffer<[f32; 4]>, dt: f32) -> CudaResult<()> {
    let n = pos.len();
    let grid = (n as u32 + THREADS - 1) / THREADS;
    unsafe {
        launch!(module.apply_gravity<<<grid, THREADS, 0, stream>>>(vel.as_device_ptr(), n, -9.81f32, dt))?;
        launch!(module.integrate<<<grid, THREADS, 0, stream>>>(pos.as_device_ptr(), vel.as_device_ptr(), n, dt))?;
    }
    stream.synchronize()
}

//@ case: hazard unknown_launch_kernel
// Launches `apply_drag`, which no `#[kernel]` in the crate defines: `get_function` fails with NotFound at run time.
fn drag_step(module: &Module, stream: &Stream, vel: &mut DeviceBuffer<[f32; 4]>, k: f32) -> CudaResult<()> {
    let n = vel.len();
    let grid = (n as u32 + THREADS - 1) / THREADS;
    unsafe {
        launch!(module.apply_drag<<<grid, THREADS, 0, stream>>>(vel.as_device_ptr(), n, k))?; //~ ERROR unknown_launch_kernel
    }
    stream.synchronize()
}
