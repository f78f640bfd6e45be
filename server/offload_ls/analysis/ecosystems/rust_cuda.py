"""Rust-CUDA (Rust-GPU/Rust-CUDA): ``cuda_std`` kernels launched with ``cust``.

Kernels are ``#[kernel] pub unsafe fn`` (cuda_std's ``#[kernel]`` requires ``unsafe``);
the host allocates ``DeviceBuffer``s and passes ``buf.as_device_ptr()`` / ``buf.len()``:
nothing is copied implicitly, so raw-pointer parameters are the idiom. Launch:
``launch!(module.kernel<<<grid, block, shared_bytes, stream>>>(args..))``.

Thread indexes (crates/cuda_std/src/thread.rs): ``thread_idx_x`` .. ``block_dim_z``,
``grid_dim_x``..; ``index_1d() = block_idx_x * block_dim_x + thread_idx_x``,
``index_2d()`` / ``index_3d()`` vectors of those; ``thread_idx()`` / ``block_idx()`` /
``block_dim()`` / ``grid_dim()`` vectors. Barrier: ``thread::sync_threads()``. Shared
memory: ``#[address_space(shared)] static mut`` and ``shared_array!``. cuda_std provides
``println!`` (CUDA ``vprintf``) and its prelude re-exports alloc's ``Vec``, ``Box``,
``String`` and ``format!`` (crates/cuda_std/src/lib.rs, io.rs); the thread-index functions
and ``sync_threads`` are safe.
"""

from offload_ls.analysis.ecosystems import Index, Profile, _xyz
from offload_ls.analysis.model import Ecosystem, LaunchForm

PROFILE = Profile(
    name="rust-cuda",
    ecosystem=Ecosystem.CUDA,
    title="Rust-CUDA",
    device_build="Rust-CUDA kernels are built `#![no_std]`",
    crate_roots=frozenset({"cuda_std", "cust", "cuda_builder"}),
    index_fns={
        **_xyz("tid", "thread_idx_{}"), **_xyz("bid", "block_idx_{}"),
        **_xyz("bdim", "block_dim_{}"), **_xyz("gdim", "grid_dim_{}"),
        "thread_idx": Index("tid", "*"), "block_idx": Index("bid", "*"),
        "block_dim": Index("bdim", "*"), "grid_dim": Index("gdim", "*"),
        "index_1d": Index("gid", "x"), "index_2d": Index("gid", "*"), "index_3d": Index("gid", "*"),
    },
    index_path_fns={"index": Index("glin")},
    barriers=frozenset({"sync_threads", "sync_warp"}),
    shared_static_attrs=frozenset({("address_space", "shared")}),
    shared_macros=frozenset({"shared_array", "dynamic_shared_array"}),
    kernels_must_be_unsafe=True,
    raw_pointer_params=True,
    device_macros=frozenset({"println", "print", "format", "vec", "assert_eq"}),
    device_types=frozenset({"Vec", "Box", "String"}),
    unchecked_index_methods=frozenset({"add", "offset", "wrapping_add", "wrapping_offset", "get_unchecked",
                                       "get_unchecked_mut"}),
    launch_forms=frozenset({LaunchForm.RUST_CUDA}),
    args_per_slice=2,
    device_pointer_methods=frozenset({"as_device_ptr", "as_raw_ptr"}),
    source="Rust-GPU/Rust-CUDA crates/cuda_std/src/thread.rs, crates/cuda_std/src/shared.rs, examples/",
)
