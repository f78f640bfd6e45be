"""Which upper bounds hold for an index expression at a point of a function: the guards
on the way to it, and whether they bound *that* expression.

An index is bounded when a guard compares the same expression (up to casts, parentheses
and a constant offset) with a bound that is at most the buffer's length: ``x[i]`` under
``if i < n``; ``x[i + 1]`` under ``if i < n - 1``; a linearized index ``row * w + col`` under
``row < h && col < w`` (the stride is the bound of the inner index). ``x[i + stride]`` is
not bounded by ``i < stride``, nor ``lut[i]`` (256 entries) by ``i < 1024``.

Guards (:func:`guards_at`): the conditions of enclosing ``if`` / ``while`` / match-arm
guards / ``&&`` and ``||`` operands (or their negation on the ``else`` side), ``for v in
a..b`` loops (``v < b``), and earlier statements of enclosing blocks that leave unless a
condition holds (``if i >= n { return; }``, ``assert!(i < n)``, ``let Some(..) = x.get(i)
else { return }``, an ecosystem's exit macro such as CubeCL's ``terminate!()``).
``if let Some(v) = x.get(i)`` / ``x.get_mut(i)`` bounds ``i`` by ``x.len()``;
``(0..n).contains(&i)`` bounds ``i`` by ``n``.

Expressions are compared by a canonical text (:func:`canon`): identifiers, fields, calls,
literals and operators, without casts, parentheses and ``.get()`` / ``.into()``
conversions. Pure syntax; no I/O.
"""

from __future__ import annotations

import dataclasses

from collections.abc import Callable
from dataclasses import dataclass

from tree_sitter import Node

from offload_ls.analysis.consts import int_literal
from offload_ls.syntax.parse import SNIPPET_PREFIX, SNIPPET_SUFFIX, node_text, parse, snippet_call

#: Deepest expression followed.
MAX_DEPTH = 64
#: Methods that convert a value without changing it (cuda-oxide ``ThreadIndex::get``).
_TRANSPARENT_METHODS = frozenset({"get", "into", "try_into", "unwrap", "as_usize", "to_usize"})
_ASSERTS = frozenset({"assert", "debug_assert"})


@dataclass(frozen=True)
class Affine:
    """``key + off``: ``key`` the canonical text of the non-constant part ("" for a
    constant), ``off`` an integer (a constant's value when ``key`` is "")."""

    key: str
    off: int


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


def _named(node: Node) -> list[Node]:
    return [c for c in node.named_children if not c.type.endswith("comment")]


def strip(node: Node) -> Node:
    """``node`` without parentheses, ``as`` casts, value-preserving conversions and
    blocks whose only content is their value (``unsafe { i }``)."""
    depth = 0
    while depth < MAX_DEPTH:
        depth += 1
        t = node.type
        if t == "parenthesized_expression":
            inner = _named(node)
            if len(inner) != 1:
                return node
            node = inner[0]
        elif t == "type_cast_expression":
            v = node.child_by_field_name("value")
            if v is None:
                return node
            node = v
        elif t in ("unsafe_block", "block"):  # `unsafe { _thread_idx_x() }`: its value
            block = node if t == "block" else next((c for c in node.named_children if c.type == "block"), None)
            inner = _named(block) if block is not None else []
            if len(inner) != 1 or inner[0].type.endswith("_statement") or inner[0].type == "let_declaration":
                return node
            node = inner[0]
        elif t == "call_expression":
            fn, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
            if fn is None or fn.type != "field_expression" or args is None or _named(args):
                return node
            field = fn.child_by_field_name("field")
            if field is None or node_text(field) not in _TRANSPARENT_METHODS:
                return node
            v = fn.child_by_field_name("value")
            if v is None:
                return node
            node = v
        else:
            return node
    return node


def canon(node: Node, depth: int = 0) -> str:
    """Canonical text of an expression (see module docstring)."""
    node = strip(node)
    if depth > MAX_DEPTH:
        return node_text(node)
    t = node.type
    if t == "integer_literal":
        v = int_literal(node_text(node))
        return str(v) if v is not None else node_text(node)
    if t == "binary_expression":
        op = node.child_by_field_name("operator")
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if op is None or left is None or right is None:
            return node_text(node)
        a, b = canon(left, depth + 1), canon(right, depth + 1)
        if op.type == "*" and b < a:
            a, b = b, a  # `TILE * i` and `i * TILE` are one value (a guard in one order, the index in the other)
        return f"({a}{op.type}{b})"
    if t == "field_expression":
        v, f = node.child_by_field_name("value"), node.child_by_field_name("field")
        if v is None or f is None:
            return node_text(node)
        return f"{canon(v, depth + 1)}.{node_text(f)}"
    if t == "call_expression":
        fn, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
        if fn is None or args is None:
            return node_text(node)
        inner = ",".join(canon(a, depth + 1) for a in _named(args))
        return f"{canon(fn, depth + 1)}({inner})"
    if t == "unary_expression":
        op = node.child(0)
        inner = _named(node)
        if op is not None and inner:
            return f"{op.type}{canon(inner[0], depth + 1)}"
    return "".join(node_text(node).split())


def affine(node: Node, fold: Callable[[Node], int | None] | None = None, depth: int = 0) -> Affine:
    """``node`` as ``key + off``: constant terms added or subtracted at the top are taken
    into ``off`` (``i + 1`` -> ("i", 1), ``n - 1`` -> ("n", -1), ``256`` -> ("", 256));
    ``fold`` gives the value of a constant name (``N``) where known."""
    node = strip(node)
    value = _constant(node, fold)
    if value is not None:
        return Affine("", value)
    if node.type == "binary_expression" and depth < MAX_DEPTH:
        op = node.child_by_field_name("operator")
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if op is not None and left is not None and right is not None and op.type in ("+", "-"):
            rv = _constant(strip(right), fold)
            if rv is not None:
                a = affine(left, fold, depth + 1)
                return Affine(a.key, a.off + (rv if op.type == "+" else -rv))
            lv = _constant(strip(left), fold)
            if lv is not None and op.type == "+":
                a = affine(right, fold, depth + 1)
                return Affine(a.key, a.off + lv)
    return Affine(canon(node), 0)


def _constant(node: Node, fold: Callable[[Node], int | None] | None) -> int | None:
    if node.type == "integer_literal":
        return int_literal(node_text(node))
    if fold is not None:
        return fold(node)
    return None


# ------------------------------------------------------------------ guards on the path


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
        op, inner = cond.child(0), _named(cond)
        if op is not None and op.type == "!" and inner:
            conditions(inner[0], not holds, fold, out, depth + 1, resolve)
        return
    if t == "let_chain":
        if holds:
            for part in _named(cond):
                conditions(part, True, fold, out, depth + 1, resolve)
        return
    if t == "let_condition":
        if holds:
            value = cond.child_by_field_name("value")
            if value is not None:
                _get_call(value, fold, out)
                _checked_index_call(value, fold, out)
        return
    if t == "call_expression":
        m = _method_call(cond)
        if m is not None and m[0] in _COMPARE_METHODS and len(m[2]) == 1:
            # `i.ge(&n)` (PartialOrd / PartialEq methods) reads as `i >= n`
            _compare(_COMPARE_METHODS[m[0]], m[1], _deref(m[2][0]), holds, fold, out)
            return
        if holds:
            _contains_call(cond, fold, out)
            _in_bounds_call(cond, fold, out)
        _vector_compare(cond, holds, fold, out)
        return
    if t != "binary_expression":
        return
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


def _get_call(value: Node, fold, out: list[Guard]) -> None:
    """``x.get(i)`` / ``x.get_mut(i)`` (an ``if let`` / ``let .. else`` value): i < x.len()."""
    value = strip(value) if value.type == "parenthesized_expression" else value
    call = _method_call(value)
    if call is not None and call[0] in ("get", "get_mut") and len(call[2]) == 1:
        arg = call[2][0]
        out.append(Guard(affine(arg, fold), Affine(f"{canon(call[1])}.len()", 0), False, arg, None, 0))
    elif call is not None and call[0] in ("get", "get_mut") and not call[2]:
        # a partitioned region's element of this thread (the offload front end's
        # `Region<T, Linear1D>::get_mut()`: `Some` only while `Linear1D::index()` is below
        # the region's length): the thread's position is below a runtime length
        out.append(Guard(Affine(POSITION, 0), Affine(f"{canon(call[1])}.len()", 0), False, None, None, 0))


#: The key of a guard on the thread's own position, not on an expression (:func:`_get_call`).
POSITION = "@position"

#: cuda-oxide's checked 2-D index: ``thread::index_2d_runtime(stride)`` is ``Some`` only when
#: the launch's x position (what ``thread::index_2d_col()`` returns) is below ``stride``
#: (cuda-oxide ``cuda_device::thread``: ``if col >= row_stride { return None; }``).
_CHECKED_AXES = {"index_2d_runtime": "index_2d_col"}


def _path_name(call: Node) -> str:
    """Last segment of a call's function path (``thread::index_2d_col()`` ->
    ``index_2d_col``), "" for a method call or anything else."""
    fn = call.child_by_field_name("function") if call.type == "call_expression" else None
    if fn is not None and fn.type == "scoped_identifier":
        fn = fn.child_by_field_name("name")
    return node_text(fn) if fn is not None and fn.type == "identifier" else ""


def _checked_axis_key(node: Node) -> str:
    """The guard key of an argument-free position call :data:`_CHECKED_AXES` bounds, else ""."""
    args = node.child_by_field_name("arguments") if node.type == "call_expression" else None
    name = _path_name(node) if args is not None and not _named(args) else ""
    return f"@{name}" if name in _CHECKED_AXES.values() else ""


def _checked_index_call(value: Node, fold, out: list[Guard]) -> None:
    """``if let Some(i) = unsafe { thread::index_2d_runtime(n) }``: the x position is below
    ``n`` (:data:`_CHECKED_AXES`)."""
    value = strip(value)
    if value.type == "unsafe_block":
        block = next((c for c in value.children if c.type == "block"), None)
        inner = _named(block) if block is not None else []
        if len(inner) != 1:
            return
        value = strip(inner[0])
    args = value.child_by_field_name("arguments") if value.type == "call_expression" else None
    axis = _CHECKED_AXES.get(_path_name(value)) if args is not None else None
    if axis is not None and len(_named(args)) == 1:
        bound = _named(args)[0]
        out.append(Guard(Affine(f"@{axis}", 0), affine(bound, fold), False, None, bound, 0))


def _method_call(call: Node) -> tuple[str, Node, list[Node]] | None:
    """``recv.name(args..)`` -> (name, recv, the arguments), else None."""
    if call.type != "call_expression":
        return None
    fn, args = call.child_by_field_name("function"), call.child_by_field_name("arguments")
    if fn is None or fn.type != "field_expression" or args is None:
        return None
    field, recv = fn.child_by_field_name("field"), fn.child_by_field_name("value")
    if field is None or recv is None:
        return None
    return node_text(field), recv, _named(args)


def _contains_call(call: Node, fold, out: list[Guard]) -> None:
    """``(a..b).contains(&i)``: i < b (``..=b``: i <= b)."""
    m = _method_call(call)
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
    _range_bound(rng, arg, fold, out)


def _in_bounds_call(call: Node, fold, out: list[Guard]) -> None:
    """cuda-oxide ``idx.in_bounds(len)``: idx < len; CubeCL ``buf.is_in_bounds(i)``
    (cubecl-core's ``Array``/``Tensor`` method, as burn-cubecl's kernels guard with it):
    i < buf.len()."""
    m = _method_call(call)
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
    outer = _method_call(call)
    inner = _method_call(strip(outer[1])) if outer is not None and not outer[2] else None
    if inner is None or inner[0] not in _VECTOR_BELOW or len(inner[2]) != 1:
        return
    wanted, adj = _VECTOR_BELOW[inner[0]]
    if outer[0] != wanted or holds != (wanted == "all"):  # `.all()` that holds, `.any()` that does not
        return
    a, b = strip(inner[1]), strip(inner[2][0])
    if b.type == "unary_expression" and b.child(0) is not None and b.child(0).type == "*" and _named(b):
        b = strip(_named(b)[0])  # `*dims` of `dims: &UVec3`
    for c in "xyz":
        out.append(Guard(Affine(f"{canon(a)}.{c}", 0), Affine(f"{canon(b)}.{c}", adj), False, None, None, adj))
        out.append(Guard(Affine(f"{canon(b)}.{c}", 0), Affine(f"{canon(a)}.{c}", 1 - adj), True, None, None, 1 - adj))


def _range_bound(rng: Node, var: Node, fold, out: list[Guard]) -> None:
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


def guards_at(use: Node, body: Node, fold, exits: frozenset[str] = frozenset(),
              source: bytes | None = None, memo: dict | None = None, parent=None,
              resolve: Callable[[Node], Node | None] | None = None) -> list[Guard]:
    """Every bound that holds where ``use`` is evaluated, from ``body`` (the function's
    block) down to it. ``exits``: macros that end the thread (as ``return`` does);
    ``source``: the file's bytes, to read ``assert!`` arguments; ``memo``: node key ->
    the guards above that node, shared by the uses of one function (a node's guards are
    its parent's contribution plus its parent's guards, so each node is walked once
    however deep an expression nests); ``parent``: how to go up (analysis/indexing.py
    ``ParentMap``; tree-sitter's ``Node.parent`` searches from the root); ``resolve``: see
    :func:`conditions`."""
    if memo is None:
        memo = {}
    up = parent if parent is not None else (lambda n: n.parent)
    path = []
    node = use
    above = None  # a linked list of (guards added at one level, the rest) cells
    while node is not None:
        k = (node.start_byte, node.end_byte, node.type)
        if k in memo:
            above = memo[k]
            break
        path.append(node)
        if node == body:
            break
        node = up(node)
    if path and path[-1] == body:  # nothing above the body counts
        memo[(body.start_byte, body.end_byte, body.type)] = above = None
        parent = body
        path.pop()
    else:
        parent = node
    for n in reversed(path):
        if parent is not None:
            extra: list[Guard] = []
            _contribution(parent, n, fold, exits, source, extra, memo, resolve, up)
            if extra:
                above = (extra, above)  # shared by every node below: memory linear in depth
        memo[(n.start_byte, n.end_byte, n.type)] = above
        parent = n
    out: list[Guard] = []
    while above is not None:
        level, above = above
        out.extend(level)
    return _tightened(out) if any(g.ne for g in out) else out


def _tightened(guards: list[Guard]) -> list[Guard]:
    """``guards`` without the ``!=`` facts (:attr:`Guard.ne`), each used to tighten the upper
    bound it excludes the top value of: ``i < n`` and ``i != n - 1`` (``if i >= n ||
    i == n - 1 { return; }``, a stencil's last point) give ``i < n - 1``."""
    ne = [g for g in guards if g.ne]
    out = [g for g in guards if not g.ne]
    for k, g in enumerate(out):
        if g.lower:
            continue
        for x in ne:
            # both as `key < bound + off`: g says expr.key < g.bound - g.expr.off, x excludes
            # expr.key == x.bound - 1 - x.expr.off
            if x.expr.key == g.expr.key and x.bound.key == g.bound.key and \
                    x.bound.off - x.expr.off == g.bound.off - g.expr.off:
                g = dataclasses.replace(g, bound=Affine(g.bound.key, g.bound.off - 1), adj=g.adj - 1)
        out[k] = g
    return out


def _contribution(node: Node, child: Node, fold, exits: frozenset[str], source: bytes | None,
                  out: list[Guard], memo: dict, resolve=None, up=None) -> None:
    """The bounds ``node`` adds for what lies below it through ``child``."""
    t = node.type
    if t == "if_expression":
        cond = node.child_by_field_name("condition")
        if cond is not None and child != cond:
            conditions(cond, child == node.child_by_field_name("consequence"), fold, out, 0, resolve)
    elif t == "while_expression":
        cond = node.child_by_field_name("condition")
        if cond is not None and child == node.child_by_field_name("body"):
            conditions(cond, True, fold, out, 0, resolve)
    elif t == "for_expression":
        pattern, value = node.child_by_field_name("pattern"), node.child_by_field_name("value")
        if child == node.child_by_field_name("body") and pattern is not None and value is not None:
            rng = _range_of(value)
            if rng is not None:
                _range_bound(rng, pattern, fold, out)
    elif t == "match_arm":
        pattern = node.child_by_field_name("pattern")
        guard = pattern.child_by_field_name("condition") if pattern is not None else None
        if guard is not None and child != pattern:
            conditions(guard, True, fold, out, 0, resolve)
        if pattern is not None and child != pattern:
            _arm_range(node, pattern, fold, out, up)
    elif t == "binary_expression":
        op = node.child_by_field_name("operator")
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if op is not None and left is not None and child == right:
            if op.type == "&&":
                conditions(left, True, fold, out, 0, resolve)
            elif op.type == "||":
                conditions(left, False, fold, out, 0, resolve)
    elif t == "let_chain":
        # `if let Some(v) = e.get_mut() && d[i] > 0.0`: the parts before `child` hold
        for part in _named(node):
            if part.start_byte >= child.start_byte:
                break
            conditions(part, True, fold, out, 0, resolve)
    elif t == "block":
        # the early exits of the block's statements, read once per block (a block of n
        # statements would otherwise be read n times over)
        key = ("exits", node.id)
        exits_of = memo.get(key)
        if exits_of is None:
            exits_of = []
            for stmt in _named(node):
                found: list[Guard] = []
                _exit_guard(stmt, fold, exits, source, found, resolve)
                if found:
                    exits_of.append((stmt.start_byte, found))
            memo[key] = exits_of
        for start, found in exits_of:
            if start >= child.start_byte:
                break
            out.extend(found)


def _arm_range(arm: Node, pattern: Node, fold, out: list[Guard], up) -> None:
    """``match v { 0..LEN => .. }``: in the arm, ``v`` lies in the pattern's range (one
    range pattern; an or-pattern or binding ``x @ 0..N`` adds nothing)."""
    pats = _named(pattern)
    if not pats or pats[0].type != "range_pattern":
        return
    block = up(arm) if up is not None else arm.parent
    match = up(block) if block is not None and up is not None else (block.parent if block is not None else None)
    value = match.child_by_field_name("value") if match is not None and match.type == "match_expression" else None
    if value is not None:
        _range_bound(pats[0], value, fold, out)


def _range_of(value: Node) -> Node | None:
    """The range a ``for`` loop walks: ``a..b``, ``(a..b).step_by(s)``, ``(a..b).rev()``."""
    depth = 0
    v = strip(value)
    while depth < 8:
        depth += 1
        if v.type == "range_expression":
            return v
        if v.type == "call_expression":
            fn = v.child_by_field_name("function")
            if fn is not None and fn.type == "field_expression":
                recv = fn.child_by_field_name("value")
                if recv is None:
                    return None
                v = strip(recv)
                continue
        return None
    return None


def diverges(node: Node | None, exits: frozenset[str]) -> bool:
    """Does ``node`` (a block / else clause / expression) always leave: a top-level
    ``return`` / ``break`` / ``continue``, ``panic!`` / ``unreachable!``, or an exit macro."""
    if node is None:
        return False
    if node.type in ("return_expression", "break_expression", "continue_expression"):
        return True
    if node.type == "else_clause":
        return any(diverges(c, exits) for c in _named(node))
    if node.type == "macro_invocation":
        m = node.child_by_field_name("macro")
        name = node_text(m).rsplit("::", 1)[-1] if m is not None else ""
        return name in ("panic", "unreachable", "todo", "unimplemented") or name in exits
    if node.type != "block":
        return False
    for stmt in _named(node):
        inner = _named(stmt)[0] if stmt.type == "expression_statement" and _named(stmt) else stmt
        if diverges(inner, exits) and inner.type != "block":
            return True
    return False


def _exit_guard(stmt: Node, fold, exits: frozenset[str], source: bytes | None, out: list[Guard],
                resolve=None) -> None:
    """Bounds implied by an earlier statement that leaves unless they hold."""
    inner = _named(stmt)[0] if stmt.type == "expression_statement" and _named(stmt) else stmt
    if inner.type == "if_expression":
        cond = inner.child_by_field_name("condition")
        if cond is None:
            return
        if diverges(inner.child_by_field_name("consequence"), exits):
            conditions(cond, False, fold, out, 0, resolve)
        alt = inner.child_by_field_name("alternative")
        if alt is not None and diverges(alt, exits):
            conditions(cond, True, fold, out, 0, resolve)
    elif inner.type == "let_declaration":
        alt = inner.child_by_field_name("alternative")
        value = inner.child_by_field_name("value")
        if alt is not None and value is not None and diverges(alt, exits):
            _get_call(value, fold, out)
    elif inner.type == "macro_invocation" and source is not None:
        macro = inner.child_by_field_name("macro")
        if macro is None or node_text(macro).rsplit("::", 1)[-1] not in _ASSERTS:
            return
        tokens = next((c for c in inner.children if c.type == "token_tree"), None)
        if tokens is None or tokens.child_count < 2:
            return
        start, end = tokens.children[0].end_byte, tokens.children[-1].start_byte
        tree = parse(SNIPPET_PREFIX + source[start:end] + SNIPPET_SUFFIX)
        call = snippet_call(tree)
        args = call.child_by_field_name("arguments") if call is not None else None
        first = _named(args) if args is not None else []
        if first:
            found: list[Guard] = []
            conditions(first[0], True, fold, found)
            out.extend(dataclasses.replace(g, local=False) for g in found)


# ------------------------------------------------------------------ is an index bounded


def bounded(index: Node, guards: list[Guard], fold, resolve: Callable[[Node], Node | None],
            length: int | None, is_thread: Callable[[Node], bool] = lambda n: False,
            block_only: Callable[[Node], bool] = lambda n: False, buffer: Node | None = None,
            holds_at: Callable[[Guard, Node], bool] = lambda g, n: True,
            record_counts: frozenset[tuple[str, str]] = frozenset(),
            sums: Callable[[Node], list[Node] | None] | None = None) -> bool:
    """Is ``index`` (an expression) below the buffer's length wherever ``guards`` hold?

    First, a guard on the same expression (up to a constant offset, :func:`affine`);
    then an upper bound of the index as a polynomial (:func:`upper_bound`: guarded
    variables at their largest value, immutable ``let``s followed, other values symbols)
    compared with the extents the guards describe (a bound, or the product of two or
    three bounds: ``row * w + col`` under ``row < h && col < w`` is below ``h * w``).

    Args:
        fold: value of a constant expression node (``N``, ``4 * M``), or ``None``.
        resolve: the value an identifier was bound to by an immutable ``let`` (to look
            through ``let i = idx as usize;``), or ``None``.
        length: the buffer's length when known (an array ``[T; N]``), for constant bounds.
        is_thread: does a node's value depend on the thread index (such a value with no
            guard has no upper bound).
        block_only: does a node's value depend on the block index alone (one block per
            row: the launch has as many blocks as rows)? Such a value is a symbol, like a
            value the same for every thread: its bound is the launch's shape.
        buffer: the indexed buffer's expression: an index below its ``.len()`` is in
            bounds whatever the guards (``x[(i + k).min(x.len() - 1)]``).
        holds_at: does a guard on the same text speak of the same values at a node (the
            same bindings, no assignment in between: not ``if i < n { let i = i + 100;
            x[i] }``)? Guards match by text (:func:`canon`) otherwise.
        record_counts: (``"<buffer>.len()"``, variable key) pairs where the function indexes
            that buffer with that variable itself (``zk[ip]``): there the buffer's length
            counts records, so ``ip < zk.len()`` bounds the record ``rho[ip * 2 + 1]``.
        sums: the terms a ``mut`` variable built up with ``+=`` holds (analysis/indexing.py
            ``ThreadFlow.straight_sum``), for one-block-per-tile indexes, or ``None``.
    """
    e = affine(index, fold)
    for g in guards:
        if g.lower or g.expr.key != e.key or not holds_at(g, index):
            continue
        # index = X - g.expr.off + e.off < bound - g.expr.off + e.off
        slack = g.bound.off - g.expr.off + e.off
        if g.bound.key == "":
            if length is None or slack <= length:
                return True
        elif slack <= 0:
            return True
    if e.key and 0 < e.off:
        for g in guards:
            # one record of k elements per thread: `x[base + 1]`, `x[base + 2]` under a guard
            # on `base = 3 * v` (burn-cubecl's cross product) stay in the guarded record
            if not g.lower and g.expr.key == e.key and g.expr.off == 0 and g.expr_node is not None \
                    and holds_at(g, index) and e.off < _record_stride(g.expr_node, resolve, fold):
                return True
    if e.off == 0 and any(g.expr.key == POSITION for g in guards) and _is_position(index, resolve, is_thread):
        return True
    ub = _Bounds(guards, fold, resolve, lambda n: is_thread(n) and not block_only(n), holds_at)
    if e.key and 0 <= e.off and _in_guarded_record(index, guards, fold, resolve, length, holds_at, ub,
                                                   record_counts):
        return True
    if _in_host_range(index, guards, fold, resolve, is_thread, holds_at):
        return True
    if _block_tile(index, ub, block_only, resolve, fold, sums):
        return True
    top = ub.of(index, 1)
    if top is UNKNOWN:
        return True  # not an expression bounds can be worked out for: not reported
    if top is None:
        return False
    if ub.linear(index):
        return True
    if _is_const(top):
        c = top.get((), 0)
        if length is not None:
            return c <= length - 1
        return any(_is_const(x) and c <= x.get((), 0) - 1 for x in ub.extents())
    extents = ub.extents()
    if buffer is not None:
        extents.append({(f"{canon(buffer)}.len()",): 1})
    return any(_le_minus_one(_sub(top, x)) for x in extents)


def _operands(node: Node, operator: str, limit: int | None = None) -> list[Node]:
    """The operands of a chain of one operator, ``a + b + c`` or ``a * b * c`` (parentheses
    and casts stripped), split at most ``limit`` levels deep (``None``: all)."""
    node = strip(node)
    if node.type == "binary_expression" and (limit is None or limit > 0):
        op = node.child_by_field_name("operator")
        if op is not None and op.type == operator:
            inner = None if limit is None else limit - 1
            return _operands(node.child_by_field_name("left"), operator, inner) + \
                _operands(node.child_by_field_name("right"), operator, inner)
    return [node]


def _sum_terms(node: Node) -> list[Node]:
    """The terms of a sum ``a + b + c`` (parentheses and casts stripped)."""
    return _operands(node, "+")


def _sum_key(terms: list[Node]) -> str:
    """The guard key (:func:`canon`) of the sum of ``terms`` in the order written, as if
    parenthesized on their own: ``kk``, ``tx`` -> the key of ``(kk + tx)``."""
    key = canon(terms[0])
    for t in terms[1:]:
        key = f"({key}+{canon(t)})"
    return key


def _divide(p: Poly, mono: tuple) -> Poly | None:
    """``p / mono`` when every monomial of ``p`` holds ``mono``'s symbols, else ``None``."""
    out: Poly = {}
    for m, c in p.items():
        rest = list(m)
        for sym in mono:
            if sym not in rest:
                return None
            rest.remove(sym)
        out[tuple(rest)] = c
    return out


def _record_stride(node: Node, resolve: Callable[[Node], Node | None], fold) -> int:
    """``k`` when ``node`` is ``k * v`` / ``v * k`` for a constant ``k`` (immutable ``let``s
    followed), else 0."""
    return _record(node, resolve, fold)[0]


def _record(node: Node, resolve: Callable[[Node], Node | None], fold, depth: int = 0) -> tuple[int, Node | None]:
    """``(k, v)`` when ``node`` is ``k * v`` / ``v * k`` for a constant ``k > 1`` (immutable
    ``let``s followed), else ``(0, None)``."""
    node = strip(node)
    if depth > 4:
        return 0, None
    if node.type == "identifier":
        value = resolve(node)
        return _record(value, resolve, fold, depth + 1) if value is not None else (0, None)
    if node.type != "binary_expression":
        return 0, None
    op = node.child_by_field_name("operator")
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if op is None or op.type != "*" or left is None or right is None:
        return 0, None
    k, v = _constant(strip(left), fold), right
    if k is None:
        k, v = _constant(strip(right), fold), left
    return (k, v) if k is not None and k > 1 else (0, None)


def _in_guarded_record(index: Node, guards: list[Guard], fold, resolve, length: int | None, holds_at,
                       ub: "_Bounds", record_counts: frozenset[tuple[str, str]] = frozenset()) -> bool:
    """``index`` is ``k * r + c`` (``let base = r * 4; x[base + 3]``, or ``x[at + c]`` for
    ``c`` in ``0..3``) with ``0 <= c < k`` and a guard ``r < n`` on the record number (or
    ``r`` a row-major index its guards bound, :meth:`_Bounds.linear`):
    element ``c`` of record ``r``, below ``k * n``. With a runtime ``n`` the buffer is
    trusted to hold ``n`` records (as a guard ``i < n`` is trusted to name ``x``'s length),
    unless ``n`` is a ``.len()`` (elements, not records: ``x[2 * i]`` under
    ``i < x.len()`` is out of bounds); with a constant ``n`` the length must hold them."""
    k = 0
    rec = None
    top = 0  # the largest value of the other terms
    for t in _sum_terms(index):
        c = _constant(strip(t), fold)
        if c is not None:
            top += c
            continue
        kt, v = _record(t, resolve, fold)
        if kt and rec is None:
            k, rec = kt, v
            continue
        most = ub.of(t, 1)
        if most is UNKNOWN or most is None or not _is_const(most):
            return False
        top += most.get((), 0)
    if rec is None or not 0 <= top < k:
        return False
    r = affine(rec, fold)
    if not r.key:
        return False
    for g in guards:
        if g.lower or g.expr.key != r.key or not holds_at(g, index):
            continue
        slack = g.bound.off - g.expr.off + r.off  # r < bound + slack
        if g.bound.key == "" and length is not None and k * slack <= length:
            return True
        if g.bound.key != "" and slack <= 0 and (not g.bound.key.endswith(".len()")
                                                 or (g.bound.key, r.key) in record_counts):
            return True  # (a guard on some buffer's `.len()` counts elements, not records,
            # unless that buffer is indexed by the record number itself: one element per record)
    # the record number is itself a row-major index under its dimensions' guards: a pixel's
    # `(y * w + x) * 3 + c` (rust-gpu RGB buffers), a 2-D block's `(by * bw + bx) * 64 + j`
    return ub.linear(rec)


def _flat_terms(node: Node, resolve, depth: int = 0, sums=None) -> list[Node]:
    """The terms of a sum, immutable ``let``s of sums followed (``base + i`` with ``let base =
    tile * S + slot * 64`` -> ``tile * S``, ``slot * 64``, ``i``), and ``mut`` variables
    built up with ``+=`` (``sums``: see :func:`bounded`)."""
    out = []
    for t in _sum_terms(node):
        value, hops = t, 0
        while value.type == "identifier" and hops < 6:  # `dc_off` -> `tile_base` -> a sum
            nxt = resolve(value)
            if nxt is None:
                break
            value, hops = strip(nxt), hops + 1
        parts = sums(value) if sums is not None and value.type == "identifier" and depth < 6 else None
        if parts:
            for p in parts:
                out += _flat_terms(p, resolve, depth + 1, sums)
        elif value is not t and len(_sum_terms(value)) > 1 and depth < 6:
            out += _flat_terms(value, resolve, depth + 1, sums)
        else:
            out.append(t)  # a term kept as written: a guard on `tid` speaks of `tid`
    return out


def _block_tile(index: Node, ub: "_Bounds", block_only, resolve, fold, sums=None) -> bool:
    """``index`` is ``b * S + w`` with ``b`` from the block index alone, ``S`` the same for
    every thread (a constant, or ``2 * h``) and every other term bounded with a sum below
    ``S`` (``h + i`` under ``i < h``): each block writes its own tile of ``S``
    elements (a CubeCL kernel launched with one cube per tile: ``CUBE_POS * 4096 +
    UNIT_POS * 64 + i`` under ``UNIT_POS < 64`` and ``i < 64``), also with a block term per
    grid axis (``t * z_stride + hv * K + tid`` under ``tid < K``). The launch is trusted to
    have as many blocks as tiles, as one block per row is."""
    terms = _flat_terms(index, resolve, 0, sums)
    sizes: list[Poly] = []  # the stride of each block term
    rest: list[Node] = []
    for t in terms:
        size = _tile_stride(t, ub, block_only)
        if size is not None:
            sizes.append(size)
        else:
            rest.append(t)
    if not sizes:
        return False
    # two block terms (`t * z_stride + hv * K + tid` on a (HV, T) grid): the tile of
    # block (hv, t); the thread's offset in it must stay below one of the strides
    top: Poly = {}
    for other in rest:
        most = ub.of(other, 1)
        if not isinstance(most, dict):
            return False
        top = _add(top, most)
    return any(_le_minus_one(_sub(top, size)) for size in sizes)


def _tile_stride(term: Node, ub: "_Bounds", block_only) -> Poly | None:
    """The stride ``S`` of a term ``b * S`` with ``b`` from the block index alone and ``S``
    the same for every thread (a constant, ``2 * h``, ``out.stride(r) * out.shape(r)``: the
    factors of a product in any order), else ``None``."""
    m = ub._product(term, 0)
    if m is None:
        return None
    factors = _operands(m[0], "*", MAX_DEPTH) + _operands(m[1], "*", MAX_DEPTH)
    block = next((f for f in factors if block_only(f)), None)
    if block is None:
        return None
    size: Poly = {(): 1}
    for f in factors:
        if f is block:
            continue  # the block index (one factor of it; the others are strides)
        if ub.is_thread(f):
            return None
        exact = ub.exact(f)
        if not isinstance(exact, dict):
            return None
        size = _mul(size, exact)
    return size


def _is_position(index: Node, resolve, is_thread, depth: int = 0) -> bool:
    """Is ``index`` (immutable ``let``s followed) a thread-position call through a path with
    no argument (``Linear1D::index()``)?"""
    node = strip(index)
    if node.type == "identifier" and depth < 6:
        value = resolve(node)
        return value is not None and _is_position(value, resolve, is_thread, depth + 1)
    if node.type != "call_expression" or not is_thread(node):
        return False
    fn, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
    return fn is not None and fn.type == "scoped_identifier" and args is not None and not _named(args)


def _in_host_range(index: Node, guards: list[Guard], fold, resolve, is_thread, holds_at) -> bool:
    """``index`` is a thread's position in a range the host computed, plus offsets the host
    passed: ``let i = first + tid; if i > last { return; } x[i + 1 + jp + kp]`` (RAJAPerf's
    zone ranges ``fpz..=lpz`` with ghost zones around them). The range's start is a runtime
    value, its bound a runtime value (not a ``.len()``), and every other term of the index
    a constant or a runtime value that is the same for every thread (a stride): the host
    chose the range and the strides together, so the neighbours are trusted to be inside
    the buffer, as a guard ``i < n`` is trusted to name its length. A position without a
    runtime start (``if id.x > n``) is not such a range: its bound is checked as usual."""
    keys = {g.expr.key for g in guards if not g.lower and g.expr.off == 0 and g.bound.key
            and not g.bound.key.endswith(".len()") and holds_at(g, index)}
    if not keys:
        return False
    terms = _terms_until(index, keys, fold, resolve)
    if terms is None:
        return False
    ranged = [t for t in terms if affine(t, fold).key in keys]
    if len(ranged) != 1:
        return False
    if any(t is not ranged[0] and (is_thread(t) or t.type not in _RUNTIME_TERMS) for t in terms):
        return False
    start = _terms_until(ranged[0], set(), fold, resolve, expand_first=True)
    return start is not None and any(is_thread(t) for t in start) and \
        any(not is_thread(t) and t.type in _RUNTIME_TERMS for t in start)


#: Expressions a host-passed value is read through: `jp`, `self.jp`, `*jp`, `params.kp`.
_RUNTIME_TERMS = frozenset({"identifier", "field_expression", "unary_expression"})


def _terms_until(node: Node, keys: set[str], fold, resolve, depth: int = 0, expand_first: bool = False
                 ) -> list[Node] | None:
    """The non-constant terms of the sum ``node``, immutable ``let``s of sums followed down
    to an identifier in ``keys`` (a guarded name); ``None`` past a depth of 6."""
    if depth > 6:
        return None
    out: list[Node] = []
    for t in _sum_terms(node):
        if _constant(t, fold) is not None:
            continue
        value = resolve(t) if t.type == "identifier" and (expand_first or canon(t) not in keys) else None
        if value is not None and (strip(value).type == "identifier" or _sum_terms(value) != [strip(value)]):
            sub = _terms_until(value, keys, fold, resolve, depth + 1)
            if sub is None:
                return None
            out += sub
        else:
            out.append(t)
    return out


Poly = dict  # monomial (sorted tuple of symbol keys) -> integer coefficient


class _Unknown:
    """An expression outside what :class:`_Bounds` models (``/``, ``%``, ``>>``, calls
    other than ``min`` / ``clamp`` / ``saturating_sub``)."""

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN = _Unknown()


def _counts_elements(p: Poly) -> bool:
    """Is a row number's bound ``p`` a buffer's ``.len()`` (an element count, not a row
    count: ``x[nc * i + 2]`` under ``i < x.len()`` reads past the end for any ``nc``)?"""
    return any(sym.endswith(".len()") for m in p for sym in m)


def _is_const(p: Poly) -> bool:
    return all(m == () for m, c in p.items() if c)


def _add(a: Poly, b: Poly, k: int = 1) -> Poly:
    out = dict(a)
    for m, c in b.items():
        out[m] = out.get(m, 0) + k * c
    return {m: c for m, c in out.items() if c}


def _sub(a: Poly, b: Poly) -> Poly:
    return _add(a, b, -1)


def _mul(a: Poly, b: Poly) -> Poly:
    out: Poly = {}
    for ma, ca in a.items():
        for mb, cb in b.items():
            m = tuple(sorted(ma + mb))
            out[m] = out.get(m, 0) + ca * cb
    return {m: c for m, c in out.items() if c}


def _le_minus_one(p: Poly) -> bool:
    """``p <= -1`` for every value of its symbols that is at least 1 (they are sizes, counts
    and strides: ``row * n`` under ``row < rows`` is below ``rows * n`` for any ``n >= 1``)."""
    if not all(c <= 0 for m, c in p.items() if m != ()):
        return False
    return p.get((), 0) + sum(c for m, c in p.items() if m != ()) <= -1


class _Bounds:
    """Upper / lower bounds of expressions as polynomials over the symbols (values the
    same for every thread) under a list of guards."""

    def __init__(self, guards: list[Guard], fold, resolve, is_thread, holds_at=lambda g, n: True) -> None:
        self.guards, self.fold, self.resolve, self.is_thread = guards, fold, resolve, is_thread
        self.holds_at = holds_at
        self.upper: dict[str, list[Guard]] = {}
        self.lower: dict[str, list[Guard]] = {}
        for g in guards:
            if g.expr.key:  # `i + TAPS <= LEN` bounds `i` too (its offset is taken off the bound)
                (self.lower if g.lower else self.upper).setdefault(g.expr.key, []).append(g)
        self._busy: set[str] = set()

    def extents(self) -> list[Poly]:
        """What an index may be proved below: each upper guard's bound (without its
        constant term when it has symbols: ``y < h - 1`` guards an interior row of an
        ``h``-row grid), and products of two or three of them (a linearized 2-D / 3-D
        index)."""
        bounds = []
        for g in self.guards:
            if g.lower:
                continue
            p = self.exact(g.bound_node) if g.bound_node is not None else {(g.bound.key,): 1} if g.bound.key else {}
            if not isinstance(p, dict):
                continue
            p = _add(p, {(): g.adj}) if g.bound_node is not None else _add(p, {(): g.bound.off})
            if not _is_const(p):
                p = {m: c for m, c in p.items() if m != ()}  # `y < h - 1`: the extent is h rows
            bounds.append(p)
        out = list(bounds)
        for i in range(len(bounds)):
            for j in range(i + 1, len(bounds)):
                out.append(_mul(bounds[i], bounds[j]))
                for k in range(j + 1, len(bounds)):
                    out.append(_mul(_mul(bounds[i], bounds[j]), bounds[k]))
        return out

    def exact(self, node: Node) -> Poly | None:
        """A uniform expression as a polynomial (symbols for what is not a constant)."""
        return self.of(node, 0)

    def of(self, node: Node, sign: int, depth: int = 0) -> Poly | None:
        """Largest (``sign`` 1), smallest (-1) or exact (0) value of ``node``; ``None``
        when not known (a thread-dependent value without a guard)."""
        if depth > MAX_DEPTH:
            return None
        node = strip(node)
        v = _constant(node, self.fold)
        if v is not None:
            return {(): v} if v else {}
        t = node.type
        if t == "binary_expression":
            op = node.child_by_field_name("operator")
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if op is None or left is None or right is None:
                return None
            if op.type in ("+", "-"):
                found = _combine(self.of(left, sign, depth + 1),
                                 self.of(right, sign if op.type == "+" else -sign, depth + 1),
                                 _add if op.type == "+" else _sub)
                if isinstance(found, dict) or sign == 0:
                    return found
                whole = self._guarded(node, canon(node), sign, depth)  # `(kk + tx) < k` guards `kk + tx`
                if whole is None and sign > 0 and op.type == "+":
                    whole = self._guarded_tail(node, depth)
                return whole if whole is not None else found
            if op.type == "*":
                lc, rc = _constant(strip(left), self.fold), _constant(strip(right), self.fold)
                if lc is not None or rc is not None:
                    c, other = (lc, right) if lc is not None else (rc, left)
                    p = self.of(other, sign if c >= 0 else -sign, depth + 1)
                    return _combine({(): c}, p, _mul)
                if sign < 0:
                    return {}  # both factors are non-negative indexes / sizes
                return _combine(self.of(left, sign, depth + 1), self.of(right, sign, depth + 1), _mul)
            return UNKNOWN
        if t == "call_expression":
            found = self._clamp_call(node, sign, depth)
            if found is not False:
                return found
            m = _method_call(node)
            if m is not None and m[0] in DIVISION_METHODS:
                return UNKNOWN  # a quotient or remainder (CubeCL `FastDivmod::div_mod`): not worked out
            if m is not None and m[0] in ("wrapping_add", "wrapping_mul") and len(m[2]) == 1:
                # integer arithmetic spelled as methods (`_block_dim_x().wrapping_mul(_block_idx_x())
                # .wrapping_add(_thread_idx_x())`); an index never reaches the wrap
                a, b = self.of(m[1], sign, depth + 1), self.of(m[2][0], sign, depth + 1)
                if m[0] == "wrapping_add":
                    return _combine(a, b, _add)
                return {} if sign < 0 else _combine(a, b, _mul)
            args = node.child_by_field_name("arguments")
            if args is not None and any(self.is_thread(a) for a in _named(args)):
                # a function of the position (`layout.to_source_pos(ABSOLUTE_POS)`, a helper that
                # maps it into range): what it returns is not worked out
                return UNKNOWN
        if t == "field_expression" and self._field_of_call(node):
            return UNKNOWN
        key = _checked_axis_key(node) or canon(node)
        if sign != 0:
            guarded = self._guarded(node, key, sign, depth)
            if guarded is not None:
                if sign > 0 and t == "identifier":
                    # `c = row * w + col` under `c < w * h` AND `row < h - 1 && col < w - 1`:
                    # the tighter of the guard's bound and the value's own (a stencil's
                    # `c + w + 1` needs the per-axis one)
                    value = self.resolve(node)
                    own = self.of(value, sign, depth + 1) if value is not None else None
                    if isinstance(own, dict) and all(c >= 0 for c in _sub(guarded, own).values()):
                        return own
                return guarded
        if t == "if_expression" and sign > 0:
            return self._if_value(node, depth)
        thread = self.is_thread(node)
        if node.type == "identifier":
            value = self.resolve(node)
            if value is not None:
                found = self.of(value, sign, depth + 1)
                if thread or isinstance(found, dict):
                    return found
                # a uniform value the model cannot express (`(len + 1) / 2`): a symbol
        if thread:
            if sign > 0:
                return self._from_flat(node, key, depth)
            return {} if sign < 0 else None
        if t == "index_expression" and len(node.named_children) == 2 and \
                _constant(strip(node.named_children[1]), self.fold) is not None:
            return {(key,): 1}  # `dims[0]`: an element of a uniform array, a symbol
        if t not in ("identifier", "field_expression", "self", "scoped_identifier", "call_expression"):
            return UNKNOWN
        return {(key,): 1}

    def _field_of_call(self, node: Node) -> bool:
        """A field of a value a call made from the position: ``p.y`` with ``let p =
        gid.xy().rem(size)`` (a glam vector reduced with a quotient or remainder method, rust-gpu
        shaders), ``s.cell`` with ``let s = grow(i)``: not worked out."""
        value = strip(node.child_by_field_name("value") or node)
        bound = self.resolve(value) if value.type == "identifier" else None
        call = strip(bound) if bound is not None else None
        if call is None or call.type != "call_expression":
            return False
        m = _method_call(call)
        if m is not None and m[0] in DIVISION_METHODS | {"min", "clamp"}:
            return True  # (a component of a clamped vector: `(v + i).min(splat(len - 1)).x`)
        args = call.child_by_field_name("arguments")
        return args is not None and any(self.is_thread(a) for a in _named(args))

    def _from_flat(self, node: Node, key: str, depth: int) -> Poly | None:
        """An upper bound of a thread coordinate that only a flat guard bounds: under
        ``y * w + x < w * h`` (``if index >= w * h { return; }`` with ``index = y * w + x``),
        ``y * w <= w * h - 1``, so ``y <= h - 1`` (every term is non-negative). ``None`` when
        no guard says so. (Rust-GPU's VulkanShaderExamples cloth shader: neighbours of a
        flat-guarded particle under per-axis guards.)"""
        for g in self.guards:
            if g.lower or g.expr_node is None or g.bound_node is None or not self.holds_at(g, node):
                continue
            whole = self._follow(g.expr_node, depth)
            for term in _sum_terms(whole):
                if term.type != "binary_expression" or term.child_by_field_name("operator").type != "*":
                    continue
                a, b = strip(term.child_by_field_name("left")), strip(term.child_by_field_name("right"))
                other = b if canon(a) == key else a if canon(b) == key else None
                if other is None or self.is_thread(other):
                    continue
                stride = self.exact(other)
                bound = self.exact(g.bound_node)
                if not isinstance(stride, dict) or not isinstance(bound, dict) or len(stride) != 1:
                    continue
                (mono, coef), = stride.items()
                if coef != 1 or not mono:
                    continue
                top = _add(bound, {(): g.adj})  # expr < bound + adj
                quotient = _divide(top, mono)
                if quotient is not None:
                    return _add(quotient, {(): -1})
        return None

    def _follow(self, node: Node, depth: int) -> Node:
        """``node`` with immutable ``let``s followed to their value (at most a few)."""
        for _ in range(4):
            node = strip(node)
            if node.type != "identifier":
                break
            value = self.resolve(node)
            if value is None:
                break
            node = value
        return strip(node)

    def _guarded_tail(self, node: Node, depth: int) -> Poly | None:
        """Largest value of a sum whose last terms a guard bounds as a group, written
        without their parentheses: ``row * k + kk + tx`` (parsed ``(row * k + kk) + tx``)
        under ``(kk + tx) < k``; ``None`` when no such guard holds."""
        terms = _sum_terms(node)
        for j in range(1, len(terms) - 1):
            tail = self._guarded(node, _sum_key(terms[j:]), 1, depth)
            if tail is None:
                continue
            head: Poly | None = {}
            for t in terms[:j]:
                head = _combine(head, self.of(t, 1, depth + 1), _add)
            if isinstance(head, dict):
                return _add(head, tail)
        return None

    def _guarded(self, node: Node, key, sign: int, depth: int) -> Poly | None:
        """The bound a guard on ``node`` itself gives (``(kk + tx) < k`` bounds ``kk + tx``),
        else ``None``."""
        found = self.lower.get(key) if sign < 0 else self.upper.get(key)
        if not found or key in self._busy:
            return None
        self._busy.add(key)
        try:
            for g in found:
                if not self.holds_at(g, node):
                    continue
                p = self.of(g.bound_node, sign, depth + 1) if g.bound_node is not None else \
                    ({(g.bound.key,): 1} if g.bound.key else {})
                if isinstance(p, dict):
                    adj = (g.adj if g.bound_node is not None else g.bound.off) - g.expr.off
                    return _add(p, {(): adj - 1} if sign > 0 else {(): adj})
        finally:
            self._busy.discard(key)
        return None

    def _if_value(self, node: Node, depth: int):
        """Largest value of ``if c { a } else { b }``: each branch's value under the
        condition (or its negation), the larger one when they differ by a constant."""
        cond = node.child_by_field_name("condition")
        cons, alt = node.child_by_field_name("consequence"), node.child_by_field_name("alternative")
        if cond is None or cons is None or alt is None:
            return UNKNOWN
        values = []
        for branch, holds in ((cons, True), (alt, False)):
            block = branch if branch.type == "block" else next((c for c in _named(branch) if c.type == "block"), None)
            tail = _named(block)[-1] if block is not None and _named(block) else None
            if tail is None or tail.type.endswith("_statement") or tail.type == "let_declaration":
                return UNKNOWN
            extra: list[Guard] = []
            conditions(cond, holds, self.fold, extra)
            sub = _Bounds(self.guards + [g for g in extra if not g.ne], self.fold, self.resolve, self.is_thread)
            values.append(sub.of(tail, 1, depth + 1))
        a, b = values
        if a is UNKNOWN or b is UNKNOWN:
            return UNKNOWN
        if a is None or b is None:
            return None
        d = _sub(a, b)
        if _is_const(d):
            return a if d.get((), 0) >= 0 else b
        return UNKNOWN

    def linear(self, node: Node, depth: int = 0) -> bool:
        """``a * s + w`` (``let``s followed) with ``s`` the same for every thread and both
        ``a`` and ``w`` bounded from above: a row-major index whose row stride the code
        knows (``row * input.stride(0) + col`` under ``row < rows`` and ``col < cols``), the
        row not bounded by a ``.len()`` (that counts elements: :func:`_counts_elements`)."""
        if depth > 8:
            return False
        node = strip(node)
        if node.type == "identifier":
            value = self.resolve(node)
            return value is not None and self.linear(value, depth + 1)
        if node.type != "binary_expression":
            return False
        op = node.child_by_field_name("operator")
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if op is not None and op.type == "*" and left is not None and right is not None:
            # a row's start, `row * n` under `row < rows` (the column term is 0)
            m = self._product(node, depth)
            if m is not None and not self.is_thread(m[1]) and _constant(strip(m[1]), self.fold) is None:
                amax = self.of(m[0], 1)
                return isinstance(amax, dict) and not _counts_elements(amax)
            return False
        if op is None or op.type != "+" or left is None or right is None:
            return False
        for mul, w in ((left, right), (right, left)):
            m = self._product(mul, depth)
            if m is None:
                continue
            a, stride = m
            if self.is_thread(stride) or _constant(strip(stride), self.fold) is not None:
                continue
            amax, wmax = self.of(a, 1), self.of(w, 1)
            if isinstance(amax, dict) and isinstance(wmax, dict) and not _counts_elements(amax) \
                    and not self._wrong_stride(amax, wmax, stride, w):
                return True
        return self._linear_terms(node, depth)

    def _linear_terms(self, node: Node, depth: int) -> bool:
        """:meth:`linear` for a sum written without the column's parentheses:
        ``row * k + kk + tx`` (parsed ``(row * k + kk) + tx``) under ``row < m && (kk + tx)
        < k`` is ``row * k + (kk + tx)``: one product term, the other terms the column (a
        guard on their sum in the order written, or each term's own bound)."""
        terms = _sum_terms(node)
        if len(terms) < 3:
            return False
        for i, term in enumerate(terms):
            m = self._product(term, depth) if strip(term).type == "binary_expression" else None
            if m is None:
                continue
            a, stride = m
            if self.is_thread(stride) or _constant(strip(stride), self.fold) is not None:
                continue
            rest = terms[:i] + terms[i + 1:]
            if any(_constant(strip(t), self.fold) is not None for t in rest):
                return False  # `i * n + col + 1` under `col < n`: the offset may reach the stride
            wmax = self._guarded(node, _sum_key(rest), 1, depth)
            if wmax is None:
                wmax = {}
                for t in rest:
                    wmax = _combine(wmax, self.of(t, 1, depth + 1), _add)
            amax = self.of(a, 1)
            if isinstance(amax, dict) and isinstance(wmax, dict) and not _counts_elements(amax) \
                    and not self._wrong_stride(amax, wmax, stride, rest[0] if len(rest) == 1 else node):
                return True
        return False

    def _wrong_stride(self, amax: Poly, wmax: Poly, stride: Node, w: Node) -> bool:
        """Does ``a * s + w`` visibly not match its guards? A guarded column ``w`` reaches
        the stride (``if x > w || y > h { return; }``, then ``y * w + x``: x == w spills into
        the next row, the last row past the end), or the stride is the row count and not the
        column count (``y * h + x`` under ``y < h`` and ``x < w``: transposed). (A column
        computed by an ``if`` has a looser bound than it may have: only the second test.)"""
        s = self.exact(stride)
        if not isinstance(s, dict) or _is_const(s):
            return False
        over = _sub(wmax, s)
        if _is_const(over) and over.get((), 0) >= 0 and strip(w).type in ("identifier", "field_expression") \
                and not self._if_valued(strip(w)):
            return True
        rows = _sub(_add(amax, {(): 1}), s)
        cols = _sub(_add(wmax, {(): 1}), s)
        return _is_const(rows) and rows.get((), 0) == 0 and not _is_const(cols)

    def _if_valued(self, node: Node) -> bool:
        """Is ``node`` a variable whose value (``let``s followed) is an ``if`` expression?"""
        for _ in range(8):
            value = self.resolve(node) if node.type == "identifier" else None
            if value is None:
                return False
            node = strip(value)
            if node.type == "if_expression":
                return True
        return False

    def _product(self, node: Node, depth: int) -> tuple[Node, Node] | None:
        node = strip(node)
        if node.type == "identifier":
            value = self.resolve(node)
            return self._product(value, depth + 1) if value is not None and depth < 8 else None
        if node.type != "binary_expression":
            return None
        op = node.child_by_field_name("operator")
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if op is None or op.type != "*" or left is None or right is None:
            return None
        return (right, left) if self.is_thread(right) and not self.is_thread(left) else (left, right)

    def _clamp_call(self, node: Node, sign: int, depth: int):
        """Bounds of ``a.min(b)`` / ``min(a, b)``, ``a.clamp(lo, hi)``,
        ``a.saturating_sub(b)``; ``False`` for any other call."""
        fn, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
        if fn is None or args is None:
            return False
        a = _named(args)
        if fn.type == "field_expression":
            field, recv = fn.child_by_field_name("field"), fn.child_by_field_name("value")
            name = node_text(field) if field is not None else ""
            operands = [recv, *a] if recv is not None else a
        else:
            last = fn.child_by_field_name("name") if fn.type == "scoped_identifier" else fn
            name = node_text(last) if last is not None else ""
            operands = a
        if name == "min" and len(operands) == 2:
            if sign <= 0:
                return {} if sign < 0 else UNKNOWN
            for x in reversed(operands):  # the bound is usually the argument
                p = self.of(x, 1, depth + 1)
                if isinstance(p, dict):
                    return p
            return None
        if name == "clamp" and len(operands) == 3:
            return self.of(operands[2], sign, depth + 1) if sign > 0 else self.of(operands[1], sign, depth + 1)
        if name == "saturating_sub" and len(operands) == 2:
            return self.of(operands[0], 1, depth + 1) if sign > 0 else {}
        return False


#: Methods whose value is a quotient or a remainder of their receiver or argument (its bound,
#: like that of ``i / w`` and ``i % w``, is not worked out): CubeCL's ``FastDivmod::div_mod``
#: / ``div`` (burn-cubecl's index kernels), the integer ``div_euclid`` / ``checked_div`` /
#: ``wrapping_div``, and ``i.rem(n)`` (``core::ops::Rem``, also on glam vectors in rust-gpu shaders).
DIVISION_METHODS = frozenset({"div_mod", "div", "div_euclid", "checked_div", "wrapping_div", "div_ceil",
                              "rem", "rem_euclid", "wrapping_rem", "checked_rem"})


def _combine(a, b, op):
    """``op(a, b)`` for polynomials; UNKNOWN wins over ``None`` (no bound), then ``None``."""
    if a is UNKNOWN or b is UNKNOWN:
        return UNKNOWN
    if a is None or b is None:
        return None
    return op(a, b)
