"""Which arguments of a function's calls are an unguarded thread position: what
unchecked_thread_index needs to follow a thread index into a helper of the file
(``fn work(idx: usize, buf: &mut [u32]) { buf[5 + idx * 3] = 1; }`` called as
``work(id.x as usize, buf)``).

Computed with the unit's summary (:class:`~offload_ls.analysis.units.records.FnRec`
``index_args``), offset-free, so that an edit of a caller that changes what it passes
changes the unit's exports (analysis/incremental.py ``plan``).
"""

from __future__ import annotations

import re
from functools import cache

from tree_sitter import Node

from offload_ls.analysis.bounds import guards_at
from offload_ls.analysis.ecosystems import profiles
from offload_ls.analysis.flow.scopes import BindingKind
from offload_ls.analysis.flow.sources import DependenceKind, FlowIndex, index_names
from offload_ls.analysis.flow.thread_flow import ThreadFlow
from offload_ls.syntax.nodes import identifiers, method_name, strip
from offload_ls.syntax.parse import node_text
from offload_ls.syntax.queries import captures_many

#: One call of a function of the file by its plain name: (callee name, for each argument
#: whether it is an unguarded position in the launch, the call's text).
IndexArgs = tuple[tuple[str, tuple[bool, ...], str], ...]

_CLAMPS = frozenset({"min", "clamp", "rem_euclid", "rem", "wrapping_rem"})


#: The queries a function's ThreadFlow and the rules read (analysis/context.py ``FN_QUERIES``).
FN_QUERIES = ("dataflow", "thread_index", "global_index", "host_only_api")
#: (start, end) -> (function item, its :data:`FN_QUERIES` captures, its FlowIndex) of the
#: functions followed here lately, for the rules' context to take over in the same tree
#: (analysis/context.py ``fn_captures``, ``flow_index``); a kept node keeps its tree alive, and
#: nodes of two trees never compare equal.
_RECENT: dict[tuple[int, int], tuple[Node, dict, FlowIndex]] = {}


def recent(fn: Node) -> tuple[dict, FlowIndex] | None:
    """The :data:`FN_QUERIES` captures and the FlowIndex (without position helpers) of
    function item ``fn`` when :func:`index_args` made them for this very node lately."""
    found = _RECENT.get((fn.start_byte, fn.end_byte))
    return (found[1], found[2]) if found is not None and found[0] == fn else None


def _flow_index(fn: Node) -> FlowIndex:
    if len(_RECENT) > 512:
        _RECENT.clear()
    caps = captures_many(FN_QUERIES, fn)
    ix = FlowIndex(fn, caps)
    _RECENT[(fn.start_byte, fn.end_byte)] = (fn, caps, ix)
    return ix


@cache
def _index_words() -> re.Pattern[bytes]:
    """Every thread-index intrinsic, function, constant and builtin parameter attribute of
    the profiles (``_thread_idx_x``, ``index_1d``, ``ABSOLUTE_POS``, ``global_invocation_id``),
    as one pattern."""
    words = set(index_names()) | {w for p in profiles().values() for w in p.index_params}
    return re.compile(b"|".join(re.escape(w.encode()) for w in sorted(words, key=len, reverse=True)))


@cache
def _exits() -> frozenset[str]:
    """Every ecosystem's exit macros (``terminate!``): any of them counts as an exit here."""
    return frozenset().union(*(p.exits for p in profiles().values()))


def names_thread_index(fn: Node) -> bool:
    """Does function item ``fn``'s text name a thread index (:func:`_index_words`)? Only then
    are its calls' arguments followed (:func:`index_args`)."""
    return _index_words().search(fn.text or b"") is not None


def generic_calls(generic: list[Node]) -> IndexArgs:
    """The ``f::<T>(..)`` calls (``@generic_callee`` identifiers) of a function whose calls are
    not followed, each with no argument known to be a thread index: the helper's callers that
    ``FnRec.callees`` does not name."""
    return tuple((node_text(g), (False,), "") for g in generic)


def index_args(fn: Node, body: Node, callees: list[Node], generic: list[Node] = ()) -> IndexArgs:
    """The calls by plain name (``work(..)``, not ``m::work(..)``) in function ``fn``'s own
    body (not in functions nested in it), each with which of its arguments are a position in
    the whole launch (a launch-wide index, or a block index combined with a thread index)
    that is not reduced (``%``, ``&``, ``.min(..)``) and that no guard at the call compares:
    a guard on the argument, or on a variable it is computed from, with anything, counts.
    ``callees``: the callee identifiers (grammars/rust/calls.scm) inside ``body``; ``generic``:
    those of ``f::<T>(..)`` calls (``@generic_callee``). For a function whose text names a
    thread index (:func:`names_thread_index`; the caller asks)."""
    calls = []
    for callee in [*callees, *generic]:
        head = callee.parent if callee.parent is not None and callee.parent.type == "generic_function" else callee
        call = head.parent
        if call is None or call.type != "call_expression" or call.child_by_field_name("function") != head:
            continue
        args = call.child_by_field_name("arguments")
        if args is not None and args.named_child_count:
            calls.append((node_text(callee), call, args))
    if not calls:
        return ()
    text = fn.text or b""
    ix = _flow_index(fn)
    flow = ThreadFlow(fn, index=ix)
    nested = [(n.start_byte, n.end_byte) for n in ix.nested_fns]
    # names that may hold a thread index: `let`s, builtin parameters (and `for` variables)
    bound = None if b"for " in text else set(ix.let_index._by_name) | ix.params_by_kind[DependenceKind.ALL]
    memo: dict = {}
    out = []
    for name, call, args in calls:
        if any(s <= call.start_byte and call.end_byte <= e for s, e in nested):
            continue  # a call in a nested function: that function's own record
        flags = tuple(_may_hold(a, flow, bound) and _unguarded(a, call, body, flow, memo)
                      for a in args.named_children if not a.type.endswith("comment"))
        out.append((name, flags, " ".join(node_text(call).split())))
    return tuple(out)


def _may_hold(arg: Node, flow: ThreadFlow, bound: set[str] | None) -> bool:
    """Can ``arg`` hold a thread index at all: a source in it, or a name that may (``bound``;
    ``None``: any name)? Cheap, before the binding lookups of :func:`_unguarded`."""
    if bound is None or flow.is_source(arg):
        return True
    return any(node_text(i) in bound for i in flow.identifiers(arg))


def _unguarded(arg: Node, call: Node, body: Node, flow: ThreadFlow, memo: dict) -> bool:
    """Is ``arg`` a launch position that no reduction and no guard at ``call`` bounds?"""
    direct = {node_text(i) for i in identifiers(arg)}
    if _in_condition_on(call, body, direct, flow):
        return False  # `if i < n { work(i) }`: no need for the guards' bounds
    guards = guards_at(call, body, lambda n: None, _exits(), None, memo, flow.parent)
    if guards and _mentioned(guards, direct):
        return False  # `if i < n { work(i) }`: the cheap answer first
    position = flow.depends(arg, DependenceKind.POSITION)
    if not (position or flow.depends(arg, DependenceKind.GLOBAL) and flow.depends(arg, DependenceKind.LOCAL)):
        return False
    if _reduced(arg, flow):
        return False
    return not (guards and _mentioned(guards, flow.roots([b for _, b in flow.thread_vars(arg)])))


def _in_condition_on(call: Node, body: Node, names: set[str], flow: ThreadFlow) -> bool:
    """Is ``call`` inside an ``if`` / ``while`` whose condition names one of ``names``?"""
    child, up = call, flow.parent(call)
    while up is not None and child != body:
        if up.type in ("if_expression", "while_expression"):
            cond = up.child_by_field_name("condition")
            if cond is not None and cond != child and names & {node_text(i) for i in identifiers(cond)}:
                return True
        child, up = up, flow.parent(up)
    return False


def _mentioned(guards, names: set[str]) -> bool:
    """Does one of ``guards`` compare a name among ``names`` (with anything)?"""
    for g in guards:
        for side in (g.expr_node, g.bound_node):
            if side is not None and names & {node_text(i) for i in identifiers(side)}:
                return True
        for key in (g.expr.key, g.bound.key):
            if any(n in key for n in names):
                return True  # a guard re-parsed from `assert!` tokens, a made-up `x.len()`
    return False


def _reduced(arg: Node, flow: ThreadFlow, depth: int = 0) -> bool:
    """``i % n``, ``i & m``, ``i.min(..)``, ``min(i, ..)``, ``i.clamp(..)``, also through an
    immutable ``let`` (``let j = i.min(n - 1); work(j)``)."""
    e = strip(arg)
    if e.type == "binary_expression":
        op = e.child_by_field_name("operator")
        return op is not None and op.type in ("%", "&")
    if e.type == "call_expression":
        if method_name(e) in _CLAMPS:
            return True
        f = e.child_by_field_name("function")
        last = f.child_by_field_name("name") if f is not None and f.type == "scoped_identifier" else f
        return last is not None and node_text(last) in ("min", "clamp")
    if e.type == "identifier" and depth < 4:
        b = flow.binding(e)
        if b is not None and b.kind == BindingKind.LET and b.value is not None:
            return b.mutable or _reduced(b.value, flow, depth + 1)  # a `mut` one: not followed, not reported
    return False
