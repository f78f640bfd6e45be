"""rustc's GPU offload (rust-lang/rust #131513), both spellings.

Today's nightly (``rustup component add offload``): ``#[core::offload::offload_kernel]``
(rustc_builtin_macros/src/offload.rs expands it to a host stub and a device
``#[rustc_offload_kernel] unsafe extern "gpu-kernel" fn``) and ``core::offload::offload!``.
rustc 1.96: ``#[rustc_offload_kernel] extern "gpu-kernel" fn`` and the four-argument
``core::intrinsics::offload``. Kernel arguments are copied by their types (the host pass's
map types: docs/offload-notes.md "What the host pass copies").

Thread indexes: ``core::arch::nvptx`` (stdarch crates/core_arch/src/nvptx/mod.rs:
``_thread_idx_x`` .. ``_grid_dim_z``, all ``unsafe fn``, ``_syncthreads``) and the amdgpu
intrinsics rustc's amdgpu offload tests declare (``workitem_id_x``, ``workgroup_id_x``).
``core::offload``'s partitioning strategies (tests/ui/offload/auxiliary/offload_strategies.rs)
give a linear position with ``Strategy::index()``.
"""

from offload_ls.analysis.ecosystems import Index, Profile, _xyz
from offload_ls.analysis.model import Ecosystem, LaunchForm

PROFILE = Profile(
    name="std-offload",
    ecosystem=Ecosystem.OFFLOAD,
    title="rustc offload",
    crate_roots=frozenset(),
    index_fns={
        **_xyz("tid", "_thread_idx_{}"), **_xyz("bid", "_block_idx_{}"),
        **_xyz("bdim", "_block_dim_{}"), **_xyz("gdim", "_grid_dim_{}"),
        **_xyz("tid", "workitem_id_{}"), **_xyz("bid", "workgroup_id_{}"),
    },
    index_path_fns={"index": Index("glin")},
    barriers=frozenset({"_syncthreads", "s_barrier", "barrier"}),
    shared_static_attrs=frozenset({("address_space", "shared")}),
    runtime_maps_arguments=True,
    core_only_floats=True,
    buffer_params="`&[T; N]` / `&mut [T; N]`",
    device_build="the device pass builds with `core` only (`-Zbuild-std=core`)",
    # library/core/src/offload/mod.rs (rust-lang/rust): `offload!` fills in
    # workgroup_dim = [1, 1, 1], thread_dim = [1, 1, 1], dyn_cache = 0 when absent
    launch_defaults={LaunchForm.OFFLOAD_MACRO: ((1, 1, 1), (1, 1, 1))},
    unchecked_index_methods=frozenset({"add", "offset", "wrapping_add", "wrapping_offset", "get_unchecked",
                                       "get_unchecked_mut"}),
    source="rust-lang/rust tests/ui/offload, tests/run-make/offload, library/stdarch nvptx; docs/offload-notes.md",
)
