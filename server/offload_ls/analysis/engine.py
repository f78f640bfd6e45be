"""Run every rule on one file: the analysis entry point used by the CLI and the server.

The file is analysed unit by unit (analysis/units/: an item with its attributes and
comments). Each unit gets a summary (its kernels, launches, functions, ``static mut``
items, ..), the summaries together give the file's facts (analysis/facts/), and each
rule then checks one unit at a time with those facts at hand. With an
:class:`~offload_ls.analysis.cache.AnalysisCache`, a unit whose bytes did not change reuses
its summary, and its findings too as long as the facts they depend on
(analysis/dependencies.py ``unit_context``, from what
the rules declare they read) did not change: after a one-line edit only the edited item is
analysed again. The result never depends on what the cache holds.
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Mapping

from tree_sitter import Node

from offload_ls.analysis import shift
from offload_ls.analysis.cache import AnalysisCache, CacheStats, LastRun, UnitResult
from offload_ls.analysis.context import FileContext
from offload_ls.analysis.dependencies import ActiveRules, holds, unit_context
from offload_ls.analysis.facts import FileFacts
from offload_ls.analysis.incremental import UnitStates, carry_over, plan, reuse
from offload_ls.analysis.model import Finding, Kernel, Launch, Level, RuleFailure
from offload_ls.analysis.rules import Rule, all_rules
from offload_ls.analysis.suppress import SuppressionIndex, suppressions_from
from offload_ls.analysis.units import (
    Unit,
    UnitSummary,
    resolve,
    split_units,
    split_units_after_edit,
    summarize,
    unit_captures,
)
from offload_ls.syntax.parse import parse
from offload_ls.syntax.queries import compile_all

log = logging.getLogger(__name__)

class FileAnalysis:
    """What one file's analysis produced: kernels, launches, findings (sorted by span), the
    rules that raised (``failures``: their findings are missing for the file), and the
    file's facts (for the crate index: analysis/crate_index.py ``file_items``). Facts and
    failures are not part of equality.

    ``kernels`` and ``launches`` are gathered from the facts when first read (publishing
    diagnostics after an edit never reads them), or given."""

    __slots__ = ("findings", "facts", "failures", "_kernels", "_launches")

    def __init__(self, kernels: tuple[Kernel, ...] | None, launches: tuple[Launch, ...] | None,
                 findings: tuple[Finding, ...], facts: FileFacts | None = None,
                 failures: tuple[RuleFailure, ...] = ()) -> None:
        self.findings = findings
        self.facts = facts
        self.failures = failures
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

    A rule that raises is skipped (and logged); the result's ``failures`` say which, and the
    other rules still report.
    """
    if cache is None:
        return _analyze(source, root, levels, AnalysisCache(), crate)
    with cache.lock:
        cache.begin()
        try:
            return _analyze(source, root, levels, cache, crate)
        finally:
            cache.end()


def _active_rules(levels: Mapping[str, Level] | None) -> ActiveRules:
    lv = effective_levels(levels)
    rules = all_rules()
    return ActiveRules(tuple((name, rules[name], lv[name]) for name in rules if lv[name] is not Level.ALLOW))


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
    r = reuse(keys, last)
    summaries: list = last.summaries[:r.p] + [None] * (r.n - r.p - r.q) + last.summaries[r.m - r.q:] \
        if last is not None else [None] * r.n
    for i, s in zip(r.fresh, _summaries(units, r.fresh, root, source, c, stats)):
        summaries[i] = s
    if last is None:
        facts = FileFacts(starts, summaries, crate=crate)
        state = UnitStates([None] * r.n, [None] * r.n, [[] for _ in range(r.n)], set())
        todo = list(range(r.n))
    else:
        facts, affected = plan(last, units, starts, summaries, r, stats, crate, active)
        state, todo = carry_over(last, units, starts, r, affected)
    positional = [False] * r.n
    for i in todo:
        state.contexts[i], state.results[i], state.found[i], positional[i] = _check_unit(
            i, resolve(units[i], root), facts, active, root, source, c, stats)
        if state.results[i] is not None and state.results[i].failed:
            state.failed_units.add(i)
    c.last = LastRun(signature, keys, starts, summaries, facts, state.contexts, state.results, state.found,
                     positional, state.failed_units, units, source)
    return FileAnalysis(None, None, _file_findings(state, facts, source), facts, _failures(state))


def _split(root: Node, source: bytes, prev: LastRun | None) -> list[Unit]:
    """The file's units, split again only around the edit when the previous analysis kept its."""
    units = None
    if prev is not None and prev.units is not None and prev.source is not None:
        units = split_units_after_edit(root, source, prev.source, prev.units)
    return units if units is not None else split_units(root, source)


def _failures(state: UnitStates) -> tuple[RuleFailure, ...]:
    """One failure per rule that raised on some unit, in rule order of first failure."""
    out: dict[str, RuleFailure] = {}
    for i in sorted(state.failed_units):
        for name in state.results[i].failed:
            out.setdefault(name, state.results[i].by_rule[name])
    return tuple(out.values())


def _file_findings(state: UnitStates, facts: FileFacts, source: bytes) -> tuple[Finding, ...]:
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


def _ok(v) -> tuple:
    return () if v is None or isinstance(v, RuleFailure) else v


def _with_level(f: Finding, level: Level) -> Finding:
    return f if f.level is level else shift.replace(f, level=level)


def _check_unit(i: int, unit: Unit, facts: FileFacts, active: ActiveRules, root: Node, source: bytes,
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
    except Exception as exc:  # a bug in one rule must not hide the others' findings
        # no log line here (analysis does no I/O): the failure, with its traceback, is data
        # the front ends report (the CLI's notice, the server's log)
        text = str(exc)
        return RuleFailure(rule.name, f"{type(exc).__name__}: {text if len(text) <= 200 else text[:200] + '…'}",
                           traceback.format_exc())
