"""heap_owning_kernel_arg: a kernel parameter's type owns or hides host heap memory.

``Vec<T>``, ``String``, ``Box<T>``, ``Rc<T>`` / ``Arc<T>``, ``HashMap`` and the other std
collections, and trait objects (``&dyn Trait``, ``Box<dyn Trait>``) — by value, behind a
reference or pointer, or nested (``Option<Box<T>>``, ``[Vec<f32>; 4]``) — are not flat data.
rustc's offload host pass maps a kernel argument by its type: it copies
``size_of::<T>()`` bytes of the value (docs/offload-notes.md, "What the host pass
copies"), which for a ``Vec`` is the pointer/capacity/length header, not the elements; on
the device that pointer is a host address. A trait object's size is unknown at compile time
and its vtable holds host code addresses.

Types are recognised on the syntax tree (grammars/rust/heap_types.scm): a bare name, or a
path rooted at ``std`` / ``alloc``. A bare name imported from another crate
(``use heapless::Vec;``, a fixed-capacity inline vector) is not flagged, nor is a parameter the
host consumes while it builds the kernel (CubeCL ``#[comptime] table: Vec<u32>``, the
ecosystem profile's ``host_param_attrs``).
"""

from __future__ import annotations

from collections.abc import Iterator

from tree_sitter import Node

from offload_ls.analysis.context import FileContext
from offload_ls.analysis.model import Finding, Kernel, Level, Param, Span
from offload_ls.analysis.reads import Fact, Holds
from offload_ls.analysis.rules import Rule
from offload_ls.analysis.std_names import BUFFERS, COLLECTIONS, HEAP_NAMES, POINTERS
from offload_ls.syntax.parse import node_text
from offload_ls.syntax.paths import outermost, path_segments, type_arguments, type_name_node
from offload_ls.syntax.queries import matches

NAME = "heap_owning_kernel_arg"

#: Roots of paths that name std's heap types (``std::vec::Vec``, ``alloc::boxed::Box``).
STD_ROOTS = frozenset({"std", "alloc"})
_BYTE_STRINGS = frozenset({"String", "CString", "OsString", "PathBuf"})
#: What the fixed-size part of a buffer type holds (std's layout: ``CString`` is a
#: ``Box<[u8]>``, ``VecDeque`` a ring buffer); the others are a ``Vec`` inside.
_HEADER = {"CString": "pointer, length", "VecDeque": "pointer, capacity, head, length"}


def nearest_indirection(node: Node, stop: Node) -> str | None:
    """The kind of the innermost reference/pointer around ``node`` inside type ``stop``:
    ``"&"``, ``"&mut"``, ``"*const"``, ``"*mut"``, or ``None`` (held by value)."""
    n = node.parent
    while n is not None and n.start_byte >= stop.start_byte and n.end_byte <= stop.end_byte:
        if n.type in ("reference_type", "pointer_type"):
            mutable = any(c.type == "mutable_specifier" for c in n.children)
            if n.type == "reference_type":
                return "&mut" if mutable else "&"
            return "*mut" if mutable else "*const"
        if n == stop:
            break
        n = n.parent
    return None


def shadowed_names(root: Node) -> set[str]:
    """Names imported by ``use`` under ``root`` from a root other than std/alloc/core
    (grammars/rust/use_imports.scm)."""
    names = set()
    for _, caps in matches("use_imports", root):
        if "use_name" in caps and "use_path" in caps:
            first = path_segments(caps["use_path"][0])[0]
            if first not in STD_ROOTS | {"core"}:  # another crate, or the user's own `crate::..`
                names.add(node_text(caps["use_name"][0]))
    return names


def heap_nodes(root: Node, shadowed: set[str] | frozenset[str] | None = None) -> list[Node]:
    """Every heap-owning or trait-object type node under ``root`` (see module docstring).

    Args:
        shadowed: names ``use``-imported from other crates anywhere in the file; read from
            ``root`` (:func:`shadowed_names`) when omitted, i.e. ``root`` is the whole file.
    """
    if shadowed is None:
        shadowed = shadowed_names(root)
    out = []
    for _, caps in matches("heap_types", root):
        if "heap" not in caps:
            continue
        node = caps["heap"][0]
        parent = node.parent
        if node.type == "type_identifier" and parent is not None and (
            parent.type == "scoped_type_identifier"
            or (parent.type == "generic_type" and parent.child_by_field_name("type") == node)
        ):
            continue  # the name inside `std::vec::Vec` / `Vec<T>`: judged with its whole type
        if "dyn" not in caps:
            segments = path_segments(type_name_node(node))
            if len(segments) == 1 and segments[0] in shadowed:
                continue
            if len(segments) > 1 and segments[0] not in STD_ROOTS:
                continue
        out.append(node)
    return out


def may_hold_heap_type(type_text: str) -> bool:
    """Whether a type written ``type_text`` can contain a node :func:`heap_nodes` reports:
    every one contains one of :data:`HEAP_NAMES` or ``dyn`` in its text."""
    return "dyn" in type_text or any(name in type_text for name in HEAP_NAMES)


def _ref_for(indirection: str | None) -> str:
    return "&mut " if indirection in ("&mut", "*mut") else "&"


def _heap_name(node: Node) -> str | None:
    """The heap type's name if ``node`` is one (``Vec<f32>`` -> ``"Vec"``), else ``None``."""
    if node.type not in ("generic_type", "type_identifier", "scoped_type_identifier"):
        return None
    segments = path_segments(type_name_node(node))
    if len(segments) > 1 and segments[0] not in STD_ROOTS:
        return None
    name = segments[-1]
    return name if name in BUFFERS | POINTERS | COLLECTIONS else None


def _flat_text(node: Node) -> str | None:
    """``node``'s text, or its flat equivalent where it is itself a heap type."""
    return flat_equivalent(node) if _heap_name(node) else node_text(node)


def flat_equivalent(node: Node) -> str | None:
    """Flat data standing in for heap type ``node``: ``Vec<f32>`` -> ``[f32; N]``,
    ``String`` -> ``[u8; N]``, ``Box<T>`` -> ``T``, ``Box<[T]>`` -> ``[T; N]``,
    ``HashMap<K, V>`` -> ``[(K, V); N]``, recursively (``Box<Vec<f32>>`` -> ``[f32; N]``);
    ``None`` for trait objects."""
    if node.type == "dynamic_type":
        return None
    name = path_segments(type_name_node(node))[-1]
    args = type_arguments(node)
    if name in _BYTE_STRINGS:
        return "[u8; N]"
    if name in BUFFERS:
        elem = _flat_text(args[0]) if args else "T"
        return None if elem is None else f"[{elem}; N]"
    if name in POINTERS:
        target = args[0] if args else None
        if target is None:
            return "T"
        if target.type == "dynamic_type":
            return None
        if target.type == "array_type" and target.child_by_field_name("length") is None:
            elem = target.child_by_field_name("element")
            return f"[{node_text(elem) if elem is not None else 'T'}; N]"
        return _flat_text(target)
    entries = [_flat_text(a) for a in args]
    if any(e is None for e in entries):
        return None
    entry = f"({', '.join(entries)})" if len(entries) > 1 else (entries[0] if entries else "T")
    return f"[{entry}; N]"


def _descendants(node: Node) -> list[Node]:
    out, stack = [], list(reversed(node.named_children))
    while stack:
        n = stack.pop()
        out.append(n)
        stack.extend(reversed(n.named_children))
    return out


def suggested_type(param_type: Node, node: Node) -> str | None:
    """``param_type`` with heap type ``node`` replaced by flat data: a heap type held
    directly (``Vec<f32>``, ``&Vec<f32>``, ``&mut Box<[f32]>``) becomes a reference to its
    flat equivalent (``&[f32; N]``, ``&mut [f32; N]``); one nested deeper is replaced in
    place (``&[Box<f32>; 2]`` -> ``&[f32; 2]``). ``None`` for trait objects."""
    flat = flat_equivalent(node)
    if flat is None:
        return None
    if node == param_type:
        return "&" + flat
    parent = node.parent
    if parent == param_type and parent.type in ("reference_type", "pointer_type"):
        return _ref_for(nearest_indirection(node, param_type)) + flat
    src = param_type.text or b""
    start, end = node.start_byte - param_type.start_byte, node.end_byte - param_type.start_byte
    return (src[:start] + flat.encode() + src[end:]).decode("utf-8", errors="replace")


def message(kernel: Kernel, param: Param, node: Node, param_type: Node) -> str:
    """The finding's text for heap type ``node`` inside ``param``'s type node ``param_type``."""
    bad = node_text(node)
    head = f"kernel `{kernel.name}` takes `{param.name}: {param.type_text}`"
    mapped = kernel.ecosystem.runtime_maps_arguments
    dyn = node if node.type == "dynamic_type" else None
    if dyn is not None:
        why = (
            "its size is unknown at compile time and its vtable holds host code addresses, "
            "so the offload runtime cannot copy it"
            if mapped else "its vtable holds host code addresses"
        )
        return (f"{head}: `{bad}` is a trait object, not flat data: {why}; "
                f"take a concrete type (a generic parameter or an enum) instead")
    name = path_segments(type_name_node(node))[-1]
    if name in BUFFERS:
        what, ptrs = "owns a heap buffer", "a host pointer"
        inside = f"({_HEADER.get(name, 'pointer, capacity, length')}), not the elements"
    elif name in POINTERS:
        what, inside, ptrs = "points to host heap memory", "(the pointer), not the value", "a host pointer"
    else:
        what, inside, ptrs = "keeps its entries in host heap memory", "(its header), not the entries", "host pointers"
    if not mapped:
        return (f"{head}: `{bad}` {what}, not flat data: on the device its pointers are host addresses; "
                f"pass the data in a device buffer instead")
    copies = f"the offload runtime copies `size_of::<{bad}>()` bytes {inside}, and the device then dereferences {ptrs}"
    new_type = suggested_type(param_type, node)
    if new_type is None:
        dyns = [n for n in _descendants(node) if n.type == "dynamic_type"]
        shown = node_text(dyns[0]) if dyns else bad
        sugg = f"take a concrete type instead of `{shown}` (a generic parameter or an enum)"
    else:
        sugg = f"pass `{new_type}` instead"
        direct = node == param_type or (node.parent == param_type and param_type.type == "reference_type")
        if direct and name in _BYTE_STRINGS:
            sugg += " (e.g. `s.as_bytes().try_into().unwrap()`)"
        elif direct and name in ("Vec", "VecDeque"):
            conv = "as_mut_slice" if new_type.startswith("&mut ") else "as_slice"
            if name == "Vec":
                sugg += f" (e.g. `v.{conv}().try_into().unwrap()`)"
    return f"{head}: `{bad}` {what}, not flat data: {copies}; {sugg}"


def check(ctx: FileContext) -> Iterator[Finding]:
    if not ctx.kernels:
        return
    shadowed = None
    for kernel in ctx.kernels:
        host_only = ctx.profile(kernel).host_param_attrs
        params = [p for p in kernel.params if may_hold_heap_type(p.type_text) and host_only.isdisjoint(p.attrs)]
        if not params:
            continue
        fn = ctx.fn_node(kernel.fn_start)
        params_node = fn.child_by_field_name("parameters") if fn is not None else None
        if params_node is None:
            continue
        if shadowed is None:
            shadowed = ctx.facts.shadowed_heap  # heap names `use`d anywhere in the file
        nodes = heap_nodes(params_node, shadowed)
        for param in params:
            inside = [n for n in nodes if param.type_span.contains(Span(n.start_byte, n.end_byte))]
            if not inside:
                continue
            type_node = ctx.node(param.type_span)
            if type_node is None:
                continue
            for node in outermost(inside):
                yield Finding(
                    rule=NAME,
                    span=Span(node.start_byte, node.end_byte),
                    message=message(kernel, param, node, type_node),
                )


RULE = Rule(
    name=NAME,
    default_level=Level.DENY,
    summary="kernel parameter owns or hides host heap memory (Vec, String, Box, Rc/Arc, collections, dyn Trait)",
    check=check,
    reads=frozenset({Fact.SEMANTIC, Fact.HEAP_NAMES}),
    needs=Holds.KERNELS,
)
