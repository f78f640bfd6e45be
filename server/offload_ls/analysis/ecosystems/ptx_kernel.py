"""Bare ``extern "ptx-kernel"`` / ``"amdgpu-kernel"`` functions: a ``#![no_std]`` crate built
for ``nvptx64-nvidia-cuda`` (or amdgcn) whose PTX the host loads and launches through the
driver API (cudarc's ``launch_builder``/``LaunchAsync``, cust, raw ``cuLaunchKernel``).

Nothing is copied by a parameter's type: the host allocates device memory and passes device
addresses, so ``*const T`` / ``*mut T`` parameters and ``unsafe`` dereferences of them are
the idiom (as in Rust-CUDA). rustc's offload never uses these ABIs: its kernels are
``#[rustc_offload_kernel] extern "gpu-kernel"`` (rust-lang/rust tests/codegen-llvm/gpu_offload,
library/core/src/offload). Seen in cudarc examples/rust-kernel, Neutron3529/cuda_min,
dbeckwith/cuda-debugging-tutorial, ariasanovsky/spindle.

Thread indexes: ``core::arch::nvptx`` (stdarch crates/core_arch/src/nvptx/mod.rs,
``_thread_idx_x`` .. ``_grid_dim_z``, ``_syncthreads``) and the amdgpu intrinsics.
Unchecked indexing: ``p.add(i)``, ``p.offset(i)``, ``p.wrapping_add(i)`` (core's pointer
methods), ``get_unchecked``.
"""

from offload_ls.analysis.ecosystems import Profile, _xyz
from offload_ls.analysis.model import Ecosystem

PROFILE = Profile(
    name="ptx-kernel",
    ecosystem=Ecosystem.PTX_KERNEL,
    title="bare `extern \"ptx-kernel\"`",
    crate_roots=frozenset(),
    index_fns={
        **_xyz("tid", "_thread_idx_{}"), **_xyz("bid", "_block_idx_{}"),
        **_xyz("bdim", "_block_dim_{}"), **_xyz("gdim", "_grid_dim_{}"),
        **_xyz("tid", "workitem_id_{}"), **_xyz("bid", "workgroup_id_{}"),
    },
    barriers=frozenset({"_syncthreads", "s_barrier", "barrier"}),
    shared_static_attrs=frozenset({("address_space", "shared")}),
    raw_pointer_params=True,
    core_only_floats=True,
    unchecked_index_methods=frozenset({"add", "offset", "wrapping_add", "wrapping_offset", "get_unchecked",
                                       "get_unchecked_mut"}),
    # Flakebi/amdgpu-rs amdgpu-device-libs: `println!` over a host call and a device
    # `#[global_allocator]` (its examples/println: `extern crate alloc; .. Vec::new()`)
    device_libraries={"amdgpu_device_libs": frozenset({"println", "print", "eprintln", "eprint"}),
                      "gpu_kernel": frozenset({"println", "print", "eprintln", "eprint"})},
    allocator_roots=frozenset({"alloc", "amdgpu_device_libs", "gpu_kernel"}),
    device_build="a bare GPU-kernel crate (`extern \"ptx-kernel\"` / `\"gpu-kernel\"`) is built `#![no_std]`",
    source="stdarch nvptx intrinsics; cudarc examples/rust-kernel; rustc's offload tests use \"gpu-kernel\" only",
)
