"""unindexed_kernel_write: a kernel writes through a mutable parameter at a place that is the
same for every GPU thread (``y[0] = ..``, ``*p += ..``), a data race between all threads of
the launch.

A write is reported only when its index is provably thread-independent (analysis/indexing.py:
literals, ``SCREAMING_CASE`` constants, the kernel's own parameters, and ``let`` variables
computed from those) and nothing on the way to it singles out some threads: writes inside a
closure, or under an ``if`` / ``while`` / ``match`` / ``&&`` condition (or after an earlier
``return`` / ``break`` / ``continue`` / ``?``) that is neither provably thread-independent nor
an inequality, are skipped — ``if i == 0 { y[0] = s; }`` is the intended pattern, while
``if i < n { *total += x[i]; }`` still lets many threads race. A kernel whose every launch in
the file has literal dimensions of exactly one thread in total is skipped, and so are
parameters that give each thread its own element (krnl ``#[item] y: &mut f32``, the
ecosystem profile's ``per_thread_param_attrs``).
"""

from __future__ import annotations

from collections.abc import Iterator

from tree_sitter import Node

from offload_ls.analysis.context import FileContext
from offload_ls.analysis.ecosystems import profiles
from offload_ls.analysis.indexing import MAX_DEPTH, ThreadFlow, named, strip
from offload_ls.analysis.model import Finding, Kernel, Level, Param, Span
from offload_ls.analysis.rules import Rule
from offload_ls.syntax.parse import node_text

NAME = "unindexed_kernel_write"

_MUTABLE_KINDS = ("mut_ref", "mut_ptr")
_POINTER_OFFSET = frozenset({"add", "offset", "wrapping_add", "wrapping_offset"})


def _offset_methods() -> frozenset[str]:
    """``p.add(k)``-style methods whose argument is the element written (and each
    ecosystem's unchecked indexing methods, krnl ``y.unsafe_index_mut(k)``)."""
    return _POINTER_OFFSET | frozenset(m for p in profiles().values() for m in p.unchecked_index_methods)


def check(ctx: FileContext) -> Iterator[Finding]:
    for kernel in ctx.kernels:
        if kernel.body_span is None or _single_thread(ctx, kernel):
            continue
        body = ctx.node(kernel.body_span)
        fn = body.parent if body is not None else None
        if fn is None or fn.type != "function_item":
            continue
        per_thread = ctx.profile(kernel).per_thread_param_attrs
        params = {p.name.removeprefix("mut ").strip(): p for p in kernel.params
                  if p.kind in _MUTABLE_KINDS and not (per_thread and _has_attr(ctx, p, per_thread))}
        if not params:
            continue
        flow = ThreadFlow(fn, uniform_params=True, index=ctx.flow_index(fn))
        for write in flow.writes:
            found = _target(write, params, fn, flow)
            if found is None:
                continue
            place, param, indices = found
            if not all(flow.uniform(i) for i in indices):
                continue
            if not _every_thread_reaches(write, body, flow):
                continue
            yield Finding(rule=NAME, span=Span(place.start_byte, place.end_byte),
                          message=message(node_text(place), _indexed(place, indices),
                                          write.type == "compound_assignment_expr", kernel, param))


def _has_attr(ctx: FileContext, param: Param, words: frozenset[str]) -> bool:
    """Does an attribute right before ``param`` (``#[item] y: &mut f32``) name one of ``words``?"""
    node = ctx.node(param.span)
    prev = node.prev_named_sibling if node is not None else None
    if prev is None or prev.type != "attribute_item":
        return False
    stack = [prev]
    while stack:
        n = stack.pop()
        if n.type == "identifier" and node_text(n) in words:
            return True
        stack.extend(n.children)
    return False


def message(place: str, indexed: str | None, compound: bool, kernel: Kernel, param: Param) -> str:
    """The finding's text for a write to ``place`` (source text, e.g. ``y[0]``);
    ``indexed`` is the same place indexed by the thread index (``y[i]``), ``None`` for a
    place without an index (``*p``)."""
    race = ("the read-modify-write of one thread overwrites the others', so updates are lost"
            if compound else "which thread's value remains is unspecified")
    if indexed is not None:
        fix = f"index with the thread index (`{indexed}`)"
        fix += ", or accumulate with an atomic or a reduction" if compound else \
            ", or let a single thread write (`if i == 0 { .. }`)"
    else:
        fix = "let a single thread write (`if i == 0 { .. }`)"
        fix += ", or accumulate with an atomic" if compound else ""
    return (
        f"every GPU thread writes `{place}`: the place does not depend on the thread index, so all "
        f"threads of a launch of kernel `{kernel.name}` store to the same element of `{param.name}` "
        f"(a data race: {race}); {fix}"
    )


def _indexed(place: Node, indices: list[Node]) -> str | None:
    """``place``'s text with its last index (``y[0][1]`` -> ``y[0][i]``) replaced by ``i``."""
    if not indices:
        return None
    text = place.text or b""
    idx = indices[0]
    start, end = idx.start_byte - place.start_byte, idx.end_byte - place.start_byte
    return (text[:start] + b"i" + text[end:]).decode("utf-8", errors="replace")


def _single_thread(ctx: FileContext, kernel: Kernel) -> bool:
    """Every launch of ``kernel`` in the file (at least one) runs exactly one thread."""
    return ctx.facts.single_thread(kernel.name)


def _target(write: Node, params: dict[str, Param], fn: Node,
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
        return None
    binding = flow.binding(node)
    if binding is None or binding.kind != "param" or binding.node.parent is None or binding.node.parent.parent != fn:
        return None  # shadowed by a local of the same name
    return place, param, indices


def _pointer_offset(node: Node) -> tuple[Node, Node] | None:
    """``p.add(k)`` / ``p.offset(k)`` -> (``p``, ``k``)."""
    if node.type != "call_expression":
        return None
    fn, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
    if fn is None or fn.type != "field_expression" or args is None:
        return None
    field, value = fn.child_by_field_name("field"), fn.child_by_field_name("value")
    arg_list = named(args)
    if field is None or value is None or node_text(field) not in _offset_methods() or len(arg_list) != 1:
        return None
    return value, arg_list[0]


def _every_thread_reaches(write: Node, body: Node, flow: ThreadFlow) -> bool:
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
    threads, or built only from ``<``, ``<=``, ``>``, ``>=`` (with ``&&``, ``||``, ``!``)."""
    return flow.uniform(cond) or _inequality(cond)


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


RULE = Rule(
    name=NAME,
    default_level=Level.WARN,
    summary="kernel writes a place that does not depend on the thread index: every GPU thread races on it",
    check=check,
    needs=frozenset({"kernels"}),
)
