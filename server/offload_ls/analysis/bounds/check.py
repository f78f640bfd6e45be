"""Is an index below its buffer's length where it is evaluated (:func:`bounded`)."""

from __future__ import annotations

from collections.abc import Callable

from tree_sitter import Node

from offload_ls.analysis.bounds.conditions import POSITION, Guard
from offload_ls.analysis.bounds.expressions import Affine, affine, canon
from offload_ls.analysis.bounds.layouts import block_tile, in_guarded_record, in_host_range, is_position, record_stride
from offload_ls.analysis.bounds.poly import UNKNOWN, is_const, le_minus_one, sub
from offload_ls.analysis.bounds.polynomial import Bounds
from offload_ls.analysis.bounds.row_major import linear


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
        sums: the terms a ``mut`` variable built up with ``+=`` holds (analysis/flow/thread_flow.py
            ``ThreadFlow.straight_sum``), for one-block-per-tile indexes, or ``None``.
    """
    e = affine(index, fold)
    if _guarded_itself(e, index, guards, length, holds_at) or _in_own_record(e, index, guards, resolve, fold, holds_at):
        return True
    if e.off == 0 and any(g.expr.key == POSITION for g in guards) and is_position(index, resolve, is_thread):
        return True
    ub = Bounds(guards, fold, resolve, lambda n: is_thread(n) and not block_only(n), holds_at, sums)
    if e.key and 0 <= e.off and in_guarded_record(index, guards, fold, resolve, length, holds_at, ub,
                                                   record_counts):
        return True
    if in_host_range(index, guards, fold, resolve, is_thread, holds_at):
        return True
    if block_tile(index, ub, block_only, resolve, fold, sums):
        return True
    return _below_extents(index, ub, length, buffer)


def _guarded_itself(e: Affine, index: Node, guards: list[Guard], length: int | None, holds_at) -> bool:
    """A guard on the index itself, up to a constant offset (``e``: the index's
    :func:`affine` form): ``x[i + 1]`` under ``i < n - 1``; a constant bound at most
    ``length`` when that is known."""
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
    return False


def _in_own_record(e: Affine, index: Node, guards: list[Guard], resolve, fold, holds_at) -> bool:
    """One record of k elements per thread: ``x[base + 1]``, ``x[base + 2]`` under a guard
    on ``base = 3 * v`` (burn-cubecl's cross product) stay in the guarded record."""
    if not e.key or e.off <= 0:
        return False
    return any(not g.lower and g.expr.key == e.key and g.expr.off == 0 and g.expr_node is not None
               and holds_at(g, index) and e.off < record_stride(g.expr_node, resolve, fold) for g in guards)


def _below_extents(index: Node, ub: Bounds, length: int | None, buffer: Node | None) -> bool:
    """The index's upper bound as a polynomial (:meth:`Bounds.of`) is below the length, one of
    the extents the guards describe (:meth:`Bounds.extents`) or the buffer's ``.len()``; a
    row-major index (:func:`linear`) and an expression the model does not cover
    (:data:`UNKNOWN`, not reported) count as bounded."""
    top = ub.of(index, 1)
    if top is UNKNOWN:
        return True  # not an expression bounds can be worked out for: not reported
    if top is None:
        return False
    if linear(ub, index):
        return True
    if is_const(top):
        c = top.get((), 0)
        if length is not None:
            return c <= length - 1
        return any(is_const(x) and c <= x.get((), 0) - 1 for x in ub.extents())
    extents = ub.extents()
    if buffer is not None:
        extents.append({(f"{canon(buffer)}.len()",): 1})
    return any(le_minus_one(sub(top, x)) for x in extents)
