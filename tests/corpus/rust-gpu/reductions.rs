#![cfg_attr(target_arch = "spirv", no_std)]
//! Reduction, histogram and stream-compaction compute shaders (rust-gpu) with their wgpu dispatches.

use spirv_std::arch::{atomic_i_add, workgroup_memory_barrier_with_group_sync};
use spirv_std::glam::UVec3;
use spirv_std::memory::{Scope, Semantics};
use spirv_std::spirv;

#[repr(C)]
#[derive(Copy, Clone)]
#[cfg_attr(not(target_arch = "spirv"), derive(bytemuck::Pod, bytemuck::Zeroable))]
pub struct CullParams {
    pub far_plane: f32,
}

#[cfg(not(target_arch = "spirv"))]
pub struct ReducePipelines {
    pub partial_sum: wgpu::ComputePipeline,
    pub finalize_sum: wgpu::ComputePipeline,
    pub histogram: wgpu::ComputePipeline,
    pub sum_naive: wgpu::ComputePipeline,
    pub block_scale: wgpu::ComputePipeline,
    pub compact: wgpu::ComputePipeline,
}

#[cfg(not(target_arch = "spirv"))]
impl ReducePipelines {
    pub fn new(device: &wgpu::Device, layout: &wgpu::PipelineLayout, module: &wgpu::ShaderModule) -> Self {
        let make = |entry_point: &str| {
            device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(entry_point),
                layout: Some(layout),
                module,
                entry_point: Some(entry_point),
                compilation_options: Default::default(),
                cache: None,
            })
        };
        Self {
            partial_sum: make("partial_sum_cs"),
            finalize_sum: make("finalize_sum_cs"),
            histogram: make("luma_histogram_cs"),
            sum_naive: make("sum_naive_cs"),
            block_scale: make("block_scale_cs"),
            compact: make("compact_visible_cs"),
        }
    }
}

//@ case: correct
// Per-workgroup tree sum in workgroup memory: guarded loads, halving strides indexed by local_invocation_index between barriers, one store per workgroup.
#[spirv(compute(threads(256)))]
pub fn partial_sum_cs(
    #[spirv(global_invocation_id)] gid: UVec3,
    #[spirv(local_invocation_index)] lid: u32,
    #[spirv(workgroup_id)] wg: UVec3,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] input: &[f32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 1)] partials: &mut [f32],
    #[spirv(workgroup)] scratch: &mut [f32; 256],
) {
    let i = gid.x as usize;
    let l = lid as usize;
    scratch[l] = if i < input.len() { input[i] } else { 0.0 };
    workgroup_memory_barrier_with_group_sync();
    let mut stride = 128;
    while stride > 0 {
        if l < stride {
            scratch[l] += scratch[l + stride];
        }
        workgroup_memory_barrier_with_group_sync();
        stride /= 2;
    }
    let w = wg.x as usize;
    if l == 0 && w < partials.len() {
        partials[w] = scratch[0];
    }
}

#[cfg(not(target_arch = "spirv"))]
pub fn encode_partial_sum(
    pass: &mut wgpu::ComputePass<'_>,
    pipelines: &ReducePipelines,
    bind_group: &wgpu::BindGroup,
    len: u32,
) -> u32 {
    let groups = len.div_ceil(256);
    pass.set_pipeline(&pipelines.partial_sum);
    pass.set_bind_group(0, bind_group, &[]);
    pass.dispatch_workgroups(groups, 1, 1);
    groups
}

//@ case: correct
// Second pass of the sum: one workgroup folds the partials with a strided loop, and only invocation 0 stores the total.
#[spirv(compute(threads(64)))]
pub fn finalize_sum_cs(
    #[spirv(local_invocation_index)] lid: u32,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 1)] partials: &[f32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 2)] total: &mut [f32],
    #[spirv(workgroup)] lanes: &mut [f32; 64],
) {
    let l = lid as usize;
    let mut acc = 0.0;
    let mut k = l;
    while k < partials.len() {
        acc += partials[k];
        k += 64;
    }
    lanes[l] = acc;
    workgroup_memory_barrier_with_group_sync();
    if l == 0 {
        let mut sum = 0.0;
        for j in 0..64 {
            sum += lanes[j];
        }
        total[0] = sum;
    }
}

#[cfg(not(target_arch = "spirv"))]
pub fn encode_finalize_sum(pass: &mut wgpu::ComputePass<'_>, pipelines: &ReducePipelines, bind_group: &wgpu::BindGroup) {
    pass.set_pipeline(&pipelines.finalize_sum);
    pass.set_bind_group(0, bind_group, &[]);
    pass.dispatch_workgroups(1, 1, 1);
}

//@ case: correct
// Luma histogram: every invocation bumps a shared bin with an atomic add, which is the intended way to combine counts.
#[spirv(compute(threads(256)))]
pub fn luma_histogram_cs(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] pixels: &[u32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 1)] bins: &mut [u32; 256],
) {
    let i = id.x as usize;
    if i < pixels.len() {
        let rgba = pixels[i];
        let r = rgba & 0xff;
        let g = (rgba >> 8) & 0xff;
        let b = (rgba >> 16) & 0xff;
        let luma = (((54 * r + 183 * g + 19 * b) >> 8) as usize).min(255);
        unsafe {
            atomic_i_add::<u32, { Scope::Device as u32 }, { Semantics::NONE.bits() }>(&mut bins[luma], 1);
        }
    }
}

#[cfg(not(target_arch = "spirv"))]
pub fn encode_histogram(
    encoder: &mut wgpu::CommandEncoder,
    pipelines: &ReducePipelines,
    bind_group: &wgpu::BindGroup,
    bins: &wgpu::Buffer,
    pixel_count: u32,
) {
    encoder.clear_buffer(bins, 0, None);
    let mut pass = encoder.begin_compute_pass(&Default::default());
    pass.set_pipeline(&pipelines.histogram);
    pass.set_bind_group(0, bind_group, &[]);
    pass.dispatch_workgroups(pixel_count.div_ceil(256), 1, 1);
}

//@ case: hazard unindexed_kernel_write
// Naive sum: every in-range invocation does a plain read-modify-write of total[0], so concurrent updates are lost.
#[spirv(compute(threads(256)))]
pub fn sum_naive_cs(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] input: &[f32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 2)] total: &mut [f32],
) {
    let i = id.x as usize;
    if i < input.len() {
        total[0] += input[i]; //~ WARN unindexed_kernel_write
    }
}

#[cfg(not(target_arch = "spirv"))]
pub fn encode_sum_naive(pass: &mut wgpu::ComputePass<'_>, pipelines: &ReducePipelines, bind_group: &wgpu::BindGroup, len: u32) {
    pass.set_pipeline(&pipelines.sum_naive);
    pass.set_bind_group(0, bind_group, &[]);
    pass.dispatch_workgroups(len.div_ceil(256), 1, 1);
}

//@ case: hazard thread_index_collision
// Block-wise scaling that adds workgroup_id.x to local_invocation_id.x without the workgroup size: workgroups overlap and most of the buffer is never written.
#[spirv(compute(threads(64)))]
pub fn block_scale_cs(
    #[spirv(workgroup_id)] wg: UVec3,
    #[spirv(local_invocation_id)] lid: UVec3,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] input: &[f32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 1)] scales: &[f32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 3)] output: &mut [f32],
) {
    let i = (wg.x + lid.x) as usize;
    let block = wg.x as usize;
    if i < output.len() && i < input.len() && block < scales.len() {
        output[i] = input[i] * scales[block]; //~ WARN thread_index_collision
    }
}

#[cfg(not(target_arch = "spirv"))]
pub fn encode_block_scale(pass: &mut wgpu::ComputePass<'_>, pipelines: &ReducePipelines, bind_group: &wgpu::BindGroup, len: u32) {
    pass.set_pipeline(&pipelines.block_scale);
    pass.set_bind_group(0, bind_group, &[]);
    pass.dispatch_workgroups(len.div_ceil(64), 1, 1);
}

//@ case: correct
// Stream compaction: each visible element claims a unique output slot with an atomic counter, and the slot is bounds-checked.
#[spirv(compute(threads(128)))]
pub fn compact_visible_cs(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(push_constant)] cull: &CullParams,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] depth: &[f32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 1)] visible: &mut [u32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 2)] visible_count: &mut [u32],
) {
    let i = id.x as usize;
    if i < depth.len() && depth[i] < cull.far_plane {
        let slot = unsafe {
            atomic_i_add::<u32, { Scope::Device as u32 }, { Semantics::NONE.bits() }>(&mut visible_count[0], 1)
        } as usize;
        if slot < visible.len() {
            visible[slot] = id.x;
        }
    }
}

#[cfg(not(target_arch = "spirv"))]
pub fn encode_compaction(
    encoder: &mut wgpu::CommandEncoder,
    pipelines: &ReducePipelines,
    bind_group: &wgpu::BindGroup,
    counter: &wgpu::Buffer,
    far_plane: f32,
    count: u32,
) {
    encoder.clear_buffer(counter, 0, None);
    let mut pass = encoder.begin_compute_pass(&Default::default());
    pass.set_pipeline(&pipelines.compact);
    pass.set_bind_group(0, bind_group, &[]);
    pass.set_push_constants(0, bytemuck::bytes_of(&CullParams { far_plane }));
    pass.dispatch_workgroups(count.div_ceil(128), 1, 1);
}

/// A float in a `u32` whose `+=` is an atomic compare-exchange loop on the bits (what shader
/// crates without native float atomics write).
#[repr(transparent)]
pub struct AtomicF32Bits(u32);

impl core::ops::AddAssign<f32> for AtomicF32Bits {
    fn add_assign(&mut self, rhs: f32) {
        let mut old = self.0;
        loop {
            let new = (f32::from_bits(old) + rhs).to_bits();
            let seen = unsafe {
                spirv_std::arch::atomic_compare_exchange::<u32, { spirv_std::memory::Scope::Device as u32 },
                    { spirv_std::memory::Semantics::NONE.bits() }, { spirv_std::memory::Semantics::NONE.bits() }>(
                    &mut self.0, new, old)
            };
            if seen == old {
                break;
            }
            old = seen;
        }
    }
}

//@ case: correct
// Every workgroup adds its input into one total through the atomic `+=` of `AtomicF32Bits`.
#[spirv(compute(threads(1)))]
pub fn total_atomic_cs(
    #[spirv(workgroup_id)] group: UVec3,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] input: &[f32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 1)] total: &mut [AtomicF32Bits],
) {
    let g = group.x as usize;
    if g < input.len() {
        total[0] += input[g];
    }
}

//@ case: hazard thread_index_collision
// The workgroup is 1 x 128: `local_invocation_id.x` is 0 for all 128 invocations, so the
// `== 0` test lets every one of them add into the group's element.
#[spirv(compute(threads(1, 128)))]
pub fn column_partial_sums(
    #[spirv(workgroup_id)] group: UVec3,
    #[spirv(local_invocation_id)] local: UVec3,
    #[spirv(push_constant)] params: &ColumnParams,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] x: &[f32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 1)] sums: &mut [f32],
) {
    let g = group.x as usize;
    if local.x == 0 {
        if params.accumulate == 1 {
            sums[g] += x[g]; //~ WARN thread_index_collision
        } else {
            sums[g] = x[g]; //~ WARN thread_index_collision
        }
    }
}

#[repr(C)]
#[derive(Copy, Clone)]
pub struct ColumnParams {
    pub columns: u32,
    pub accumulate: u32,
}
