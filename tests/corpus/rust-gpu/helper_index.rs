//! Compute shaders that pass the invocation's position to a helper function of the shader
//! crate, which indexes a storage buffer with its parameter (unchecked_thread_index follows
//! an unguarded position into the helper: docs/rules/unchecked_thread_index.md, "Helpers").

#![no_std]
use spirv_std::glam::UVec3;
use spirv_std::spirv;

//@ case: hazard unchecked_thread_index
// A nested `fn work(idx)` called with `id.x` and no check anywhere: the invocations past the
// buffer's records index past its end (the shape of a real shader with a big work buffer).
#[spirv(compute(threads(64)))]
pub fn records_cs(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] buf: &mut [u32],
) {
    fn work(idx: usize, buf: &mut [u32]) {
        buf[5 + idx * 3] = 1; //~ WARN unchecked_thread_index
    }
    work(id.x as usize, buf)
}

//@ case: correct
// The helper is called only under `if i < n`: the guard at the call bounds its parameter.
#[spirv(compute(threads(64)))]
pub fn scale_cs(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] data: &mut [f32],
) {
    let i = id.x as usize;
    if i < data.len() {
        scale_at(data, i);
    }
}

fn scale_at(data: &mut [f32], i: usize) {
    data[i] *= 2.0;
}

//@ case: correct
// Early return before the call (`if i >= n { return; }`).
#[spirv(compute(threads(64)))]
pub fn clear_cs(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] data: &mut [f32],
) {
    let i = id.x as usize;
    if i >= data.len() {
        return;
    }
    clear_at(data, i);
}

fn clear_at(data: &mut [f32], i: usize) {
    data[i] = 0.0;
}

//@ case: correct
// The helper guards its own parameter.
#[spirv(compute(threads(64)))]
pub fn negate_cs(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] data: &mut [f32],
) {
    negate_at(data, id.x as usize);
}

fn negate_at(data: &mut [f32], i: usize) {
    if i < data.len() {
        data[i] = -data[i];
    }
}

//@ case: correct
// The helper is called with a constant and with the invocation's index within its workgroup
// (below the workgroup size, 64, which the buffer holds).
#[spirv(compute(threads(64)))]
pub fn seed_cs(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(local_invocation_id)] lid: UVec3,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] table: &mut [u32],
) {
    if id.x == 0 {
        seed_at(table, 0);
    }
    seed_at(table, lid.x as usize);
}

fn seed_at(table: &mut [u32], slot: usize) {
    table[slot] += 1;
}
