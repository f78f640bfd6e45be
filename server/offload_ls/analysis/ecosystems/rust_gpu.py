"""rust-gpu (Rust-GPU/rust-gpu): SPIR-V compute entry points.

``#[spirv(compute(threads(x, y, z)))] pub fn main_cs(..)``: the workgroup size is in the
attribute; thread positions arrive as parameters marked with a builtin
(``#[spirv(global_invocation_id)] id: UVec3``, ``local_invocation_id``,
``local_invocation_index``, ``workgroup_id``, ``num_workgroups``); buffers are
``#[spirv(storage_buffer, descriptor_set = 0, binding = 0)] buf: &mut [f32]`` and workgroup
memory is a ``#[spirv(workgroup)] tile: &mut [f32; N]`` parameter; a ``RuntimeArray<T>``
(an array of unknown length) is indexed with ``unsafe { arr.index(i) }`` without a bounds check. Barriers:
``spirv_std::arch::workgroup_memory_barrier_with_group_sync`` and ``control_barrier``.
The host dispatches with wgpu / ash (``dispatch_workgroups(x, y, z)``).
"""

from offload_ls.analysis.ecosystems import Index, Profile
from offload_ls.analysis.model import Ecosystem, LaunchForm

PROFILE = Profile(
    name="rust-gpu",
    ecosystem=Ecosystem.RUST_GPU,
    title="rust-gpu",
    device_build="rust-gpu shaders are built `#![no_std]`",
    crate_roots=frozenset({"spirv_std"}),
    index_params={
        "global_invocation_id": Index("gid", "*"), "local_invocation_id": Index("tid", "*"),
        "local_invocation_index": Index("lid"), "workgroup_id": Index("bid", "*"),
        "num_workgroups": Index("gdim", "*"),
    },
    barriers=frozenset({"workgroup_memory_barrier_with_group_sync", "workgroup_memory_barrier",
                        "control_barrier", "memory_barrier", "all_memory_barrier_with_group_sync"}),
    shared_param_attrs=frozenset({"workgroup"}),
    # `RuntimeArray::index` / `index_mut` are unsafe and unchecked (spirv-std/src/runtime_array.rs:
    # "this function will happily index outside of the bounds of the array")
    unchecked_index_methods=frozenset({"get_unchecked", "get_unchecked_mut", "index_unchecked", "index_unchecked_mut",
                                       "index", "index_mut"}),
    launch_forms=frozenset({LaunchForm.WGPU}),
    source="Rust-GPU/rust-gpu crates/spirv-std/src/arch/barrier.rs, examples/shaders/compute-shader",
)
