"""Run every rule on one file: the analysis entry point used by the CLI and the server.

The file is analysed unit by unit (analysis/units.py: an item with its attributes and
comments). Each unit gets a summary (its kernels, launches, functions, ``static mut``
items, ..), the summaries together give the file's facts (analysis/facts.py), and each
rule then checks one unit at a time with those facts at hand. With an
:class:`~offload_ls.analysis.cache.AnalysisCache`, a unit whose bytes did not change reuses
its summary, and its findings too as long as the facts they depend on
(analysis/dependencies.py ``unit_context``, from what
the rules declare they read) did not change: after a one-line edit only the edited item is
analysed again. The result never depends on what the cache holds.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

from tree_sitter import Node

from offload_ls.analysis import shift
from offload_ls.analysis.cache import FAILED, AnalysisCache, CacheStats, LastRun, UnitResult
from offload_ls.analysis.context import FileContext
from offload_ls.analysis.dependencies import changed_facts, holds, unit_context
from offload_ls.analysis.facts import FileFacts
from offload_ls.analysis.model import Finding, Kernel, Launch, Level
from offload_ls.analysis.reads import Fact, Holds
from offload_ls.analysis.rules import Rule, all_rules
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


class _Active:
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


def _active_rules(levels: Mapping[str, Level] | None) -> _Active:
    lv = effective_levels(levels)
    rules = all_rules()
    return _Active(tuple((name, rules[name], lv[name]) for name in rules if lv[name] is not Level.ALLOW))


@dataclass
class _Reuse:
    """Which units of the previous analysis this one takes over: the common prefix (first
    ``p``) and suffix (last ``q``) of the two unit lists (an edit changes, adds or removes
    units in one place); unit ``i`` of the suffix was unit ``i - shift`` (``n`` units now,
    ``m`` before)."""

    p: int
    q: int
    n: int
    m: int

    @property
    def shift(self) -> int:
        return self.n - self.m

    @property
    def fresh(self) -> list[int]:
        """Indices of the units not taken over."""
        return list(range(self.p, self.n - self.q))

    @property
    def kept(self) -> list[int]:
        return [*range(self.p), *range(self.n - self.q, self.n)]

    def was(self, i: int) -> int:
        """Kept unit ``i``'s index in the previous analysis."""
        return i if i < self.p else i - self.shift

    def now(self, o: int) -> int | None:
        """Previous unit ``o``'s index now, ``None`` if it was replaced."""
        return o if o < self.p else o + self.shift if o >= self.m - self.q else None

    def splice(self, old: list, fill) -> list:
        """``old`` (per previous unit) with the kept entries in place, ``fill()`` elsewhere."""
        return old[:self.p] + [fill() for _ in range(self.n - self.p - self.q)] + old[self.m - self.q:]


def _reuse(keys: list, last: LastRun | None) -> _Reuse:
    n = len(keys)
    if last is None:
        return _Reuse(0, 0, n, 0)
    old_keys = last.keys
    m = len(old_keys)
    p = q = 0
    while p < n and p < m and keys[p] is not None and keys[p] == old_keys[p]:
        p += 1
    while q < n - p and q < m - p and keys[n - 1 - q] is not None and keys[n - 1 - q] == old_keys[m - 1 - q]:
        q += 1
    return _Reuse(p, q, n, m)


def _analyze(source: bytes, root: Node, levels: Mapping[str, Level] | None, c: AnalysisCache,
             crate) -> FileAnalysis:
    active = _active_rules(levels)
    # what the rest of the crate says is part of the signature: when it changes, nothing of
    # the previous analysis is reused as is (the per-unit caches still are, by context)
    signature = (tuple((name, level) for name, _, level in active.rules),
                 crate.fingerprint if crate is not None else None)
    stats = c.stats = CacheStats()
    units = _split(root, source, c.last)
    stats.units = len(units)
    starts = [u.start for u in units]
    keys = [u.key for u in units]
    last = c.last if c.last is not None and c.last.active == signature else None
    r = _reuse(keys, last)
    summaries: list = last.summaries[:r.p] + [None] * (r.n - r.p - r.q) + last.summaries[r.m - r.q:] \
        if last is not None else [None] * r.n
    for i, s in zip(r.fresh, _summaries(units, r.fresh, root, source, c, stats)):
        summaries[i] = s
    if last is None:
        facts = FileFacts(starts, summaries, crate=crate)
        state = _State([None] * r.n, [None] * r.n, [[] for _ in range(r.n)], set())
        todo = list(range(r.n))
    else:
        facts, affected = _plan(last, units, starts, summaries, r, stats, crate, active)
        state, todo = _carry_over(last, units, starts, r, affected)
    positional = [False] * r.n
    for i in todo:
        state.contexts[i], state.results[i], state.found[i], positional[i] = _check_unit(
            i, resolve(units[i], root), facts, active, root, source, c, stats)
        if state.results[i] is not None and state.results[i].failed:
            state.failed_units.add(i)
    c.last = LastRun(signature, keys, starts, summaries, facts, state.contexts, state.results, state.found,
                     positional, state.failed_units, units, source)
    return FileAnalysis(None, None, _file_findings(state, facts, source), facts)


def _split(root: Node, source: bytes, prev: LastRun | None) -> list[Unit]:
    """The file's units, split again only around the edit when the previous analysis kept its."""
    units = None
    if prev is not None and prev.units is not None and prev.source is not None:
        units = split_units_after_edit(root, source, prev.source, prev.units)
    return units if units is not None else split_units(root, source)


@dataclass
class _State:
    """Per unit: the context key, the cached results, the findings with levels; and the
    units where a rule raised."""

    contexts: list
    results: list
    found: list[list[Finding]]
    failed_units: set[int]


def _carry_over(last: LastRun, units: list[Unit], starts: list[int], r: _Reuse, affected) -> tuple[_State, list[int]]:
    """What the kept units keep of the previous analysis (their findings moved to where the
    units are now), and the units to check: the changed ones, and kept ones whose context
    held positions or read a fact that changed (never on _plan's fast path)."""
    state = _State(r.splice(last.contexts, lambda: None), r.splice(last.results, lambda: None),
                   r.splice(last.findings, list), set())
    if affected is _NEVER:
        again = [i for o, v in enumerate(last.positional) if v and (i := r.now(o)) is not None]
    else:
        again = [i for i in r.kept if last.positional[r.was(i)] or affected(i, r.was(i))]
    for i in again:
        state.contexts[i] = state.results[i] = None
        state.found[i] = []
    again_set = set(again)
    for o in last.failed_units:
        i = r.now(o)
        if i is not None and i not in again_set:
            state.failed_units.add(i)
    # move the findings of kept units that moved (their cached results stay where they
    # were computed: they are moved from there when used)
    for i in r.kept:
        f = state.found[i]
        if f and starts[i] != last.starts[r.was(i)] and i not in again_set:
            lo = last.starts[r.was(i)]
            hi = lo + units[i].end - units[i].start
            state.found[i] = [shift.finding(x, starts[i] - lo, lo, hi) for x in f]
    return state, sorted([*r.fresh, *again])


def _file_findings(state: _State, facts: FileFacts, source: bytes) -> tuple[Finding, ...]:
    """The units' findings, sorted by span, without suppressed ones; a rule that raised on
    any unit reports nothing for the file (as when it ran on the whole file)."""
    failed = {name for i in state.failed_units for name in state.results[i].failed}
    index = SuppressionIndex(suppressions_from(facts.comments, source))
    findings = [f for unit_findings in state.found for f in unit_findings
                if f.rule not in failed and not (index and index.covers(f))]
    findings.sort(key=lambda f: (f.span.start, f.span.end, f.rule))
    return tuple(findings)


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


def _plan(last: LastRun, units: list[Unit], starts: list[int], summaries: list[UnitSummary], r: _Reuse, stats: CacheStats, crate,
          active: _Active):
    """The file's facts, and which units that kept their bytes must be checked again
    because a fact their rules read changed: ``(facts, affected(i, o))`` for unit ``i``
    that was unit ``o`` of the previous analysis. (Units whose context holds positions of
    other units, and changed units, are always checked.)

    When the changed units' exports (analysis/units.py) are those of the units they
    replace, one for one, the facts are the previous ones except for where things are:
    nothing is affected (the fast path). Otherwise a kept unit is affected when its device
    functions or what it holds changed, or when a kind of fact its rules read changed for
    the file and the unit's context (analysis/dependencies.py) is not the one its cached
    findings were made with."""
    old: FileFacts = last.facts  # type: ignore[assignment]
    n, m, p, q = r.n, r.m, r.p, r.q
    if n == m and all(summaries[i].exports == last.summaries[i].exports for i in range(p, n - q)):
        stats.fast_path = True
        # one for one, in order: unit i is unit i of the previous analysis (n == m)
        seed = old.placed_objects(lambda i: (i < p or i >= n - q) and starts[i] == last.starts[i])
        return FileFacts(starts, summaries, device_info=old.device_info, abs_seed=seed, crate=crate,
                         carried=old.carried()), _NEVER
    facts = FileFacts(starts, summaries, crate=crate)
    new_info, old_info = facts.device_info, old.device_info
    changed = changed_facts(old, facts, active.reads)

    def affected(i: int, o: int) -> bool:
        info, s = new_info[i], summaries[i]
        if info != old_info[o]:
            return True
        h = holds(s, facts, info)
        if h != holds(last.summaries[o], old, old_info[o]):
            return True
        _, reads = active.for_unit(h)
        if changed.isdisjoint(reads):
            return False
        return unit_context(units[i], s, facts, info, i, reads)[0] != last.contexts[o]

    return facts, affected


def _NEVER(i: int, o: int) -> bool:
    """_plan's fast path: no kept unit is affected."""
    return False


def _ok(v) -> tuple:
    return () if v is None or v is FAILED else v


def _with_level(f: Finding, level: Level) -> Finding:
    return f if f.level is level else shift.replace(f, level=level)


def _check_unit(i: int, unit: Unit, facts: FileFacts, active: _Active, root: Node, source: bytes,
                c: AnalysisCache, stats: CacheStats):
    """(context key, results, findings with levels, context holds positions) of unit ``i``."""
    s = facts.summaries[i]
    info = facts.device_info[i] if s.fns else ()
    wanted, reads = active.for_unit(holds(s, facts, info))
    if not wanted:
        return None, None, [], False
    context, positional = unit_context(unit, s, facts, info, i, reads)
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
