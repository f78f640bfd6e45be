"""What a launch argument is, from its syntax: its reference kind and its scalar type.

Launch arguments of macros are token trees; they are re-parsed as expressions (as
analysis/launches/ does) and identifiers are resolved in the launching function
(``let a: f64 = ..``, ``fn wrap(b: f64)``). Used by the rule launch_arg_mismatch. Pure
syntax; no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from tree_sitter import Node

from offload_ls.analysis.ecosystems import Profile
from offload_ls.analysis.flow.scopes import BindingKind, find_binding
from offload_ls.analysis.model import ParamKind
from offload_ls.analysis.transfer import SCALAR_BYTES, type_shape
from offload_ls.syntax.nodes import named, strip
from offload_ls.syntax.parse import SNIPPET_PREFIX, SNIPPET_SUFFIX, node_text, parse, snippet_call

_FLOAT_SUFFIXES = ("f16", "f32", "f64", "f128")
_INT_SUFFIXES = ("usize", "isize", "u128", "i128", "u64", "i64", "u32", "i32", "u16", "i16", "u8", "i8")

#: What a launch argument is by its syntax (:attr:`ArgInfo.kind`): a value, a krnl slice,
#: or a type's :data:`~offload_ls.analysis.model.ParamKind` (a reference or raw pointer; a
#: cast's target type).
ArgKind = ParamKind | Literal["value", "slice", "slice_mut"]


@dataclass(frozen=True)
class ArgInfo:
    """What the syntax says of one launch argument.

    Attributes:
        kind: (:data:`ArgKind`) ``"ref"`` (``&x``), ``"mut_ref"`` (``&mut x``), ``"value"``
            (a literal or a scalar), ``"const_ptr"`` / ``"mut_ptr"`` (a raw pointer by its
            declared or cast type; a cast to another type: that type's kind), ``"slice"`` /
            ``"slice_mut"`` (krnl ``x.as_slice()`` / ``x.as_slice_mut()``, ``Slice<T>`` /
            ``SliceMut<T>`` values), or ``None``.
        scalar: the primitive type of the value (through one ``&``): ``"f64"`` for
            ``0.9f64`` or a ``let a: f64``, ``"{float}"`` / ``"{integer}"`` for an
            unsuffixed literal, ``None`` when not known.
        what: how the message names it (``a literal `0.9f64```, ```b`, an `f64```).
    """

    kind: ArgKind | None
    scalar: str | None
    what: str


def reparse(source: bytes, start: int, end: int):
    """(tree, expression node) of the argument text ``source[start:end]``; the tree is
    returned to keep the node alive. Offsets of the node are those of the snippet."""
    tree = parse(SNIPPET_PREFIX + source[start:end] + SNIPPET_SUFFIX)
    call = snippet_call(tree)
    args = call.child_by_field_name("arguments") if call is not None else None
    first = named(args) if args is not None else []
    return tree, (first[0] if first else None)


def arg_info(expr: Node | None, at: Node | None, profile: Profile | None = None, lets=None) -> ArgInfo:
    """The :class:`ArgInfo` of argument expression ``expr`` (possibly from a re-parsed
    tree); identifiers are resolved at ``at``, a node of the file's tree (the launch);
    ``profile``: the kernel's ecosystem profile (its ``slice_args``, ``slice_types`` and
    ``arg_wrappers``); ``lets``: the launching function's ``LetIndex`` (faster lookups)."""
    if expr is None:
        return ArgInfo(None, None, "")
    text = node_text(expr)
    e = expr
    while e.type == "parenthesized_expression" and named(e):
        e = named(e)[0]
    t = e.type
    if t == "reference_expression":
        mutable = any(c.type == "mutable_specifier" for c in e.children)
        inner = e.child_by_field_name("value")
        scalar = _scalar(inner, at, lets) if inner is not None else None
        return ArgInfo("mut_ref" if mutable else "ref", scalar, f"`{text}`")
    if t in ("integer_literal", "float_literal"):
        return ArgInfo("value", _literal_type(e), f"the literal `{text}`")
    if t == "type_cast_expression":
        cast = e.child_by_field_name("type")
        if cast is not None and type_shape(cast)[0] in ("const_ptr", "mut_ptr"):
            return ArgInfo(type_shape(cast)[0], None, f"`{text}`")
    info = None
    if t == "call_expression":
        info = _call_arg_info(e, text, at, profile, lets)
    elif t == "identifier" and at is not None:
        info = _identifier_arg_info(e, text, at, profile, lets)
    return info if info is not None else ArgInfo(None, None, f"`{text}`")


def _call_arg_info(e: Node, text: str, at: Node | None, profile: Profile | None, lets) -> ArgInfo | None:
    """The :class:`ArgInfo` of a call argument: a slice method of the ecosystem (``x.as_slice()``)
    or a wrapper's ``new`` (``Wrapper::new(x)``), else ``None``."""
    slice_args = profile.slice_args if profile is not None else {}
    wrappers = profile.arg_wrappers if profile is not None else frozenset()
    fn, args = e.child_by_field_name("function"), e.child_by_field_name("arguments")
    if fn is not None and fn.type == "field_expression":
        field = fn.child_by_field_name("field")
        m = node_text(field) if field is not None else ""
        if m in slice_args:
            return ArgInfo(slice_args[m], None, f"`{text}`")
        if m in _BUFFER_POINTERS and at is not None and args is not None and not named(args) and \
                _is_buffer(fn.child_by_field_name("value"), at, lets):
            kind = _BUFFER_POINTERS[m]
            return ArgInfo(kind, None, f"`{text}`, a `{'*const' if kind == 'const_ptr' else '*mut'}` pointer")
    if fn is not None and fn.type == "scoped_identifier" and args is not None:
        last, path = fn.child_by_field_name("name"), fn.child_by_field_name("path")
        a = named(args)
        if last is not None and path is not None and node_text(last) == "new" and len(a) == 1 \
                and node_text(path).rsplit("::", 1)[-1] in wrappers:
            inner = arg_info(a[0], at, profile, lets)
            return ArgInfo("value", inner.scalar, inner.what)
    return None


#: pointer methods of arrays, slices and ``Vec`` (core::slice, alloc::vec): what they return
#: (``NonNull::as_ptr`` and ``Cell::as_ptr`` return ``*mut``: only a buffer's count)
_BUFFER_POINTERS: dict[str, ArgKind] = {"as_ptr": "const_ptr", "as_mut_ptr": "mut_ptr"}


def _is_buffer(receiver: Node | None, at: Node, lets) -> bool:
    """Is ``receiver`` a variable holding an array, a slice or a ``Vec``: declared with such
    a type (``let y: [f32; 2]``, ``y: &mut [f32]``), or bound to an array expression or
    ``vec![..]``?"""
    if receiver is None or receiver.type != "identifier":
        return False
    b = find_binding(node_text(receiver), at, lets)
    if b is None:
        return False
    if b.type is not None:
        t = b.type
        while t.type == "reference_type" and t.child_by_field_name("type") is not None:
            t = t.child_by_field_name("type")
        return t.type == "array_type" or node_text(t).split("<", 1)[0].rsplit("::", 1)[-1] == "Vec"
    value = strip(b.value) if b.kind == BindingKind.LET and b.value is not None else None
    if value is None:
        return False
    if value.type == "array_expression":
        return True
    macro = value.child_by_field_name("macro") if value.type == "macro_invocation" else None
    return macro is not None and node_text(macro) == "vec"


def _identifier_arg_info(e: Node, text: str, at: Node, profile: Profile | None, lets) -> ArgInfo | None:
    """The :class:`ArgInfo` of a variable from its declared type or its literal ``let`` value,
    else ``None``."""
    b = find_binding(node_text(e), at, lets)
    if b is not None and b.type is not None:
        return _from_type(b.type, text, profile.slice_types if profile is not None else {})
    if b is not None and b.kind == BindingKind.LET and b.value is not None:
        v = strip(b.value)
        if v.type in ("integer_literal", "float_literal"):
            st = _literal_type(v)
            if st is not None and not st.startswith("{"):
                return ArgInfo("value", st, f"`{text}` (`{node_text(v)}`)")
    return None


def _from_type(type_node: Node, text: str, slice_types: dict[str, str]) -> ArgInfo:
    kind, pointee, _ = type_shape(type_node)
    base = node_text(type_node).split("<", 1)[0].rsplit("::", 1)[-1].strip()
    if kind == "scalar":
        st = node_text(type_node)
        return ArgInfo("value", st, f"`{text}`, a `{st}`")
    if kind in ("ref", "mut_ref"):
        st = pointee if pointee in SCALAR_BYTES else None
        return ArgInfo(kind, st, f"`{text}`, a `{node_text(type_node)}`")
    if kind in ("const_ptr", "mut_ptr"):
        return ArgInfo(kind, None, f"`{text}`, a `{node_text(type_node)}`")
    if base in slice_types:
        return ArgInfo(slice_types[base], None, f"`{text}`, a `{node_text(type_node)}`")
    return ArgInfo(None, None, f"`{text}`")


def _scalar(expr: Node, at: Node | None, lets=None) -> str | None:
    """The primitive type of ``expr`` (a literal or a variable of primitive type)."""
    info = arg_info(expr, at, None, lets)
    return info.scalar if info.kind == "value" else None


def _literal_type(lit: Node) -> str | None:
    text = node_text(lit).replace("_", "")
    if lit.type == "float_literal":
        for sfx in _FLOAT_SUFFIXES:
            if text.endswith(sfx):
                return sfx
        return "{float}"
    for sfx in _INT_SUFFIXES + _FLOAT_SUFFIXES:
        if text.endswith(sfx) and not (sfx.startswith("f") and text.startswith(("0x", "0X"))):
            return sfx
    return "{integer}"


def fits(scalar: str | None, param_type: str) -> bool:
    """Can a value of primitive type ``scalar`` be passed for a parameter of primitive type
    ``param_type``? Unknown types always fit; ``{float}`` fits every float type, and
    ``{integer}`` every integer type (Rust infers an unsuffixed literal's type; it never
    turns an integer literal into a float)."""
    if scalar is None or param_type not in SCALAR_BYTES:
        return True
    if scalar == "{float}":
        return param_type in _FLOAT_SUFFIXES
    if scalar == "{integer}":
        return param_type in _INT_SUFFIXES
    return scalar == param_type
