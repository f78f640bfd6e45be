"""A unit's cache dependencies, derived from what its rules declare they read.

Each :class:`~offload_ls.analysis.reads.Fact` kind has a *part* here: the value of that
kind of fact for one unit (``None`` when it cannot matter to the unit), and whether the
value holds where something outside the unit is (*positional*: computed again whenever
other units move). A unit's context (:func:`unit_context`) is the tuple of the parts its
rules declare; the engine keys the unit's cached findings by its bytes and its context
(analysis/engine.py). Each kind also has a file-wide *change test* (:func:`changed_facts`):
when a kind's value is the same for the whole file, no unit's part of that kind changed,
so analysis/incremental.py ``plan`` recomputes only the contexts of units whose rules read a
changed kind.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

from offload_ls.analysis.facts import FileFacts
from offload_ls.analysis.facts.device import DeviceInfo
from offload_ls.analysis.model import Ecosystem, Kernel
from offload_ls.analysis.reads import Fact, Holds
from offload_ls.analysis.units import Unit, UnitSummary


@dataclass(slots=True)
class UnitView:
    """What a unit's parts are computed from: the unit ``i`` of ``facts``, its summary
    ``s``, its device functions ``info`` (analysis/facts/device.py ``DeviceInfo``) and its kernels
    at current offsets."""

    unit: Unit
    s: UnitSummary
    facts: FileFacts
    info: DeviceInfo
    i: int
    kernels: tuple[Kernel, ...]


def _semantic(v: UnitView):
    # crate-wide rules (launch checks, ecosystem profiles, constants, aliases): what the file
    # and its crate say; the unit's own kernels are resolved with it
    if v.kernels or v.s.launches or v.info or v.s.extern_decls:
        return v.facts.semantic_core
    return None


def _launched(v: UnitView):
    # the launches of the unit's kernels (file and crate), without positions
    return tuple(v.facts.launch_key(k.name) for k in v.kernels) if v.kernels else None


def _single(v: UnitView):
    # are all launches of each kernel single-threaded?
    return tuple(v.facts.single_thread(k.name) for k in v.kernels) if v.kernels else None


def _called(v: UnitView):
    # which called names are the file's unsafe / known functions
    if not v.kernels:
        return None
    return (v.s.callees & v.facts.unsafe_names, v.s.callees & v.facts.fn_names)


def _heap(v: UnitView):
    # heap type names imported from another crate
    return v.facts.shadowed_heap if v.kernels else None


def _extern_decl_names(v: UnitView) -> list[str]:
    return [k.name for k in v.kernels] + [e.name for e in v.s.extern_decls]


def _externs(v: UnitView):
    # host-side `extern` declarations of the unit's kernels and of its own declarations
    # (with their spans: a fix edits them too), and the parameter types of those of the
    # kernels its launches name
    facts = v.facts
    if not facts.has_externs:
        return None
    placed = tuple((n, tuple(d)) for n in _extern_decl_names(v) if (d := facts.extern_decls_named(n)))
    launched = tuple((la.kernel, facts.extern_types(la.kernel)) for la in v.s.launches if la.kernel)
    return (placed, launched) if placed or launched else None


def _externs_positional(v: UnitView) -> bool:
    facts = v.facts
    return facts.has_externs and any(facts.extern_decls_named(n) for n in _extern_decl_names(v))


def _cubecl(v: UnitView):
    # `#[cube(launch)]` counts only in a file with CubeCL kernels
    return v.facts.any_cubecl if v.s.cube_launch else None


def _index_helpers(v: UnitView):
    # which called functions return the thread's position
    helpers = v.facts.index_helpers
    if not (v.kernels or v.info) or not helpers:
        return None
    return tuple(sorted((n, tuple(sorted(k))) for n, k in helpers.items() if n in v.s.callees))


def _device(v: UnitView):
    # which of the unit's functions are device code, and why
    if not v.info:
        return None
    fns, base = v.s.fns, v.s.start
    return tuple((fns[j].start - base, name, reason) for j, name, reason, _ in v.info)


def _helper_ecosystem(v: UnitView):
    # a helper is judged by the file's kernels' ecosystem (and CubeCL checked mode)
    if any(ki < 0 for _, _, _, ki in v.info):
        return (v.facts.primary_ecosystem, v.facts.all_cube_checked)
    return None


def _host_names(v: UnitView):
    # std names the file defines or imports itself, local float math functions
    if not v.info:
        return None
    return (v.facts.defined_host, v.facts.shadowed_host, v.facts.float_fns)


def _defined(v: UnitView):
    return v.facts.defined if (v.s.launches or v.info) else None


def _statics(v: UnitView):
    # module-level `static mut` items whose name occurs in the unit, and where they are
    # declared (the findings point there). A unit that names none gets the same findings
    # whether the file has any or not.
    facts = v.facts
    if not (v.kernels or v.info) or not facts.has_statics:
        return None
    text = v.unit.key[0] if v.unit.key is not None else b""
    statics = tuple((n, sp) for n, sp in facts.module_statics.items() if n.encode() in text)
    return (statics, facts.shared_statics & {n for n, _ in statics}) if statics else None


def _kernel_params(v: UnitView):
    # the parameters of the kernel each launch names
    if not v.s.launches:
        return None
    return tuple(v.facts.kernel_params_sig(la.kernel) if la.kernel else None for la in v.s.launches)


def _last_launch(v: UnitView):
    # casts after the file's last launch are not reported
    if not v.s.has_casts:
        return None
    start = v.unit.start
    return max(-1, min(v.facts.last_launch_end - start, v.unit.end - start + 1))


def helper_names(v: UnitView) -> list[str]:
    """The unit's functions checked as helpers: its device functions that are no kernel, and
    its CubeCL kernels (one that nothing launches is a cube function other kernels call)."""
    return [name for _, name, _, ki in v.info if ki < 0] + \
        [k.name for k in v.kernels if k.ecosystem is Ecosystem.CUBECL]


def _helper_calls(v: UnitView):
    # what every call of the unit's helpers passes them (texts: no positions)
    helpers = tuple((name, v.facts.helper_calls(name)) for name in helper_names(v))
    return helpers if any(calls for _, calls in helpers) else None


def _never(v: UnitView) -> bool:
    return False


def _when_present(v: UnitView) -> bool:
    return True


@dataclass(frozen=True, slots=True)
class Part:
    """How one fact kind enters a unit's context.

    Attributes:
        value: the unit's part, ``None`` when it cannot matter to the unit.
        positional: given a present part, does it hold where something outside the unit is?
        whole: the kind's value for the whole file (what :func:`changed_facts` compares)."""

    value: Callable[[UnitView], object]
    positional: Callable[[UnitView], bool]
    whole: Callable[[FileFacts], object]


PARTS: dict[Fact, Part] = {
    Fact.SEMANTIC: Part(_semantic, _never, lambda f: f.semantic_core),
    Fact.LAUNCHED: Part(_launched, _never, lambda f: f.launch_keys),
    Fact.SINGLE_THREAD: Part(_single, _never, lambda f: f.launch_threads),
    Fact.CALLED_NAMES: Part(_called, _never, lambda f: (f.unsafe_names, f.fn_names)),
    Fact.HEAP_NAMES: Part(_heap, _never, lambda f: f.shadowed_heap),
    Fact.EXTERNS: Part(_externs, _externs_positional, lambda f: f.extern_signatures),
    Fact.CUBECL: Part(_cubecl, _never, lambda f: f.any_cubecl),
    Fact.INDEX_HELPERS: Part(_index_helpers, _never, lambda f: f.index_helpers),
    Fact.DEVICE_CODE: Part(_device, _never, lambda f: f.device_info),
    Fact.HELPER_ECOSYSTEM: Part(_helper_ecosystem, _never, lambda f: (f.primary_ecosystem, f.all_cube_checked)),
    Fact.HOST_NAMES: Part(_host_names, _never, lambda f: (f.defined_host, f.shadowed_host, f.float_fns)),
    Fact.DEFINED_NAMES: Part(_defined, _never, lambda f: f.defined),
    Fact.STATICS: Part(_statics, _when_present, lambda f: (f.module_statics.keys(), f.shared_statics)),
    Fact.KERNEL_PARAMS: Part(_kernel_params, _never, lambda f: f.kernel_param_sigs),
    Fact.LAST_LAUNCH: Part(_last_launch, _when_present, lambda f: f.last_launch_end),
    Fact.HELPER_CALLS: Part(_helper_calls, _never, lambda f: f.helper_call_table),
}


def holds(s: UnitSummary, facts: FileFacts, info: DeviceInfo) -> Holds:
    """What unit ``s`` holds (``Rule.needs``), with the file's ``facts`` and the unit's
    device functions ``info``."""
    bits = (_KERNELS if s.kernels or (s.items.fns and facts.launched_names) else 0) | (_DEVICE_FNS if info else 0) | \
        (_LAUNCHES if s.launches else 0) | (_CASTS if s.has_casts else 0) | (_EXTERNS if s.extern_decls else 0)
    return _HOLDS[bits]


# plain ints for the per-unit test (Flag operations cost a microsecond each)
_KERNELS, _DEVICE_FNS, _LAUNCHES, _CASTS, _EXTERNS = (h.value for h in (
    Holds.KERNELS, Holds.DEVICE_FNS, Holds.LAUNCHES, Holds.CASTS, Holds.EXTERNS))
_HOLDS = [Holds(bits) for bits in range(2 * max(h.value for h in Holds))]


def unit_context(unit: Unit, s: UnitSummary, facts: FileFacts, info: DeviceInfo, i: int,
                 reads: tuple[Fact, ...]) -> tuple[tuple, bool]:
    """The facts of the rest of the file that the findings in ``unit`` depend on, as its
    rules declare them (``reads``, in :class:`Fact` order): two analyses of the same unit
    bytes with equal contexts give equal findings (moved by the unit's offset).

    Args:
        info: the unit's device functions (analysis/facts/device.py ``DeviceInfo``).
        i: the unit's index in ``facts``.

    Returns:
        (context, positional): each present part tagged with its kind; ``positional`` when
        the context holds where something outside the unit is (a declaration the findings
        point to, the last launch), so that it must be computed again when other units move."""
    kernels = facts.unit_kernels(i) if (s.kernels or s.items.fns) else ()
    view = UnitView(unit, s, facts, info, i, kernels)
    parts = []
    positional = False
    for kind in reads:
        part = PARTS[kind]
        value = part.value(view)
        if value is not None:
            parts.append((kind, value))
            positional = positional or part.positional(view)
    return tuple(parts), positional


def changed_facts(old: FileFacts, new: FileFacts, kinds) -> frozenset[Fact]:
    """The kinds among ``kinds`` whose value for the whole file differs between two analyses."""
    return frozenset(k for k in kinds if PARTS[k].whole(old) != PARTS[k].whole(new))


class ActiveRules:
    """The rules an analysis runs (name, rule, level), and for each :class:`Holds` of a
    unit, those that can report in it and the fact kinds they read (memoized)."""

    def __init__(self, active: tuple) -> None:
        self.rules = active
        self._by_holds: dict[Holds, tuple[list, tuple[Fact, ...]]] = {}

    def for_unit(self, h: Holds) -> tuple[list, tuple[Fact, ...]]:
        """(rules that can report in a unit holding ``h``, the kinds they read in
        :class:`Fact` order)."""
        found = self._by_holds.get(h)
        if found is None:
            wanted = [(name, rule, level) for name, rule, level in self.rules if not rule.needs or rule.needs & h]
            kinds = set().union(*(rule.reads for _, rule, _ in wanted))
            found = self._by_holds[h] = (wanted, tuple(k for k in Fact if k in kinds))
        return found

    @cached_property
    def reads(self) -> frozenset[Fact]:
        """Every kind some active rule reads."""
        return frozenset().union(*(rule.reads for _, rule, _ in self.rules))
