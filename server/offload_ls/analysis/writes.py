"""Writes a kernel makes through its mutable parameters, and whether every thread of the
launch reaches them. Shared by the rules unindexed_kernel_write (a place the same for every
thread) and thread_index_collision (a thread-dependent place several threads share).

Pure syntax over one function's tree (analysis/flow/thread_flow.py ``ThreadFlow``); no I/O.
"""

from __future__ import annotations

import enum

from tree_sitter import Node

from offload_ls.analysis.bounds.expressions import method_call
from offload_ls.analysis.consts import int_literal
from offload_ls.analysis.ecosystems import profiles
from offload_ls.analysis.flow.scopes import BindingKind
from offload_ls.analysis.flow.sources import POINTER_OFFSETS
from offload_ls.analysis.flow.thread_flow import ThreadFlow
from offload_ls.analysis.model import Param
from offload_ls.syntax.nodes import MAX_DEPTH, named, strip
from offload_ls.syntax.parse import identifier_nodes, node_text


def offset_methods() -> frozenset[str]:
    """``p.add(k)``-style methods whose argument is the element written (and each
    ecosystem's unchecked indexing methods, krnl ``y.unsafe_index_mut(k)``)."""
    return POINTER_OFFSETS | frozenset(m for p in profiles().values() for m in p.unchecked_index_methods)


def write_target(write: Node, params: dict[str, Param], fn: Node,
            flow: ThreadFlow) -> tuple[Node, Param, list[Node]] | None:
    """(place node, written parameter, index expressions) if ``write`` stores through one
    of the kernel's mutable parameters, else ``None``."""
    place = write.child_by_field_name("left")
    if place is None:
        return None
    indices: list[Node] = []
    node = place
    while True:
        node = strip(node) if node.type == "parenthesized_expression" else node
        if node.type == "index_expression":
            parts = named(node)
            if len(parts) != 2:
                return None
            indices.append(parts[1])
            node = parts[0]
        elif node.type == "unary_expression" and node.child(0) is not None and node.child(0).type == "*":
            inner = named(node)
            if not inner:
                return None
            inner_node = strip(inner[0]) if inner[0].type == "parenthesized_expression" else inner[0]
            offset = _pointer_offset(inner_node)
            if offset is not None:
                base, index = offset
                indices.append(index)
                node = base
            else:
                node = inner_node
        else:
            break
    if node.type != "identifier":
        return None
    name = node_text(node)
    param = params.get(name)
    if param is None:
        via = _element_binding(node, params, flow) if indices == [] else None
        if via is None:
            return None
        param, node, index = via
        return place, param, [index]
    binding = flow.binding(node)
    if (binding is None or binding.kind != BindingKind.PARAM or binding.node.parent is None
            or binding.node.parent.parent != fn):
        return None  # shadowed by a local of the same name
    return place, param, indices


#: Methods that hand out one element of a buffer for writing (cuda-oxide
#: ``DisjointSlice::get_mut(idx)``, ``slice::get_mut(i)``).
_ELEMENT_METHODS = frozenset({"get_mut"})


def _element_binding(ident: Node, params: dict[str, Param], flow: ThreadFlow):
    """``*o = v`` where ``o`` comes from ``if let Some(o) = out.get_mut(idx)`` (or a ``let
    Some(o) = .. else``), or from ``let o = &mut *out.add(idx);`` (:func:`_element_reference`):
    the write is to ``out[idx]``. (param, its identifier, index) or ``None``."""
    b = flow.binding(ident)
    if b is not None and b.kind == BindingKind.LET and not b.mutable and b.value is not None:
        return _element_reference(b.value, params)
    if b is None or b.kind != BindingKind.PATTERN:
        return None
    node = b.node
    value = node.child_by_field_name("value") if node.type in ("let_condition", "let_declaration") else None
    if value is None:
        return None
    call = method_call(strip(value))
    if call is None or call[0] not in _ELEMENT_METHODS or len(call[2]) != 1:
        return None
    _, recv, a = call
    recv = strip(recv)
    if recv.type != "identifier" or node_text(recv) not in params:
        return None
    return params[node_text(recv)], recv, a[0]


def _element_reference(value: Node, params: dict[str, Param]):
    """``let elem = &mut *out.add(idx);`` / ``&mut out[idx]`` / ``out.add(idx)`` (the
    Rust-CUDA idiom before ``*elem = v``): (param, its identifier, index) of the element the
    ``let`` names, or ``None``."""
    node = strip(value)
    if node.type == "reference_expression":
        inner = named(node)
        node = strip(inner[-1]) if inner else node
    if node.type == "unary_expression" and node.child(0) is not None and node.child(0).type == "*":
        inner = named(node)
        node = strip(inner[0]) if inner else node
    found = _pointer_offset(node)
    if found is None and node.type == "index_expression" and len(named(node)) == 2:
        found = (named(node)[0], named(node)[1])
    if found is None:
        return None
    base, index = found
    base = strip(base)
    if base.type != "identifier" or node_text(base) not in params:
        return None
    return params[node_text(base)], base, index


def _pointer_offset(node: Node) -> tuple[Node, Node] | None:
    """``p.add(k)`` / ``p.offset(k)`` -> (``p``, ``k``)."""
    if node.type != "call_expression":
        return None
    fn, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
    if fn is None or fn.type != "field_expression" or args is None:
        return None
    field, value = fn.child_by_field_name("field"), fn.child_by_field_name("value")
    arg_list = named(args)
    if field is None or value is None or node_text(field) not in offset_methods() or len(arg_list) != 1:
        return None
    return value, arg_list[0]


class Reach(enum.StrEnum):
    """Who reaches a write (:func:`reach`), from the most threads to the fewest; compares
    equal to its value (``"all"``)."""

    #: every thread of the launch
    ALL = "all"
    #: one (or a few) threads of each block
    PER_BLOCK = "per_block"
    #: only some threads
    SOME = "some"


#: the members by their short names, as the rules import them
ALL, PER_BLOCK, SOME = Reach.ALL, Reach.PER_BLOCK, Reach.SOME


def reach(write: Node, body: Node, flow: ThreadFlow, gates: list | None = None) -> Reach:
    """Which threads reach ``write`` from the kernel body ``body``.

    ``ALL`` when nothing on the way singles out threads: conditions (of an enclosing
    ``if`` / ``while`` / ``match`` / ``&&`` / ``||``, or of an earlier exit) that are
    provably thread-independent or inequalities that let many threads through
    (``i < n``). ``PER_BLOCK`` when the only conditions that single out threads compare the
    index within the block alone (``if t == 0`` with ``t = _thread_idx_x()``, also
    ``t < 1``, or an earlier ``if t > 0 { return; }``): one thread of every block goes
    on. ``SOME`` otherwise (a closure, a condition on the position in the whole launch,
    a ``match`` on a thread-dependent value). ``gates``: when given, the conditions (or
    earlier exits) that made it ``PER_BLOCK`` are appended to it."""
    result = ALL
    up = flow.parent
    child, node = write, up(write)
    while node is not None and child != body:
        t = node.type
        if t == "closure_expression":
            return SOME
        if t in ("if_expression", "while_expression"):
            cond = node.child_by_field_name("condition")
            if cond is not None and child != cond:
                holds = t == "while_expression" or child == node.child_by_field_name("consequence")
                result = _narrow(result, _noted(_gate(cond, holds, flow), cond, gates))
        elif t == "match_expression":
            value = node.child_by_field_name("value")
            if value is not None and child != value:
                if not flow.uniform(value) or _has_arm_guard(node):
                    return SOME
        elif t == "binary_expression":
            op = node.child_by_field_name("operator")
            right = node.child_by_field_name("right")
            if op is not None and op.type in ("&&", "||") and child == right:
                left = node.child_by_field_name("left")
                if left is not None:
                    result = _narrow(result, _noted(_gate(left, op.type == "&&", flow), left, gates))
        if result == SOME:
            return SOME
        child, node = node, up(node)
    for e in flow.exits:
        if e.end_byte <= write.start_byte:
            result = _narrow(result, _noted(_earlier_exit_gate(e, write, flow), e, gates))
            if result == SOME:
                return SOME
    return result


def _noted(gate: Reach, node: Node, gates: list | None) -> Reach:
    """``gate``, after appending ``node`` to ``gates`` when it is ``PER_BLOCK``."""
    if gate == PER_BLOCK and gates is not None:
        gates.append(node)
    return gate


def _narrow(a: Reach, b: Reach) -> Reach:
    """Threads that pass two gates: the fewer of the two kinds."""
    order = (ALL, PER_BLOCK, SOME)
    return max(a, b, key=order.index)


def _gate(cond: Node, holds: bool, flow: ThreadFlow) -> Reach:
    """Which threads get past ``cond`` being ``holds``: ``ALL`` (a thread-independent
    condition, a bounds check, or an inequality that admits many values), ``PER_BLOCK`` (a
    condition on the index within the block alone that admits one value or a few:
    ``t == 0``, ``t < 1``; with ``holds`` False, ``t > 0``), else ``SOME``."""
    if flow.uniform(cond) or _bounds_check(cond):
        return ALL
    if _inequality(cond) and not _pins(cond, holds, flow):
        return ALL
    if flow.depends(cond) and not flow.depends(cond, True):
        return PER_BLOCK  # depends on the thread's index within its block only
    return SOME


def _pins(cond: Node, holds: bool, flow: ThreadFlow, depth: int = 0) -> bool:
    """Does ``cond`` being ``holds`` admit a single value of a thread index (which is
    never negative)? ``i < 1``, ``i <= 0``, ``1 > i``, ``0 >= i`` when true; ``i > 0``,
    ``i >= 1`` when false (``if i > 0 { return; }``); through ``!``, ``&&`` and ``||``."""
    if depth > MAX_DEPTH:
        return False
    parts = _condition_parts(cond)
    if parts is None:
        return False
    op, left, right = parts
    if op == "!":
        return _pins(left, not holds, flow, depth + 1)
    if op in ("&&", "||"):
        both = (op == "&&") == holds  # a && b true: both true; a || b false: both false
        pinned = (_pins(left, holds, flow, depth + 1), _pins(right, holds, flow, depth + 1))
        return any(pinned) if both else all(pinned)
    flip = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}
    if op not in flip:
        return False
    var, bound = left, right
    if _literal(left) is not None:
        var, bound, op = right, left, flip[op]
    c_val = _literal(bound)
    if c_val is None or flow.uniform(var) or not flow.depends(var):
        return False
    if not holds:
        op = {"<": ">=", "<=": ">", ">": "<=", ">=": "<"}[op]
    return (op == "<" and c_val <= 1) or (op == "<=" and c_val <= 0)


def _literal(node: Node) -> int | None:
    """Value of an integer literal node (parentheses and casts around it allowed)."""
    node = strip(node)
    return int_literal(node_text(node)) if node.type == "integer_literal" else None


def _bounds_check(cond: Node) -> bool:
    """``let Some(..) = x.get(i)`` / ``x.get_mut(i)``: true for every thread in range."""
    if cond.type != "let_condition":
        return False
    value = cond.child_by_field_name("value")
    value = strip(value) if value is not None else None
    if value is None or value.type != "call_expression":
        return False
    fn = value.child_by_field_name("function")
    field = fn.child_by_field_name("field") if fn is not None and fn.type == "field_expression" else None
    return field is not None and node_text(field) in ("get", "get_mut")


def _inequality(cond: Node, depth: int = 0) -> bool:
    if depth > MAX_DEPTH:
        return False
    parts = _condition_parts(cond)
    if parts is None:
        return False
    op, left, right = parts
    if op == "!":
        return _inequality(left, depth + 1)
    if op in ("<", "<=", ">", ">="):
        return True
    return op in ("&&", "||") and _inequality(left, depth + 1) and _inequality(right, depth + 1)


def _condition_parts(cond: Node) -> tuple[str, Node, Node | None] | None:
    """A condition (parentheses around it dropped) as ``("!", operand, None)`` or
    ``(operator, left, right)`` of a binary expression; ``None`` for anything else."""
    c = strip(cond) if cond.type == "parenthesized_expression" else cond
    if c.type == "unary_expression":
        op, inner = c.child(0), named(c)
        return ("!", inner[0], None) if op is not None and op.type == "!" and inner else None
    if c.type != "binary_expression":
        return None
    op = c.child_by_field_name("operator")
    left, right = c.child_by_field_name("left"), c.child_by_field_name("right")
    if op is None or left is None or right is None:
        return None
    return op.type, left, right


def _earlier_exit_gate(exit_node: Node, write: Node, flow: ThreadFlow) -> Reach:
    """Which threads go on past ``exit_node`` (a ``return`` / ``break`` / ``continue`` /
    ``?`` before ``write``) to ``write``: ``ALL`` when it is not in an earlier statement of
    a block enclosing ``write`` (another branch, a loop's own ``break``, a closure's
    ``return``) or is taken under inequalities that let many threads on
    (``if i >= n { return; }``); ``PER_BLOCK`` when the threads that go on are those of
    one index within the block (``if t != 0 { return; }``); ``SOME`` for an
    unconditional exit, ``?``, or an exit in a ``match``."""
    path: list[tuple[Node, Node]] = []  # (ancestor, its child on the way up)
    up = flow.parent
    child, node = exit_node, up(exit_node)
    while node is not None and not (node.start_byte <= write.start_byte and write.end_byte <= node.end_byte):
        path.append((node, child))
        child, node = node, up(node)
    if node is None or node.type != "block":
        return ALL  # in another branch of an `if` / `match` that contains the write
    loop_exit = exit_node.type in ("break_expression", "continue_expression")
    for anc, _ in path:
        if anc.type == "closure_expression":
            return ALL
        if loop_exit and anc.type in ("for_expression", "while_expression", "loop_expression"):
            return ALL
    if exit_node.type == "try_expression":
        return SOME
    conditional = False
    result = ALL
    for anc, sub in path:
        if anc.type in ("if_expression", "while_expression"):
            cond = anc.child_by_field_name("condition")
            if cond is not None and sub != cond:
                # the exit is taken where the condition is `taken`; the others go on
                taken = anc.type == "while_expression" or sub == anc.child_by_field_name("consequence")
                result = _narrow(result, _gate(cond, not taken, flow))
                conditional = True
        elif anc.type == "match_expression":
            return SOME
    return result if conditional else SOME


def _has_arm_guard(match: Node) -> bool:
    for arm in match.named_children:
        if arm.type != "match_block":
            continue
        for a in arm.named_children:
            pattern = a.child_by_field_name("pattern") if a.type == "match_arm" else None
            if pattern is not None and pattern.child_by_field_name("condition") is not None:
                return True
    return False




_MUTABLE_KINDS = ("mut_ref", "mut_ptr")


def marker_words(marker: str) -> frozenset[str]:
    """The identifier-like words of a marker attribute's text (``#[kernel(threads(1),
    elementwise)]`` -> ``kernel``, ``threads``, ``1``, ``elementwise``)."""
    return frozenset("".join(ch if ch.isalnum() or ch == "_" else " " for ch in marker).split())


def writable_params(ctx, kernel) -> dict[str, Param]:
    """The kernel's parameters it can write a buffer through, by name: ``&mut T``, ``*mut
    T`` and the ecosystem profile's ``mutable_param_types`` (krnl ``UnsafeSlice``), but not
    those that give each thread its own element (``per_thread_param_attrs``: krnl
    ``#[item] y: &mut f32``; ``per_thread_marker_words``: an ``elementwise`` kernel's
    ``&mut T``) nor block-shared memory (``shared_param_attrs``: rust-gpu
    ``#[spirv(workgroup)]``, krnl ``#[group]``)."""
    prof = ctx.profile(kernel)
    out = {}
    elementwise = bool(prof.per_thread_marker_words) and not prof.per_thread_marker_words.isdisjoint(
        marker_words(kernel.marker))
    for p in kernel.params:
        base = p.type_text.split("<", 1)[0].rsplit("::", 1)[-1].strip()
        if p.kind not in _MUTABLE_KINDS and base not in prof.mutable_param_types:
            continue
        skip = prof.per_thread_param_attrs | prof.shared_param_attrs
        if skip and skip.intersection(p.attrs):
            continue  # one element per thread, or block-shared memory (not a launch-wide buffer)
        type_node = ctx.node(p.type_span)
        if elementwise and p.kind == "mut_ref" and type_node is not None:
            pointee = type_node.child_by_field_name("type")
            if pointee is not None and pointee.type != "array_type":
                continue  # krnl `elementwise`: `y: &mut u64` is the thread's own element
        if type_node is not None and any(node_text(t).startswith("Atomic")
                                         for t in identifier_nodes(type_node, "type_identifier")):
            continue  # `&mut [AtomicF32]`: its `+=` / stores are atomic operations (autograph's shaders)
        out[p.name.removeprefix("mut ").strip()] = p
    return out
