#![cfg_attr(target_arch = "spirv", no_std)]
//! Compute shaders (rust-gpu) recorded into Vulkan command buffers with ash: buffer fills, a volume
//! threshold pass and two ported-from-CPU kernels.

use spirv_std::glam::UVec3;
use spirv_std::spirv;

#[cfg(not(target_arch = "spirv"))]
use ash::vk;
#[cfg(not(target_arch = "spirv"))]
use std::ffi::CStr;

#[repr(C)]
#[derive(Copy, Clone)]
#[cfg_attr(not(target_arch = "spirv"), derive(bytemuck::Pod, bytemuck::Zeroable))]
pub struct FillParams {
    pub value: u32,
}

#[repr(C)]
#[derive(Copy, Clone)]
#[cfg_attr(not(target_arch = "spirv"), derive(bytemuck::Pod, bytemuck::Zeroable))]
pub struct VolumeParams {
    pub nx: u32,
    pub ny: u32,
    pub nz: u32,
    pub iso: f32,
}

#[repr(C)]
#[derive(Copy, Clone)]
#[cfg_attr(not(target_arch = "spirv"), derive(bytemuck::Pod, bytemuck::Zeroable))]
pub struct BiasParams {
    pub len: u32,
    pub channels: u32,
}

#[cfg(not(target_arch = "spirv"))]
pub unsafe fn create_compute_pipeline(
    device: &ash::Device,
    module: vk::ShaderModule,
    layout: vk::PipelineLayout,
    entry_point: &CStr,
) -> vk::Pipeline {
    let stage = vk::PipelineShaderStageCreateInfo::default()
        .stage(vk::ShaderStageFlags::COMPUTE)
        .module(module)
        .name(entry_point);
    let info = vk::ComputePipelineCreateInfo::default().stage(stage).layout(layout);
    device
        .create_compute_pipelines(vk::PipelineCache::null(), &[info], None)
        .map_err(|(_, err)| err)
        .expect("compute pipeline")[0]
}

#[cfg(not(target_arch = "spirv"))]
unsafe fn bind(device: &ash::Device, cmd: vk::CommandBuffer, pipeline: vk::Pipeline, layout: vk::PipelineLayout, set: vk::DescriptorSet) {
    device.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::COMPUTE, pipeline);
    device.cmd_bind_descriptor_sets(cmd, vk::PipelineBindPoint::COMPUTE, layout, 0, &[set], &[]);
}

//@ case: correct
// Grid-stride fill: a fixed 256-workgroup dispatch covers any length, stepping by num_workgroups.x * 64 under a `while i < len` guard.
#[spirv(compute(threads(64)))]
pub fn fill_u32_cs(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(num_workgroups)] groups: UVec3,
    #[spirv(push_constant)] fill: &FillParams,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] dst: &mut [u32],
) {
    let stride = groups.x * 64;
    let mut i = id.x;
    while (i as usize) < dst.len() {
        dst[i as usize] = fill.value;
        i += stride;
    }
}

#[cfg(not(target_arch = "spirv"))]
pub unsafe fn record_fill(
    device: &ash::Device,
    cmd: vk::CommandBuffer,
    module: vk::ShaderModule,
    layout: vk::PipelineLayout,
    set: vk::DescriptorSet,
    value: u32,
) -> vk::Pipeline {
    let entry = CStr::from_bytes_with_nul(b"fill_u32_cs\0").unwrap();
    let pipeline = create_compute_pipeline(device, module, layout, entry);
    bind(device, cmd, pipeline, layout, set);
    device.cmd_push_constants(cmd, layout, vk::ShaderStageFlags::COMPUTE, 0, bytemuck::bytes_of(&FillParams { value }));
    device.cmd_dispatch(cmd, 256, 1, 1);
    pipeline
}

//@ case: correct
// Iso-surface occupancy over a 3-D volume with threads(4, 4, 4): all three coordinates are checked before the flattened index is used.
#[spirv(compute(threads(4, 4, 4)))]
pub fn occupancy_cs(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(push_constant)] vol: &VolumeParams,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] density: &[f32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 1)] occupancy: &mut [u32],
) {
    if id.x < vol.nx && id.y < vol.ny && id.z < vol.nz {
        let idx = ((id.z * vol.ny + id.y) * vol.nx + id.x) as usize;
        occupancy[idx] = (density[idx] > vol.iso) as u32;
    }
}

#[cfg(not(target_arch = "spirv"))]
pub unsafe fn record_occupancy(
    device: &ash::Device,
    cmd: vk::CommandBuffer,
    pipeline: vk::Pipeline,
    layout: vk::PipelineLayout,
    set: vk::DescriptorSet,
    vol: VolumeParams,
) {
    bind(device, cmd, pipeline, layout, set);
    device.cmd_push_constants(cmd, layout, vk::ShaderStageFlags::COMPUTE, 0, bytemuck::bytes_of(&vol));
    device.cmd_dispatch(cmd, vol.nx.div_ceil(4), vol.ny.div_ceil(4), vol.nz.div_ceil(4));
}

//@ case: hazard raw_pointer_kernel_param
// Bias + ReLU ported from CUDA with a `*mut f32` storage binding dereferenced in `unsafe`, where rust-gpu shaders take `&mut [f32]`.
#[spirv(compute(threads(64)))]
pub fn bias_relu_cs(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(push_constant)] params: &BiasParams,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] activations: *mut f32, //~ WARN raw_pointer_kernel_param
    #[spirv(storage_buffer, descriptor_set = 0, binding = 1)] bias: &[f32],
) {
    let i = id.x as usize;
    if i < params.len as usize {
        let c = i % params.channels as usize;
        unsafe { //~ WARN unsafe_in_kernel
            let a = activations.add(i);
            *a = (*a + bias[c]).max(0.0);
        }
    }
}

#[cfg(not(target_arch = "spirv"))]
pub unsafe fn record_bias_relu(
    device: &ash::Device,
    cmd: vk::CommandBuffer,
    pipeline: vk::Pipeline,
    layout: vk::PipelineLayout,
    set: vk::DescriptorSet,
    len: u32,
    channels: u32,
) {
    bind(device, cmd, pipeline, layout, set);
    device.cmd_push_constants(cmd, layout, vk::ShaderStageFlags::COMPUTE, 0, bytemuck::bytes_of(&BiasParams { len, channels }));
    device.cmd_dispatch(cmd, len.div_ceil(64), 1, 1);
}

//@ case: hazard heap_owning_kernel_arg
// FIR filter whose taps binding is typed `&Vec<f32>`: a host heap container cannot be a storage buffer (use `&[f32]`).
#[spirv(compute(threads(64)))]
pub fn fir_filter_cs(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] signal: &[f32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 1)] taps: &Vec<f32>, //~ ERROR heap_owning_kernel_arg
    #[spirv(storage_buffer, descriptor_set = 0, binding = 2)] out: &mut [f32],
) {
    let i = id.x as usize;
    if i < out.len() && !signal.is_empty() {
        let last = signal.len() - 1;
        let mut acc = 0.0;
        let mut k = 0;
        while k < taps.len() {
            acc += taps[k] * signal[(i + k).min(last)];
            k += 1;
        }
        out[i] = acc;
    }
}

#[cfg(not(target_arch = "spirv"))]
pub unsafe fn record_fir(
    device: &ash::Device,
    cmd: vk::CommandBuffer,
    pipeline: vk::Pipeline,
    layout: vk::PipelineLayout,
    set: vk::DescriptorSet,
    out_len: u32,
) {
    bind(device, cmd, pipeline, layout, set);
    device.cmd_dispatch(cmd, out_len.div_ceil(64), 1, 1);
}
