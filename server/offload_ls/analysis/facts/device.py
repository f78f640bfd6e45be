"""The file's facts about device code: which functions are device code and why
(analysis/device_code.py ``device_graph``), and CubeCL's checked launch mode.

Part of :class:`~offload_ls.analysis.facts.FileFacts`; computed on first use.
"""

from __future__ import annotations

from functools import cached_property

from offload_ls.analysis import shift
from offload_ls.analysis.device_code import DeviceFn, device_graph
from offload_ls.analysis.model import Ecosystem, Span
from offload_ls.analysis.units import UnitSummary

#: Where a unit's device functions are and why: (index of the function in the unit's
#: ``fns``, name, reason, index of the kernel in the unit's ``kernels`` or -1).
DeviceInfo = tuple[tuple[int, str, str, int], ...]


class DeviceFacts:
    """Device functions of each unit, CubeCL checked mode."""

    starts: list[int]
    summaries: list[UnitSummary]
    crate: object

    @cached_property
    def device_info(self) -> list[DeviceInfo]:
        """Each unit's device functions (analysis/device_code.py ``device_graph``)."""
        fns = []
        kernels = []
        for i, s in enumerate(self.summaries):
            if s.fns:
                d = self.delta(i)
                for j, f in enumerate(s.fns):
                    fns.append(_Fn(f.start + d, f.end + d, f.name, f.body is not None, f.callees, f.gated, i, j,
                                   f.host, f.module, f.owner))
            records = self._unit_kernel_records(i) if (s.kernels or s.items.fns) else ()
            if records:
                d = self.delta(i)
                for ki, k in enumerate(records):
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

    @cached_property
    def helper_call_table(self) -> dict[str, tuple[tuple[tuple[bool, ...], str, str], ...] | None]:
        """Function name -> every call of it in the file as (for each argument whether it is an
        unguarded position in the launch, the call's text, the calling function's name)
        (analysis/units/call_args.py), or ``None`` when some call is not known so: made by a
        function whose calls were not followed (its text names no thread index), through a
        path (``m::f(..)``), or the name is defined more than once. Offset-free."""
        calls: dict[str, list] = {}
        blocked: set[str] = set()
        defined: dict[str, int] = {}
        for s in self.summaries:
            for f in s.fns:
                if f.name:
                    defined[f.name] = defined.get(f.name, 0) + 1
                own = {}
                for name, flags, text in f.index_args:
                    own.setdefault(name, []).append((flags, text, f.name or ""))
                for callee in f.callees:
                    if "::" in callee or callee not in own:
                        blocked.add(callee.rpartition("::")[2])
                for name, found in own.items():
                    calls.setdefault(name, []).extend(found)
        return {name: None if name in blocked or defined.get(name, 0) != 1 else tuple(found)
                for name, found in calls.items()}

    def helper_calls(self, name: str) -> tuple[tuple[tuple[bool, ...], str, str], ...] | None:
        """Every call of the file's function ``name`` (:attr:`helper_call_table`); ``None``
        when one of them is not known or none is followed."""
        return self.helper_call_table.get(name)

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


class _Fn:
    """A function item for :func:`device_graph`, at current offsets, with where it is."""

    __slots__ = ("start", "end", "name", "has_body", "callees", "gated", "unit", "index", "host", "module", "owner")

    def __init__(self, start, end, name, has_body, callees, gated, unit, index, host=False, module="",
                 owner="") -> None:
        self.start, self.end, self.name, self.has_body = start, end, name, has_body
        self.callees, self.gated, self.unit, self.index = callees, gated, unit, index
        self.host, self.module, self.owner = host, module, owner


class _K:
    """A kernel for :func:`device_graph`, with where it is."""

    __slots__ = ("name", "fn_start", "has_body", "unit", "index")

    def __init__(self, name, fn_start, has_body, unit, index) -> None:
        self.name, self.fn_start, self.has_body, self.unit, self.index = name, fn_start, has_body, unit, index
