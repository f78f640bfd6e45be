"""cuda-oxide (NVlabs/cuda-oxide): Rust kernels compiled for NVIDIA GPUs.

Placeholder facts until verified against its sources: ``#[kernel]`` functions taking raw
device pointers into buffers the host allocates, CUDA-style thread indexes.
"""

from offload_ls.analysis.ecosystems import Index, Profile, _xyz
from offload_ls.analysis.model import Ecosystem

PROFILE = Profile(
    name="cuda-oxide",
    ecosystem=Ecosystem.CUDA_OXIDE,
    crate_roots=frozenset({"cuda_oxide", "oxide"}),
    index_fns={
        **_xyz("tid", "thread_idx_{}"), **_xyz("bid", "block_idx_{}"),
        **_xyz("bdim", "block_dim_{}"), **_xyz("gdim", "grid_dim_{}"),
        "index_1d": Index("gid", "x"),
    },
    barriers=frozenset({"sync_threads", "syncthreads"}),
    shared_static_attrs=frozenset({("address_space", "shared")}),
    raw_pointer_params=True,
    source="NVlabs/cuda-oxide",
)
