"""CubeCL (tracel-ai/cubecl): ``#[cube(launch)]`` / ``#[cube(launch_unchecked)]`` kernels.

``#[cube(launch)]`` generates ``k::launch::<..>(&client, CubeCount, CubeDim, args..)`` in
checked mode: out-of-bounds reads give zero and out-of-bounds writes are dropped;
``launch_unchecked`` generates ``unsafe fn launch_unchecked`` without those checks.
Positions (cubecl-core frontend/topology.rs): ``ABSOLUTE_POS`` (linear in the whole
launch), ``ABSOLUTE_POS_X/Y/Z``, ``UNIT_POS`` (linear in the cube), ``UNIT_POS_X/Y/Z``,
``CUBE_POS`` (linear cube index), ``CUBE_POS_X/Y/Z``, ``CUBE_DIM(_X/Y/Z)``,
``CUBE_COUNT(_X/Y/Z)``. Barrier: ``sync_cube()`` (formerly ``sync_units()``); shared
memory: ``SharedMemory::<F>::new(n)``. ``comptime!(..)`` runs on the host while the kernel
is expanded; ``terminate!()`` ends the unit; ``debug_print!`` prints on the device.
``ABSOLUTE_POS`` is one-to-one over the launch for any cube count and dimension
(cubecl-core runtime_tests/topology.rs); ``CubeDim::default()`` is 16 x 16 x 1.
"""

from offload_ls.analysis.ecosystems import Index, IndexKind, Profile
from offload_ls.analysis.model import Ecosystem, LaunchForm


def _XYZ(kind: IndexKind, fmt: str) -> dict[str, Index]:  # noqa: N802 - names in capitals
    return {fmt.format(d.upper()): Index(kind, d) for d in "xyz"}


PROFILE = Profile(
    name="cubecl",
    ecosystem=Ecosystem.CUBECL,
    title="CubeCL",
    crate_roots=frozenset({"cubecl", "cubecl_core", "burn_cubecl"}),
    index_consts={
        "ABSOLUTE_POS": Index("glin"), **_XYZ("gid", "ABSOLUTE_POS_{}"),
        "UNIT_POS": Index("lid"), **_XYZ("tid", "UNIT_POS_{}"),
        "CUBE_POS": Index("blin"), **_XYZ("bid", "CUBE_POS_{}"),
        **_XYZ("bdim", "CUBE_DIM_{}"), **_XYZ("gdim", "CUBE_COUNT_{}"),
    },
    barriers=frozenset({"sync_cube", "sync_units", "sync_plane"}),
    shared_types=frozenset({"SharedMemory"}),
    checked_launch=frozenset({"launch"}),
    raw_indexing=True,
    buffer_params="`&Array<T>` / `&mut Array<T>`",
    device_macros=frozenset({"debug_print"}),
    host_macros=frozenset({"comptime"}),
    # cubecl-macros: a `#[comptime]` parameter is expanded into the kernel's definition on
    # the host (tracel-ai/cubecl crates/cubecl-core/src/runtime_tests/constants.rs)
    host_param_attrs=frozenset({"comptime"}),
    exits=frozenset({"terminate"}),
    launch_methods=frozenset({"launch", "launch_unchecked"}),
    unchecked_index_methods=frozenset({"index_unchecked", "index_assign_unchecked"}),
    device_fn_attrs=frozenset({"cube"}),
    default_block=(16, 16, 1),
    device_build="`#[cube]` code is expanded into CubeCL's IR",
    launch_forms=frozenset({LaunchForm.CUBE}),
    arg_wrappers=frozenset({"ScalarArg"}),
    handle_args=frozenset({"ArrayArg", "TensorArg"}),
    source="tracel-ai/cubecl crates/cubecl-core/src/frontend/topology.rs, cubecl-macros",
)
