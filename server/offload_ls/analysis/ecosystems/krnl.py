"""krnl (charles-r-earp/krnl): ``#[module]`` modules of ``#[kernel]`` functions for Vulkan.

Kernels take ``#[item]`` elements (a foreach kernel: one invocation per element, no index
needed; in older krnl an ``elementwise`` kernel's ``&mut T`` parameters), ``#[global]``
slices, ``UnsafeSlice`` / ``UnsafeIndex`` for writes at computed indexes, and ``#[group]``
memory; positions come from the ``kernel`` argument
(``kernel.global_id()``, ``kernel.global_index()``, ``kernel.thread_id()``,
``kernel.group_id()``, ``kernel.threads()``, ``kernel.groups()``). The host dispatches
``kernels::k::builder()?.build(device)?.dispatch(args..)``.
"""

from offload_ls.analysis.ecosystems import Index, Profile
from offload_ls.analysis.model import Ecosystem, LaunchForm

PROFILE = Profile(
    name="krnl",
    ecosystem=Ecosystem.KRNL,
    title="krnl",
    device_build="krnl kernels are built `#![no_std]`",
    buffer_params="`#[global] x: Slice<T>` / `#[item] y: &mut T`",
    crate_roots=frozenset({"krnl", "krnl_core", "krnl_macros"}),
    index_fns={
        "global_id": Index("glin"), "global_index": Index("glin"), "thread_id": Index("lid"),
        "thread_index": Index("lid"), "group_id": Index("blin"), "group_index": Index("blin"),
        "item_id": Index("glin"), "item_index": Index("glin"), "subgroup_id": Index("lid"),
        "threads": Index("bdim", "x"), "groups": Index("gdim", "x"),
    },
    barriers=frozenset({"barrier", "workgroup_memory_barrier_with_group_sync"}),
    shared_param_attrs=frozenset({"group"}),
    unchecked_index_methods=frozenset({"unsafe_index", "unsafe_index_mut"}),
    per_thread_param_attrs=frozenset({"item"}),
    # krnl before 0.1 (krnl-core/src/kernel.rs of charles-r-earp/krnl at the 0.0.x tags)
    per_thread_marker_words=frozenset({"elementwise"}),
    mutable_param_types=frozenset({"UnsafeSlice"}),
    launch_forms=frozenset({LaunchForm.KRNL}),
    slice_args={"as_slice": "slice", "as_slice_mut": "slice_mut"},
    slice_types={"Slice": "slice", "SliceMut": "slice_mut", "UnsafeSlice": "slice_mut"},
    # krnl-core kernel.rs: "The index of the item, from 0 .. items()"; items is the length
    # of the #[item] buffers, dispatched exactly (no extra invocations run the body)
    bounded_index_fns={"item_id": "kernel.items()", "item_index": "kernel.items()"},
    source="charles-r-earp/krnl krnl-core/src/kernel.rs, krnl-macros, README",
)
