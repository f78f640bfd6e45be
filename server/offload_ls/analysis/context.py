"""The per-file facts every lint rule reads, and the part of the file a rule looks at.

A rule's ``check(ctx)`` reports what it finds in ``ctx``'s *scope*: the whole file
(``FileContext(source, root)``), or one unit (analysis/units/) when the engine runs rules
item by item to cache their results. In both cases ``ctx.kernels``, ``ctx.launches`` and
``ctx.device_fns`` are those of the scope, while ``ctx.facts`` (and ``ctx.kernel_named``,
``ctx.launches_of``, ``ctx.file_kernels``) describe the whole file. A rule that runs queries
runs them on the scope (:meth:`FileContext.scope_captures`, :meth:`FileContext.scope_matches`)
or on nodes inside it, never on ``ctx.root``: then the findings of a whole-file check are
exactly the findings of the unit checks put together.
"""

from __future__ import annotations

from tree_sitter import Node

from offload_ls.analysis.device_code import DeviceFn
from offload_ls.analysis.facts import FileFacts
from offload_ls.analysis.flow.sources import FlowIndex
from offload_ls.analysis.model import Kernel, Launch, Span
from offload_ls.analysis.units import Unit, UnitSummary, split_units, summarize, unit_captures
from offload_ls.analysis.units.call_args import FN_QUERIES as CALL_ARG_QUERIES
from offload_ls.analysis.units.call_args import recent
from offload_ls.syntax.queries import captures, captures_many, matches

#: Queries over one function that the rules share (analysis/flow/thread_flow.py ThreadFlow,
#: unsafe_in_kernel, host_only_api_in_kernel): run together, once per function per analysis.
FN_QUERIES = CALL_ARG_QUERIES


def file_facts(source: bytes, root: Node, crate=None) -> FileFacts:
    """Facts of the whole file, computed now without a cache; ``crate``: the rest of its
    crate (analysis/crate_index.py ``CrateView``) or ``None``."""
    units = split_units(root, source)
    memo: dict[bytes, tuple[bool, bool]] = {}
    summaries = [summarize(u, caps, source, memo) for u, caps in zip(units, unit_captures(units, root, source))]
    return FileFacts([u.start for u in units], summaries, crate=crate)


class FileContext:
    """A parsed file, what the analysis found in it, and the scope a rule checks.

    Args:
        source: the file's bytes (UTF-8). root: the tree-sitter root node of its tree.
        facts: the file's facts (computed from ``source`` and ``root`` when omitted).
        unit, index: check only this unit, the ``index``-th of ``facts``; omitted: the
            whole file.
    """

    def __init__(self, source: bytes, root: Node, facts: FileFacts | None = None,
                 unit: Unit | None = None, index: int | None = None) -> None:
        self.source = source
        self.root = root
        self._facts = facts
        self.unit = unit
        self.index = index
        #: the unit's summary (analysis/units/), ``None`` for the whole file
        self.summary: UnitSummary | None = facts.summaries[index] if facts is not None and index is not None else None
        self._fn_caps: dict[tuple[int, int], dict[str, dict[str, list[Node]]]] = {}
        self._flow_index: dict[tuple[int, int], FlowIndex] = {}
        self._kernels: list[Kernel] | None = None
        self._launches: list[Launch] | None = None
        self._device_fns: list[DeviceFn] | None = None
        self.memo: dict[str, object] = {}  # per-scope values shared by rules (e.g. static muts)

    @property
    def facts(self) -> FileFacts:
        """Facts about the whole file (analysis/facts/)."""
        if self._facts is None:
            self._facts = file_facts(self.source, self.root)
        return self._facts

    # ------------------------------------------------------------------ the scope

    @property
    def kernels(self) -> list[Kernel]:
        """Kernels in the scope, in document order."""
        if self._kernels is None:
            self._kernels = list(self.facts.unit_kernels(self.index)) if self.index is not None else self.facts.kernels
        return self._kernels

    @property
    def launches(self) -> list[Launch]:
        """Launch sites in the scope, in document order."""
        if self._launches is None:
            self._launches = (list(self.facts.unit_launches(self.index)) if self.index is not None
                              else self.facts.launches)
        return self._launches

    @property
    def device_fns(self) -> list[DeviceFn]:
        """Device functions whose ``fn`` item is in the scope, kernels first."""
        if self._device_fns is None:
            self._device_fns = (self.facts.device_fns_of(self.index) if self.index is not None
                                else self.facts.device_fns)
        return self._device_fns

    def scope_captures(self, name: str) -> dict[str, list[Node]]:
        """Query ``name``'s captures in the scope (capture name -> nodes in document order)."""
        if self.unit is None:
            return captures(name, self.root)
        u = self.unit
        found = captures_many((name,), u.parent, (u.start, u.end))[name]
        return {k: kept for k, v in found.items() if (kept := [n for n in v if u.start <= n.start_byte < u.end])}

    def scope_matches(self, name: str) -> list[tuple[int, dict[str, list[Node]]]]:
        """Query ``name``'s matches in the scope: (pattern index, captures) per match."""
        if self.unit is None:
            return matches(name, self.root)
        out = []
        u = self.unit
        for node in u.nodes:
            if node.start_byte >= u.end:
                break
            if u.mod_body is not None and node is u.nodes[-1]:
                continue  # a `mod` header: the body's items are units of their own
            out.extend(matches(name, node))
        return out

    # ------------------------------------------------------------------ the file

    @property
    def file_kernels(self) -> list[Kernel]:
        """Every kernel of the file, in document order."""
        return self.facts.kernels

    def launches_of(self, kernel_name: str) -> list[Launch]:
        """Launch sites in this file that name ``kernel_name``."""
        return self.facts.launches_of(kernel_name)

    def kernel_named(self, name: str) -> Kernel | None:
        """The file's first kernel called ``name``."""
        return self.facts.kernel_named(name)

    def profile(self, kernel: Kernel | None = None):
        """The ecosystem profile (analysis/ecosystems) of ``kernel`` (of the file's first
        kernel when ``None``)."""
        return self.facts.profile_of(kernel)

    # ------------------------------------------------------------------ nodes

    def text(self, span: Span) -> str:
        """Source text of ``span`` (invalid UTF-8 replaced)."""
        return self.source[span.start : span.end].decode("utf-8", errors="replace")

    def node(self, span: Span) -> Node | None:
        """The smallest named node covering exactly ``span`` (e.g. a kernel body block)."""
        node = self.root.named_descendant_for_byte_range(span.start, span.end)
        while node is not None and (node.start_byte, node.end_byte) != (span.start, span.end):
            node = node.parent
        return node

    def fn_node(self, fn_start: int) -> Node | None:
        """The ``function_item`` that starts at byte ``fn_start`` (e.g. ``Kernel.fn_start``)."""
        node = self.root.descendant_for_byte_range(fn_start, fn_start + 1)  # its first token
        while node is not None and not (node.type == "function_item" and node.start_byte == fn_start):
            if node.start_byte < fn_start:
                return None
            node = node.parent
        return node

    def lets_at(self, offset: int):
        """The :class:`~offload_ls.analysis.flow.scopes.LetIndex` of the function around byte
        ``offset`` (``None`` outside a function): ``find_binding`` with it costs a lookup,
        not a scan of every statement before the use (a ``main`` of 500 launches)."""
        node = self.root.descendant_for_byte_range(offset, offset)
        while node is not None and node.type != "function_item":
            node = node.parent
        return self.flow_index(node).let_index if node is not None else None

    def flow_index(self, fn: Node) -> FlowIndex:
        """Function item ``fn``'s :class:`~offload_ls.analysis.flow.sources.FlowIndex`, built
        once per function per context (rules build their ThreadFlow on it)."""
        key = (fn.start_byte, fn.end_byte)
        found = self._flow_index.get(key)
        if found is None:
            helpers = self.facts.index_helpers
            made = recent(fn)  # the summary's (units/call_args.py), when no position helper changes it
            if made is not None and not any(n.encode() in (fn.text or b"") for n in helpers):
                found = self._flow_index[key] = made[1]
            else:
                found = self._flow_index[key] = FlowIndex(fn, self.fn_captures(fn), helpers)
        return found

    def fn_captures(self, fn: Node) -> dict[str, dict[str, list[Node]]]:
        """The :data:`FN_QUERIES` captures of function item ``fn`` (query file -> capture
        name -> nodes), computed once per function per context."""
        key = (fn.start_byte, fn.end_byte)
        found = self._fn_caps.get(key)
        if found is None:
            made = recent(fn)  # run on this node by its unit's summary (units/call_args.py)
            found = self._fn_caps[key] = made[0] if made is not None else captures_many(FN_QUERIES, fn)
        return found
