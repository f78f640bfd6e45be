"""Index layouts a launch is trusted for, beyond a guard on the index itself: a record of
``k`` elements per guarded record number (``x[3 * v + 2]`` under ``v < n``), a tile per block
(``CUBE_POS * 4096 + UNIT_POS * 64 + i`` under ``UNIT_POS < 64 && i < 64``), a range the host
computed (``let i = first + tid; if i > last { return; }``) and a thread-position call a
partitioned region checks. Pure syntax; no I/O.
"""

from __future__ import annotations

from collections.abc import Callable

from tree_sitter import Node

from offload_ls.analysis.bounds.conditions import Guard
from offload_ls.analysis.bounds.expressions import MAX_DEPTH, affine, canon, constant, named, operands, strip, sum_terms
from offload_ls.analysis.bounds.poly import UNKNOWN, Poly, add, is_const, le_minus_one, mul, sub
from offload_ls.analysis.bounds.polynomial import Bounds
from offload_ls.analysis.bounds.row_major import linear


def record_stride(node: Node, resolve: Callable[[Node], Node | None], fold) -> int:
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
    k, v = constant(strip(left), fold), right
    if k is None:
        k, v = constant(strip(right), fold), left
    return (k, v) if k is not None and k > 1 else (0, None)


def in_guarded_record(index: Node, guards: list[Guard], fold, resolve, length: int | None, holds_at,
                       ub: Bounds, record_counts: frozenset[tuple[str, str]] = frozenset()) -> bool:
    """``index`` is ``k * r + c`` (``let base = r * 4; x[base + 3]``, or ``x[at + c]`` for
    ``c`` in ``0..3``) with ``0 <= c < k`` and a guard ``r < n`` on the record number (or
    ``r`` a row-major index its guards bound, :meth:`Bounds.linear`):
    element ``c`` of record ``r``, below ``k * n``. With a runtime ``n`` the buffer is
    trusted to hold ``n`` records (as a guard ``i < n`` is trusted to name ``x``'s length),
    unless ``n`` is a ``.len()`` (elements, not records: ``x[2 * i]`` under
    ``i < x.len()`` is out of bounds); with a constant ``n`` the length must hold them."""
    k = 0
    rec = None
    top = 0  # the largest value of the other terms
    for t in sum_terms(index):
        c = constant(strip(t), fold)
        if c is not None:
            top += c
            continue
        kt, v = _record(t, resolve, fold)
        if kt and rec is None:
            k, rec = kt, v
            continue
        most = ub.of(t, 1)
        if most is UNKNOWN or most is None or not is_const(most):
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
    return linear(ub, rec)


def _flat_terms(node: Node, resolve, depth: int = 0, sums=None) -> list[Node]:
    """The terms of a sum, immutable ``let``s of sums followed (``base + i`` with ``let base =
    tile * S + slot * 64`` -> ``tile * S``, ``slot * 64``, ``i``), and ``mut`` variables
    built up with ``+=`` (``sums``: see :func:`bounded`)."""
    out = []
    for t in sum_terms(node):
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
        elif value is not t and len(sum_terms(value)) > 1 and depth < 6:
            out += _flat_terms(value, resolve, depth + 1, sums)
        else:
            out.append(t)  # a term kept as written: a guard on `tid` speaks of `tid`
    return out


def block_tile(index: Node, ub: Bounds, block_only, resolve, fold, sums=None) -> bool:
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
        top = add(top, most)
    return any(le_minus_one(sub(top, size)) for size in sizes)


def _tile_stride(term: Node, ub: Bounds, block_only) -> Poly | None:
    """The stride ``S`` of a term ``b * S`` with ``b`` from the block index alone and ``S``
    the same for every thread (a constant, ``2 * h``, ``out.stride(r) * out.shape(r)``: the
    factors of a product in any order), else ``None``."""
    m = ub.product(term, 0)
    if m is None:
        return None
    factors = operands(m[0], "*", MAX_DEPTH) + operands(m[1], "*", MAX_DEPTH)
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
        size = mul(size, exact)
    return size


def is_position(index: Node, resolve, is_thread, depth: int = 0) -> bool:
    """Is ``index`` (immutable ``let``s followed) a thread-position call through a path with
    no argument (``Linear1D::index()``)?"""
    node = strip(index)
    if node.type == "identifier" and depth < 6:
        value = resolve(node)
        return value is not None and is_position(value, resolve, is_thread, depth + 1)
    if node.type != "call_expression" or not is_thread(node):
        return False
    fn, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
    return fn is not None and fn.type == "scoped_identifier" and args is not None and not named(args)


def in_host_range(index: Node, guards: list[Guard], fold, resolve, is_thread, holds_at) -> bool:
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
    for t in sum_terms(node):
        if constant(t, fold) is not None:
            continue
        value = resolve(t) if t.type == "identifier" and (expand_first or canon(t) not in keys) else None
        if value is not None and (strip(value).type == "identifier" or sum_terms(value) != [strip(value)]):
            inner = _terms_until(value, keys, fold, resolve, depth + 1)
            if inner is None:
                return None
            out += inner
        else:
            out.append(t)
    return out


