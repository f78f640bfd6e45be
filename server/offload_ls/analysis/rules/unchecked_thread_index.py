"""unchecked_thread_index: device code indexes a buffer with a value computed from the
thread's position in the whole launch, and no guard bounds that index.

A launch usually covers a whole number of blocks, so ``grid * block`` exceeds the element
count whenever the count is not a multiple of the block size; the extra threads index past
the end. Safe indexing then panics (on the GPU: a trap that aborts the kernel); raw-pointer
arithmetic (``p.add(i)``, ``get_unchecked(i)``) reads or writes out of bounds.

An index is guarded when a guard on the way to it bounds *that* index expression
(analysis/bounds/): by the buffer's length, a runtime bound (``i < n``), or a constant
not above the buffer's length (``lut: &mut [f32; 256]`` is not guarded by ``i < 1024``);
``x[i + 1]`` is guarded by ``i < n - 1`` but ``x[i + stride]`` is not by ``i < stride``; a
linearized ``row * w + col`` is guarded by ``row < h && col < w``; ``x[b + 1]`` and
``x[b + 2]`` are guarded by a guard on ``b = 3 * v`` (one 3-element record per thread, the
buffer holding whole records). Guards are enclosing
``if`` / ``while`` / match-arm conditions and ``&&`` / ``||`` operands, ``for`` ranges,
early exits (``if i >= n { return; }``, ``assert!(i < n)``, CubeCL ``terminate!()``), and
``if let Some(..) = x.get(i)``.

Never reported: ``.get(i)`` / ``.get_mut(i)``; indexes reduced with ``%``, ``&``,
``.min(..)`` or ``.clamp(..)``; an index computed only from the thread index within the
block, or only from the block index (one block per row: the launch has as many blocks as
rows); a thread-in-block index into a local array or block-shared memory (a tile sized by
the block); an index whose bound cannot be worked out (``i / 2``, ``i >> s``, a value
read from memory); kernels of a launch mode
that checks bounds itself (CubeCL ``#[cube(launch)]``: out-of-bounds reads give zero and
writes are dropped, cubecl-core ``checked_index_assign``) and their helpers.
"""

from __future__ import annotations

from collections.abc import Iterator

from tree_sitter import Node

from offload_ls.analysis.bounds import bounded, guards_at
from offload_ls.analysis.bounds.index_guards import (
    dispatch_guards,
    guard_holds_at,
    range_outside,
    record_counts,
    weak_guard,
)
from offload_ls.analysis.consts import capture
from offload_ls.analysis.context import FileContext
from offload_ls.analysis.flow.scopes import BindingKind
from offload_ls.analysis.flow.sources import DependenceKind
from offload_ls.analysis.flow.thread_flow import ThreadFlow
from offload_ls.analysis.index_uses import (
    block_only,
    buffer_base,
    buffer_name,
    built_up,
    clamped,
    index_uses,
    indexes_block_memory,
    launch_position,
    len_hint,
    static_length,
)
from offload_ls.analysis.model import Ecosystem, Finding, Level, Span
from offload_ls.analysis.reads import Fact, Holds
from offload_ls.analysis.rules import Rule
from offload_ls.analysis.static_muts import StaticMuts
from offload_ls.analysis.std_names import THREAD_INDEX_HINTS, holds_any
from offload_ls.syntax.nodes import strip
from offload_ls.syntax.parse import node_text

NAME = "unchecked_thread_index"

#: The dependence kinds a helper's followed parameters join: each is a position in the launch.
_FOLLOWED = (DependenceKind.ALL, DependenceKind.GLOBAL, DependenceKind.POSITION)


def check(ctx: FileContext) -> Iterator[Finding]:
    seen: set[tuple[int, int]] = set()  # index expressions reported (a use in two device fns)

    def fold(node: Node) -> int | None:
        expr = capture(node)
        return ctx.facts.fold(expr) if expr is not None else None

    for dfn in ctx.device_fns:
        fn = _function_to_check(ctx, dfn)
        if fn is not None:
            yield from _FunctionCheck(ctx, dfn, fn, fold).findings(seen)
        if dfn.kernel is None or _cube_helper(ctx, dfn.kernel):
            yield from _helper_findings(ctx, dfn, fold, seen)


def _cube_helper(ctx: FileContext, kernel) -> bool:
    """Is ``kernel`` a CubeCL ``#[cube(launch_unchecked)]`` function that nothing launches (in
    the file or its crate): a cube function other kernels call (its launch mode unused)?"""
    return kernel.ecosystem is Ecosystem.CUBECL and kernel.fn_start not in ctx.facts.cube_checked \
        and not ctx.facts.all_launches_of(kernel.name)


def _helper_findings(ctx: FileContext, dfn, fold, seen: set[tuple[int, int]]) -> Iterator[Finding]:
    """The indexes of helper ``dfn`` (a device function that is no kernel) computed from a
    parameter to which every call of the helper in the file passes an unguarded position in
    the launch (analysis/units/call_args.py; ``FileFacts.helper_calls``), checked against the
    helper's own guards as if the parameter were the thread index."""
    calls = ctx.facts.helper_calls(dfn.name)
    if not calls or ctx.facts.all_cube_checked:
        return
    body = ctx.node(dfn.body_span)
    fn = body.parent if body is not None else None
    params = _param_names(fn) if fn is not None and fn.type == "function_item" else None
    if not params or any(len(flags) != len(params) for flags, _, _ in calls):
        return
    passed = {p: j for j, p in enumerate(params) if p is not None and all(flags[j] for flags, _, _ in calls)}
    if not passed:
        return
    callers = {caller for _, _, caller in calls}
    for k in ctx.facts.kernels:
        if k.name in callers and (k.fn_start in ctx.facts.cube_checked or _one_thread_blocks(ctx, k)):
            return  # a caller whose positions cannot pass the end
    flow = ThreadFlow(fn, index=ctx.flow_index(fn))
    flow._params_by_kind = {k: (names | set(passed) if k in _FOLLOWED else names)
                            for k, names in flow._params_by_kind.items()}
    flags, call, caller = calls[0]
    yield from _FunctionCheck(ctx, dfn, fn, fold, flow, (dfn.name, passed, call, caller)).findings(seen)


def _param_names(fn: Node) -> list[str | None] | None:
    """The names of ``fn``'s parameters in order (``None`` for a pattern that is not a
    name); ``None`` for a method (``self``) or variadic function."""
    params = fn.child_by_field_name("parameters")
    if params is None:
        return None
    out: list[str | None] = []
    for p in params.named_children:
        if p.type == "parameter":
            pat = p.child_by_field_name("pattern")
            if pat is not None and pat.type == "mut_pattern":
                pat = next((c for c in pat.named_children if c.type == "identifier"), None)
            out.append(node_text(pat) if pat is not None and pat.type == "identifier" else None)
        elif p.type in ("self_parameter", "variadic_parameter"):
            return None
    return out


def _function_to_check(ctx: FileContext, dfn) -> Node | None:
    """The ``function_item`` of device function ``dfn`` when its indexes can be unchecked:
    not in CubeCL's checked mode (nor a helper of such kernels only), not a kernel of
    one-thread blocks, its text mentions the thread index, and it has a body."""
    if dfn.kernel is not None and dfn.kernel.fn_start in ctx.facts.cube_checked:
        return None
    if dfn.kernel is None and ctx.facts.all_cube_checked:
        return None  # a helper of CubeCL checked-mode kernels only
    if dfn.kernel is not None and _one_thread_blocks(ctx, dfn.kernel):
        return None  # `threads(1)`: each position is a block index (one block per element)
    text = ctx.source[dfn.span.start : dfn.span.end]
    if not holds_any(text, THREAD_INDEX_HINTS) and not any(n.encode() in text for n in ctx.facts.index_helpers):
        return None  # no thread index anywhere in the function: nothing derives from it
    body = ctx.node(dfn.body_span)
    fn = body.parent if body is not None else None
    if fn is None or fn.type != "function_item":
        return None
    return fn


class _FunctionCheck:
    """The index uses of one device function, each checked against the guards above it."""

    def __init__(self, ctx: FileContext, dfn, fn: Node, fold, flow: ThreadFlow | None = None,
                 via: tuple | None = None) -> None:
        self.ctx, self.dfn, self.fn, self.fold = ctx, dfn, fn, fold
        self.body = ctx.node(dfn.body_span)
        self.profile = ctx.profile(dfn.kernel)
        self.flow = flow if flow is not None else ThreadFlow(fn, index=ctx.flow_index(fn))
        #: (helper name, parameter -> position, a call's text, its caller) for a helper whose
        #: parameters are followed as the thread index (:func:`_helper_findings`)
        self.via = via
        self.guard_memo: dict = {}  # the guards above each node of this function (analysis/bounds/)
        self.implicit = dispatch_guards(self.profile, ctx.source[dfn.span.start : dfn.span.end])
        self.holds = guard_holds_at(self.flow)

    def resolve(self, ident: Node) -> Node | None:
        """The value an immutable ``let`` binds ``ident`` to, or the one that reaches it."""
        flow = self.flow
        b = flow.binding(ident)
        if b is not None and b.kind == BindingKind.LET and not b.mutable and b.value is not None:
            return b.value
        if b is not None and b.kind == BindingKind.LET:
            return flow.reaching_value(ident, b)  # `iy = max(0, min(iy, h - 1));` before the use
        return None

    def sums(self, ident: Node) -> list[Node] | None:
        b = self.flow.binding(ident)
        return self.flow.straight_sum(ident, b) if b is not None and b.kind == BindingKind.LET else None

    def definitions(self, ident: Node) -> list[Node] | None:
        """Every value identifier ``ident`` may hold: its ``let``'s, or for a ``mut`` one
        the value that decides it (:meth:`ThreadFlow.reaching_value`) or else the
        initializer and every plain assignment (``h = (h + 1) & mask`` in a probing
        loop); ``None`` when unknown (a compound assignment, another kind of binding)."""
        flow = self.flow
        b = flow.binding(ident)
        if b is None or b.node.type != "let_declaration":
            return None
        reaching = flow.reaching_value(ident, b)  # `stop = min(stop, n);` after `let (start, mut stop)`
        if reaching is not None:
            return [reaching]
        if b.kind != BindingKind.LET or b.value is None:
            return None
        if not b.mutable:
            return [b.value]
        values = [b.value]
        for rhs in flow.assignments(b.name):
            if rhs.parent is None or rhs.parent.type != "assignment_expression":
                return None  # `h += 1`
            values.append(rhs)
        return values

    def findings(self, seen: set[tuple[int, int]]) -> Iterator[Finding]:
        uses = index_uses(self.flow)
        counts = record_counts(uses, self.fold)
        for use, index, raw in uses:
            key = (index.start_byte, index.end_byte)
            if key in seen or clamped(index, self.definitions) or not self._may_pass_the_end(use, index):
                continue
            found = self._unbounded(use, index, counts)
            if found is None:
                continue
            index, end, guards, length = found
            tvars = self.flow.thread_vars(index)
            if built_up(self.flow, [b for _, b in tvars]):
                continue  # `off += pos / s % n * t` in a loop: its bound is not worked out
            if self.via is not None and not self._param_in(tvars):
                continue  # the helper's own thread index: the plain check's
            seen.add(key)
            yield self._finding(use, index, raw, end, guards, length, tvars)

    def _param_in(self, tvars) -> str | None:
        """The followed parameter (:attr:`via`) an index's thread-derived variables come from."""
        roots = self.flow.roots([b for _, b in tvars])
        own = [node_text(i) for i, _ in tvars if node_text(i) in self.via[1]]
        return own[0] if own else next((p for p in self.via[1] if p in roots), None)

    def _may_pass_the_end(self, use: Node, index: Node) -> bool:
        """Does the index grow with a rounded-up grid, into a global buffer, in code that parses?"""
        flow = self.flow
        if not launch_position(flow, index):
            return False  # within-block or block-only index: bounded by the launch's shape
        if indexes_block_memory(use, flow, StaticMuts.of(self.ctx), self.profile):
            return False
        return not (self.fn.has_error and _in_error(flow, use, self.body))  # an edit in progress

    def _unbounded(self, use: Node, index: Node, counts):
        """(the index, or the part of a slice range, that no guard bounds; whether it is the
        range's end; the guards; the buffer's static length), ``None`` when it is bounded."""
        flow, fold = self.flow, self.fold
        guards = guards_at(use, self.body, fold, self.profile.exits, self.ctx.source, self.guard_memo, flow.parent,
                           self.resolve)
        guards = guards + self.implicit if self.implicit else guards
        length = static_length(use, flow, fold, self.ctx.facts.resolve_type)

        def in_bounds(node: Node) -> bool:
            return bounded(node, guards, fold, self.resolve, length, flow.depends,
                           lambda n: block_only(flow, n), buffer_base(use), self.holds, counts, self.sums)

        if strip(index).type == "range_expression":
            # `x[a..b]`: a slice, in bounds when `a` and `b` are at most the length
            failing = range_outside(strip(index), guards, fold, use, in_bounds, self.definitions, self.resolve)
            return None if failing is None else (*failing, guards, length)
        return None if in_bounds(index) else (index, False, guards, length)

    def _finding(self, use: Node, index: Node, raw: bool, end: bool, guards, length, tvars) -> Finding:
        flow = self.flow
        # name a variable that grows with the grid (`c_col`), not a thread-in-block index
        # (`ty`, bounded by the block) that the same index also reads
        growing = [i for i, _ in tvars
                   if flow.depends(i, DependenceKind.POSITION) or flow.depends(i, DependenceKind.GLOBAL)]
        var = node_text(growing[0] if growing else tvars[0][0]) if tvars else node_text(index)
        hint = len_hint(use, index, raw, flow)
        if end:
            hint = hint.replace(" < ", " <= ", 1)  # a slice's end may equal the length
        weak = weak_guard(index, guards, self.fold, self.holds, flow)
        text = message(var, node_text(use), raw or self.profile.raw_indexing, hint, weak, buffer_name(use), length,
                       block=bool(tvars) and block_only(flow, tvars[0][0]))
        if self.via is not None:
            helper, _, call, caller = self.via
            text = (f"`{self._param_in(tvars)}` is a parameter of `{helper}`, and every call of `{helper}` in the "
                    f"file passes it a thread index that no check bounds (`{call}` in `{caller}`): " + text)
        return Finding(rule=NAME, span=Span(index.start_byte, index.end_byte), message=text)


def _one_thread_blocks(ctx: FileContext, kernel) -> bool:
    """Does ``kernel`` declare blocks of one thread (rust-gpu ``#[spirv(compute(threads(1)))]``,
    ``threads(1, 1)``)? Then its launch-wide position is its block index (``global_invocation_id
    == workgroup_id``): no extra threads past the last element, as with one block per row."""
    dims = kernel.declared_dims
    if not dims:
        return False
    return all(ctx.facts.fold(d) == 1 for d in dims)


def _in_error(flow: ThreadFlow, node: Node, body: Node) -> bool:
    """Does ``node`` lie in an ``ERROR`` node of the tree (below ``body``)?"""
    n = node
    while n is not None and n != body:
        if n.type == "ERROR" or n.is_missing:
            return True
        n = flow.parent(n)
    return False


def message(var: str, use: str, raw: bool, guard: str, weak: str | None = None, buffer: str | None = None,
            length: int | None = None, block: bool = False) -> str:
    """The finding's text: ``var`` (thread-derived variable; ``block``: from the block index
    alone) used in ``use`` (source text); ``guard``: the suggested guard; ``weak``: the
    comparison that guards the index but not enough (``i < 4096``), with the indexed
    ``buffer``'s name and static ``length``."""
    source = "the block index" if block else "the thread index"
    if weak is not None:
        below = f"the length of `{buffer}`" if buffer else "the buffer's length"
        if length is not None:
            below += f" ({length} elements)"
        checks = "checks" if "`, `" in weak else "check"
        head = (f"`{var}` comes from {source} and is used in `{use}`, and the {checks} `{weak}` "
                f"{'do' if checks == 'checks' else 'does'} not keep it below {below}: when the launch covers "
                f"more threads than elements, the extra threads that pass the {checks} ")
    else:
        head = (f"`{var}` comes from {source} and is used in `{use}` without a bounds check: when "
                f"the launch covers more threads than elements (grid × block > len), the extra threads ")
    if raw:
        what = "read or write out of bounds without any check (undefined behavior)"
    else:
        what = "index past the end and the bounds check panics (on the GPU: a trap that aborts the kernel)"
    count = " (`n`: the element count, a kernel argument)" if guard.endswith(" < n { .. }") else ""
    return f"{head}{what}; guard it with `{guard}`{count} or return early when it is out of range"


RULE = Rule(
    name=NAME,
    default_level=Level.WARN,
    summary="index computed from the thread index is used without a bounds check",
    check=check,
    reads=frozenset({Fact.SEMANTIC, Fact.CUBECL, Fact.DEVICE_CODE, Fact.HELPER_ECOSYSTEM,
                     Fact.INDEX_HELPERS, Fact.STATICS, Fact.HELPER_CALLS,
                     Fact.LAUNCHED}),
    needs=Holds.DEVICE_FNS,
)
