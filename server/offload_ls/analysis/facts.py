"""File-level facts, assembled from the per-unit summaries (analysis/units.py).

Each property is computed on first use only (a rule that is not run costs nothing) and
from the summaries alone: no tree access, no query.
"""

from __future__ import annotations

from functools import cached_property

from offload_ls.analysis.device_code import DeviceFn, device_functions_from
from offload_ls.analysis.model import Ecosystem, Kernel, Launch, Span
from offload_ls.analysis.suppress import CommentRec
from offload_ls.analysis.units import ExternDecl, FnRec, UnitSummary


class FileFacts:
    """Facts about the whole file.

    Args:
        summaries: the summaries of the file's units, in document order, with the units'
            current offsets.
    """

    def __init__(self, summaries: list[UnitSummary]) -> None:
        self.summaries = summaries

    @cached_property
    def kernels(self) -> list[Kernel]:
        """Every kernel, in document order."""
        return [k for s in self.summaries if s.kernels for k in s.kernels]

    @cached_property
    def launches(self) -> list[Launch]:
        """Every launch site, in document order."""
        return [la for s in self.summaries if s.launches for la in s.launches]

    @cached_property
    def fns(self) -> list[FnRec]:
        """Every function item, in document order."""
        return [f for s in self.summaries if s.fns for f in s.fns]

    @cached_property
    def device_fns(self) -> list[DeviceFn]:
        """Device-code functions, kernels first (analysis/device_code.py)."""
        return device_functions_from(self.fns, self.kernels)

    @cached_property
    def device_at(self) -> dict[int, DeviceFn]:
        """Device function by the start byte of its ``function_item``."""
        return {d.span.start: d for d in self.device_fns}

    def device_fns_of(self, summary: UnitSummary) -> list[DeviceFn]:
        """The device functions among ``summary``'s functions, kernels first."""
        at = self.device_at
        found = [at[f.start] for f in summary.fns if f.start in at]
        if len(found) > 1:
            found.sort(key=lambda d: (d.kernel is None, d.span.start))
        return found

    @cached_property
    def _kernel_by_name(self) -> dict[str, Kernel]:
        out: dict[str, Kernel] = {}
        for k in self.kernels:
            out.setdefault(k.name, k)
        return out

    def kernel_named(self, name: str) -> Kernel | None:
        """The first kernel (in document order) called ``name``."""
        return self._kernel_by_name.get(name)

    @cached_property
    def _launches_by_kernel(self) -> dict[str | None, list[Launch]]:
        out: dict[str | None, list[Launch]] = {}
        for la in self.launches:
            out.setdefault(la.kernel, []).append(la)
        return out

    def launches_of(self, kernel_name: str) -> list[Launch]:
        """Launch sites that name ``kernel_name``, in document order."""
        return self._launches_by_kernel.get(kernel_name, [])

    def single_thread(self, kernel_name: str) -> bool:
        """Every launch of ``kernel_name`` (at least one) has literal dimensions of exactly
        one thread in total."""
        launches = self.launches_of(kernel_name)
        return bool(launches) and all(la.total_threads == 1 for la in launches)

    @cached_property
    def last_launch_end(self) -> int:
        """End byte of the launch site that ends last, -1 without launches."""
        return max((la.span.end for la in self.launches), default=-1)

    @cached_property
    def has_statics(self) -> bool:
        """The file declares at least one ``static mut`` (anywhere)."""
        return any(s.statics for s in self.summaries)

    @cached_property
    def module_statics(self) -> dict[str, Span]:
        """Module-level ``static mut`` name -> its first declaration's name span."""
        out: dict[str, Span] = {}
        for s in self.summaries:
            for d in s.statics:
                if d.module_level:
                    out.setdefault(d.name, d.span)
        return out

    @cached_property
    def shadowed(self) -> frozenset[str]:
        """Names ``use``-imported from crates other than std/alloc/core."""
        return frozenset().union(*(s.shadowed for s in self.summaries if s.shadowed))

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
        for s in self.summaries:
            for e in s.extern_decls:
                out.setdefault(e.name, []).append(e)
        return out

    @property
    def has_externs(self) -> bool:
        return bool(self._externs)

    def extern_decls_named(self, name: str) -> list[ExternDecl]:
        """Functions called ``name`` declared in ``extern`` blocks, in document order."""
        return self._externs.get(name, [])

    @cached_property
    def comments(self) -> list[CommentRec]:
        """Suppression comments, in document order."""
        return [c for s in self.summaries if s.comments for c in s.comments]

    @cached_property
    def any_cubecl(self) -> bool:
        """Some kernel of the file is a CubeCL kernel."""
        return any(k.ecosystem is Ecosystem.CUBECL for k in self.kernels)

    @cached_property
    def cube_checked(self) -> frozenset[int]:
        """``fn_start`` of the kernels in CubeCL's bounds-checked mode (``#[cube(launch)]``);
        empty unless the file has a CubeCL kernel."""
        if not self.any_cubecl:
            return frozenset()
        return frozenset(x for s in self.summaries for x in s.cube_launch)

    @cached_property
    def all_cube_checked(self) -> bool:
        """The file has kernels and all of them are in CubeCL's checked mode."""
        checked = self.cube_checked
        return bool(self.kernels) and all(k.fn_start in checked for k in self.kernels)

    @cached_property
    def all_cuda(self) -> bool:
        """The file has kernels and all of them are Rust-CUDA ``#[kernel]`` functions."""
        return bool(self.kernels) and all(k.ecosystem is Ecosystem.CUDA for k in self.kernels)
