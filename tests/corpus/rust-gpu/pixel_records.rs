#![cfg_attr(target_arch = "spirv", no_std)]
//! Shaders of a small ray-marching / agent-simulation demo (rust-gpu): an RGB image stored as
//! three floats per pixel, and agents whose next cell a helper function computes.

use spirv_std::glam::UVec3;
use spirv_std::spirv;

#[repr(C)]
#[derive(Copy, Clone)]
pub struct Frame {
    pub width: u32,
    pub height: u32,
}

#[repr(C)]
#[derive(Copy, Clone)]
pub struct Sim {
    pub agents: u32,
    pub cells: u32,
    pub deposit: f32,
}

pub struct Move {
    pub cell: u32,
    pub heading: f32,
}

fn hash(v: u32) -> u32 {
    let v = v ^ (v >> 16);
    v.wrapping_mul(0x45d9_f3b)
}

fn next_cell(agent: u32, sim: &Sim) -> (u32, u32) {
    let h = hash(agent);
    (h, h % sim.cells)
}

fn step(agent: u32, sim: &Sim) -> Move {
    Move { cell: hash(agent + 1) % sim.cells, heading: 0.0 }
}

//@ case: correct
// Three floats per pixel at `(y * width + x) * 3 + c`, under the per-axis early return.
#[spirv(compute(threads(8, 8)))]
pub fn shade(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(uniform, descriptor_set = 0, binding = 0)] frame: &Frame,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 1)] rgb: &mut [f32],
) {
    if id.x >= frame.width || id.y >= frame.height {
        return;
    }
    let px = ((id.y * frame.width + id.x) * 3) as usize;
    rgb[px] = id.x as f32 / frame.width as f32;
    rgb[px + 1] = id.y as f32 / frame.height as f32;
    rgb[px + 2] = 0.25;
}

//@ case: hazard unchecked_thread_index
// The same record layout with an inclusive guard: `x == width` spills into the next row and the
// last row's records run past the end.
#[spirv(compute(threads(8, 8)))]
pub fn shade_inclusive(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(uniform, descriptor_set = 0, binding = 0)] frame: &Frame,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 1)] rgb: &mut [f32],
) {
    if id.x > frame.width || id.y > frame.height {
        return;
    }
    let px = ((id.y * frame.width + id.x) * 3) as usize;
    rgb[px] = 1.0; //~ WARN unchecked_thread_index
}

//@ case: correct
// The cell index is what a helper returns for the agent (reduced modulo the cell count there):
// its bound is not the thread's position.
#[spirv(compute(threads(64)))]
pub fn deposit(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(uniform, descriptor_set = 0, binding = 0)] sim: &Sim,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 1)] trail: &mut [f32],
) {
    let agent = id.x;
    if agent >= sim.agents {
        return;
    }
    let (_seed, cell) = next_cell(agent, sim);
    trail[cell as usize] = sim.deposit;
    let m = step(agent, sim);
    trail[m.cell as usize] = 0.5 * sim.deposit;
}
