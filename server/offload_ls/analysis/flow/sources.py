"""Thread-index sources of one function: the intrinsics, constants, builtin parameters and
position helpers it reads, by the kind of thread position they give, and the nodes of the
function that :class:`~offload_ls.analysis.flow.thread_flow.ThreadFlow` follows.

Sources of thread dependence (queries, not Python patterns):

- grammars/rust/thread_index.scm: index intrinsics (``core::arch::nvptx::_thread_idx_x``,
  ``_block_idx_x``, amdgpu ``workitem_id_x``, Rust-CUDA ``thread::index_1d``, krnl
  ``global_id``, CubeCL ``ABSOLUTE_POS`` ...);
- grammars/rust/thread_index_params.scm: rust-gpu parameters marked
  ``#[spirv(global_invocation_id)]`` and the other per-invocation builtins;
- grammars/rust/global_index.scm: the subset that differs between workgroups (block index,
  whole-grid position), as opposed to the thread index within a block.
"""

from __future__ import annotations

import enum
from functools import cache
from typing import Literal

from tree_sitter import Node

from offload_ls.analysis.ecosystems import IndexKind, profiles
from offload_ls.analysis.flow.scopes import Binding, LetIndex
from offload_ls.syntax.nodes import ParentMap, method_name
from offload_ls.syntax.parse import node_text
from offload_ls.syntax.queries import captures, captures_many, matches


class DependenceKind(enum.StrEnum):
    """Which thread positions a value may depend on (:meth:`ThreadFlow.depends`); compares
    equal to its value (``"global"``) and formats as it."""

    #: any thread index
    ALL = "all"
    #: what differs between blocks (a block index, a position in the whole launch)
    GLOBAL = "global"
    #: a position in the whole launch
    POSITION = "position"
    #: a position within the block
    LOCAL = "local"


#: A thread-index source's kind as the ecosystem profiles write it (analysis/ecosystems
#: ``Index.kind``, an ``IndexKind``): thread / block / global / local index, global / block
#: linear index (not the dimensions ``bdim`` / ``gdim``, which differ between no threads).
SourceKind = Literal["tid", "bid", "gid", "lid", "glin", "blin"]

#: Which source kinds (analysis/ecosystems ``Index.kind``) each dependence kind follows:
#: ``all`` any thread index, ``global`` what differs between blocks, ``position`` a
#: position in the whole launch, ``local`` a position within the block.
_KINDS: dict[DependenceKind, frozenset[SourceKind]] = {
    DependenceKind.ALL: frozenset({"tid", "bid", "gid", "lid", "glin", "blin"}),
    DependenceKind.GLOBAL: frozenset({"bid", "gid", "glin", "blin"}),
    DependenceKind.POSITION: frozenset({"gid", "glin"}),
    DependenceKind.LOCAL: frozenset({"tid", "lid"}),
}
#: the dependence kinds :meth:`ThreadFlow.depends` answers for
KINDS = tuple(_KINDS)


def index_names() -> frozenset[str]:
    """Every thread-index function / path function / constant name of the profiles."""
    return frozenset(_name_kinds())


_ALL, _GLOBAL = DependenceKind.ALL, DependenceKind.GLOBAL


def kind_of(global_only: bool | DependenceKind) -> DependenceKind:
    """``global_only`` as a dependence kind: False -> ``ALL``, True -> ``GLOBAL``, or the kind
    itself."""
    if global_only is True:
        return _GLOBAL
    if global_only is False:
        return _ALL
    return global_only


@cache
def _name_kinds() -> dict[str, frozenset[IndexKind]]:
    """Thread-index name (function, path function or constant) -> the kinds it has in any
    ecosystem profile."""
    out: dict[str, set[IndexKind]] = {}
    for p in profiles().values():
        for table in (p.index_fns, p.index_path_fns, p.index_consts):
            for name, ix in table.items():
                out.setdefault(name, set()).add(ix.kind)
    return {k: frozenset(v) for k, v in out.items()}


@cache
def _param_kinds() -> dict[str, frozenset[IndexKind]]:
    """Parameter attribute word (rust-gpu ``global_invocation_id``) -> kinds."""
    out: dict[str, set[IndexKind]] = {}
    for p in profiles().values():
        for word, ix in p.index_params.items():
            out.setdefault(word, set()).add(ix.kind)
    return {k: frozenset(v) for k, v in out.items()}


def _source_name(node: Node) -> str:
    """The name of a thread-index source node (a call's function name, or a constant)."""
    if node.type == "call_expression":
        fn = node.child_by_field_name("function")
        if fn is not None and fn.type == "scoped_identifier":
            fn = fn.child_by_field_name("name")
        elif fn is not None and fn.type == "field_expression":
            fn = fn.child_by_field_name("field")
        return node_text(fn) if fn is not None else ""
    return node_text(node)


def source_in_load(expr: Node, start: int, parent=None) -> bool:
    """Is the source starting at byte ``start`` inside the brackets of a load nested in
    ``expr`` (``zones[_thread_idx_x()]`` is data read at a thread-dependent place)?"""
    n = expr.descendant_for_byte_range(start, start)
    return n is not None and inside_load(n, expr, parent)


def inside_load(ident: Node, expr: Node, parent=None) -> bool:
    """Is ``ident`` inside the brackets of an ``index_expression`` nested in ``expr`` (the
    value read, ``zones[i]``, is data: it does not carry ``i``'s thread dependence)?"""
    up = parent if parent is not None else (lambda n: n.parent)
    child, n = ident, up(ident)
    while n is not None and child != expr:
        if n.type == "index_expression" and n.named_child_count == 2 and n.named_children[1] == child:
            return True
        if n.type == "arguments" and n.named_child_count and n.named_children[0] == child and \
                (_is_load_call(up(n)) or _is_pointer_read(up(n), expr, up)):
            return True  # `offsets.read(i)` (CubeCL), `x.get_unchecked(i)`, `*keys.add(i)`: data read at `i`
        if n.start_byte < expr.start_byte or n.end_byte > expr.end_byte:
            return False
        child, n = n, up(n)
    return False


#: Methods that read a buffer's element at their first argument (the value is data, as
#: ``x[i]``'s is): CubeCL ``Array::read``, slices' ``get`` / ``get_unchecked``, krnl
#: ``unsafe_index``.
LOAD_METHODS = frozenset({"read", "get", "get_unchecked", "unsafe_index"})


def _is_load_call(call: Node | None) -> bool:
    return method_name(call) in LOAD_METHODS


#: Pointer arithmetic to an element (core::ptr: ``p.add(k)`` is the place ``p[k]``).
POINTER_OFFSETS = frozenset({"add", "offset", "wrapping_add", "wrapping_offset"})
#: Methods that read the place a pointer points to (core::ptr).
_POINTER_READS = frozenset({"read", "read_volatile", "read_unaligned"})


def _is_pointer_read(call: Node | None, expr: Node, up) -> bool:
    """Is ``call`` pointer arithmetic whose place is read inside ``expr``: ``*keys.add(i)``,
    ``keys.add(i).read()`` (the value read is data, as ``keys[i]``'s is)? A write's place
    (``*p.add(i) = v``) is not a value: callers never ask about it."""
    if method_name(call) not in POINTER_OFFSETS:
        return False
    n = up(call)
    while n is not None and n.type == "parenthesized_expression":
        n = up(n)
    if n is None or n.start_byte < expr.start_byte or n.end_byte > expr.end_byte:
        return False
    if n.type == "unary_expression":
        return n.child(0) is not None and n.child(0).type == "*"
    if n.type == "field_expression":
        return method_name(up(n)) in _POINTER_READS
    return False


class FlowIndex:
    """The nodes of one function that :class:`ThreadFlow` reads, found once and shared by
    the flows built on the function (a kernel gets one per rule that follows its thread
    index).

    Args:
        fn: a ``function_item`` node.
        caps: the captures of dataflow.scm, thread_index.scm and global_index.scm on ``fn``
            (query file -> capture name -> nodes, syntax/queries.py ``captures_many``)
            when the caller already has them; run here otherwise.
    """

    def __init__(self, fn: Node, caps: dict[str, dict[str, list[Node]]] | None = None,
                 helpers: dict[str, frozenset[str]] | None = None) -> None:
        self.fn = fn
        if caps is None:
            caps = captures_many(("dataflow", "thread_index", "global_index"), fn)
        flow = caps["dataflow"]
        nested = [(n.start_byte, n.end_byte) for n in flow.get("fn", []) if n != fn]
        #: the functions nested in this one
        self.nested_fns = [n for n in flow.get("fn", []) if n != fn]

        def own(key: str) -> list[Node]:
            nodes = flow.get(key, [])
            if not nested:
                return nodes
            return [n for n in nodes if not any(s <= n.start_byte and n.end_byte <= e for s, e in nested)]

        #: ``let`` declarations, assignments, exits (return / break / continue / ``?``),
        #: index expressions and ``p.add(i)``-style calls of this function, in document order.
        self.lets, self.writes, self.exits = own("let"), own("write"), own("exit")
        self.indexes, self.offset_calls = own("index"), own("offset_call")
        not_value = {n.id for n in flow.get("not_value", [])}
        self.idents = [n for n in own("ident") if n.id not in not_value]
        self.ident_starts = [n.start_byte for n in self.idents]
        kinds = _name_kinds()
        #: dependence kind -> (start, end) of the thread-index sources of that kind
        self.sources_by_kind: dict[DependenceKind, list[tuple[int, int]]] = {k: [] for k in _KINDS}
        for n in caps["thread_index"].get("thread_index", []):
            nk = kinds.get(_source_name(n), frozenset())
            for k, wanted in _KINDS.items():
                if nk & wanted:
                    self.sources_by_kind[k].append((n.start_byte, n.end_byte))
        if helpers:
            self._helper_sources(fn, helpers)
        self.sources = self.sources_by_kind[_ALL]
        self.global_sources = self.sources_by_kind[_GLOBAL]
        params = fn.child_by_field_name("parameters")
        #: dependence kind -> names of parameters that are thread-index builtins of that kind
        self.params_by_kind: dict[DependenceKind, set[str]] = {k: set() for k in _KINDS}
        #: parameter name -> the attribute word that makes it a thread index
        self.param_words: dict[str, str] = {}
        if params is not None and b"spirv" in (params.text or b""):  # every pattern needs #[spirv(..)]
            pk = _param_kinds()
            for _, m in matches("thread_index_params", params):
                if "builtin" in m and "thread_index_param" in m:
                    self.param_words[node_text(m["thread_index_param"][0])] = node_text(m["builtin"][0])
                    nk = pk.get(node_text(m["builtin"][0]), frozenset())
                    for k, wanted in _KINDS.items():
                        if nk & wanted:
                            self.params_by_kind[k].add(node_text(m["thread_index_param"][0]))
        self.thread_params = self.params_by_kind[_ALL]
        self.global_params = self.params_by_kind[_GLOBAL]
        self.assigned: dict[str, list[Node]] = {}
        for w in self.writes:
            left, right = w.child_by_field_name("left"), w.child_by_field_name("right")
            if left is not None and left.type == "identifier" and right is not None:
                self.assigned.setdefault(node_text(left), []).append(right)
        #: parents of the function's nodes (walking up without tree-sitter's O(depth) search)
        self.parent = ParentMap(fn)
        self.let_index = LetIndex(self.lets, self.parent)
        #: (start, end) of an identifier -> its binding (a pure function of the tree)
        self.binding_memo: dict[tuple[int, int], Binding | None] = {}


    def _helper_sources(self, fn: Node, helpers: dict[str, frozenset[str]]) -> None:
        """Calls of the file's position helpers (units/summary.py ``position_kinds``: ``global_x()``)
        without arguments, as thread-index sources of the helper's kinds."""
        text = fn.text or b""
        names = [n for n in helpers if n.encode() in text]
        if not names:
            return
        for callee in captures("calls", fn).get("callee", []):
            name = node_text(callee)
            call = callee.parent if callee.parent is not None and callee.parent.type == "call_expression" \
                else callee.parent.parent if callee.parent is not None else None
            if name not in names or call is None or call.type != "call_expression":
                continue
            args = call.child_by_field_name("arguments")
            if args is not None and args.named_child_count:
                continue
            for k in helpers[name]:
                self.sources_by_kind[k].append((call.start_byte, call.end_byte))
        for k in self.sources_by_kind:
            self.sources_by_kind[k].sort()

