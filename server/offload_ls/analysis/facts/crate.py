"""The file's facts that the file and its crate say together: which ecosystems' crates are
in play, renames and imports, constants, type aliases, and kernels and functions found by
name in the file or elsewhere in the crate (analysis/crate_index.py ``CrateView``).

Part of :class:`~offload_ls.analysis.facts.FileFacts`; computed on first use, from the
summaries and the crate view alone.
"""

from __future__ import annotations

from functools import cached_property

from offload_ls.analysis import shift
from offload_ls.analysis.consts import fold
from offload_ls.analysis.ecosystems import Profile, profile, resolve_kernel_attr
from offload_ls.analysis.model import Ecosystem, Kernel
from offload_ls.analysis.units import UnitSummary


class CrateFacts:
    """Names, constants, aliases and kernels of the file and its crate."""

    starts: list[int]
    summaries: list[UnitSummary]
    crate: object

    @cached_property
    def roots(self) -> frozenset[str]:
        """First segments of the paths the file (and its crate) use: which ecosystems'
        crates are in play."""
        own = frozenset().union(*(s.items.roots for s in self.summaries if s.items.roots))
        return own | self.crate.roots if self.crate is not None else own

    @cached_property
    def kernel_attr_ecosystem(self) -> Ecosystem:
        """The ecosystem a ``#[kernel]`` attribute belongs to here (Rust-CUDA, krnl or
        cuda-oxide, by the crates the file and its crate use)."""
        return resolve_kernel_attr(self.roots)

    @cached_property
    def primary_ecosystem(self) -> Ecosystem:
        """The ecosystem of the file's first marked kernel (std offload without one): what a
        helper function that is not itself a kernel is judged by."""
        for s in self.summaries:
            if s.kernels:
                return self._resolved(s.kernels[0]).ecosystem
        return Ecosystem.OFFLOAD

    def profile_of(self, kernel: Kernel | None) -> Profile:
        """The ecosystem profile of ``kernel`` (of the file's first marked kernel when
        ``None``: :attr:`primary_ecosystem`)."""
        if kernel is None:
            return profile(self.primary_ecosystem)
        eco = kernel.ecosystem
        if eco is Ecosystem.CUDA:
            eco = self.kernel_attr_ecosystem
        elif eco is Ecosystem.GPU_KERNEL_ABI and not self.offload_evidence:
            eco = Ecosystem.PTX_KERNEL
        return profile(eco)

    @cached_property
    def renames(self) -> dict[str, str]:
        """``use a::b as c;`` in the file and its crate: c -> b."""
        out = dict(self.crate.renames) if self.crate is not None else {}
        for s in self.summaries:
            for alias, original in s.items.renames:
                out[alias] = original
        return out

    @cached_property
    def import_roots(self) -> dict[str, frozenset[str]]:
        """``use`` declarations of the file: name brought into scope -> first segments of the
        paths it comes from (``use my_frontend::offload;``: offload -> {my_frontend})."""
        out: dict[str, set[str]] = {}
        for s in self.summaries:
            for name, root in s.items.imports:
                out.setdefault(name, set()).add(root)
        return {n: frozenset(r) for n, r in out.items()}

    def original_name(self, name: str) -> str:
        """``name`` through ``use .. as ..`` renames."""
        return self.renames.get(name, name)

    @cached_property
    def launched_names(self) -> frozenset[str]:
        """Kernel names that an ``offload!`` / ``core::intrinsics::offload`` launch of the
        file or its crate names (through renames): such a function is a kernel whether or
        not it is marked (rustc's own tests launch unmarked functions)."""
        names = {la.kernel for s in self.summaries for la in s.launches
                 if la.kernel and la.form.offload}
        if self.crate is not None:
            names |= {la.kernel for la in self.crate.launches if la.kernel and la.form.offload}
        return frozenset(self.original_name(n) for n in names)

    @cached_property
    def _marked_names(self) -> frozenset[str]:
        own = {k.name for s in self.summaries for k in s.kernels}
        if self.crate is not None:
            own |= set(self.crate.kernels)
        return frozenset(own)

    @cached_property
    def _own_consts(self) -> dict[str, tuple | None]:
        out: dict[str, tuple | None] = {}
        for s in self.summaries:
            for name, expr in s.items.consts:
                out.setdefault(name, expr)
        return out

    def const_expr(self, name: str) -> tuple | None:
        """The constant expression of ``const name`` in the file, else in its crate."""
        name = self.original_name(name)
        if name in self._own_consts:
            return self._own_consts[name]
        return self.crate.consts.get(name) if self.crate is not None else None

    def fold(self, expr: tuple | None) -> int | None:
        """The value of a constant expression with the crate's constants."""
        return fold(expr, self.const_expr)

    def const_value(self, name: str) -> int | None:
        """The folded value of ``const name`` (file, then crate), ``None`` if not known."""
        return self.fold(("name", name))

    @cached_property
    def _own_aliases(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for s in self.summaries:
            for name, text in s.items.aliases:
                out.setdefault(name, text)
        return out

    def resolve_type(self, text: str) -> str:
        """``text`` with a type alias of the file or crate followed (``Real`` -> ``f64``),
        up to 8 levels; unchanged when it is no alias."""
        seen = 0
        while seen < 8:
            target = self._own_aliases.get(text)
            if target is None and self.crate is not None:
                target = self.crate.aliases.get(text)
            if target is None:
                return text
            text = target
            seen += 1
        return text

    def kernel_anywhere(self, name: str) -> Kernel | None:
        """The kernel (marked, or a function a launch names) called ``name`` in the file,
        else in its crate; with ``#[kernel]`` resolved to its ecosystem."""
        name = self.original_name(name)
        k = self.kernel_named(name)
        if k is not None:
            return k
        if self.crate is not None:
            found = self.crate.kernels.get(name)
            if found:
                return self._resolved(found[0])
            f = self.crate.fns.get(name)
            if f is not None and name in self.launched_names:
                return shift.replace(f, launched=True, marker="named by a launch")
        return None

    def kernel_is_ambiguous(self, name: str) -> bool:
        """More than one kernel of the crate is called ``name`` (``a::add1`` and ``b::add1``):
        a launch naming it by its last segment cannot be paired with one kernel's parameters,
        so the rules that compare a launch with its kernel say nothing (precision first)."""
        name = self.original_name(name)
        here = sum(1 for k in self.kernels if k.name == name)
        there = len(self.crate.kernels.get(name, ())) if self.crate is not None else 0
        return here + there > 1

    def function_anywhere(self, name: str) -> Kernel | None:
        """Any module-level function called ``name`` (file, then crate), as an unmarked record."""
        name = self.original_name(name)
        for s in self.summaries:
            for f in s.items.fns:
                if f.name == name:
                    return f
        return self.crate.fns.get(name) if self.crate is not None else None
