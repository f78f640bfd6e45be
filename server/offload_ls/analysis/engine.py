"""Run every rule on one file: the analysis entry point used by the CLI and the server.

The file is analysed unit by unit (analysis/units.py: an item with its attributes and
comments). Each unit gets a summary (its kernels, launches, functions, ``static mut``
items, ..), the summaries together give the file's facts (analysis/facts.py), and each
rule then checks one unit at a time with those facts at hand. With an
:class:`~offload_ls.analysis.cache.AnalysisCache`, a unit whose bytes did not change reuses
its summary, and its findings too as long as the facts they depend on
(:func:`unit_context`) did not change: after a one-line edit only the edited item is
analysed again. The result never depends on what the cache holds.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from tree_sitter import Node

from offload_ls.analysis import shift
from offload_ls.analysis.cache import FAILED, AnalysisCache, CacheStats, LastRun, UnitResult
from offload_ls.analysis.context import FileContext
from offload_ls.analysis.facts import CARRIED, DeviceInfo, FileFacts
from offload_ls.analysis.model import Finding, Kernel, Launch, Level
from offload_ls.analysis.rules import Rule, all_rules
from offload_ls.analysis.std_names import HOST_ONLY_NAMES
from offload_ls.analysis.suppress import SuppressionIndex, suppressions_from
from offload_ls.analysis.units import (Unit, UnitSummary, resolve, split_units, split_units_after_edit, summarize,
                                      unit_captures)
from offload_ls.syntax.parse import parse
from offload_ls.syntax.queries import compile_all

log = logging.getLogger(__name__)

class FileAnalysis:
    """What one file's analysis produced: kernels, launches, findings (sorted by span), and
    the file's facts (for the crate index: analysis/crate_index.py ``file_items``; not
    part of equality).

    ``kernels`` and ``launches`` are gathered from the facts when first read (publishing
    diagnostics after an edit never reads them), or given."""

    __slots__ = ("findings", "facts", "_kernels", "_launches")

    def __init__(self, kernels: tuple[Kernel, ...] | None, launches: tuple[Launch, ...] | None,
                 findings: tuple[Finding, ...], facts: FileFacts | None = None) -> None:
        self.findings = findings
        self.facts = facts
        self._kernels = kernels
        self._launches = launches

    @property
    def kernels(self) -> tuple[Kernel, ...]:
        if self._kernels is None:
            self._kernels = tuple(self.facts.kernels) if self.facts is not None else ()
        return self._kernels

    @property
    def launches(self) -> tuple[Launch, ...]:
        if self._launches is None:
            self._launches = tuple(self.facts.launches) if self.facts is not None else ()
        return self._launches

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FileAnalysis):
            return NotImplemented
        return (self.kernels, self.launches, self.findings) == (other.kernels, other.launches, other.findings)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"FileAnalysis(kernels={self.kernels!r}, launches={self.launches!r}, findings={self.findings!r})"


def effective_levels(overrides: Mapping[str, Level] | None = None) -> dict[str, Level]:
    """Each rule's level: its default, replaced by ``overrides`` where given."""
    levels = {name: rule.default_level for name, rule in all_rules().items()}
    for name, level in (overrides or {}).items():
        if name in levels:
            levels[name] = Level(level)
    return levels


def analyze_tree(source: bytes, root: Node, levels: Mapping[str, Level] | None = None,
                 cache: AnalysisCache | None = None, crate=None) -> FileAnalysis:
    """Analyse an already parsed file.

    Args:
        source: the file's bytes; root: root node of the tree parsed from them.
        levels: rule name -> level (missing rules use their defaults); ``allow`` rules are
            not run.
        cache: the document's :class:`~offload_ls.analysis.cache.AnalysisCache`, to reuse
            what earlier analyses of (earlier versions of) the same document found; the
            result is the same without it. ``cache.stats`` tells what this call did.
        crate: the rest of the file's crate (analysis/crate_index.py ``CrateView``), for
            rules that read other files (a launch elsewhere, a constant, an alias);
            ``None``: the file alone.

    A rule that raises is logged and skipped; the other rules still report.
    """
    if cache is None:
        return _analyze(source, root, levels, AnalysisCache(), crate)
    with cache.lock:
        cache.begin()
        try:
            return _analyze(source, root, levels, cache, crate)
        finally:
            cache.end()


def _analyze(source: bytes, root: Node, levels: Mapping[str, Level] | None, c: AnalysisCache,
             crate) -> FileAnalysis:
    lv = effective_levels(levels)
    rules = all_rules()
    active = tuple((name, rules[name], lv[name]) for name in rules if lv[name] is not Level.ALLOW)
    # what the rest of the crate says is part of the signature: when it changes, nothing of
    # the previous analysis is reused as is (the per-unit caches still are, by context)
    signature = (tuple((name, level) for name, _, level in active),
                 crate.fingerprint if crate is not None else None)
    stats = c.stats = CacheStats()
    prev = c.last
    units = None
    if prev is not None and prev.units is not None and prev.source is not None:
        units = split_units_after_edit(root, source, prev.source, prev.units)
    if units is None:
        units = split_units(root, source)
    n = stats.units = len(units)
    starts = [u.start for u in units]
    last = c.last if c.last is not None and c.last.active == signature else None

    # Units whose bytes are those of a unit of the previous analysis: the common prefix
    # (first p) and suffix (last q) of the two unit lists (an edit changes, adds or removes
    # units in one place). Unit i of the suffix was unit i + m - n.
    keys = [u.key for u in units]
    p = q = 0
    if last is not None:
        old_keys = last.keys
        m = len(old_keys)
        while p < n and p < m and keys[p] is not None and keys[p] == old_keys[p]:
            p += 1
        while q < n - p and q < m - p and keys[n - 1 - q] is not None and keys[n - 1 - q] == old_keys[m - 1 - q]:
            q += 1
        middle = [None] * (n - p - q)
        summaries: list = last.summaries[:p] + middle + last.summaries[m - q:]
    else:
        m = 0
        summaries = [None] * n
    fresh_idx = list(range(p, n - q))
    for i, s in zip(fresh_idx, _summaries(units, fresh_idx, root, source, c, stats)):
        summaries[i] = s

    positional = [False] * n
    failed_units: set[int] = set()
    if last is None:
        facts = FileFacts(starts, summaries, crate=crate)
        contexts: list = [None] * n
        results: list = [None] * n
        found: list[list[Finding]] = [[] for _ in range(n)]
        todo = list(range(n))
    else:
        facts, affected = _plan(last, units, starts, summaries, p, q, stats, crate)
        shift_by = n - m  # unit i of the suffix was unit i - shift_by
        contexts = last.contexts[:p] + middle + last.contexts[m - q:]
        results = last.results[:p] + middle + last.results[m - q:]
        found = last.findings[:p] + [[] for _ in middle] + last.findings[m - q:]

        def was(i: int) -> int:  # kept unit i's index in the previous analysis
            return i if i < p else i - shift_by

        def now(o: int) -> int | None:  # previous unit o's index now, None if it was replaced
            return o if o < p else o + shift_by if o >= m - q else None

        kept = [*range(p), *range(n - q, n)]
        # a kept unit is checked again when its context held positions, or when a fact it
        # reads changed (never on _plan's fast path)
        if affected is _NEVER:
            again = [now(o) for o, v in enumerate(last.positional) if v and now(o) is not None]
        else:
            again = [i for i in kept if last.positional[was(i)] or affected(i, was(i))]
        for i in again:
            contexts[i] = results[i] = None
            found[i] = []
        todo = sorted([*fresh_idx, *again])
        again_set = set(again)
        for o in last.failed_units:
            i = now(o)
            if i is not None and i not in again_set:
                failed_units.add(i)
        # move the findings of kept units that moved (their cached results stay where they
        # were computed: they are moved from there when used)
        for i in kept:
            f = found[i]
            if f and starts[i] != last.starts[was(i)] and i not in again_set:
                lo = last.starts[was(i)]
                hi = lo + units[i].end - units[i].start
                found[i] = [shift.finding(x, starts[i] - lo, lo, hi) for x in f]

    wanted_by_holds: dict = {}
    for i in todo:
        contexts[i], results[i], found[i], positional[i] = _check_unit(i, resolve(units[i], root), facts, active,
                                                                      root, source,
                                                                      c, stats, wanted_by_holds)
        if results[i] is not None and results[i].failed:
            failed_units.add(i)

    c.last = LastRun(signature, keys, starts, summaries, facts, contexts, results, found,
                     positional, failed_units, units, source)
    # a rule that raised on any unit reports nothing for the file (as when it ran on the whole file)
    failed = {name for i in failed_units for name in results[i].failed}
    index = SuppressionIndex(suppressions_from(facts.comments, source))
    findings = [f for unit_findings in found for f in unit_findings
                if f.rule not in failed and not (index and index.covers(f))]
    findings.sort(key=lambda f: (f.span.start, f.span.end, f.rule))
    return FileAnalysis(None, None, tuple(findings), facts)


#: A small file that makes one analysis import every rule and compile every query it runs
#: (what a server's first real analysis would otherwise pay: about 0.2 s here).
_WARM_UP_SOURCE = b"""
use cuda_std::prelude::*;
#[cfg(not(offload_device))]
mod host {}
#[kernel]
pub unsafe fn k(x: &[f32], y: *mut f32) {
    let i = thread::index_1d() as usize;
    if i < x.len() { unsafe { *y.add(i) = x[i]; } }
}
fn launch() {
    unsafe { launch!(module.k<<<1, 32, 0, stream>>>(x.as_device_ptr(), x.len(), y.as_device_ptr())) }.unwrap();
    core::intrinsics::offload(k, [1, 1, 1], [32, 1, 1], (&x, &mut y));
    core::offload::offload! { kernel = k, workgroup_dim = [1, 1, 1], thread_dim = [32, 1, 1], args = (&x, &mut y) };
}
"""


def warm_up() -> None:
    """Import the rules and compile the queries now (a server calls this in its analysis
    worker at ``initialize``, before the first document arrives)."""
    analyze_source(_WARM_UP_SOURCE)
    compile_all()


def analyze_source(source: bytes, levels: Mapping[str, Level] | None = None, crate=None) -> FileAnalysis:
    """Parse ``source`` (UTF-8 bytes, may be invalid or have syntax errors) and analyse it;
    ``crate``: the rest of its crate (see :func:`analyze_tree`)."""
    tree = parse(source)
    return analyze_tree(source, tree.root_node, levels, crate=crate)


# ------------------------------------------------------------------------------- units


def _summaries(units: list[Unit], indices, root: Node, source: bytes, c: AnalysisCache,
               stats: CacheStats) -> list[UnitSummary]:
    """Summaries of ``units[i]`` for ``i`` in ``indices``, from the cache where possible."""
    out: list = []
    missing: list[int] = []
    for i in indices:
        u = units[i]
        s = c.summary(u.key) if u.key is not None else None
        if s is None:
            missing.append(len(out))
        out.append(s)
    if missing:
        picked = list(indices)
        todo = [resolve(units[picked[j]], root) for j in missing]
        memo: dict[bytes, tuple[bool, bool]] = {}
        for j, u, caps in zip(missing, todo, unit_captures(todo, root, source)):
            s = summarize(u, caps, source, memo)
            out[j] = s
            if u.key is not None:
                c.summaries.put(u.key, s)
        stats.summarized += len(missing)
    return out


def _plan(last: LastRun, units: list[Unit], starts: list[int], summaries: list[UnitSummary], p: int, q: int,
          stats: CacheStats, crate):
    """The file's facts, and which units that kept their bytes must be checked again
    because a fact their context reads changed: ``(facts, affected(i, o))`` for unit ``i``
    that was unit ``o`` of the previous analysis. (Units whose context holds positions of
    other units, and changed units, are always checked.)

    When the changed units' exports (analysis/units.py) are those of the units they
    replace, one for one, the facts are the previous ones except for where things are:
    nothing is affected (the fast path). Otherwise the facts are compared channel by
    channel, as :func:`unit_context` reads them.

    Args:
        p, q: the first ``p`` and last ``q`` units are those of the previous analysis."""
    old: FileFacts = last.facts  # type: ignore[assignment]
    n, m = len(units), len(last.keys)
    same = n == m and all(summaries[i].exports == last.summaries[i].exports for i in range(p, n - q))
    if same:
        stats.fast_path = True
        # one for one, in order: unit i is unit i of the previous analysis (n == m); a copy,
        # since a reader of the previous FileAnalysis may still be filling it
        seed = {i: objs for i, objs in old._abs.copy().items()
                if (i < p or i >= n - q) and starts[i] == last.starts[i]}
        carried = {name: old.__dict__[name] for name in CARRIED if name in old.__dict__}
        facts = FileFacts(starts, summaries, device_info=old.device_info, abs_seed=seed, crate=crate,
                          carried=carried)
        return facts, _NEVER
    facts = FileFacts(starts, summaries, crate=crate)
    new_info, old_info = facts.device_info, old.device_info
    threads_old, threads_new = old._threads_by_kernel, facts._threads_by_kernel
    single = {k for k in threads_old.keys() | threads_new.keys()
              if threads_old.get(k) != threads_new.get(k) and old.single_thread(k) != facts.single_thread(k)}
    names = (old.unsafe_names ^ facts.unsafe_names) | (old.fn_names ^ facts.fn_names)
    heap = old.shadowed_heap != facts.shadowed_heap
    host = old.defined_host != facts.defined_host or \
        (old.shadowed & HOST_ONLY_NAMES) != (facts.shadowed & HOST_ONLY_NAMES)
    flags = (old.primary_ecosystem, old.all_cube_checked) != (facts.primary_ecosystem, facts.all_cube_checked)
    cubecl = old.any_cubecl != facts.any_cubecl
    sigs = {k for k in old._kernel_by_name.keys() | facts._kernel_by_name.keys()
            if old.kernel_params_sig(k) != facts.kernel_params_sig(k)}
    # a `static mut` / `extern` declaration that appeared or went away (one that moved is
    # in the context of the units that name it: they are `positional`)
    statics = [n.encode() for n in (old.module_statics.keys() ^ facts.module_statics.keys())
               | (old.shared_statics ^ facts.shared_statics)]
    externs = {k for k in old._externs.keys() | facts._externs.keys()
               if _extern_types(old.extern_decls_named(k)) != _extern_types(facts.extern_decls_named(k))}

    semantic = old.semantic_core != facts.semantic_core
    helpers = {n for n in old.index_helpers.keys() | facts.index_helpers.keys()
               if old.index_helpers.get(n) != facts.index_helpers.get(n)}

    def affected(i: int, o: int) -> bool:
        info = new_info[i]
        if info != old_info[o]:
            return True
        s = summaries[i]
        if semantic and (s.kernels or s.launches or info or s.items.fns or s.extern_decls):
            return True
        if s.kernels and any(old.launch_key(k.name) != facts.launch_key(k.name) for k in s.kernels):
            return True
        if s.kernels:
            if heap or (single and any(k.name in single for k in s.kernels)):
                return True
            if names and s.callees & names:
                return True
            if cubecl and s.cube_launch:
                return True
            if externs and any(k.name in externs for k in s.kernels):
                return True
        if info and (host or (flags and any(ki < 0 for _, _, _, ki in info))):
            return True
        if helpers and (s.kernels or info) and s.callees & helpers:
            return True
        if statics and (s.kernels or info):
            text = units[i].key[0] if units[i].key is not None else b""
            if any(n in text for n in statics):
                return True
        return bool(sigs and s.launches and any(la.kernel in sigs for la in s.launches))

    return facts, affected


def _NEVER(i: int, o: int) -> bool:
    """_plan's fast path: no kept unit is affected."""
    return False


def _extern_types(decls) -> tuple:
    return tuple((d.name, tuple(None if p is None else (p.type_text, p.kind) for p in d.params)) for d in decls)


def _ok(v) -> tuple:
    return () if v is None or v is FAILED else v


def _with_level(f: Finding, level: Level) -> Finding:
    return f if f.level is level else shift.replace(f, level=level)


_KERNELS, _DEVICE_FNS, _LAUNCHES, _CASTS, _EXTERNS = 1, 2, 4, 8, 16
_NEEDS = {"kernels": _KERNELS, "device_fns": _DEVICE_FNS, "launches": _LAUNCHES, "casts": _CASTS,
          "externs": _EXTERNS}


def _wanted(active, holds: int) -> list:
    """The active rules that can report something in a unit holding ``holds`` (bit set)."""
    out = []
    for name, rule, level in active:
        needs = 0
        for n in rule.needs:
            needs |= _NEEDS[n]
        if not rule.needs or needs & holds:
            out.append((name, rule, level))
    return out


def _check_unit(i: int, unit: Unit, facts: FileFacts, active, root: Node, source: bytes,
                c: AnalysisCache, stats: CacheStats, wanted_by_holds: dict):
    """(context key, results, findings with levels, context holds positions) of unit ``i``."""
    s = facts.summaries[i]
    info = facts.device_info[i] if s.fns else ()
    holds = (_KERNELS if s.kernels or (s.items.fns and facts.launched_names) else 0) | \
        (_DEVICE_FNS if info else 0) | (_LAUNCHES if s.launches else 0) | (_CASTS if s.has_casts else 0) | \
        (_EXTERNS if s.extern_decls else 0)
    wanted = wanted_by_holds.get(holds)
    if wanted is None:
        wanted = wanted_by_holds[holds] = _wanted(active, holds)
    if not wanted:
        return None, None, [], False
    context, positional = unit_context(unit, s, facts, info, i)
    key = (unit.key, context) if unit.key is not None else None
    cached = c.result(key, unit.start) if key is not None else None
    if cached is None:
        cached = UnitResult(unit.start, unit.end, {})
    missing = [(name, rule) for name, rule, _ in wanted if name not in cached.by_rule]
    if missing:
        ctx = FileContext(source, root, facts, unit, i)
        by_rule = dict(cached.by_rule)
        for name, rule in missing:
            by_rule[name] = _run(rule, ctx)
        cached = UnitResult(unit.start, unit.end, by_rule)
        if key is not None:
            c.results.put(key, cached)
        stats.checked.append((unit.start, unit.end))
    by_rule = cached.by_rule
    out = [_with_level(f, level) for name, _, level in wanted if by_rule[name] for f in _ok(by_rule[name])]
    return context, cached, out, positional


def _run(rule: Rule, ctx: FileContext):
    try:
        return tuple(rule.check(ctx))
    except Exception:  # a bug in one rule must not hide the others' findings
        log.exception("rule %s failed; its findings are missing for this file", rule.name)
        return FAILED


def unit_context(unit: Unit, s: UnitSummary, facts: FileFacts, info: DeviceInfo, i: int) -> tuple[tuple, bool]:
    """The facts of the rest of the file that the rules' findings in ``unit`` depend on:
    two analyses of the same unit bytes with equal contexts give equal findings (moved by
    the unit's offset). Each part is tagged, and names the rules that read it.

    Args:
        info: the unit's device functions (analysis/facts.py ``DeviceInfo``).
        i: the unit's index in ``facts``.

    Returns:
        (context, positional): ``positional`` when the context holds where something
        outside the unit is (a declaration the findings point to, the last launch), so
        that it must be computed again when other units move."""
    parts: list = []
    positional = False
    kernels = facts.unit_kernels(i) if (s.kernels or s.items.fns) else ()
    if kernels or s.launches or info or s.extern_decls:
        # crate-wide rules (thread_index_collision, launch checks, ecosystem profiles,
        # constants, aliases): what the file and its crate say, and the launches of the
        # unit's kernels
        parts.append(("semantic", facts.semantic_core))
        if kernels:
            parts.append(("launched", tuple(facts.launch_key(k.name) for k in kernels)))
    if s.kernels:
        names = [k.name for k in s.kernels]
        # unindexed_kernel_write: are all launches of the kernel single-threaded?
        parts.append(("single", tuple(facts.single_thread(n) for n in names)))
        # unsafe_in_kernel: which called names are the file's unsafe / known functions
        parts.append(("unsafe", s.callees & facts.unsafe_names, s.callees & facts.fn_names))
        # heap_owning_kernel_arg: heap type names imported from another crate
        parts.append(("heap", facts.shadowed_heap))
        # raw_pointer_kernel_param: host-side `extern` declarations of the kernels (the fix
        # edits them too: their spans are part of the context)
        if facts.has_externs:
            ext = tuple((n, tuple(d)) for n in names if (d := facts.extern_decls_named(n)))
            if ext:
                parts.append(("externs", ext))
                positional = True
        # unchecked_thread_index: `#[cube(launch)]` counts only in a file with CubeCL kernels
        if s.cube_launch:
            parts.append(("cube", facts.any_cubecl))
    if (s.kernels or info) and facts.index_helpers:
        # the rules that follow the thread index: which called functions return the position
        parts.append(("helpers", tuple(sorted((n, tuple(sorted(k))) for n, k in facts.index_helpers.items()
                                              if n in s.callees))))
    if info:
        # unchecked_thread_index, host_only_api_in_kernel, static_mut_in_kernel, and
        # aliased_launch_args (casts in device code): which functions are device code, why
        fns, base = s.fns, s.start
        parts.append(("device", tuple((fns[j].start - base, name, reason) for j, name, reason, _ in info)))
        if any(ki < 0 for _, _, _, ki in info):
            # host_only_api_in_kernel (a helper is judged by the file's kernels' ecosystem),
            # unchecked_thread_index
            # (helpers of CubeCL checked kernels)
            parts.append(("helpers", facts.primary_ecosystem, facts.all_cube_checked))
        # host_only_api_in_kernel: std names the file defines itself
        parts.append(("host", facts.defined_host, facts.shadowed & HOST_ONLY_NAMES))
    if (s.kernels or info) and facts.has_statics:
        # static_mut_in_kernel, unsafe_in_kernel: module-level `static mut` items whose name
        # occurs in the unit, and where they are declared (the findings point there). A unit
        # that names none gets the same findings whether the file has any or not.
        text = unit.key[0] if unit.key is not None else b""
        statics = tuple((n, sp) for n, sp in facts.module_statics.items() if n.encode() in text)
        if statics:
            parts.append(("statics", statics, facts.shared_statics & {n for n, _ in statics}))
            positional = True
    if s.launches:
        # aliased_launch_args: the parameters of the kernel each launch names
        parts.append(("launches", tuple(facts.kernel_params_sig(la.kernel) if la.kernel else None
                                        for la in s.launches)))
    if s.has_casts:
        # aliased_launch_args: casts after the file's last launch are not reported
        start = unit.start
        parts.append(("casts", max(-1, min(facts.last_launch_end - start, unit.end - start + 1))))
        positional = True
    return tuple(parts), positional
