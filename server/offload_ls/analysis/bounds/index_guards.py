"""How the guards above one index are read beyond whether they bound it (bounds/check.py
``bounded``), for rules/unchecked_thread_index.py: the bound of a slice range that may pass
the length, whether a guard still speaks of the variables at a use (no shadowing or
reassignment between them), the comparison that bounds an index too weakly (named in the
message), the guards a runtime's exact dispatch implies, and the buffers indexed by a plain
record count. Pure syntax over a function's :class:`ThreadFlow`; no I/O."""

from __future__ import annotations

from tree_sitter import Node

from offload_ls.analysis.bounds import Affine, Guard, affine, canon
from offload_ls.analysis.flow.thread_flow import ThreadFlow
from offload_ls.analysis.index_uses import buffer_base, clamped
from offload_ls.syntax.nodes import identifiers, named, strip
from offload_ls.syntax.parse import node_text


def range_outside(rng: Node, guards, fold, use: Node, in_bounds, definitions, resolve) -> tuple[Node, bool] | None:
    """The bound of slice range ``rng`` (``a..b``, ``a..=b``, ``a..``, ``..b``) that may pass
    the buffer's length, with whether it is the range's end, or ``None`` when both are at most
    the length: below it (``in_bounds``), clamped (``b = min(a + 4, x.len())``), the length
    itself, or under a guard ``a <= x.len()`` (``if a > x.len() { return; }``)."""
    kids = [c for c in rng.children if not c.type.endswith("comment")]
    dots = next((i for i, c in enumerate(kids) if c.type in ("..", "..=")), None)
    if dots is None:
        return None
    start = next((c for c in kids[:dots] if c.is_named), None)
    stop = next((c for c in kids[dots + 1:] if c.is_named), None)
    inclusive = kids[dots].type == "..="
    keys = _length_keys(buffer_base(use), resolve)
    for part, is_end in ((start, False), (stop, True)):
        if part is None or clamped(part, definitions) or in_bounds(part):
            continue
        if not (is_end and inclusive) and _at_most_length(part, keys, guards, fold):
            continue
        return part, is_end
    return None


def _length_keys(base: Node | None, resolve) -> list[str]:
    """Guard keys of the sliced buffer's length: ``x.len()``, and through a ``let`` alias
    (``let data = &args.data;``) ``args.data.len()``."""
    out: list[str] = []
    node = strip(base) if base is not None else None
    for _ in range(4):
        if node is None:
            break
        out.append(f"{canon(node)}.len()")
        value = resolve(node) if node.type == "identifier" else None
        if value is None:
            break
        node = strip(value)
        if node.type == "reference_expression":
            inner = named(node)
            node = strip(inner[-1]) if inner else None
    return out


def _at_most_length(node: Node, length_keys: list[str], guards, fold) -> bool:
    """Is ``node`` the buffer's length (``x.len()``, ``length_keys``) or under a guard
    ``node <= y.len()`` (a length, trusted as a run-time bound ``i < n`` is)?"""
    e = affine(node, fold)
    if e.key in length_keys and e.off <= 0:
        return True
    return any(not g.lower and g.expr.key == e.key and g.bound.key.endswith(".len()")
               and g.bound.off - g.expr.off + e.off <= 1 for g in guards)


def dispatch_guards(profile, text: bytes) -> list[Guard]:
    """Guards every index of a kernel is under because the runtime dispatches the index's
    range exactly: krnl's ``kernel.item_id() < kernel.items()`` (the profile's
    ``bounded_index_fns``), for a function whose text (``text``: UTF-8 bytes) calls one."""
    return [Guard(Affine(f"kernel.{name}()", 0), Affine(bound, 0), False, None, None, 0)
            for name, bound in profile.bounded_index_fns.items() if f".{name}()".encode() in text]


def record_counts(uses: list[tuple[Node, Node, bool]], fold) -> frozenset[tuple[str, str]]:
    """(``"<buffer>.len()"``, variable) for every ``buffer[v]`` of the function indexed by a
    plain variable (analysis/bounds/ ``bounded``'s ``record_counts``)."""
    out = set()
    for use, index, _ in uses:
        if use.type != "index_expression":
            continue
        e = affine(index, fold)
        if e.key and e.off == 0 and strip(index).type in ("identifier", "field_expression"):
            out.add((f"{canon(named(use)[0])}.len()", e.key))
    return frozenset(out)


def guard_holds_at(flow: ThreadFlow):
    """``holds(guard, node)``: does ``guard`` speak of the variables ``node`` uses? Not
    when a name in both is bound anew between them (``if i < n { let i = i + 100; x[i] }``)
    or a ``mut`` variable is assigned between the guard and the node
    (``if i < n { i += 100; x[i] }``; in ``while i < n { x[i] = ..; i += s; }`` the
    assignment comes after the use)."""

    def key(b) -> tuple | None:
        return (b.node.start_byte, b.node.end_byte, b.name) if b is not None else None

    def holds(guard, node: Node) -> bool:
        g = guard.expr_node
        if not guard.local or g is None:
            return True  # re-parsed `assert!` tokens: no bindings to compare
        in_guard = {}
        for ident in identifiers(g):
            in_guard.setdefault(node_text(ident), ident)
        if not in_guard:
            return True
        for ident in identifiers(node):
            name = node_text(ident)
            gi = in_guard.get(name)
            if gi is None or gi == ident:
                continue
            bn = flow.binding(ident)
            bg = flow.binding(gi)
            if bg is not None and bn is not None and key(bg) != key(bn):
                return False  # shadowed between the guard and the node
            if bn is not None and bn.mutable and any(g.end_byte <= r.start_byte < node.start_byte
                                                     for r in flow.assignments(name)):
                return False  # reassigned between the guard and the node
        return True

    return holds


def weak_guard(index: Node, guards, fold, holds, flow: ThreadFlow) -> str | None:
    """The source text of a comparison that bounds ``index`` from above but not enough
    (``i < N`` for a buffer of ``M < N`` elements, ``i <= n``), else ``None``."""
    key = affine(index, fold).key
    found = _comparisons(guards, lambda g: g.expr.key == key, index, holds, flow)
    if found:
        return found[0]
    # checks on the variables the index is computed from (`x >= w || y >= h`, then `y * h + x`)
    tvars = flow.thread_vars(index)
    names = flow.roots([b for _, b in tvars])
    # and on the values they were bound to (`let idx = id.x as usize;` after `if id.x > n { return; }`)
    names |= {affine(b.value, fold).key for _, b in tvars if b.value is not None}
    found = _comparisons(guards, lambda g: g.expr.key in names, index, holds, flow)
    return "`, `".join(found[:3]) if found else None


def _comparisons(guards, wanted, index: Node, holds, flow: ThreadFlow) -> list[str]:
    """Source texts of the local upper-bound comparisons among ``guards`` that ``wanted``."""
    out: list[str] = []
    for g in guards:
        if g.lower or not g.local or g.expr_node is None or not wanted(g) or not holds(g, index):
            continue
        cond = flow.parent(g.expr_node)
        if cond is not None and cond.type == "binary_expression":
            op = cond.child_by_field_name("operator")
            text = " ".join(node_text(cond).split())
            if op is not None and op.type in ("<", "<=", ">", ">=", "==") and text not in out:
                out.append(text)
    return out
