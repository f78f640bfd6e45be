"""unchecked_thread_index: device code indexes with a value computed from the thread / block
index without first checking it against the length.

A launch usually covers a whole number of blocks, so ``grid * block`` exceeds the element
count whenever the count is not a multiple of the block size; the extra threads index past
the end. Safe indexing then panics (on the GPU: a trap that aborts the kernel); raw-pointer
arithmetic (``p.add(i)``, ``get_unchecked(i)``) reads or writes out of bounds.

A use is guarded (analysis/indexing.py ``bounds``) when it sits in the branch of an ``if``,
``while``, match-arm guard or ``&&`` / ``||`` operand where a comparison bounds the variable
(``i < n``, ``n > i``, the ``else`` of ``i >= n``), or after an early exit in the same or an
enclosing block (``if i >= n { return; }``, ``assert!(i < n)``), the variable or one it is
computed from. ``.get(i)`` / ``.get_mut(i)`` are never reported, nor are indexes reduced
with ``%``, ``&``, ``.min(..)`` or ``.clamp(..)``, nor an index computed only from the thread
index within the block (no block index / grid position, grammars/rust/global_index.scm) into
an array bound by ``let`` in the same function — a shared-memory tile sized by the block. CubeCL kernels marked
``#[cube(launch)]`` are skipped: CubeCL's checked mode turns out-of-bounds reads into zeros
and drops out-of-bounds writes (cubecl-core ``CheckedIoProcessor``).
"""

from __future__ import annotations

from collections.abc import Iterator

from tree_sitter import Node

from offload_ls.analysis.context import FileContext
from offload_ls.analysis.indexing import ThreadFlow, bounds, diverges, named, strip
from offload_ls.analysis.model import Finding, Level, Span
from offload_ls.analysis.rules import Rule
from offload_ls.analysis.std_names import THREAD_INDEX_HINTS, holds_any
from offload_ls.syntax.parse import SNIPPET_PREFIX, SNIPPET_SUFFIX, node_text, parse, snippet_call

NAME = "unchecked_thread_index"

#: Methods whose argument is an element offset with no bounds check.
_RAW_METHODS = ("add", "offset", "get_unchecked", "get_unchecked_mut")
#: Methods / functions that bring an index into range.
_CLAMPS = ("min", "clamp", "rem_euclid")
_ASSERTS = ("assert", "debug_assert")


def check(ctx: FileContext) -> Iterator[Finding]:
    checked = ctx.facts.cube_checked
    helpers_checked = ctx.facts.all_cube_checked  # every kernel of the file is in checked mode
    seen: set[tuple[int, int]] = set()
    for dfn in ctx.device_fns:
        if dfn.kernel is not None and dfn.kernel.fn_start in checked:
            continue
        if dfn.kernel is None and helpers_checked:
            continue  # a helper of CubeCL checked-mode kernels only
        if not holds_any(ctx.source[dfn.span.start : dfn.span.end], THREAD_INDEX_HINTS):
            continue  # no thread index anywhere in the function: nothing derives from it
        body = ctx.node(dfn.body_span)
        fn = body.parent if body is not None else None
        if fn is None or fn.type != "function_item":
            continue
        flow = ThreadFlow(fn, index=ctx.flow_index(fn))
        guard_stmts: dict[tuple[int, int], list[Node]] = {}
        for use, index, raw in _index_uses(flow):
            key = (index.start_byte, index.end_byte)
            if key in seen or _clamped(index):
                continue
            tvars = flow.thread_vars(index)
            if not tvars:
                continue
            if not flow.thread_vars(index, global_only=True) and _indexes_a_local(use, flow):
                continue  # a block-local index into a local (e.g. shared-memory) tile
            names = flow.roots([b for _, b in tvars])
            if _guarded(use, body, names, ctx.source, guard_stmts):
                continue
            seen.add(key)
            var = node_text(tvars[0][0])
            yield Finding(rule=NAME, span=Span(index.start_byte, index.end_byte),
                          message=message(var, node_text(use), raw, _len_hint(use, index, raw)))


def message(var: str, use: str, raw: bool, guard: str) -> str:
    """The finding's text: ``var`` (thread-derived variable) used in ``use`` (source text)."""
    head = (f"`{var}` comes from the thread index and is used in `{use}` without a bounds check: when "
            f"the launch covers more threads than elements (grid × block > len), the extra threads ")
    if raw:
        what = "read or write out of bounds without any check (undefined behavior)"
    else:
        what = "index past the end and the bounds check panics (on the GPU: a trap that aborts the kernel)"
    return f"{head}{what}; guard it with `{guard}` or return early when it is out of range"


def _len_hint(use: Node, index: Node, raw: bool) -> str:
    """``if i < x.len() { .. }`` for a safe index into a named slice/array, else
    ``if i < n { .. }``; a compound index is parenthesized (``(id.x as usize) < n``)."""
    var = node_text(index) if index.type == "identifier" else f"({node_text(index)})"
    if not raw and use.type == "index_expression":
        base = named(use)[0]
        if base.type in ("identifier", "field_expression"):
            return f"if {var} < {node_text(base)}.len() {{ .. }}"
    return f"if {var} < n {{ .. }}"


def _index_uses(flow: ThreadFlow) -> list[tuple[Node, Node, bool]]:
    """(use, index expression, is_raw) for ``x[e]`` and ``p.add(e)`` / ``p.offset(e)`` /
    ``s.get_unchecked(e)`` / ``s.get_unchecked_mut(e)`` in the function, in document order."""
    out = []
    for n in flow.indexes:
        parts = named(n)
        if len(parts) == 2:
            out.append((n, parts[1], False))
    for n in flow.offset_calls:
        args = n.child_by_field_name("arguments")
        arg_list = named(args) if args is not None else []
        if len(arg_list) == 1:
            out.append((n, arg_list[0], True))
    out.sort(key=lambda u: u[1].start_byte)
    return out


def _indexes_a_local(use: Node, flow: ThreadFlow) -> bool:
    """Is the indexed buffer a variable bound by ``let`` in this function (a local array or
    a shared-memory tile) rather than a parameter?"""
    if use.type == "index_expression":
        node = named(use)[0]
    else:
        fn = use.child_by_field_name("function")
        node = fn.child_by_field_name("value") if fn is not None else None
    while node is not None:
        node = strip(node)
        if node.type == "identifier":
            binding = flow.binding(node)
            return binding is not None and binding.kind in ("let", "pattern")
        if node.type == "unary_expression":
            inner = named(node)
            node = inner[0] if inner else None
        elif node.type == "field_expression":
            node = node.child_by_field_name("value")
        elif node.type == "index_expression":
            node = named(node)[0]
        else:
            return False
    return False


def _clamped(index: Node) -> bool:
    """``i % n``, ``i & mask``, ``i.min(n - 1)``, ``min(i, n)``, ``i.clamp(..)``."""
    e = strip(index)
    if e.type == "binary_expression":
        op = e.child_by_field_name("operator")
        return op is not None and op.type in ("%", "&")
    if e.type == "call_expression":
        fn = e.child_by_field_name("function")
        if fn is None:
            return False
        if fn.type == "field_expression":
            field = fn.child_by_field_name("field")
            return field is not None and node_text(field) in _CLAMPS
        last = fn.child_by_field_name("name") if fn.type == "scoped_identifier" else fn
        return last is not None and node_text(last) == "min"
    return False


def _guarded(use: Node, body: Node, names: set[str], source: bytes,
             cache: dict[tuple[int, int], list[Node]]) -> bool:
    """Is ``use`` inside a branch / after an exit that bounds one of ``names``? ``cache``
    keeps each block's candidate guard statements (``if`` and macro statements)."""
    child, node = use, use.parent
    while node is not None:
        t = node.type
        if t == "if_expression":
            cond = node.child_by_field_name("condition")
            if cond is not None and child != cond:
                holds = child == node.child_by_field_name("consequence")
                if bounds(cond, names, holds):
                    return True
        elif t == "while_expression":
            cond = node.child_by_field_name("condition")
            if cond is not None and child == node.child_by_field_name("body") and bounds(cond, names, True):
                return True
        elif t == "match_arm":
            pattern = node.child_by_field_name("pattern")
            guard = pattern.child_by_field_name("condition") if pattern is not None else None
            if guard is not None and child != pattern and bounds(guard, names, True):
                return True
        elif t == "binary_expression":
            op = node.child_by_field_name("operator")
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if op is not None and left is not None and child == right:
                if op.type == "&&" and bounds(left, names, True):
                    return True
                if op.type == "||" and bounds(left, names, False):
                    return True
        elif t == "block":
            key = (node.start_byte, node.end_byte)
            if key not in cache:
                cache[key] = [st for st in node.named_children if _may_guard(st)]
            for stmt in cache[key]:
                if stmt.start_byte >= child.start_byte:
                    break
                if _exits_unless_bounded(stmt, names, source):
                    return True
        if node == body:
            return False
        child, node = node, node.parent
    return False


def _may_guard(stmt: Node) -> bool:
    inner = stmt.named_children[0] if stmt.type == "expression_statement" and stmt.named_child_count else stmt
    return inner.type in ("if_expression", "macro_invocation")


def _exits_unless_bounded(stmt: Node, names: set[str], source: bytes) -> bool:
    """``if i >= n { return; }``, ``if i < n { .. } else { return; }``, ``assert!(i < n)``."""
    inner = named(stmt)[0] if stmt.type == "expression_statement" and named(stmt) else stmt
    if inner.type == "if_expression":
        cond = inner.child_by_field_name("condition")
        if cond is None:
            return False
        if diverges(inner.child_by_field_name("consequence")) and bounds(cond, names, False):
            return True
        alt = inner.child_by_field_name("alternative")
        return alt is not None and diverges(alt) and bounds(cond, names, True)
    if inner.type == "macro_invocation":
        macro = inner.child_by_field_name("macro")
        if macro is None or node_text(macro) not in _ASSERTS:
            return False
        tokens = next((c for c in inner.children if c.type == "token_tree"), None)
        return tokens is not None and _assert_bounds(tokens, source, names)
    return False


def _assert_bounds(tokens: Node, source: bytes, names: set[str]) -> bool:
    """Does the first argument of ``assert!(..)`` bound one of ``names``? The token tree is
    re-parsed as a call's arguments (macro arguments are token trees; DESIGN.md "Known hard
    parts")."""
    if tokens.child_count < 2:
        return False
    start, end = tokens.children[0].end_byte, tokens.children[-1].start_byte
    tree = parse(SNIPPET_PREFIX + source[start:end] + SNIPPET_SUFFIX)
    call = snippet_call(tree)
    if call is None:
        return False
    args = call.child_by_field_name("arguments")
    first = named(args) if args is not None else []
    return bool(first) and bounds(first[0], names, True)


RULE = Rule(
    name=NAME,
    default_level=Level.WARN,
    summary="index computed from the thread index is used without a bounds check",
    check=check,
    needs=frozenset({"device_fns"}),
)
