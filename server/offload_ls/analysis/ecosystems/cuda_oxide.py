"""cuda-oxide (NVlabs/cuda-oxide): Rust kernels compiled for NVIDIA GPUs.

Kernels are ``#[kernel] pub fn`` (``unsafe`` only when they take raw pointers), usually in a
``#[cuda_module] mod kernels``; parameters are ``&[T]``, ``DisjointSlice<T>`` outputs,
scalars and raw device pointers (crates/cuda-macros/README.md, crates/cuda-device/src/
disjoint.rs). Launches: ``cuda_launch! { kernel: k, stream: s, module: m, config: cfg,
args: [..] }`` with ``LaunchConfig { grid_dim, block_dim, shared_mem_bytes }``, or the typed
``module.k(&stream, cfg, ..)`` that ``#[cuda_module]`` generates.

Thread indexes (crates/cuda-device/src/thread.rs, src/generated/sreg.rs): safe functions
``threadIdx_x`` .. ``gridDim_z`` (snake-case aliases in ``cuda_intrinsics::sreg``);
``index_1d()`` = ``blockIdx.x * blockDim.x + threadIdx.x`` (a ``ThreadIndex``, ``.get()``);
``index_2d::<S>()`` = ``Some(row * S + col)``; ``index_2d_row()`` / ``index_2d_col()`` the
global y / x. Barrier: ``thread::sync_threads()``. Shared memory: ``static mut T:
SharedArray<T, N> = SharedArray::UNINIT;`` and ``DynamicSharedArray`` (crates/cuda-device/
src/shared.rs). Printing: ``gpu_printf!`` (no ``println!`` on the device).
"""

from offload_ls.analysis.ecosystems import Index, Profile, _xyz
from offload_ls.analysis.model import Ecosystem, LaunchForm

PROFILE = Profile(
    name="cuda-oxide",
    ecosystem=Ecosystem.CUDA_OXIDE,
    title="cuda-oxide",
    crate_roots=frozenset({"cuda_device", "cuda_host", "cuda_macros", "cuda_intrinsics", "cuda_core",
                           "cuda_oxide"}),
    index_fns={
        **_xyz("tid", "threadIdx_{}"), **_xyz("bid", "blockIdx_{}"),
        **_xyz("bdim", "blockDim_{}"), **_xyz("gdim", "gridDim_{}"),
        **_xyz("tid", "thread_idx_{}"), **_xyz("bid", "block_idx_{}"),
        **_xyz("bdim", "block_dim_{}"), **_xyz("gdim", "grid_dim_{}"),
        "index_1d": Index("gid", "x"), "index_2d": Index("glin"),
        "index_2d_row": Index("gid", "y"), "index_2d_col": Index("gid", "x"),
    },
    barriers=frozenset({"sync_threads", "sync", "cluster_sync"}),
    # cuda_device::barrier: "Barrier in shared memory" (`static mut BAR: Barrier = Barrier::UNINIT`)
    shared_types=frozenset({"SharedArray", "DynamicSharedArray", "Barrier"}),
    raw_pointer_params=True,
    device_macros=frozenset({"gpu_printf", "gpu_assert"}),
    unchecked_index_methods=frozenset({"add", "offset", "get_unchecked", "get_unchecked_mut"}),
    device_fn_attrs=frozenset({"device"}),
    mutable_param_types=frozenset({"DisjointSlice"}),
    launch_forms=frozenset({LaunchForm.CUDA_OXIDE}),
    source="NVlabs/cuda-oxide README.md, crates/cuda-macros/README.md, crates/cuda-device/src/{thread,shared}.rs",
)
