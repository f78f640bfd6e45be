"""Ecosystem profiles: each GPU-kernel ecosystem's conventions, as data.

One module per ecosystem (``offload``, ``rust_cuda``, ``rust_gpu``, ``cubecl``, ``krnl``,
``cuda_oxide``) exports ``PROFILE``, a :class:`Profile`. Rules ask the profile of a kernel
(:func:`profile_of`) what is idiomatic there instead of naming an ecosystem's functions
themselves: its thread-index vocabulary and what each name means (:class:`Index`), its
barriers, how it spells shared/workgroup memory, whether kernels must be ``unsafe fn``,
whether raw-pointer parameters into explicitly allocated device buffers are the idiom,
whether the runtime copies arguments by their types.

The queries in ``grammars/rust/*.scm`` match the union of every profile's names through
placeholders (``"@@thread_index_fns@@"``) that :func:`query_vocabulary` fills in.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from functools import cache
from typing import Literal

from offload_ls.analysis.model import Ecosystem, LaunchForm

#: What a thread-index name evaluates to (:attr:`Index.kind`).
IndexKind = Literal["tid", "bid", "bdim", "gdim", "gid", "lid", "glin", "blin"]

#: A launch argument made from a host buffer (:attr:`Profile.slice_args`): read-only or
#: written (krnl ``x.as_slice()`` / ``x.as_slice_mut()``).
SliceKind = Literal["slice", "slice_mut"]


@dataclass(frozen=True)
class Index:
    """What a thread-index name evaluates to, per GPU dimension.

    Attributes:
        kind: ``"tid"`` (thread index within its block / workgroup / cube), ``"bid"``
            (block index within the grid), ``"bdim"`` (threads per block), ``"gdim"``
            (blocks per grid), ``"gid"`` (position in the whole launch:
            ``bid * bdim + tid``), ``"lid"`` (linear thread index within the block, all
            dimensions folded in), ``"glin"`` (linear position in the whole launch, all
            dimensions folded in), ``"blin"`` (linear block index).
        dim: ``"x"``, ``"y"`` or ``"z"`` for a per-dimension scalar; ``"*"`` for a vector
            (``UVec3``) whose ``.x`` / ``.y`` / ``.z`` select a dimension (and ``.0`` ..
            ``.2`` of a tuple); ``""`` for the linear kinds.
    """

    kind: IndexKind
    dim: str = ""

    @property
    def varies_across_blocks(self) -> bool:
        """Different blocks see different values (the block index is part of it)."""
        return self.kind in ("bid", "gid", "glin", "blin")

    @property
    def is_position(self) -> bool:
        """Differs between threads (a dimension such as ``bdim`` does not)."""
        return self.kind in ("tid", "bid", "gid", "lid", "glin", "blin")


def _xyz(kind: IndexKind, fmt: str) -> dict[str, Index]:
    """``{fmt.format(d): Index(kind, d)}`` for d in x, y, z."""
    return {fmt.format(d): Index(kind, d) for d in "xyz"}


@dataclass(frozen=True)
class Profile:
    """One ecosystem's conventions.

    Attributes:
        name: directory-style name (``"rust-cuda"``); title: as messages name it
            (``"Rust-CUDA"``); ecosystem: the :class:`Ecosystem`.
        crate_roots: first path segments of ``use`` / attribute paths that identify the
            ecosystem in a file (``cuda_std``, ``cubecl``).
        index_fns: functions (last path segment, called with no argument or as a method
            ``kernel.global_id()``) whose value is a thread index -> what it means.
        index_path_fns: generic names recognised as thread indexes only when called
            through a path with no argument (``Linear1D::index()``, ``thread::index()``).
        index_consts: constants (``ABSOLUTE_POS``) -> what they mean.
        index_params: attribute words on a parameter whose value is a thread index
            (rust-gpu ``#[spirv(global_invocation_id)]``, krnl ``#[builtin]`` names) ->
            meaning.
        barriers: functions that synchronise the threads of a block.
        shared_static_attrs: ``(attribute, word)`` pairs that make a ``static mut``
            shared/workgroup memory (``("address_space", "shared")``).
        shared_param_attrs: attribute words that make a parameter workgroup memory
            (rust-gpu ``#[spirv(workgroup)]``, krnl ``#[group]``).
        shared_types: types / constructors of block-shared memory (``SharedMemory``).
        shared_macros: macros that declare block-shared memory (``shared_array!``).
        kernels_must_be_unsafe: the ecosystem requires kernels to be ``unsafe fn``.
        raw_pointer_params: raw device pointers as kernel parameters are the idiom (the
            host allocates device buffers explicitly and passes their addresses).
        runtime_maps_arguments: the runtime copies kernel arguments by their types
            (rustc offload's host pass: ``&T`` to, ``&mut T`` tofrom).
        device_macros: host-looking macros the ecosystem provides on the device
            (cuda_std ``println!``).
        device_libraries: crates (import roots) that provide host-looking macros on the
            device when a file uses them -> those macros (amdgpu-rs's
            ``amdgpu_device_libs``: ``println!`` through a host call).
        allocator_roots: import roots that show the device crate has an allocator, so the
            ``alloc`` crate's types and ``format!`` / ``vec!`` build (``extern crate alloc``
            in a ``#![no_std]`` kernel crate: without a ``#[global_allocator]`` it does not
            link; ``amdgpu_device_libs`` brings one).
        device_types: host-looking types the ecosystem provides on the device (cuda_std's
            prelude re-exports alloc's ``Vec``).
        core_only_floats: device code has `core`'s floats only (no `x.sqrt()`: std_names.py
            ``STD_FLOAT_METHODS``), as rustc offload's device pass and bare kernel crates do.
        host_param_attrs: parameter attribute words of values the host consumes while it
            builds the kernel, never passed to the device (CubeCL ``#[comptime] data: Vec<u32>``).
        host_macros: macros whose arguments run on the host while the kernel is built
            (CubeCL ``comptime!``): nothing inside them is device code.
        exits: macros that end the thread (CubeCL ``terminate!``), as ``return`` does.
        unchecked_index_methods: methods that index without a bounds check
            (``p.add(i)``, ``s.get_unchecked(i)``, krnl ``y.unsafe_index_mut(i)``).
        mutable_param_types: parameter types (base name) through which a kernel writes
            buffers besides ``&mut`` and ``*mut`` (krnl ``UnsafeSlice<f32>``).
        device_fn_attrs: attributes that make a function device code without making it a
            kernel (CubeCL ``#[cube]``, cuda-oxide ``#[device]``).
        launch_defaults: launch form -> (workgroup dims, thread dims) a launch of that form
            uses when it gives none (``offload!``: ``[1, 1, 1]`` each).
        default_block: thread dims a launch uses when it names none of its own and the
            kernel declares none (CubeCL ``CubeDim::default()`` is 16 x 16 x 1).
        per_thread_param_attrs: parameter attribute words that give each thread its own
            element (krnl ``#[item] y: &mut f32``): writing it is no race.
        per_thread_marker_words: words of the kernel's marker attribute that make each of
            its ``&mut T`` parameters (not a slice) the thread's own element (krnl's older
            ``#[kernel(threads(256), elementwise)] fn k(y: &mut u64)``).
        launch_forms: the launch forms (analysis/launches/ ``Launch.form``) that launch
            this ecosystem's kernels; ``args_per_slice``: how many launch arguments a slice
            parameter takes (cust's ``launch!``: pointer and length).
        arg_wrappers: launch-argument constructors whose only argument is the value passed
            (CubeCL ``ScalarArg::new(v)``), by the path before ``::new``.
        handle_args: launch-argument constructors whose first argument is the buffer's
            handle (CubeCL ``ArrayArg::from_raw_parts(&h, ..)``), by type name.
        slice_args: methods making a launch argument from a host buffer -> ``"slice"`` or
            ``"slice_mut"`` (krnl ``x.as_slice()`` / ``x.as_slice_mut()``), and
            ``slice_types`` the types of such values (``Slice`` / ``SliceMut``).
        device_pointer_methods: methods giving a device pointer whose mutability the syntax
            does not say (cust ``buf.as_device_ptr()``).
        checked_launch: kernel attribute words whose launches turn out-of-bounds accesses
            into no-ops (CubeCL ``#[cube(launch)]``).
        raw_indexing: ``x[i]`` has no bounds check in kernels outside ``checked_launch``
            (CubeCL ``#[cube(launch_unchecked)]``: an out-of-bounds index reads or writes
            out of bounds, it does not panic).
        launch_methods: method names on a kernel's path that launch it
            (CubeCL ``k::launch``).
        buffer_params: the parameter types a kernel takes buffers as, for advice
            (``"`&[T; N]` / `&mut [T; N]`"``); empty: ``"`&[T]` / `&mut [T]`"``.
        device_build: how the ecosystem builds device code, as messages say it (rustc
            offload: ``"the device pass builds with `core` only (`-Zbuild-std=core`)"``);
            empty: ``"<title> device code is built without `std`"``.
        bounded_index_fns: index methods of the ``kernel`` argument whose value is always
            below a count the runtime dispatches exactly (krnl ``kernel.item_id()`` runs
            ``0..kernel.items()``, one per element of the ``#[item]`` buffers) -> that count's
            expression: a guard every use of the index is under.
        source: where these facts come from.
    """

    name: str
    ecosystem: Ecosystem
    title: str = ""
    crate_roots: frozenset[str] = frozenset()
    index_fns: dict[str, Index] = field(default_factory=dict)
    index_path_fns: dict[str, Index] = field(default_factory=dict)
    index_consts: dict[str, Index] = field(default_factory=dict)
    index_params: dict[str, Index] = field(default_factory=dict)
    barriers: frozenset[str] = frozenset()
    shared_static_attrs: frozenset[tuple[str, str]] = frozenset()
    shared_param_attrs: frozenset[str] = frozenset()
    shared_types: frozenset[str] = frozenset()
    shared_macros: frozenset[str] = frozenset()
    kernels_must_be_unsafe: bool = False
    raw_pointer_params: bool = False
    runtime_maps_arguments: bool = False
    device_macros: frozenset[str] = frozenset()
    device_libraries: dict[str, frozenset[str]] = field(default_factory=dict)
    allocator_roots: frozenset[str] = frozenset()
    device_types: frozenset[str] = frozenset()
    host_macros: frozenset[str] = frozenset()
    host_param_attrs: frozenset[str] = frozenset()
    core_only_floats: bool = False
    exits: frozenset[str] = frozenset()
    unchecked_index_methods: frozenset[str] = frozenset()
    per_thread_param_attrs: frozenset[str] = frozenset()
    per_thread_marker_words: frozenset[str] = frozenset()
    mutable_param_types: frozenset[str] = frozenset()
    device_fn_attrs: frozenset[str] = frozenset()
    launch_forms: frozenset[LaunchForm] = frozenset()
    args_per_slice: int = 1
    arg_wrappers: frozenset[str] = frozenset()
    handle_args: frozenset[str] = frozenset()
    slice_args: dict[str, SliceKind] = field(default_factory=dict)
    slice_types: dict[str, SliceKind] = field(default_factory=dict)
    device_pointer_methods: frozenset[str] = frozenset()
    launch_defaults: dict[LaunchForm, tuple[tuple[int, ...], tuple[int, ...]]] = field(default_factory=dict)
    default_block: tuple[int, ...] | None = None
    checked_launch: frozenset[str] = frozenset()
    raw_indexing: bool = False
    launch_methods: frozenset[str] = frozenset()
    buffer_params: str = ""
    device_build: str = ""
    bounded_index_fns: dict[str, str] = field(default_factory=dict)
    source: str = ""

    def built(self) -> str:
        """How device code is built, for messages (:attr:`device_build`)."""
        return self.device_build or f"{self.title} device code is built without `std`"

    def index_of(self, name: str) -> Index | None:
        """Meaning of a thread-index function or constant called ``name``."""
        return self.index_fns.get(name) or self.index_consts.get(name) or self.index_path_fns.get(name)


_MODULES = ("offload", "rust_cuda", "rust_gpu", "cubecl", "krnl", "cuda_oxide", "ptx_kernel")


@cache
def profiles() -> dict[Ecosystem, Profile]:
    """Ecosystem -> profile (every module of this package)."""
    out: dict[Ecosystem, Profile] = {}
    for mod in _MODULES:
        p: Profile = importlib.import_module(f"{__name__}.{mod}").PROFILE
        out[p.ecosystem] = p
    out.setdefault(Ecosystem.GPU_KERNEL_ABI, out[Ecosystem.OFFLOAD])
    return out


def profile(ecosystem: Ecosystem) -> Profile:
    """The profile of ``ecosystem`` (a bare ``extern "gpu-kernel"`` fn: std offload's)."""
    return profiles()[ecosystem]


#: ``#[kernel]`` is spelled the same in Rust-CUDA, krnl and cuda-oxide: the crate the file
#: (or the crate) imports decides. Checked in this order; Rust-CUDA otherwise.
_KERNEL_ATTR_OWNERS = (Ecosystem.KRNL, Ecosystem.CUDA_OXIDE, Ecosystem.CUDA)


def resolve_kernel_attr(roots: frozenset[str]) -> Ecosystem:
    """The ecosystem of a ``#[kernel]`` function in a file whose ``use`` / attribute paths
    start with ``roots`` (first path segments)."""
    for eco in _KERNEL_ATTR_OWNERS:
        if profile(eco).crate_roots & roots:
            return eco
    return Ecosystem.CUDA


#: Query placeholders filled from the profiles' thread-index tables: (placeholder for every
#: position name, placeholder for those that differ between blocks) per table.
_VOCABULARY_TABLES = {
    "index_fns": ("thread_index_fns", "global_index_fns"),
    "index_path_fns": ("thread_index_path_fns", "global_index_path_fns"),
    "index_consts": ("thread_index_consts", "global_index_consts"),
    "index_params": ("index_param_words", "global_param_words"),
}


@cache
def query_vocabulary() -> dict[str, str]:
    """Placeholder -> the quoted, space-separated names it stands for in the ``.scm``
    queries: per thread-index table (:data:`_VOCABULARY_TABLES`) the position names, and
    those that differ between blocks; and ``unchecked_index_methods``."""
    names: dict[str, set[str]] = {ph: set() for pair in _VOCABULARY_TABLES.values() for ph in pair}
    for p in profiles().values():
        for table, (every, across_blocks) in _VOCABULARY_TABLES.items():
            for name, ix in getattr(p, table).items():
                if ix.is_position:
                    names[every].add(name)
                    if ix.varies_across_blocks:
                        names[across_blocks].add(name)
    names["unchecked_index_methods"] = set(union("unchecked_index_methods"))
    return {ph: " ".join(f'"{n}"' for n in sorted(v)) for ph, v in names.items()}


def union(attr: str) -> frozenset:
    """The union of one set-valued (or dict-valued: its keys) field over every profile."""
    out: set = set()
    for p in profiles().values():
        out |= set(getattr(p, attr))
    return frozenset(out)


def for_form(form: LaunchForm) -> Profile | None:
    """The profile of the ecosystem a launch form launches (``None``: std offload's forms,
    which may name any function)."""
    for p in profiles().values():
        if form in p.launch_forms:
            return p
    return None


__all__ = ["Index", "IndexKind", "Profile", "SliceKind", "profile", "profiles", "resolve_kernel_attr",
           "query_vocabulary", "_xyz"]
