"""The file's facts about names: ``static mut`` items, names imported from other crates or
defined in the file, unsafe and other functions, ``extern`` declarations.

Part of :class:`~offload_ls.analysis.facts.FileFacts`; computed on first use.
"""

from __future__ import annotations

from functools import cached_property

from offload_ls.analysis import shift
from offload_ls.analysis.model import Span
from offload_ls.analysis.std_names import HEAP_NAMES, HOST_ONLY_NAMES, STD_FLOAT_METHODS
from offload_ls.analysis.units import ExternDecl, ExternParam, UnitSummary


class NameFacts:
    """Statics, names and ``extern`` declarations of the file (and its crate)."""

    starts: list[int]
    summaries: list[UnitSummary]
    crate: object

    @cached_property
    def module_static_decls(self) -> dict[str, object]:
        """Module-level ``static mut`` name -> its declaration (file first, then crate)."""
        out = dict(self.crate.statics) if self.crate is not None else {}
        for s in self.summaries:
            for d in s.statics:
                if d.module_level:
                    out[d.name] = d
        return out

    @cached_property
    def has_statics(self) -> bool:
        """The file declares at least one ``static mut`` (anywhere)."""
        return any(s.statics for s in self.summaries)

    @cached_property
    def module_statics(self) -> dict[str, Span]:
        """Module-level ``static mut`` name -> its first declaration's name span."""
        out: dict[str, Span] = {}
        for i, s in enumerate(self.summaries):
            for d in s.statics:
                if d.module_level and d.name not in out:
                    out[d.name] = shift.span(d.span, self.delta(i))
        return out

    @cached_property
    def shared_statics(self) -> frozenset[str]:
        """Module-level ``static mut`` names that are block-shared memory (file and crate)."""
        return frozenset(n for n, d in self.module_static_decls.items() if d.shared)

    @cached_property
    def shadowed(self) -> frozenset[str]:
        """Names ``use``-imported from crates other than std/alloc/core."""
        return frozenset().union(*(s.shadowed for s in self.summaries if s.shadowed))

    @cached_property
    def shadowed_heap(self) -> frozenset[str]:
        """:attr:`shadowed` names that heap_owning_kernel_arg looks for (``Vec``, ..)."""
        return self.shadowed & HEAP_NAMES

    @cached_property
    def shadowed_host(self) -> frozenset[str]:
        """:attr:`shadowed` names that host_only_api_in_kernel looks for."""
        return self.shadowed & HOST_ONLY_NAMES

    @cached_property
    def float_fns(self) -> frozenset[str]:
        """Functions of the file named like one of std's float methods (``fn sqrt``): a call
        of the file's own is not std's."""
        return self.fn_names & STD_FLOAT_METHODS

    @cached_property
    def defined_host(self) -> frozenset[str]:
        """:attr:`defined` names that host_only_api_in_kernel looks for (``println``,
        ``Vec``, ..): a local definition is not std's."""
        return self.defined & HOST_ONLY_NAMES

    @cached_property
    def defined(self) -> frozenset[str]:
        """Struct / enum / type / macro names defined in the file."""
        return frozenset().union(*(s.defined for s in self.summaries if s.defined))

    @cached_property
    def unsafe_names(self) -> frozenset[str]:
        """Names of the file's unsafe functions (``unsafe fn``, ``extern`` declarations)."""
        return frozenset().union(*(s.unsafe_names for s in self.summaries if s.unsafe_names))

    @cached_property
    def fn_names(self) -> frozenset[str]:
        """Names of every function of the file (safe or not)."""
        return frozenset().union(*(s.fn_names for s in self.summaries if s.fn_names))

    @cached_property
    def _externs(self) -> dict[str, list[ExternDecl]]:
        out: dict[str, list[ExternDecl]] = {}
        for i, s in enumerate(self.summaries):
            if not s.extern_decls:
                continue
            d = self.delta(i)
            for e in s.extern_decls:
                if d:
                    e = ExternDecl(e.name, tuple(None if p is None else ExternParam(p.type_text, p.kind,
                                                                                    shift.span(p.type_span, d))
                                                 for p in e.params),
                                   None if e.name_span is None else shift.span(e.name_span, d))
                out.setdefault(e.name, []).append(e)
        return out

    @property
    def has_externs(self) -> bool:
        """Some ``extern`` block declares a function."""
        return bool(self._externs)

    def extern_decls_named(self, name: str) -> list[ExternDecl]:
        """Functions called ``name`` declared in ``extern`` blocks, in document order."""
        return self._externs.get(name, [])

    @property
    def extern_names(self) -> frozenset[str]:
        """Names of the functions declared in ``extern`` blocks."""
        return frozenset(self._externs)

    def extern_types(self, name: str) -> tuple:
        """(name, parameter (type, kind) or ``None``) of each ``extern`` declaration called
        ``name``, without positions."""
        return tuple((d.name, tuple(None if p is None else (p.type_text, p.kind) for p in d.params))
                     for d in self._externs.get(name, ()))

    @cached_property
    def extern_signatures(self) -> dict[str, tuple]:
        """:meth:`extern_types` of every declared name."""
        return {name: self.extern_types(name) for name in self._externs}
