#![cfg_attr(target_arch = "spirv", no_std)]
//! Element-wise compute shaders of an audio/ML utility crate, built with rust-gpu (spirv-builder),
//! and the wgpu code that records their dispatches (host build only).

use spirv_std::glam::UVec3;
#[cfg_attr(not(target_arch = "spirv"), allow(unused_imports))]
use spirv_std::num_traits::Float;
use spirv_std::spirv;

#[repr(C)]
#[derive(Copy, Clone)]
#[cfg_attr(not(target_arch = "spirv"), derive(bytemuck::Pod, bytemuck::Zeroable))]
pub struct SaxpyParams {
    pub alpha: f32,
}

#[repr(C)]
#[derive(Copy, Clone)]
#[cfg_attr(not(target_arch = "spirv"), derive(bytemuck::Pod, bytemuck::Zeroable))]
pub struct ClampParams {
    pub lo: f32,
    pub hi: f32,
}

#[repr(C)]
#[derive(Copy, Clone)]
#[cfg_attr(not(target_arch = "spirv"), derive(bytemuck::Pod, bytemuck::Zeroable))]
pub struct GammaParams {
    pub inv_gamma: f32,
}

#[repr(C)]
#[derive(Copy, Clone)]
#[cfg_attr(not(target_arch = "spirv"), derive(bytemuck::Pod, bytemuck::Zeroable))]
pub struct ToneCurve {
    pub exposure: f32,
}

#[repr(C)]
#[derive(Copy, Clone)]
#[cfg_attr(not(target_arch = "spirv"), derive(bytemuck::Pod, bytemuck::Zeroable))]
pub struct Oscillator {
    pub frequency: f32,
    pub amplitude: f32,
    pub sample_rate: f32,
    pub first_sample: u32,
}

#[cfg(not(target_arch = "spirv"))]
fn compute_pipeline(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    entry_point: &str,
) -> wgpu::ComputePipeline {
    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(entry_point),
        layout: Some(layout),
        module,
        entry_point: Some(entry_point),
        compilation_options: Default::default(),
        cache: None,
    })
}

//@ case: correct
// SAXPY over a runtime-sized storage buffer: the global id is bounds-checked with `if i < y.len()`.
#[spirv(compute(threads(64)))]
pub fn saxpy_cs(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(push_constant)] params: &SaxpyParams,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] x: &[f32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 1)] y: &mut [f32],
) {
    let i = id.x as usize;
    if i < y.len() && i < x.len() {
        y[i] = params.alpha * x[i] + y[i];
    }
}

#[cfg(not(target_arch = "spirv"))]
pub fn encode_saxpy(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    encoder: &mut wgpu::CommandEncoder,
    bind_group: &wgpu::BindGroup,
    alpha: f32,
    len: u32,
) {
    let pipeline = compute_pipeline(device, layout, module, "saxpy_cs");
    let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
        label: Some("saxpy"),
        timestamp_writes: None,
    });
    pass.set_pipeline(&pipeline);
    pass.set_bind_group(0, bind_group, &[]);
    pass.set_push_constants(0, bytemuck::bytes_of(&SaxpyParams { alpha }));
    pass.dispatch_workgroups(len.div_ceil(64), 1, 1);
}

//@ case: correct
// In-place clamp with an early return for the invocations of the last, partly filled workgroup.
#[spirv(compute(threads(128)))]
pub fn clamp_cs(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(push_constant)] range: &ClampParams,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] data: &mut [f32],
) {
    let i = id.x as usize;
    if i >= data.len() {
        return;
    }
    data[i] = data[i].clamp(range.lo, range.hi);
}

#[cfg(not(target_arch = "spirv"))]
pub fn encode_clamp(
    pass: &mut wgpu::ComputePass<'_>,
    pipeline: &wgpu::ComputePipeline,
    bind_group: &wgpu::BindGroup,
    lo: f32,
    hi: f32,
    len: u32,
) {
    pass.set_pipeline(pipeline);
    pass.set_bind_group(0, bind_group, &[]);
    pass.set_push_constants(0, bytemuck::bytes_of(&ClampParams { lo, hi }));
    pass.dispatch_workgroups(len.div_ceil(128), 1, 1);
}

//@ case: hazard unchecked_thread_index
// Gamma encode with no bounds check: when len is not a multiple of 64 the last workgroup indexes past the end.
#[spirv(compute(threads(64)))]
pub fn gamma_encode_cs(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(push_constant)] params: &GammaParams,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] samples: &mut [f32],
) {
    let i = id.x as usize;
    let linear = samples[i].max(0.0); //~ WARN unchecked_thread_index
    samples[i] = linear.powf(params.inv_gamma); //~ WARN unchecked_thread_index
}

#[cfg(not(target_arch = "spirv"))]
pub fn encode_gamma(
    pass: &mut wgpu::ComputePass<'_>,
    pipeline: &wgpu::ComputePipeline,
    bind_group: &wgpu::BindGroup,
    gamma: f32,
    len: u32,
) {
    pass.set_pipeline(pipeline);
    pass.set_bind_group(0, bind_group, &[]);
    pass.set_push_constants(0, bytemuck::bytes_of(&GammaParams { inv_gamma: 1.0 / gamma }));
    pass.dispatch_workgroups(len.div_ceil(64), 1, 1);
}

//@ case: hazard unchecked_thread_index
// Tone-curve LUT rebuild: the guard tests 1024 but the LUT binding holds only 256 entries.
#[spirv(compute(threads(64)))]
pub fn build_tone_lut_cs(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(push_constant)] curve: &ToneCurve,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 1)] lut: &mut [f32; 256],
) {
    let i = id.x as usize;
    if i < 1024 {
        let t = i as f32 / 255.0;
        lut[i] = (curve.exposure * t) / (1.0 + curve.exposure * t); //~ WARN unchecked_thread_index
    }
}

#[cfg(not(target_arch = "spirv"))]
pub fn encode_tone_lut(
    pass: &mut wgpu::ComputePass<'_>,
    pipeline: &wgpu::ComputePipeline,
    bind_group: &wgpu::BindGroup,
    exposure: f32,
) {
    pass.set_pipeline(pipeline);
    pass.set_bind_group(0, bind_group, &[]);
    pass.set_push_constants(0, bytemuck::bytes_of(&ToneCurve { exposure }));
    // 16 workgroups of 64 = 1024 invocations
    pass.dispatch_workgroups(16, 1, 1);
}

//@ case: hazard static_mut_in_kernel
// A shader-side `static mut` used as a "samples written" counter: it is per-invocation Private storage, never shared or read back.
static mut SAMPLES_WRITTEN: u32 = 0;

#[spirv(compute(threads(64)))]
pub fn gain_cs(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(push_constant)] params: &SaxpyParams,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] audio: &mut [f32],
) {
    let i = id.x as usize;
    if i < audio.len() {
        audio[i] *= params.alpha;
        unsafe { //~ WARN unsafe_in_kernel
            SAMPLES_WRITTEN += 1; //~ ERROR static_mut_in_kernel
        }
    }
}

#[cfg(not(target_arch = "spirv"))]
pub fn encode_gain(
    pass: &mut wgpu::ComputePass<'_>,
    pipeline: &wgpu::ComputePipeline,
    bind_group: &wgpu::BindGroup,
    gain: f32,
    len: u32,
) -> u32 {
    pass.set_pipeline(pipeline);
    pass.set_bind_group(0, bind_group, &[]);
    pass.set_push_constants(0, bytemuck::bytes_of(&SaxpyParams { alpha: gain }));
    pass.dispatch_workgroups(len.div_ceil(64), 1, 1);
    // host copy of the static: always 0, the GPU never writes it
    unsafe { SAMPLES_WRITTEN }
}

//@ case: hazard host_only_api_in_kernel
// Sine oscillator that takes PI from `std::`, which does not exist in the no_std shader build (`core::f32::consts::PI` does).
#[spirv(compute(threads(256)))]
pub fn sine_osc_cs(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(push_constant)] osc: &Oscillator,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] out: &mut [f32],
) {
    let i = id.x as usize;
    if i < out.len() {
        let t = (osc.first_sample + id.x) as f32 / osc.sample_rate;
        let phase = 2.0 * std::f32::consts::PI * osc.frequency * t; //~ ERROR host_only_api_in_kernel
        out[i] = osc.amplitude * phase.sin();
    }
}

#[cfg(not(target_arch = "spirv"))]
pub fn render_tone(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    encoder: &mut wgpu::CommandEncoder,
    bind_group: &wgpu::BindGroup,
    osc: Oscillator,
    frames: u32,
) {
    let pipeline = compute_pipeline(device, layout, module, "sine_osc_cs");
    let mut pass = encoder.begin_compute_pass(&Default::default());
    pass.set_pipeline(&pipeline);
    pass.set_bind_group(0, bind_group, &[]);
    pass.set_push_constants(0, bytemuck::bytes_of(&osc));
    pass.dispatch_workgroups(frames.div_ceil(256), 1, 1);
    let period_ms = 1000.0 / osc.frequency;
    log::debug!("{}", format!("rendering {frames} frames, period {period_ms:.3} ms"));
}

//@ case: correct
// Integer mixing with `u32::wrapping_add` chains (no pointer arithmetic); the store is guarded.
#[spirv(compute(threads(64)))]
pub fn hash_mix_cs(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] keys: &[u32],
    #[spirv(storage_buffer, descriptor_set = 0, binding = 1)] hashes: &mut [u32],
) {
    let i = id.x as usize;
    if i >= hashes.len() || i >= keys.len() {
        return;
    }
    let k = keys[i];
    let salt = k.rotate_left(13);
    hashes[i] = k.wrapping_mul(0x9e37_79b9).wrapping_add(salt).wrapping_add(i as u32);
}

//@ case: correct
// One invocation per row clears the row's first element: `row * n` under `row < rows`.
#[spirv(compute(threads(64)))]
pub fn clear_row_heads_cs(
    #[spirv(global_invocation_id)] id: UVec3,
    #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] rows_data: &mut [f32],
    #[spirv(push_constant)] shape: &[u32; 2],
) {
    let (rows, n) = (shape[0] as usize, shape[1] as usize);
    let row = id.x as usize;
    let start = row * n;
    if row < rows {
        rows_data[start] = 0.0;
    }
}
