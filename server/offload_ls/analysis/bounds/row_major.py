"""Linearized row-major indexes: ``row * stride + col`` with a stride the same for every
thread and both the row and the column bounded from above (``row * input.stride(0) + col``
under ``row < rows && col < cols``) is in bounds; one whose column reaches the stride, or
whose stride is the row count, visibly does not match its guards. Pure syntax; no I/O.
"""

from __future__ import annotations

from tree_sitter import Node

from offload_ls.analysis.bounds.expressions import constant, strip, sum_key, sum_terms
from offload_ls.analysis.bounds.poly import Poly, add, combine, counts_elements, is_const, sub
from offload_ls.analysis.bounds.polynomial import Bounds


def linear(ub: Bounds, node: Node, depth: int = 0) -> bool:
    """``a * s + w`` (``let``s followed) with ``s`` the same for every thread and both
    ``a`` and ``w`` bounded from above: a row-major index whose row stride the code
    knows (``row * input.stride(0) + col`` under ``row < rows`` and ``col < cols``), the
    row not bounded by a ``.len()`` (that counts elements: :func:`counts_elements`)."""
    if depth > 8:
        return False
    node = strip(node)
    if node.type == "identifier":
        value = ub.resolve(node)
        return value is not None and linear(ub, value, depth + 1)
    if node.type != "binary_expression":
        return False
    op = node.child_by_field_name("operator")
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if op is not None and op.type == "*" and left is not None and right is not None:
        # a row's start, `row * n` under `row < rows` (the column term is 0)
        m = ub.product(node, depth)
        if m is not None and not ub.is_thread(m[1]) and constant(strip(m[1]), ub.fold) is None:
            amax = ub.of(m[0], 1)
            return isinstance(amax, dict) and not counts_elements(amax)
        return False
    if op is None or op.type != "+" or left is None or right is None:
        return False
    for mul, w in ((left, right), (right, left)):
        m = ub.product(mul, depth)
        if m is None:
            continue
        a, stride = m
        if ub.is_thread(stride) or constant(strip(stride), ub.fold) is not None:
            continue
        amax, wmax = ub.of(a, 1), ub.of(w, 1)
        if isinstance(amax, dict) and isinstance(wmax, dict) and not counts_elements(amax) \
                and not _wrong_stride(ub, amax, wmax, stride, w):
            return True
    return _linear_terms(ub, node, depth)


def _linear_terms(ub: Bounds, node: Node, depth: int) -> bool:
    """:meth:`linear` for a sum written without the column's parentheses:
    ``row * k + kk + tx`` (parsed ``(row * k + kk) + tx``) under ``row < m && (kk + tx)
    < k`` is ``row * k + (kk + tx)``: one product term, the other terms the column (a
    guard on their sum in the order written, or each term's own bound)."""
    terms = sum_terms(node)
    if len(terms) < 3:
        return False
    for i, term in enumerate(terms):
        m = ub.product(term, depth) if strip(term).type == "binary_expression" else None
        if m is None:
            continue
        a, stride = m
        if ub.is_thread(stride) or constant(strip(stride), ub.fold) is not None:
            continue
        rest = terms[:i] + terms[i + 1:]
        if any(constant(strip(t), ub.fold) is not None for t in rest):
            return False  # `i * n + col + 1` under `col < n`: the offset may reach the stride
        wmax = ub.guarded(node, sum_key(rest), 1, depth)
        if wmax is None:
            wmax = {}
            for t in rest:
                wmax = combine(wmax, ub.of(t, 1, depth + 1), add)
        amax = ub.of(a, 1)
        if isinstance(amax, dict) and isinstance(wmax, dict) and not counts_elements(amax) \
                and not _wrong_stride(ub, amax, wmax, stride, rest[0] if len(rest) == 1 else node):
            return True
    return False


def _wrong_stride(ub: Bounds, amax: Poly, wmax: Poly, stride: Node, w: Node) -> bool:
    """Does ``a * s + w`` visibly not match its guards? A guarded column ``w`` reaches
    the stride (``if x > w || y > h { return; }``, then ``y * w + x``: x == w spills into
    the next row, the last row past the end), or the stride is the row count and not the
    column count (``y * h + x`` under ``y < h`` and ``x < w``: transposed). (A column
    computed by an ``if`` has a looser bound than it may have: only the second test.)"""
    s = ub.exact(stride)
    if not isinstance(s, dict) or is_const(s):
        return False
    over = sub(wmax, s)
    if is_const(over) and over.get((), 0) >= 0 and strip(w).type in ("identifier", "field_expression") \
            and not _if_valued(ub, strip(w)):
        return True
    rows = sub(add(amax, {(): 1}), s)
    cols = sub(add(wmax, {(): 1}), s)
    return is_const(rows) and rows.get((), 0) == 0 and not is_const(cols)


def _if_valued(ub: Bounds, node: Node) -> bool:
    """Is ``node`` a variable whose value (``let``s followed) is an ``if`` expression?"""
    for _ in range(8):
        value = ub.resolve(node) if node.type == "identifier" else None
        if value is None:
            return False
        node = strip(value)
        if node.type == "if_expression":
            return True
    return False

