"""What a kernel parameter's type implies for host<->device transfers.

Source: the map types rustc's offload host pass emits (rustc_codegen_llvm
src/builder/gpu_offload.rs), measured with rustc 1.96 in docs/offload-notes.md:
``&T`` -> TO, ``&mut T`` -> TO|FROM, ``*const T`` -> TO, ``*mut T`` -> TO|FROM,
scalars -> LITERAL (by value, widened to i64). A pointer to one scalar (``*mut f32``)
maps ``size_of::<f32>()`` bytes: one element.
"""

from __future__ import annotations

from functools import lru_cache

from tree_sitter import Node

from offload_ls.analysis.model import Ecosystem, Param, ParamKind, Span, Transfer
from offload_ls.syntax.parse import node_text, parse_type

#: Size in bytes of Rust's primitive scalar types (the Rust Reference, "Primitive
#: representations"; usize/isize assume a 64-bit target, as nvptx64 and amdgcn are).
SCALAR_BYTES: dict[str, int] = {
    "u8": 1, "i8": 1, "bool": 1,
    "u16": 2, "i16": 2, "f16": 2,
    "u32": 4, "i32": 4, "f32": 4, "char": 4,
    "u64": 8, "i64": 8, "f64": 8, "usize": 8, "isize": 8,
    "u128": 16, "i128": 16, "f128": 16,
}


def classify_param(param: Node, ecosystem: Ecosystem) -> Param:
    """Build a :class:`Param` from a tree-sitter ``parameter`` node.

    Args:
        param: a ``parameter`` node (``pattern: type``).
        ecosystem: the kernel's ecosystem; outside rustc offload the runtime does not map
            arguments by type, so ``transfer`` is ``UNKNOWN`` there.
    """
    pattern = param.child_by_field_name("pattern")
    type_node = param.child_by_field_name("type")
    name = node_text(pattern) if pattern is not None else "_"
    if type_node is None:  # broken parameter in a file with syntax errors
        span = Span(param.start_byte, param.end_byte)
        return Param(name, "", span, span, Transfer.UNKNOWN, "other")
    kind, pointee, elem_bytes = type_shape(type_node)
    transfer = {
        "ref": Transfer.TO,
        "const_ptr": Transfer.TO,
        "mut_ref": Transfer.TOFROM,
        "mut_ptr": Transfer.TOFROM,
        "scalar": Transfer.BY_VALUE,
        # core::offload::Region: mapped like a slice, to the device and back
        # (rust-lang/rust tests/codegen-llvm/gpu_offload/region_host.rs: begin TO, end FROM)
        "region": Transfer.TOFROM,
    }.get(kind, Transfer.UNKNOWN)
    if not ecosystem.runtime_maps_arguments:
        transfer = Transfer.UNKNOWN
    return Param(
        attrs=_attr_words(param),
        name=name,
        type_text=node_text(type_node),
        span=Span(param.start_byte, param.end_byte),
        type_span=Span(type_node.start_byte, type_node.end_byte),
        transfer=transfer,
        kind=kind,
        pointee=pointee,
        elem_bytes=elem_bytes,
    )


def type_shape(type_node: Node) -> tuple[ParamKind, str | None, int | None]:
    """Classify a type node: (kind, pointee text, scalar size in bytes).

    kind (:data:`~offload_ls.analysis.model.ParamKind`) is one of ``ref``, ``mut_ref``,
    ``const_ptr``, ``mut_ptr``, ``scalar``, ``region`` (``core::offload::Region<'_, T, S>``),
    ``other``;
    the size is set only for a reference/pointer to one primitive scalar.
    """
    t = type_node.type
    if t in ("reference_type", "pointer_type"):
        inner = type_node.child_by_field_name("type")
        mutable = any(c.type == "mutable_specifier" for c in type_node.children)
        if t == "reference_type":
            kind = "mut_ref" if mutable else "ref"
        else:
            kind = "mut_ptr" if mutable else "const_ptr"
        pointee = node_text(inner) if inner is not None else None
        elem = SCALAR_BYTES.get(pointee) if inner is not None and inner.type == "primitive_type" else None
        return kind, pointee, elem
    if t == "primitive_type":
        return "scalar", None, None
    if t == "generic_type":
        base = type_node.child_by_field_name("type")
        if base is not None and node_text(base).split("::")[-1] == "Region":
            return "region", None, None
    return "other", None, None


def _attr_words(param: Node) -> tuple[str, ...]:
    """Identifiers in the attributes right before a ``parameter`` node, in order."""
    words: list[str] = []
    prev = param.prev_named_sibling
    while prev is not None and prev.type == "attribute_item":
        stack, found = [prev], []
        while stack:
            n = stack.pop()
            if n.type == "identifier":
                found.append(n)
            stack.extend(n.children)
        words = [node_text(n) for n in sorted(found, key=lambda n: n.start_byte)] + words
        prev = prev.prev_named_sibling
    return tuple(words)


@lru_cache(maxsize=4096)
def is_slice_type(text: str) -> bool:
    """Is the type written ``text`` a slice ``[T]`` (an array type without a length, as
    tree-sitter-rust parses it; ``[[f32; 4]]`` is one, ``[f32; 4]`` is not)?"""
    t = parse_type(text)
    return t is not None and t.type == "array_type" and t.child_by_field_name("length") is None
