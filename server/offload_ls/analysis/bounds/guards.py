"""The guards on the way to a use: every bound that holds where an expression is evaluated,
from the conditions of enclosing ``if`` / ``while`` / match-arm guards / ``&&`` and ``||``
operands (or their negation on the ``else`` side), ``for v in a..b`` loops, range patterns
of ``match`` arms, and earlier statements of enclosing blocks that leave unless a condition
holds (``if i >= n { return; }``, ``assert!(i < n)``, ``let Some(..) = x.get(i) else {
return }``, an ecosystem's exit macro). Pure syntax; no I/O (an ``assert!``'s tokens are
re-parsed from the file's bytes the caller passes).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from tree_sitter import Node

from offload_ls.analysis.bounds.conditions import Guard, conditions, get_call, range_bound
from offload_ls.analysis.bounds.expressions import Affine, named, strip
from offload_ls.syntax.parse import SNIPPET_PREFIX, SNIPPET_SUFFIX, node_text, parse, snippet_call

_ASSERTS = frozenset({"assert", "debug_assert"})


def guards_at(use: Node, body: Node, fold, exits: frozenset[str] = frozenset(),
              source: bytes | None = None, memo: dict | None = None, parent=None,
              resolve: Callable[[Node], Node | None] | None = None) -> list[Guard]:
    """Every bound that holds where ``use`` is evaluated, from ``body`` (the function's
    block) down to it. ``exits``: macros that end the thread (as ``return`` does);
    ``source``: the file's bytes, to read ``assert!`` arguments; ``memo``: node key ->
    the guards above that node, shared by the uses of one function (a node's guards are
    its parent's contribution plus its parent's guards, so each node is walked once
    however deep an expression nests); ``parent``: how to go up (syntax/nodes.py
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
        _for_contribution(node, child, fold, out)
    elif t == "match_arm":
        _match_arm_contribution(node, child, fold, out, resolve, up)
    elif t == "binary_expression":
        _binary_contribution(node, child, fold, out, resolve)
    elif t == "let_chain":
        # `if let Some(v) = e.get_mut() && d[i] > 0.0`: the parts before `child` hold
        for part in named(node):
            if part.start_byte >= child.start_byte:
                break
            conditions(part, True, fold, out, 0, resolve)
    elif t == "block":
        for start, found in _block_exits(node, fold, exits, source, memo, resolve):
            if start >= child.start_byte:
                break
            out.extend(found)


def _for_contribution(node: Node, child: Node, fold, out: list[Guard]) -> None:
    """Appends to ``out`` the bound of a ``for`` loop's pattern in its body (``child``)."""
    pattern, value = node.child_by_field_name("pattern"), node.child_by_field_name("value")
    if child == node.child_by_field_name("body") and pattern is not None and value is not None:
        rng = _range_of(value)
        if rng is not None:
            range_bound(rng, pattern, fold, out)


def _match_arm_contribution(node: Node, child: Node, fold, out: list[Guard], resolve, up) -> None:
    """Appends to ``out`` the bounds a match arm's guard and range pattern give its body."""
    pattern = node.child_by_field_name("pattern")
    guard = pattern.child_by_field_name("condition") if pattern is not None else None
    if guard is not None and child != pattern:
        conditions(guard, True, fold, out, 0, resolve)
    if pattern is not None and child != pattern:
        _arm_range(node, pattern, fold, out, up)


def _binary_contribution(node: Node, child: Node, fold, out: list[Guard], resolve) -> None:
    """Appends to ``out`` what the left side of ``&&`` / ``||`` implies for its right side."""
    op = node.child_by_field_name("operator")
    left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
    if op is not None and left is not None and child == right:
        if op.type == "&&":
            conditions(left, True, fold, out, 0, resolve)
        elif op.type == "||":
            conditions(left, False, fold, out, 0, resolve)


def _block_exits(node: Node, fold, exits: frozenset[str], source: bytes | None, memo: dict,
                 resolve) -> list[tuple[int, list[Guard]]]:
    """The early exits of the block's statements as ``(statement start, guards)``, read once
    per block (a block of n statements would otherwise be read n times over)."""
    key = ("exits", node.id)
    exits_of = memo.get(key)
    if exits_of is None:
        exits_of = []
        for stmt in named(node):
            found: list[Guard] = []
            _exit_guard(stmt, fold, exits, source, found, resolve)
            if found:
                exits_of.append((stmt.start_byte, found))
        memo[key] = exits_of
    return exits_of


def _arm_range(arm: Node, pattern: Node, fold, out: list[Guard], up) -> None:
    """``match v { 0..LEN => .. }``: in the arm, ``v`` lies in the pattern's range (one
    range pattern; an or-pattern or binding ``x @ 0..N`` adds nothing)."""
    pats = named(pattern)
    if not pats or pats[0].type != "range_pattern":
        return
    block = up(arm) if up is not None else arm.parent
    match = up(block) if block is not None and up is not None else (block.parent if block is not None else None)
    value = match.child_by_field_name("value") if match is not None and match.type == "match_expression" else None
    if value is not None:
        range_bound(pats[0], value, fold, out)


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
        return any(diverges(c, exits) for c in named(node))
    if node.type == "macro_invocation":
        m = node.child_by_field_name("macro")
        name = node_text(m).rsplit("::", 1)[-1] if m is not None else ""
        return name in ("panic", "unreachable", "todo", "unimplemented") or name in exits
    if node.type != "block":
        return False
    for stmt in named(node):
        inner = named(stmt)[0] if stmt.type == "expression_statement" and named(stmt) else stmt
        if diverges(inner, exits) and inner.type != "block":
            return True
    return False


def _exit_guard(stmt: Node, fold, exits: frozenset[str], source: bytes | None, out: list[Guard],
                resolve=None) -> None:
    """Bounds implied by an earlier statement that leaves unless they hold."""
    inner = named(stmt)[0] if stmt.type == "expression_statement" and named(stmt) else stmt
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
            get_call(value, fold, out)
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
        first = named(args) if args is not None else []
        if first:
            found: list[Guard] = []
            conditions(first[0], True, fold, found)
            out.extend(dataclasses.replace(g, local=False) for g in found)


