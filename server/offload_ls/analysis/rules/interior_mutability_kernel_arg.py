"""interior_mutability_kernel_arg: a kernel parameter reaches a ``Cell``-like type through
a shared reference (``&Cell<f32>``, ``&[Cell<u32>; N]``, ``&RefCell<T>``, ``*const Cell<T>``).

Interior mutability lets the kernel write through ``&``. But rustc's offload host pass maps
a ``&T`` (and ``*const T``) argument to the device only (map type TO, no FROM:
docs/offload-notes.md, "What the host pass copies"), so those writes never reach
the host. ``Cell``, ``RefCell``, ``UnsafeCell``, ``OnceCell`` and ``LazyCell`` are not
``Sync``: every GPU thread holding the same one is a data race, which the kernel ABI does
not check. (rustc does not mark such a parameter ``noalias readonly``: a type containing
``UnsafeCell`` is not ``Freeze``; checked with rustc 1.95 ``--emit=llvm-ir``.)

Atomics (``AtomicU32``, ..) are not flagged: they are how GPU threads share a counter.
Through ``&mut`` / ``*mut`` (mapped both ways), by value (one copy per thread) or behind a
nested reference (``&mut [&Cell<u8>; 2]``: the inner reference is a host address, not
mapped) nothing is flagged. Outside rustc offload (Rust-CUDA, ..) only the data race is reported, for
the non-``Sync`` cells other than ``UnsafeCell`` (the deliberate primitive of code that
synchronises itself: old krnl kernels take ``&[UnsafeCell<u32>]``).
"""

from __future__ import annotations

from collections.abc import Iterator

from tree_sitter import Node

from offload_ls.analysis.context import FileContext
from offload_ls.analysis.model import Finding, Kernel, Level, Param, Span
from offload_ls.analysis.reads import Fact, Holds
from offload_ls.analysis.rules import Rule
from offload_ls.syntax.parse import node_text
from offload_ls.syntax.paths import outermost, path_segments, type_arguments, type_name_node
from offload_ls.syntax.queries import captures

NAME = "interior_mutability_kernel_arg"

#: Cell types that are not ``Sync`` (core::cell): sharing one between threads is a data race.
NOT_SYNC = frozenset({"Cell", "RefCell", "UnsafeCell", "OnceCell", "LazyCell"})
#: Roots of a qualified path that name the std/core types (``core::cell::Cell``).
ROOTS = frozenset({"std", "core", "alloc"})
#: Every name grammars/rust/interior_mutability.scm matches: a type whose text holds none
#: of these holds no cell.
CELL_NAMES = NOT_SYNC | {"SyncUnsafeCell", "Mutex", "RwLock", "OnceLock", "LazyLock"}


def _cells_in(root: Node) -> list[Node]:
    out = []
    for node in captures("interior_mutability", root).get("cell", []):
        segments = path_segments(type_name_node(node))
        if len(segments) > 1 and segments[0] not in ROOTS:
            continue
        out.append(node)
    return out


def _indirection(cell: Node, param_type: Node) -> Node | None:
    """The innermost reference/pointer type around ``cell`` within ``param_type``."""
    n = cell.parent
    while n is not None and param_type.start_byte <= n.start_byte and n.end_byte <= param_type.end_byte:
        if n.type in ("reference_type", "pointer_type"):
            return n
        n = n.parent
    return None


def suggestion(ref: Node, cell: Node) -> str:
    """What to pass instead of reference/pointer type ``ref`` around ``cell``: the cell
    unwrapped and ``&`` made ``&mut`` (``&[Cell<u32>; N]`` -> ``&mut [u32; N]``); a lone
    value becomes one element per thread (``&Cell<f32>`` -> ``&mut [f32; N]``)."""
    args = type_arguments(cell)
    inner = node_text(args[0]) if args else "T"
    pointee = ref.child_by_field_name("type")
    if pointee is None:
        return f"&mut {inner}"
    if pointee == cell:
        return f"&mut {inner}" if args and args[0].type == "array_type" else f"&mut [{inner}; N]"
    src = pointee.text or b""
    start, end = cell.start_byte - pointee.start_byte, cell.end_byte - pointee.start_byte
    return "&mut " + (src[:start] + inner.encode() + src[end:]).decode("utf-8", errors="replace")


def message(kernel: Kernel, param: Param, cell: Node, ref: Node) -> str | None:
    """The finding's text for ``cell`` reached through ``ref`` (``param``'s type, a ``&`` /
    ``*const`` type), or ``None`` when nothing applies (see the module docstring)."""
    text = node_text(cell)
    name = path_segments(type_name_node(cell))[-1]
    head = f"kernel `{kernel.name}` takes `{param.name}: {param.type_text}`"
    race = (
        f"every GPU thread gets this same reference although `{name}` is not `Sync` "
        f"(a data race if threads write the same cell)"
        if name in NOT_SYNC else None
    )
    if not kernel.ecosystem.runtime_maps_arguments:
        # the buffer is the device's own: the race is the finding; not for `UnsafeCell`, the
        # deliberate primitive of code that synchronises itself (old krnl kernels take
        # `&[UnsafeCell<u32>]` and let one thread write)
        if name == "UnsafeCell":
            return None
        return f"{head}: {race}" if race else None
    kind = "*const" if ref.type == "pointer_type" else "&"
    lost = (
        f"`{text}` allows writes through a shared reference, but a `{kind}` argument is mapped "
        f"to the device only, so those writes never reach the host"
    )
    also = f", and {race}" if race else ""
    return f"{head}: {lost}{also}; pass `{suggestion(ref, cell)}` instead"


def check(ctx: FileContext) -> Iterator[Finding]:
    for kernel in ctx.kernels:
        params = [p for p in kernel.params if any(name in p.type_text for name in CELL_NAMES)]
        if not params:
            continue
        fn = ctx.fn_node(kernel.fn_start)
        params_node = fn.child_by_field_name("parameters") if fn is not None else None
        if params_node is None:
            continue
        cells = _cells_in(params_node)
        for param in params:
            inside = [c for c in cells if param.type_span.contains(Span(c.start_byte, c.end_byte))]
            type_node = ctx.node(param.type_span) if inside else None
            if type_node is None:
                continue
            for cell in outermost(inside):
                ref = _indirection(cell, type_node)
                if ref != type_node or any(c.type == "mutable_specifier" for c in ref.children):
                    # by value (one copy per thread), `&mut` / `*mut` (mapped back), or behind
                    # a nested reference (`[&Cell<u8>; 2]`), whose mapping the host pass does not define
                    continue
                text = message(kernel, param, cell, ref)
                if text is not None:
                    yield Finding(rule=NAME, span=Span(cell.start_byte, cell.end_byte), message=text)


RULE = Rule(
    name=NAME,
    default_level=Level.WARN,
    summary="kernel parameter writes through `&` via Cell/RefCell/..: "
            "the writes never reach the host, and threads race",
    check=check,
    reads=frozenset({Fact.SEMANTIC}),
    needs=Holds.KERNELS,
)
