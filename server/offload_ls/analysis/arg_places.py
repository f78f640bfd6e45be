"""Which place a launch argument points to, and how: ``&mut x[..]``, ``&mut *x``,
``x.as_mut_ptr()`` are place ``x``; ``s.a`` and ``s.b`` are different places, ``s``
overlaps ``s.a``. A variable bound by ``let p = x.as_mut_ptr();`` (or ``&mut x as *mut _``,
``&raw mut x``) stands for that pointer to ``x``. A plain variable with no such binding is
a pointer of unknown mutability. Used by aliased_launch_args; arguments may come from a
re-parsed token tree (syntax/parse.py snippets), variables are resolved in the file's tree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from tree_sitter import Node

from offload_ls.analysis.ecosystems import union
from offload_ls.analysis.flow.scopes import BindingKind, find_binding
from offload_ls.syntax.nodes import MAX_DEPTH, named, strip
from offload_ls.syntax.parse import SNIPPET_PREFIX, SNIPPET_SUFFIX, node_text, parse, snippet_call

#: How an argument may use its place: written through, only read, or not said by the syntax.
Mode = Literal["mut", "shared", "unknown"]

_MUT_METHODS = ("as_mut_ptr", "cast_mut", "as_mut")


_SHARED_METHODS = ("as_ptr", "cast_const")


#: Methods giving a pointer whose mutability the syntax does not say (the profiles'
#: ``device_pointer_methods``: cust's ``buf.as_device_ptr()``).
_UNKNOWN_METHODS = union("device_pointer_methods")


@dataclass(frozen=True)
class PlaceUse:
    """How one launch argument refers to a place.

    place: the path of the place (``("s", "a")`` for ``s.a``). mode: ``"mut"``,
    ``"shared"`` or ``"unknown"`` (a pointer / variable whose mutability the syntax does
    not say). mut_ref: written as a ``&mut`` reference (the kernel parameter is ``noalias``).
    """

    place: tuple[str, ...]
    mode: Mode
    mut_ref: bool = False


def classify(expr: Node, at: Node, depth: int = 0, nest: int = 0, lets=None) -> PlaceUse | None:
    """How ``expr`` (an argument, possibly from a re-parsed tree) refers to a place;
    ``at`` is the launch node in the file's tree, where variables are resolved. ``depth``
    counts variables followed through ``let`` (at most 4), ``nest`` nested expressions."""
    if nest > MAX_DEPTH:
        return None
    e = _value(expr)
    if e is None:
        return None
    step = _BY_TYPE.get(e.type)
    return step(e, at, depth, nest, lets) if step is not None else None


def _value(expr: Node) -> Node | None:
    """``expr`` without parentheses and blocks around its value (``unsafe { &*p }``),
    ``None`` for a block that holds statements."""
    e = expr
    while e.type in ("parenthesized_expression", "unsafe_block", "block"):
        if e.type == "unsafe_block":  # `unsafe { &*p }`: its value
            block = next((c for c in e.named_children if c.type == "block"), None)
            if block is None:
                return None
            e = block
            continue
        inner = named(e)
        if len(inner) != 1 or inner[0].type.endswith("_statement") or inner[0].type == "let_declaration":
            return None
        e = inner[0]
    return e


def _mode(mutable: bool) -> Mode:
    return "mut" if mutable else "shared"


def _reference(e: Node, at: Node, depth: int, nest: int, lets) -> PlaceUse | None:
    """``&x`` / ``&mut x`` / ``&raw mut x``."""
    value = e.child_by_field_name("value")
    place = place_of(value) if value is not None else None
    if place is None:
        return None
    mutable = any(c.type == "mutable_specifier" for c in e.children)
    raw = any(c.type == "raw" for c in e.children)
    return PlaceUse(place, _mode(mutable), mut_ref=mutable and not raw)


def _cast(e: Node, at: Node, depth: int, nest: int, lets) -> PlaceUse | None:
    """``v as *mut T``: ``v``'s place, with the pointer type's mutability."""
    value, target = e.child_by_field_name("value"), e.child_by_field_name("type")
    inner_use = classify(value, at, depth, nest + 1, lets) if value is not None else None
    if inner_use is None:
        return None
    if target is not None and target.type == "pointer_type":
        mutable = any(c.type == "mutable_specifier" for c in target.children)
        return PlaceUse(inner_use.place, _mode(mutable))
    return inner_use


def _call(e: Node, at: Node, depth: int, nest: int, lets) -> PlaceUse | None:
    """A launch handle's constructor, or a pointer method (``x.as_mut_ptr()``, ``p.cast_mut()``)."""
    fn = e.child_by_field_name("function")
    handle = _launch_handle(e)
    if handle is not None:  # CubeCL ArrayArg::from_raw_parts(&handle, ..): the handle's buffer
        inner = classify(handle, at, depth, nest + 1, lets)
        return PlaceUse(inner.place, "unknown") if inner is not None else None
    if fn is None or fn.type != "field_expression":
        return None
    field, value = fn.child_by_field_name("field"), fn.child_by_field_name("value")
    if field is None or value is None:
        return None
    method = node_text(field)
    if method in ("cast_mut", "cast_const", "cast"):
        inner_use = classify(value, at, depth, nest + 1, lets)
        if inner_use is None:
            return None
        mode: Mode = {"cast_mut": "mut", "cast_const": "shared"}.get(method, inner_use.mode)  # type: ignore[assignment]
        return PlaceUse(inner_use.place, mode)
    place = place_of(value)
    if place is None:
        return None
    if method in _MUT_METHODS:
        return PlaceUse(place, "mut")
    if method in _SHARED_METHODS:
        return PlaceUse(place, "shared")
    if method in _UNKNOWN_METHODS:
        return PlaceUse(place, "unknown")
    return None


def _macro(e: Node, at: Node, depth: int, nest: int, lets) -> PlaceUse | None:
    """``addr_of_mut!(x.f)`` / ``addr_of!(x.f)``."""
    macro = e.child_by_field_name("macro")
    name = node_text(macro).rsplit("::", 1)[-1] if macro is not None else ""
    if name in ("addr_of_mut", "addr_of"):
        place = _macro_place(e)
        if place is not None:
            return PlaceUse(place, _mode(name == "addr_of_mut"))
    return None


def _identifier(e: Node, at: Node, depth: int, nest: int, lets) -> PlaceUse | None:
    """A variable: the pointer its ``let`` makes, or its pointer type's mutability, else a
    pointer of unknown mutability."""
    name = node_text(e)
    binding = find_binding(name, at, lets)
    if binding is not None and depth < 4:
        if binding.kind == BindingKind.LET and binding.value is not None:
            resolved = classify(binding.value, binding.value, depth + 1, nest + 1, lets)
            if resolved is not None and resolved.mode != "unknown":
                return PlaceUse(resolved.place, resolved.mode)
        if binding.type is not None and binding.type.type == "pointer_type":
            mutable = any(c.type == "mutable_specifier" for c in binding.type.children)
            return PlaceUse((name,), _mode(mutable))
    return PlaceUse((name,), "unknown")


def _field(e: Node, at: Node, depth: int, nest: int, lets) -> PlaceUse | None:
    place = place_of(e)
    return PlaceUse(place, "unknown") if place is not None else None


_BY_TYPE = {
    "reference_expression": _reference,
    "type_cast_expression": _cast,
    "call_expression": _call,
    "macro_invocation": _macro,
    "identifier": _identifier,
    "field_expression": _field,
}


#: Launch-argument constructors whose first argument is the buffer's handle (the profiles'
#: ``handle_args``: CubeCL's ``ArrayArg::from_raw_parts(&h, ..)``).
_HANDLE_ARGS = union("handle_args")


def _launch_handle(call: Node) -> Node | None:
    """``h`` of ``ArrayArg::from_raw_parts::<F>(&h, len, line)`` (or ``TensorArg``)."""
    fn = call.child_by_field_name("function")
    if fn is not None and fn.type == "generic_function":
        fn = fn.child_by_field_name("function")
    if fn is None or fn.type != "scoped_identifier":
        return None
    path, name = fn.child_by_field_name("path"), fn.child_by_field_name("name")
    if path is None or name is None or node_text(name) != "from_raw_parts" or node_text(path) not in _HANDLE_ARGS:
        return None
    args = call.child_by_field_name("arguments")
    a = named(args) if args is not None else []
    if not a:
        return None
    h = a[0]
    if h.type == "reference_expression":
        v = h.child_by_field_name("value")
        return v if v is not None else None
    return h


def place_of(expr: Node, nest: int = 0) -> tuple[str, ...] | None:
    """The place an expression names: ``x`` -> (x,), ``s.a`` -> (s, a), ``x[..]`` / ``*x``
    / ``(x)`` -> place of ``x``; ``None`` for anything else (calls, literals, nesting past
    MAX_DEPTH)."""
    if nest > MAX_DEPTH:
        return None
    e = strip(expr) if expr.type == "parenthesized_expression" else expr
    t = e.type
    if t in ("identifier", "self"):
        return (node_text(e),)
    if t == "field_expression":
        value, field = e.child_by_field_name("value"), e.child_by_field_name("field")
        base = place_of(value, nest + 1) if value is not None else None
        if base is None or field is None:
            return None
        return (*base, node_text(field))
    if t == "index_expression":
        parts = named(e)
        return place_of(parts[0], nest + 1) if parts else None
    if t == "unary_expression" and e.child(0) is not None and e.child(0).type == "*":
        inner = named(e)
        return place_of(inner[0], nest + 1) if inner else None
    return None


def _macro_place(macro: Node) -> tuple[str, ...] | None:
    """Place named by ``addr_of_mut!(x.field)``: the token tree is re-parsed."""
    tokens = next((c for c in macro.children if c.type == "token_tree"), None)
    if tokens is None or tokens.child_count < 2:
        return None
    text = (tokens.text or b"")[1:-1]
    tree = parse(SNIPPET_PREFIX + text + SNIPPET_SUFFIX)
    node = snippet_argument(tree)
    return place_of(node) if node is not None else None


def snippet_argument(tree) -> Node | None:
    """First argument of the wrapper call of a re-parsed snippet (syntax/parse.py)."""
    call = snippet_call(tree)
    if call is None:
        return None
    args = call.child_by_field_name("arguments")
    first = named(args) if args is not None else []
    return first[0] if first else None
