//! Host side of the particle simulation: wgpu pipelines for the entry points in `lib.rs`, and the
//! per-frame dispatches. Pipelines name their entry point by string; the SPIR-V module is the one
//! spirv-builder produced from this crate.

use crate::{SimParams, GRID_WG, PARTICLE_WG};

pub struct ParticlePipelines {
    pub layout: wgpu::PipelineLayout,
    pub clear_grid: wgpu::ComputePipeline,
    pub scatter: wgpu::ComputePipeline,
    pub integrate: wgpu::ComputePipeline,
}

fn entry(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    module: &wgpu::ShaderModule,
    label: &str,
    entry_point: &str,
) -> wgpu::ComputePipeline {
    device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(label),
        layout: Some(layout),
        module,
        entry_point: Some(entry_point),
        compilation_options: Default::default(),
        cache: None,
    })
}

impl ParticlePipelines {
    pub fn new(device: &wgpu::Device, module: &wgpu::ShaderModule, bind_group_layout: &wgpu::BindGroupLayout) -> Self {
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("particles"),
            bind_group_layouts: &[bind_group_layout],
            push_constant_ranges: &[],
        });
        let clear_grid = entry(device, &layout, module, "clear grid", "clear_grid_cs");
        let scatter = entry(device, &layout, module, "scatter", "scatter_cs");
        let integrate = entry(device, &layout, module, "integrate", "integrate_cs");
        Self { layout, clear_grid, scatter, integrate }
    }
}

/// Records one simulation step: clear the cell counts, bin the particles, integrate.
pub fn encode_step(
    encoder: &mut wgpu::CommandEncoder,
    pipelines: &ParticlePipelines,
    bind_group: &wgpu::BindGroup,
    params: &SimParams,
) {
    let cells = params.grid_dim * params.grid_dim;
    let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
        label: Some("particle step"),
        timestamp_writes: None,
    });
    pass.set_bind_group(0, bind_group, &[]);

    pass.set_pipeline(&pipelines.clear_grid);
    pass.dispatch_workgroups(cells.div_ceil(GRID_WG), 1, 1);

    pass.set_pipeline(&pipelines.scatter);
    pass.dispatch_workgroups(params.count.div_ceil(PARTICLE_WG), 1, 1);

    pass.set_pipeline(&pipelines.integrate);
    pass.dispatch_workgroups(params.count.div_ceil(PARTICLE_WG), 1, 1);
}

pub fn upload_params(queue: &wgpu::Queue, uniform: &wgpu::Buffer, params: &SimParams) {
    queue.write_buffer(uniform, 0, bytemuck::bytes_of(params));
}

//@ case: hazard unknown_launch_kernel
// Collision-response pass whose pipeline names entry point "resolve_collisions_cs", which no `#[spirv(compute)]` function of this crate defines.
pub fn encode_collisions(
    device: &wgpu::Device,
    module: &wgpu::ShaderModule,
    pipelines: &ParticlePipelines,
    encoder: &mut wgpu::CommandEncoder,
    bind_group: &wgpu::BindGroup,
    params: &SimParams,
) {
    let resolve = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("resolve collisions"),
        layout: Some(&pipelines.layout),
        module,
        entry_point: Some("resolve_collisions_cs"), //~ ERROR unknown_launch_kernel
        compilation_options: Default::default(),
        cache: None,
    });
    let mut pass = encoder.begin_compute_pass(&Default::default());
    pass.set_pipeline(&resolve);
    pass.set_bind_group(0, bind_group, &[]);
    pass.dispatch_workgroups(params.count.div_ceil(PARTICLE_WG), 1, 1);
}
