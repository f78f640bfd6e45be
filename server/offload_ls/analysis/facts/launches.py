"""The file's facts about launches: every launch of a kernel (file and crate), what they
say without positions, their dimensions folded with the crate's constants, how many threads
they run.

Part of :class:`~offload_ls.analysis.facts.FileFacts`; computed on first use.
"""

from __future__ import annotations

from functools import cached_property

from offload_ls.analysis.ecosystems import profile
from offload_ls.analysis.model import Ecosystem, Launch
from offload_ls.analysis.units import UnitSummary


class LaunchFacts:
    """Launches of the file and its crate, by kernel."""

    starts: list[int]
    summaries: list[UnitSummary]
    crate: object

    @cached_property
    def own_launches(self) -> list[Launch]:
        """Launch sites of this file at current offsets (same as :attr:`launches`)."""
        return self.launches

    def launch_dims(self, launch: Launch) -> tuple[tuple[int | None, ...] | None, tuple[int | None, ...] | None]:
        """(workgroup / grid dims, thread / block dims) of ``launch`` folded with the crate's
        constants, each per dimension (``None`` where not known), ``None`` where the launch
        gives none."""
        def folded(exprs):
            if exprs is None:
                return None
            return tuple(self.fold(e) for e in exprs)
        return folded(launch.workgroup_expr), folded(launch.thread_expr)

    @cached_property
    def _all_launches(self) -> dict[str, list[Launch]]:
        out: dict[str, list[Launch]] = {}
        for la in (*self.launches, *(self.crate.launches if self.crate is not None else ())):
            if la.kernel:
                out.setdefault(self.original_name(la.kernel), []).append(la)
        return out

    def all_launches_of(self, name: str) -> list[Launch]:
        """Launches naming kernel ``name`` (through renames) in the file and its crate, the
        file's first."""
        return list(self._all_launches.get(name, ()))

    def launch_key(self, kernel_name: str) -> tuple:
        """What the launches of ``kernel_name`` (file and crate) say, without positions."""
        return tuple((la.form, la.arity, la.has_args, la.workgroup_expr, la.thread_expr, la.device_expr,
                      tuple(n for n, _ in la.fields), tuple(a.text for a in la.args))
                     for la in self._all_launches.get(kernel_name, ()))

    @cached_property
    def launch_keys(self) -> dict[str, tuple]:
        """:meth:`launch_key` of every launched kernel name."""
        return {name: self.launch_key(name) for name in self._all_launches}

    @property
    def launch_threads(self) -> dict[str | None, list[int | None]]:
        """Kernel name -> total threads of each of its launches (file and crate), folded
        with the crate's constants and the form's default dimensions; ``None`` where not
        known."""
        return self._threads_by_kernel

    @cached_property
    def _threads_by_kernel(self) -> dict[str | None, list[int | None]]:
        """Kernel name -> total threads of each of its launches (file and crate), folded
        with the crate's constants and the form's default dimensions; ``None`` where not
        known."""
        out: dict[str | None, list[int | None]] = {}
        for name, launches in self._all_launches.items():
            out[name] = [self.total_threads(la) for la in launches]
        return out

    def full_dims(self, launch: Launch) -> tuple[tuple[int | None, ...] | None, tuple[int | None, ...] | None]:
        """:meth:`launch_dims` with the launch form's defaults where it gives none (the
        ecosystem profile's ``launch_defaults``: ``offload!`` runs one thread by default)."""
        wg, th = self.launch_dims(launch)
        defaults = profile(Ecosystem.OFFLOAD).launch_defaults.get(launch.form)
        if defaults is not None:
            wg = wg if wg is not None else defaults[0]
            th = th if th is not None else defaults[1]
        return wg, th

    def total_threads(self, launch: Launch) -> int | None:
        """Threads in total of ``launch``, ``None`` unless every dimension is known."""
        wg, th = self.full_dims(launch)
        if not wg or not th:
            return None
        total = 1
        for d in (*wg, *th):
            if d is None:
                return None
            total *= d
        return total

    @cached_property
    def _launches_by_kernel(self) -> dict[str | None, list[Launch]]:
        out: dict[str | None, list[Launch]] = {}
        for la in self.launches:
            out.setdefault(la.kernel, []).append(la)
        return out

    def launches_of(self, kernel_name: str) -> list[Launch]:
        """Launch sites that name ``kernel_name``, in document order."""
        return list(self._launches_by_kernel.get(kernel_name, ()))

    def single_thread(self, kernel_name: str) -> bool:
        """Every launch of ``kernel_name`` (at least one, in the file or its crate) runs
        exactly one thread in total (dimensions folded, defaults filled in)."""
        threads = self._threads_by_kernel.get(kernel_name)
        return bool(threads) and all(t == 1 for t in threads)

    @cached_property
    def last_launch_end(self) -> int:
        """End byte of the launch site that ends last, -1 without launches."""
        return max((la.span.end + self.delta(i) for i, s in enumerate(self.summaries) if s.launches
                    for la in s.launches), default=-1)
