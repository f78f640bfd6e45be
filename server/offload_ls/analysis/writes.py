"""Writes a kernel makes through its mutable parameters, and whether every thread of the
launch reaches them. Shared by the rules unindexed_kernel_write (a place the same for every
thread) and thread_index_collision (a thread-dependent place several threads share).

Pure syntax over one function's tree (analysis/indexing.py ``ThreadFlow``); no I/O.
"""

from __future__ import annotations

from tree_sitter import Node

from offload_ls.analysis.ecosystems import profiles
from offload_ls.analysis.indexing import MAX_DEPTH, ThreadFlow, named, strip
from offload_ls.analysis.model import Param
from offload_ls.syntax.parse import node_text

_POINTER_OFFSET = frozenset({"add", "offset", "wrapping_add", "wrapping_offset"})


def offset_methods() -> frozenset[str]:
    """``p.add(k)``-style methods whose argument is the element written (and each
    ecosystem's unchecked indexing methods, krnl ``y.unsafe_index_mut(k)``)."""
    return _POINTER_OFFSET | frozenset(m for p in profiles().values() for m in p.unchecked_index_methods)


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
    if binding is None or binding.kind != "param" or binding.node.parent is None or binding.node.parent.parent != fn:
        return None  # shadowed by a local of the same name
    return place, param, indices


#: Methods that hand out one element of a buffer for writing (cuda-oxide
#: ``DisjointSlice::get_mut(idx)``, ``slice::get_mut(i)``).
_ELEMENT_METHODS = frozenset({"get_mut"})


def _element_binding(ident: Node, params: dict[str, Param], flow: ThreadFlow):
    """``*o = v`` where ``o`` comes from ``if let Some(o) = out.get_mut(idx)`` (or a ``let
    Some(o) = .. else``): the write is to ``out[idx]``. (param, its identifier, index) or
    ``None``."""
    b = flow.binding(ident)
    if b is None or b.kind != "pattern":
        return None
    node = b.node
    value = node.child_by_field_name("value") if node.type in ("let_condition", "let_declaration") else None
    if value is None:
        return None
    value = strip(value)
    if value.type != "call_expression":
        return None
    fn, args = value.child_by_field_name("function"), value.child_by_field_name("arguments")
    if fn is None or fn.type != "field_expression" or args is None:
        return None
    field, recv = fn.child_by_field_name("field"), fn.child_by_field_name("value")
    a = named(args)
    if field is None or recv is None or node_text(field) not in _ELEMENT_METHODS or len(a) != 1:
        return None
    recv = strip(recv)
    if recv.type != "identifier" or node_text(recv) not in params:
        return None
    return params[node_text(recv)], recv, a[0]


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


def every_thread_reaches(write: Node, body: Node, flow: ThreadFlow) -> bool:
    """False if something between the kernel body and ``write`` may let only one or a few
    threads reach it: a closure, or a condition (of an enclosing ``if`` / ``while`` /
    ``match`` / ``&&``, or of an earlier exit) that is neither provably thread-independent
    nor an inequality (``i < n`` lets many threads through; ``i == 0`` lets one)."""
    child, node = write, write.parent
    while node is not None and child != body:
        t = node.type
        if t == "closure_expression":
            return False
        if t in ("if_expression", "while_expression"):
            cond = node.child_by_field_name("condition")
            if cond is not None and child != cond and not _many_threads(cond, flow):
                return False
        elif t == "match_expression":
            value = node.child_by_field_name("value")
            if value is not None and child != value:
                if not flow.uniform(value) or _has_arm_guard(node):
                    return False
        elif t == "binary_expression":
            op = node.child_by_field_name("operator")
            right = node.child_by_field_name("right")
            if op is not None and op.type in ("&&", "||") and child == right:
                left = node.child_by_field_name("left")
                if left is not None and not _many_threads(left, flow):
                    return False
        child, node = node, node.parent
    return not any(_earlier_exit_gates(e, write, flow) for e in flow.exits if e.end_byte <= write.start_byte)


def _many_threads(cond: Node, flow: ThreadFlow) -> bool:
    """A condition that does not single out particular threads: provably the same for all
    threads, built only from ``<``, ``<=``, ``>``, ``>=`` (with ``&&``, ``||``, ``!``), or an
    ``if let Some(o) = out.get_mut(i)`` bounds check."""
    return flow.uniform(cond) or _inequality(cond) or _bounds_check(cond)


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
    c = strip(cond) if cond.type == "parenthesized_expression" else cond
    if c.type == "unary_expression":
        op, inner = c.child(0), named(c)
        return op is not None and op.type == "!" and bool(inner) and _inequality(inner[0], depth + 1)
    if c.type != "binary_expression":
        return False
    op = c.child_by_field_name("operator")
    left, right = c.child_by_field_name("left"), c.child_by_field_name("right")
    if op is None or left is None or right is None:
        return False
    if op.type in ("<", "<=", ">", ">="):
        return True
    return op.type in ("&&", "||") and _inequality(left, depth + 1) and _inequality(right, depth + 1)


def _earlier_exit_gates(exit_node: Node, write: Node, flow: ThreadFlow) -> bool:
    """Is ``exit_node`` (a ``return`` / ``break`` / ``continue`` / ``?`` before ``write``)
    in an earlier statement of a block enclosing ``write``, under conditions that may let
    only some threads go on? An unconditional exit and ``?`` count as gating; an exit under
    inequalities only (``if i >= n { return; }``) lets many threads through; a ``break`` /
    ``continue`` of a loop inside that statement, or an exit of a closure, does not leave
    the code around ``write``."""
    path: list[tuple[Node, Node]] = []  # (ancestor, its child on the way up)
    child, node = exit_node, exit_node.parent
    while node is not None and not (node.start_byte <= write.start_byte and write.end_byte <= node.end_byte):
        path.append((node, child))
        child, node = node, node.parent
    if node is None or node.type != "block":
        return False  # in another branch of an `if` / `match` that contains the write
    loop_exit = exit_node.type in ("break_expression", "continue_expression")
    for anc, _ in path:
        if anc.type == "closure_expression":
            return False
        if loop_exit and anc.type in ("for_expression", "while_expression", "loop_expression"):
            return False
    if exit_node.type == "try_expression":
        return True
    conditional = False
    for anc, sub in path:
        if anc.type in ("if_expression", "while_expression"):
            cond = anc.child_by_field_name("condition")
            if cond is not None and sub != cond:
                if not _many_threads(cond, flow):
                    return True
                conditional = True
        elif anc.type == "match_expression":
            return True
    return not conditional


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


def writable_params(ctx, kernel) -> dict[str, Param]:
    """The kernel's parameters it can write a buffer through, by name: ``&mut T``, ``*mut
    T`` and the ecosystem profile's ``mutable_param_types`` (krnl ``UnsafeSlice``), but not
    those that give each thread its own element (``per_thread_param_attrs``: krnl
    ``#[item] y: &mut f32``) nor block-shared memory (``shared_param_attrs``: rust-gpu
    ``#[spirv(workgroup)]``, krnl ``#[group]``)."""
    prof = ctx.profile(kernel)
    out = {}
    for p in kernel.params:
        base = p.type_text.split("<", 1)[0].rsplit("::", 1)[-1].strip()
        if p.kind not in _MUTABLE_KINDS and base not in prof.mutable_param_types:
            continue
        skip = prof.per_thread_param_attrs | prof.shared_param_attrs
        if skip and skip.intersection(p.attrs):
            continue  # one element per thread, or block-shared memory (not a launch-wide buffer)
        out[p.name.removeprefix("mut ").strip()] = p
    return out
