"""File-level facts, assembled from the per-unit summaries (analysis/units.py).

Each property is computed on first use only (a rule that is not run costs nothing) and
from the summaries alone: no tree access, no query. A summary may come from the cache,
made when its unit sat elsewhere in the file: ``starts[i] - summaries[i].start`` is the
number of bytes unit ``i`` has moved since, added to its offsets where they are used.
"""

from __future__ import annotations

from functools import cached_property

from offload_ls.analysis import shift
from offload_ls.analysis.device_code import DeviceFn, device_graph
from offload_ls.analysis.model import Ecosystem, Kernel, Launch, Span
from offload_ls.analysis.std_names import HEAP_NAMES, HOST_ONLY_NAMES
from offload_ls.analysis.suppress import CommentRec
from offload_ls.analysis.units import ExternDecl, ExternParam, UnitSummary

#: Where a unit's device functions are and why: (index of the function in the unit's
#: ``fns``, name, reason, index of the kernel in the unit's ``kernels`` or -1).
DeviceInfo = tuple[tuple[int, str, str, int], ...]


class FileFacts:
    """Facts about the whole file.

    Args:
        starts: each unit's current start byte, in document order.
        summaries: each unit's summary (same order).
        device_info: each unit's :data:`DeviceInfo` when already known (the previous
            analysis's, when no unit's exports changed); computed from the summaries
            otherwise.
        abs_seed: unit index -> (kernels, launches) already at the unit's current offsets.
    """

    def __init__(self, starts: list[int], summaries: list[UnitSummary],
                 device_info: list[DeviceInfo] | None = None,
                 abs_seed: dict[int, tuple[tuple[Kernel, ...], tuple[Launch, ...]]] | None = None) -> None:
        self.starts = starts
        self.summaries = summaries
        if device_info is not None:
            self.__dict__["device_info"] = device_info
        self._abs: dict[int, tuple[tuple[Kernel, ...], tuple[Launch, ...]]] = dict(abs_seed or {})

    def delta(self, i: int) -> int:
        """Bytes unit ``i`` moved since its summary was made."""
        return self.starts[i] - self.summaries[i].start

    def unit_objects(self, i: int) -> tuple[tuple[Kernel, ...], tuple[Launch, ...]]:
        """Kernels and launches of unit ``i`` at its current offsets."""
        found = self._abs.get(i)
        if found is None:
            s, d = self.summaries[i], self.delta(i)
            if d == 0:
                found = (s.kernels, s.launches)
            else:
                found = (tuple(shift.kernel(k, d) for k in s.kernels), tuple(shift.launch(la, d) for la in s.launches))
            self._abs[i] = found
        return found

    def unit_kernels(self, i: int) -> tuple[Kernel, ...]:
        """Kernels of unit ``i`` at its current offsets."""
        return self.unit_objects(i)[0] if self.summaries[i].kernels else ()

    def unit_launches(self, i: int) -> tuple[Launch, ...]:
        """Launch sites of unit ``i`` at its current offsets."""
        return self.unit_objects(i)[1] if self.summaries[i].launches else ()

    @cached_property
    def kernels(self) -> list[Kernel]:
        """Every kernel, in document order."""
        return [k for i, s in enumerate(self.summaries) if s.kernels for k in self.unit_objects(i)[0]]

    @cached_property
    def launches(self) -> list[Launch]:
        """Every launch site, in document order."""
        return [la for i, s in enumerate(self.summaries) if s.launches for la in self.unit_objects(i)[1]]

    # ------------------------------------------------------------------ device code

    @cached_property
    def device_info(self) -> list[DeviceInfo]:
        """Each unit's device functions (analysis/device_code.py ``device_graph``)."""
        fns = []
        kernels = []
        for i, s in enumerate(self.summaries):
            if s.fns:
                d = self.delta(i)
                for j, f in enumerate(s.fns):
                    fns.append(_Fn(f.start + d, f.end + d, f.name, f.body is not None, f.callees, f.gated, i, j))
            if s.kernels:
                d = self.delta(i)
                for ki, k in enumerate(s.kernels):
                    kernels.append(_K(k.name, k.fn_start + d, k.body_span is not None, i, ki))
        per_unit: list[list[tuple[int, str, str, int]]] = [[] for _ in self.summaries]
        for fn, name, reason, kernel in device_graph(fns, kernels).values():
            per_unit[fn.unit].append((fn.index, name, reason, kernel.index if kernel is not None else -1))
        return [tuple(x) for x in per_unit]

    def device_fns_of(self, i: int) -> list[DeviceFn]:
        """Device functions of unit ``i`` at current offsets, kernels first."""
        info = self.device_info[i]
        if not info:
            return []
        s, d = self.summaries[i], self.delta(i)
        kernels = self.unit_kernels(i)
        out = []
        for j, name, reason, ki in info:
            f = s.fns[j]
            span = Span(f.start + d, f.end + d)
            if ki >= 0:
                k = kernels[ki]
                out.append(DeviceFn(name, span, k.body_span, reason, k))  # type: ignore[arg-type]
            else:
                out.append(DeviceFn(name, span, shift.span(f.body, d), reason))  # type: ignore[arg-type]
        out.sort(key=lambda x: (x.kernel is None, x.span.start))
        return out

    @cached_property
    def device_fns(self) -> list[DeviceFn]:
        """Device-code functions of the whole file, kernels first (analysis/device_code.py)."""
        out = [f for i, info in enumerate(self.device_info) if info for f in self.device_fns_of(i)]
        out.sort(key=lambda x: (x.kernel is None, x.span.start))
        return out

    # ------------------------------------------------------------------ kernels and launches

    @cached_property
    def _kernel_by_name(self) -> dict[str, tuple[int, int]]:
        out: dict[str, tuple[int, int]] = {}
        for i, s in enumerate(self.summaries):
            for ki, k in enumerate(s.kernels):
                out.setdefault(k.name, (i, ki))
        return out

    def kernel_named(self, name: str) -> Kernel | None:
        """The first kernel (in document order) called ``name``."""
        at = self._kernel_by_name.get(name)
        return None if at is None else self.unit_kernels(at[0])[at[1]]

    def kernel_params_sig(self, name: str) -> tuple | None:
        """(kind, map type) of each parameter of :meth:`kernel_named` ``(name)``, ``None``
        without such a kernel (what aliased_launch_args reads of it)."""
        at = self._kernel_by_name.get(name)
        if at is None:
            return None
        return tuple((p.kind, p.transfer) for p in self.summaries[at[0]].kernels[at[1]].params)

    @cached_property
    def _threads_by_kernel(self) -> dict[str | None, list[int | None]]:
        out: dict[str | None, list[int | None]] = {}
        for s in self.summaries:
            for la in s.launches:
                out.setdefault(la.kernel, []).append(la.total_threads)
        return out

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
        """Every launch of ``kernel_name`` (at least one) has literal dimensions of exactly
        one thread in total."""
        threads = self._threads_by_kernel.get(kernel_name)
        return bool(threads) and all(t == 1 for t in threads)

    @cached_property
    def last_launch_end(self) -> int:
        """End byte of the launch site that ends last, -1 without launches."""
        return max((la.span.end + self.delta(i) for i, s in enumerate(self.summaries) if s.launches
                    for la in s.launches), default=-1)

    # ------------------------------------------------------------------ names

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
    def shadowed(self) -> frozenset[str]:
        """Names ``use``-imported from crates other than std/alloc/core."""
        return frozenset().union(*(s.shadowed for s in self.summaries if s.shadowed))

    @cached_property
    def shadowed_heap(self) -> frozenset[str]:
        """:attr:`shadowed` names that heap_owning_kernel_arg looks for (``Vec``, ..)."""
        return self.shadowed & HEAP_NAMES

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
                                                 for p in e.params))
                out.setdefault(e.name, []).append(e)
        return out

    @property
    def has_externs(self) -> bool:
        """Some ``extern`` block declares a function."""
        return bool(self._externs)

    def extern_decls_named(self, name: str) -> list[ExternDecl]:
        """Functions called ``name`` declared in ``extern`` blocks, in document order."""
        return self._externs.get(name, [])

    @cached_property
    def comments(self) -> list[CommentRec]:
        """Suppression comments, in document order."""
        out = []
        for i, s in enumerate(self.summaries):
            if s.comments:
                d = self.delta(i)
                out.extend(c if d == 0 else CommentRec(c.start + d, c.end + d, c.rules,
                                                       None if c.target_end is None else c.target_end + d)
                           for c in s.comments)
        return out

    # ------------------------------------------------------------------ ecosystems

    @cached_property
    def any_cubecl(self) -> bool:
        """Some kernel of the file is a CubeCL kernel."""
        return any(k.ecosystem is Ecosystem.CUBECL for s in self.summaries for k in s.kernels)

    @cached_property
    def cube_checked(self) -> frozenset[int]:
        """``fn_start`` of the functions in CubeCL's bounds-checked mode (``#[cube(launch)]``);
        empty unless the file has a CubeCL kernel."""
        if not self.any_cubecl:
            return frozenset()
        return frozenset(x + self.delta(i) for i, s in enumerate(self.summaries) for x in s.cube_launch)

    @cached_property
    def all_cube_checked(self) -> bool:
        """The file has kernels and all of them are in CubeCL's checked mode."""
        if not self.any_cubecl:
            return False
        found = False
        for s in self.summaries:
            if s.kernels:
                found = True
                if not all(k.fn_start in s.cube_launch for k in s.kernels):
                    return False
        return found

    @cached_property
    def all_cuda(self) -> bool:
        """The file has kernels and all of them are Rust-CUDA ``#[kernel]`` functions."""
        found = False
        for s in self.summaries:
            if s.kernels:
                found = True
                if not all(k.ecosystem is Ecosystem.CUDA for k in s.kernels):
                    return False
        return found


class _Fn:
    """A function item for :func:`device_graph`, at current offsets, with where it is."""

    __slots__ = ("start", "end", "name", "has_body", "callees", "gated", "unit", "index")

    def __init__(self, start, end, name, has_body, callees, gated, unit, index) -> None:
        self.start, self.end, self.name, self.has_body = start, end, name, has_body
        self.callees, self.gated, self.unit, self.index = callees, gated, unit, index


class _K:
    """A kernel for :func:`device_graph`, with where it is."""

    __slots__ = ("name", "fn_start", "has_body", "unit", "index")

    def __init__(self, name, fn_start, has_body, unit, index) -> None:
        self.name, self.fn_start, self.has_body, self.unit, self.index = name, fn_start, has_body, unit, index
