"""What a condition implies: the bounds (:class:`Guard`) that a condition being true or
false gives, from comparisons (``i < n``, ``i.ge(&n)``), ``&&`` / ``||`` / ``!``, range
tests (``(a..b).contains(&i)``), checked accesses (``x.get(i)`` in an ``if let``), the
ecosystems' bound checks (``idx.in_bounds(len)``, ``buf.is_in_bounds(i)``, cuda-oxide's
checked 2-D index) and glam's component-wise vector comparisons. Pure syntax; no I/O.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tree_sitter import Node

from offload_ls.analysis.bounds.expressions import (
    MAX_DEPTH,
    Affine,
    affine,
    canon,
    method_call,
    named,
    path_name,
    strip,
)


@dataclass(frozen=True)
class Guard:
    """``expr < bound`` holds (strictly), both as :class:`Affine`; ``lower``: the guard is
    ``expr >= bound`` instead. ``expr_node`` / ``bound_node``: the expressions (``None``
    for a bound made up here, such as ``x.len()``), ``adj``: added to ``bound_node``."""

    expr: Affine
    bound: Affine
    lower: bool = False
    expr_node: Node | None = None
    bound_node: Node | None = None
    adj: int = 0
    #: the nodes are in the function's own tree (not re-parsed from an ``assert!``'s tokens)
    local: bool = True
    #: ``expr != bound + 1`` instead (``bound`` holds the excluded value plus one): an early
    #: exit on ``i == n - 1``; only :func:`guards_at` reads it, to tighten ``i < n`` to
    #: ``i < n - 1`` (:func:`_tightened`)
    ne: bool = False


def conditions(cond: Node, holds: bool, fold, out: list[Guard], depth: int = 0,
               resolve: Callable[[Node], Node | None] | None = None) -> None:
    """Append to ``out`` the bounds that ``cond`` being ``holds`` implies. ``resolve``:
    an identifier -> the value of the immutable ``let`` it names, or None (a condition
    held in a variable: ``let in_range = i < n; if in_range { .. }``)."""
    if depth > MAX_DEPTH:
        return
    cond = strip(cond) if cond.type == "parenthesized_expression" else cond
    t = cond.type
    if t == "identifier":
        value = resolve(cond) if resolve is not None else None
        if value is not None:
            conditions(value, holds, fold, out, depth + 1, resolve)
        return
    if t == "unary_expression":
        op, inner = cond.child(0), named(cond)
        if op is not None and op.type == "!" and inner:
            conditions(inner[0], not holds, fold, out, depth + 1, resolve)
        return
    if t == "let_chain":
        if holds:
            for part in named(cond):
                conditions(part, True, fold, out, depth + 1, resolve)
        return
    if t == "let_condition":
        if holds:
            value = cond.child_by_field_name("value")
            if value is not None:
                get_call(value, fold, out)
                _checked_index_call(value, fold, out)
        return
    if t == "call_expression":
        _call_conditions(cond, holds, fold, out)
    elif t == "binary_expression":
        _binary_conditions(cond, holds, fold, out, depth, resolve)


def _call_conditions(cond: Node, holds: bool, fold, out: list[Guard]) -> None:
    """Appends to ``out`` the bounds that call ``cond`` being ``holds`` implies (``i.lt(&n)``,
    ``contains``, ``in_bounds``, vector comparisons)."""
    m = method_call(cond)
    if m is not None and m[0] in _COMPARE_METHODS and len(m[2]) == 1:
        # `i.ge(&n)` (PartialOrd / PartialEq methods) reads as `i >= n`
        _compare(_COMPARE_METHODS[m[0]], m[1], _deref(m[2][0]), holds, fold, out)
        return
    if holds:
        _contains_call(cond, fold, out)
        _in_bounds_call(cond, fold, out)
    _vector_compare(cond, holds, fold, out)


def _binary_conditions(cond: Node, holds: bool, fold, out: list[Guard], depth: int,
                       resolve: Callable[[Node], Node | None] | None) -> None:
    """Appends to ``out`` the bounds that binary ``cond`` (``&&``, ``||``, a comparison) being
    ``holds`` implies."""
    op_node = cond.child_by_field_name("operator")
    op = op_node.type if op_node is not None else ""
    left, right = cond.child_by_field_name("left"), cond.child_by_field_name("right")
    if left is None or right is None:
        return
    if op == "&&":
        if holds:
            conditions(left, True, fold, out, depth + 1, resolve)
            conditions(right, True, fold, out, depth + 1, resolve)
        return
    if op == "||":
        if not holds:
            conditions(left, False, fold, out, depth + 1, resolve)
            conditions(right, False, fold, out, depth + 1, resolve)
        return
    _compare(op, left, right, holds, fold, out)


#: core::cmp's comparison methods and the operator each one is (PartialOrd, PartialEq).
_COMPARE_METHODS = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}


def _deref(arg: Node) -> Node:
    """``&n`` -> ``n`` (the comparison methods take their right side by reference)."""
    arg = strip(arg) if arg.type == "parenthesized_expression" else arg
    if arg.type == "reference_expression":
        inner = arg.child_by_field_name("value")
        return inner if inner is not None else arg
    return arg


def _compare(op: str, left: Node, right: Node, holds: bool, fold, out: list[Guard]) -> None:
    """The bounds ``left op right`` being ``holds`` implies."""
    if not holds:
        op = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}.get(op, "")
    if op in ("<", "<="):
        _less(left, right, 0 if op == "<" else 1, fold, out)
    elif op in (">", ">="):
        _less(right, left, 0 if op == ">" else 1, fold, out)
    elif op == "==":  # i == k: bounded by k + 1 (and from below by k)
        _less(left, right, 1, fold, out)
        _less(right, left, 1, fold, out)
    elif op == "!=":  # i != k (an early exit on `i == k`): tightens `i < k + 1` (_tightened)
        s, b = affine(left, fold), affine(right, fold)
        out.append(Guard(s, Affine(b.key, b.off + 1), False, left, right, 1, ne=True))


def _less(small: Node, big: Node, adj: int, fold, out: list[Guard]) -> None:
    """``small < big + adj``: an upper bound of ``small`` and a lower bound of ``big``
    (``big >= small + 1 - adj``)."""
    b = affine(big, fold)
    s = affine(small, fold)
    out.append(Guard(s, Affine(b.key, b.off + adj), False, small, big, adj))
    out.append(Guard(b, Affine(s.key, s.off + 1 - adj), True, big, small, 1 - adj))


def get_call(value: Node, fold, out: list[Guard]) -> None:
    """``x.get(i)`` / ``x.get_mut(i)`` (an ``if let`` / ``let .. else`` value): i < x.len()."""
    value = strip(value) if value.type == "parenthesized_expression" else value
    call = method_call(value)
    if call is not None and call[0] in ("get", "get_mut") and len(call[2]) == 1:
        arg = call[2][0]
        out.append(Guard(affine(arg, fold), Affine(f"{canon(call[1])}.len()", 0), False, arg, None, 0))
    elif call is not None and call[0] in ("get", "get_mut") and not call[2]:
        # a partitioned region's element of this thread (the offload front end's
        # `Region<T, Linear1D>::get_mut()`: `Some` only while `Linear1D::index()` is below
        # the region's length): the thread's position is below a runtime length
        out.append(Guard(Affine(POSITION, 0), Affine(f"{canon(call[1])}.len()", 0), False, None, None, 0))


#: The key of a guard on the thread's own position, not on an expression (:func:`get_call`).
POSITION = "@position"

#: cuda-oxide's checked 2-D index: ``thread::index_2d_runtime(stride)`` is ``Some`` only when
#: the launch's x position (what ``thread::index_2d_col()`` returns) is below ``stride``
#: (cuda-oxide ``cuda_device::thread``: ``if col >= row_stride { return None; }``).
_CHECKED_AXES = {"index_2d_runtime": "index_2d_col"}


def checked_axis_key(node: Node) -> str:
    """The guard key of an argument-free position call :data:`_CHECKED_AXES` bounds, else ""."""
    args = node.child_by_field_name("arguments") if node.type == "call_expression" else None
    name = path_name(node) if args is not None and not named(args) else ""
    return f"@{name}" if name in _CHECKED_AXES.values() else ""


def _checked_index_call(value: Node, fold, out: list[Guard]) -> None:
    """``if let Some(i) = unsafe { thread::index_2d_runtime(n) }``: the x position is below
    ``n`` (:data:`_CHECKED_AXES`)."""
    value = strip(value)
    if value.type == "unsafe_block":
        block = next((c for c in value.children if c.type == "block"), None)
        inner = named(block) if block is not None else []
        if len(inner) != 1:
            return
        value = strip(inner[0])
    args = value.child_by_field_name("arguments") if value.type == "call_expression" else None
    axis = _CHECKED_AXES.get(path_name(value)) if args is not None else None
    if axis is not None and len(named(args)) == 1:
        bound = named(args)[0]
        out.append(Guard(Affine(f"@{axis}", 0), affine(bound, fold), False, None, bound, 0))


def _contains_call(call: Node, fold, out: list[Guard]) -> None:
    """``(a..b).contains(&i)``: i < b (``..=b``: i <= b)."""
    m = method_call(call)
    if m is None or m[0] != "contains" or len(m[2]) != 1:
        return
    _, recv, a = m
    rng = strip(recv)
    if rng.type != "range_expression":
        return
    arg = a[0]
    if arg.type == "reference_expression":
        inner = arg.child_by_field_name("value")
        arg = inner if inner is not None else arg
    range_bound(rng, arg, fold, out)


def _in_bounds_call(call: Node, fold, out: list[Guard]) -> None:
    """cuda-oxide ``idx.in_bounds(len)``: idx < len; CubeCL ``buf.is_in_bounds(i)``
    (cubecl-core's ``Array``/``Tensor`` method, as burn-cubecl's kernels guard with it):
    i < buf.len()."""
    m = method_call(call)
    if m is not None and m[0] == "in_bounds" and len(m[2]) == 1:
        _less(m[1], m[2][0], 0, fold, out)
    elif m is not None and m[0] == "is_in_bounds" and len(m[2]) == 1:
        arg = m[2][0]
        out.append(Guard(affine(arg, fold), Affine(f"{canon(m[1])}.len()", 0), False, arg, None, 0))


#: glam's component-wise comparisons, and what ``a.<cmp>(b).all()`` true (``.any()`` false
#: of the opposite comparison) bounds: each component ``a.c < b.c`` (adj 0) or ``<=`` (adj 1)
_VECTOR_BELOW = {"cmplt": ("all", 0), "cmple": ("all", 1), "cmpge": ("any", 0), "cmpgt": ("any", 1)}


def _vector_compare(call: Node, holds: bool, fold, out: list[Guard]) -> None:
    """glam vector guards (rust-gpu shaders): ``if id.cmpge(dims).any() { return; }`` and
    ``if id.cmplt(dims).all() { .. }`` bound each component: ``id.x < dims.x``, ``id.y <
    dims.y``, ``id.z < dims.z``."""
    outer = method_call(call)
    inner = method_call(strip(outer[1])) if outer is not None and not outer[2] else None
    if inner is None or inner[0] not in _VECTOR_BELOW or len(inner[2]) != 1:
        return
    wanted, adj = _VECTOR_BELOW[inner[0]]
    if outer[0] != wanted or holds != (wanted == "all"):  # `.all()` that holds, `.any()` that does not
        return
    a, b = strip(inner[1]), strip(inner[2][0])
    if b.type == "unary_expression" and b.child(0) is not None and b.child(0).type == "*" and named(b):
        b = strip(named(b)[0])  # `*dims` of `dims: &UVec3`
    for c in "xyz":
        out.append(Guard(Affine(f"{canon(a)}.{c}", 0), Affine(f"{canon(b)}.{c}", adj), False, None, None, adj))
        out.append(Guard(Affine(f"{canon(b)}.{c}", 0), Affine(f"{canon(a)}.{c}", 1 - adj), True, None, None, 1 - adj))


def range_bound(rng: Node, var: Node, fold, out: list[Guard]) -> None:
    """``var`` lies in the range ``rng`` (a range expression or range pattern)."""
    kids = rng.children
    end = None
    inclusive = False
    for i, c in enumerate(kids):
        if c.type in ("..", "..="):
            inclusive = c.type == "..="
            rest = [k for k in kids[i + 1:] if k.is_named and not k.type.endswith("comment")]
            end = rest[0] if rest else None
    if end is None:
        return
    _less(var, end, 1 if inclusive else 0, fold, out)
    start = next((k for k in rng.children if k.is_named and not k.type.endswith("comment")), None)
    if start is not None and start.end_byte <= end.start_byte and start != end:
        _less(start, var, 1, fold, out)  # start <= var


