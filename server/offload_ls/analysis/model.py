"""Plain data produced by the analysis layer. All ranges are UTF-8 byte offsets
``[start, end)`` into the file's bytes."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Literal


@dataclass(frozen=True, order=True)
class Span:
    """Half-open UTF-8 byte range ``[start, end)``."""

    start: int
    end: int

    def contains(self, other: "Span") -> bool:
        return self.start <= other.start and other.end <= self.end


class Ecosystem(str, enum.Enum):
    """How a kernel is marked, i.e. which compiler/runtime launches it."""

    OFFLOAD = "std-offload"          # rustc -Zoffload: #[offload_kernel], #[rustc_offload_kernel]
    GPU_KERNEL_ABI = "gpu-kernel-abi"  # extern "gpu-kernel" fn, no attribute (rustc offload's ABI)
    PTX_KERNEL = "ptx-kernel"        # extern "ptx-kernel"/"amdgpu-kernel" fn: launched through the driver API
    CUDA = "rust-cuda"               # #[kernel] with cuda_std (Rust-CUDA)
    RUST_GPU = "rust-gpu"            # #[spirv(compute(threads(..)))]
    CUBECL = "cubecl"                # #[cube(launch)] / #[cube(launch_unchecked)]
    KRNL = "krnl"                    # #[kernel] in a krnl #[module]
    CUDA_OXIDE = "cuda-oxide"        # #[kernel] with cuda-oxide's device crate

    @property
    def runtime_maps_arguments(self) -> bool:
        """True where the offload runtime copies arguments according to their types
        (rustc's host pass emits the map types); elsewhere host code copies explicitly."""
        return self in (Ecosystem.OFFLOAD, Ecosystem.GPU_KERNEL_ABI)


class Transfer(str, enum.Enum):
    """What the offload host pass copies for one kernel argument.

    Source: rustc's offload host pass map types, measured with rustc 1.96 and recorded in
    docs/offload-notes.md ("What the host pass copies").
    """

    TO = "to"              # host -> device before the launch (map type TO)
    TOFROM = "tofrom"      # to the device and back after the launch (TO | FROM)
    BY_VALUE = "by value"  # passed as a kernel argument (LITERAL), nothing copied
    UNKNOWN = "unknown"    # type not understood, or the ecosystem copies explicitly

    @property
    def arrow(self) -> str:
        return {"to": "→", "tofrom": "⇄", "by value": "=", "unknown": "?"}[self.value]


#: What a kernel parameter's type is (analysis/transfer.py ``type_shape``, :attr:`Param.kind`):
#: a shared / mutable reference or pointer, a primitive scalar, a ``core::offload::Region``,
#: anything else.
ParamKind = Literal["ref", "mut_ref", "const_ptr", "mut_ptr", "scalar", "region", "other"]


@dataclass(frozen=True)
class Param:
    """One kernel parameter.

    Attributes:
        name: pattern text (``x``, ``_``, ``mut y``).
        type_text: the type as written (``&mut [f32; N]``).
        span: the whole ``name: type``; type_span: just the type.
        transfer: what the type implies (see :class:`Transfer`).
        kind: ``"ref"``, ``"mut_ref"``, ``"const_ptr"``, ``"mut_ptr"``, ``"scalar"``,
            ``"region"``, ``"other"`` (:data:`ParamKind`).
        pointee: type text behind a reference or pointer (``[f32; N]``), else ``None``.
        elem_bytes: for a pointer/reference to one primitive scalar (``*mut f32``), its size
            in bytes; else ``None``.
        attrs: the words of the attributes written before the parameter (``#[item]`` ->
            ``("item",)``, ``#[spirv(workgroup)]`` -> ``("spirv", "workgroup")``).
    """

    name: str
    type_text: str
    span: Span
    type_span: Span
    transfer: Transfer
    kind: ParamKind
    pointee: str | None = None
    elem_bytes: int | None = None
    attrs: tuple[str, ...] = ()


@dataclass(frozen=True)
class Kernel:
    """A GPU kernel function found in the file.

    Attributes:
        name: function name; ecosystem: how it is marked; marker: the attribute or ABI text
        that marks it (``#[rustc_offload_kernel]``, ``extern "gpu-kernel"``).
        span: from the first attribute to the end of the function; name_span: the name.
        body_span: the ``{ .. }`` block (``None`` for a declaration).
        params: parameters in order. is_unsafe_fn: declared ``unsafe fn``.
        unsafe_span: the ``unsafe`` keyword of an ``unsafe fn`` (``None`` otherwise).
        fn_start: byte offset of the ``function_item`` node (attributes excluded).
        declared_dims: threads per block the kernel's attribute declares (rust-gpu
            ``threads(64, 4)``, krnl ``threads(256)``), as constant expressions
            (analysis/consts.py), ``None`` when it declares none.
        launched: found because a launch names it, not by a marker (rustc's own offload
            tests launch unmarked functions).
        generics: the names of its type and const generic parameters.
        generic_bounds: per type parameter (lifetimes and const generics left out), the
            last path segments of its trait bounds, without their generic arguments
            (``N: Size`` -> ``("Size",)``; ``T`` -> ``()``).
    """

    name: str
    ecosystem: Ecosystem
    marker: str
    span: Span
    name_span: Span
    body_span: Span | None
    params: tuple[Param, ...]
    is_unsafe_fn: bool = False
    unsafe_span: Span | None = None
    fn_start: int = 0
    declared_dims: tuple | None = None
    launched: bool = False
    generics: tuple[str, ...] = ()
    generic_bounds: tuple[tuple[str, ...], ...] = ()


@dataclass(frozen=True)
class LaunchArg:
    """One argument expression at a launch site (text and byte span in the file)."""

    text: str
    span: Span


class LaunchForm(enum.StrEnum):
    """How a launch is written (:attr:`Launch.form`); compares equal to its value
    (``"offload!"``) and formats as it."""

    #: ``offload! { kernel = k, .. }``
    OFFLOAD_MACRO = "offload!"
    #: ``core::intrinsics::offload(k, ..)``
    OFFLOAD_CALL = "offload()"
    #: Rust-CUDA ``launch!(module.k<<<..>>>(..))``
    RUST_CUDA = "launch!"
    #: cuda-oxide ``cuda_launch! { kernel: k, .. }``
    CUDA_OXIDE = "cuda_launch!"
    #: CubeCL ``k::launch`` / ``k::launch_unchecked``
    CUBE = "cube"
    #: krnl ``k::builder()..dispatch(..)``
    KRNL = "krnl"
    #: a wgpu pipeline's ``entry_point`` naming a rust-gpu shader (a name only)
    WGPU = "wgpu"

    @property
    def offload(self) -> bool:
        """Is this std offload's form (``offload!`` or ``core::intrinsics::offload``), which
        may name any function?"""
        return self in (LaunchForm.OFFLOAD_MACRO, LaunchForm.OFFLOAD_CALL)


@dataclass(frozen=True)
class Launch:
    """A kernel launch site.

    Attributes:
        form: how it is written (:class:`LaunchForm`): ``"offload!"``, ``"offload()"``
            (``core::intrinsics::offload``), ``"launch!"`` (Rust-CUDA), ``"cuda_launch!"``
            (cuda-oxide), ``"cube"`` (CubeCL ``k::launch`` / ``k::launch_unchecked``),
            ``"krnl"`` (krnl ``k::builder()..dispatch(..)``) or ``"wgpu"``.
        kernel: the kernel's name as written (last path segment), ``None`` if not found.
        kernel_span: span of that name. span: the whole macro/call.
        args: the kernel arguments in order.
        workgroup_dim / thread_dim: per-dimension literal values (``None`` where a dimension
            is not an integer literal); ``None`` when the launch gives no dimensions.
        workgroup_dim_span / thread_dim_span: spans of those expressions.
        arity: number of arguments of the ``offload`` intrinsic call (2, 4, 5 or 6), else 0.
        workgroup_expr / thread_expr: each dimension as a constant expression
            (analysis/consts.py; a local ``let`` followed to its value), for folding with
            the crate's constants; ``None`` where the launch gives no dimensions.
        fields: ``offload!``'s fields in order, as (name, span of the name).
        device_span / device_expr: ``offload!``'s ``device = ..`` value.
        has_args: the launch gives its argument list (``offload!`` without ``args`` does not).
    """

    form: LaunchForm
    kernel: str | None
    kernel_span: Span | None
    span: Span
    args: tuple[LaunchArg, ...]
    workgroup_dim: tuple[int | None, ...] | None = None
    thread_dim: tuple[int | None, ...] | None = None
    workgroup_dim_span: Span | None = None
    thread_dim_span: Span | None = None
    arity: int = 0
    workgroup_expr: tuple | None = None
    thread_expr: tuple | None = None
    fields: tuple[tuple[str, Span], ...] = ()
    device_span: Span | None = None
    device_expr: tuple | None = None
    has_args: bool = True

    @property
    def total_threads(self) -> int | None:
        """Product of all literal dimensions, ``None`` unless every one is a literal."""
        if not self.workgroup_dim or not self.thread_dim:
            return None
        total = 1
        for d in (*self.workgroup_dim, *self.thread_dim):
            if d is None:
                return None
            total *= d
        return total


class Level(str, enum.Enum):
    """A rule's level, as in rustc/clippy: ``allow`` (off), ``warn``, ``deny`` (error)."""

    ALLOW = "allow"
    WARN = "warn"
    DENY = "deny"


@dataclass(frozen=True)
class Edit:
    """Replace ``span`` of the file with ``new_text``."""

    span: Span
    new_text: str


@dataclass(frozen=True)
class Fix:
    """A quick fix: a title and edits to apply together."""

    title: str
    edits: tuple[Edit, ...]


@dataclass(frozen=True)
class Related:
    """A secondary location with a message (LSP relatedInformation, SARIF relatedLocations)."""

    span: Span
    message: str


@dataclass(frozen=True)
class RuleFailure:
    """A rule that raised on (a unit of) a file: its findings are missing for the file.

    Attributes:
        rule: the rule's name. error: ``"<ExceptionType>: <text>"`` (text cut at 200
        characters). traceback: the formatted traceback (for ``--verbose`` and logs).
    """

    rule: str
    error: str
    traceback: str = field(default="", compare=False, repr=False)

    @property
    def message(self) -> str:
        return f"rule {self.rule} failed; its findings are missing for this file ({self.error})"


@dataclass(frozen=True)
class Finding:
    """One lint result. ``level`` is the rule's effective level after configuration.

    ``source`` says who found it: ``"offload-ls"`` for the lint rules; compiler findings
    merged by ``offload-ls check --compile`` carry the pass, e.g.
    ``"offload-ls(device nvptx64 sm_90)"``.
    """

    rule: str
    span: Span
    message: str
    level: Level = Level.WARN
    fixes: tuple[Fix, ...] = ()
    related: tuple[Related, ...] = field(default=())
    source: str = "offload-ls"
