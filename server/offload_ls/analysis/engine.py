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
from dataclasses import dataclass

from tree_sitter import Node

from offload_ls.analysis.cache import FAILED, AnalysisCache, CacheStats, LastRun, UnitResult
from offload_ls.analysis.context import FileContext
from offload_ls.analysis.device_code import DeviceFn
from offload_ls.analysis.facts import FileFacts
from offload_ls.analysis.model import Finding, Kernel, Launch, Level
from offload_ls.analysis.rules import Rule, all_rules
from offload_ls.analysis.rules.heap_owning_kernel_arg import HEAP_NAMES
from offload_ls.analysis.rules.host_only_api_in_kernel import ALLOC_MACROS, HEAP_TYPES, PRINT_MACROS
from offload_ls.analysis.suppress import SuppressionIndex, suppressions_from
from offload_ls.analysis.units import Unit, UnitSummary, split_units, summarize, unit_captures
from offload_ls.syntax.parse import parse

log = logging.getLogger(__name__)

#: Names whose local definition (``struct Vec``, ``macro_rules! println``) changes what
#: host_only_api_in_kernel reports.
_HOST_ONLY_NAMES = PRINT_MACROS | ALLOC_MACROS | HEAP_TYPES


@dataclass(frozen=True)
class FileAnalysis:
    """What one file's analysis produced: kernels, launches, findings (sorted by span)."""

    kernels: tuple[Kernel, ...]
    launches: tuple[Launch, ...]
    findings: tuple[Finding, ...]


def effective_levels(overrides: Mapping[str, Level] | None = None) -> dict[str, Level]:
    """Each rule's level: its default, replaced by ``overrides`` where given."""
    levels = {name: rule.default_level for name, rule in all_rules().items()}
    for name, level in (overrides or {}).items():
        if name in levels:
            levels[name] = Level(level)
    return levels


def analyze_tree(source: bytes, root: Node, levels: Mapping[str, Level] | None = None,
                 cache: AnalysisCache | None = None) -> FileAnalysis:
    """Analyse an already parsed file.

    Args:
        source: the file's bytes; root: root node of the tree parsed from them.
        levels: rule name -> level (missing rules use their defaults); ``allow`` rules are
            not run.
        cache: the document's :class:`~offload_ls.analysis.cache.AnalysisCache`, to reuse
            what earlier analyses of (earlier versions of) the same document found; the
            result is the same without it. ``cache.stats`` tells what this call did.

    A rule that raises is logged and skipped; the other rules still report.
    """
    lv = effective_levels(levels)
    rules = all_rules()
    active = tuple((name, rules[name], lv[name]) for name in rules if lv[name] is not Level.ALLOW)
    signature = tuple((name, level) for name, _, level in active)
    c = cache if cache is not None else AnalysisCache()
    stats = c.stats = CacheStats()
    units = split_units(root, source)
    stats.units = len(units)

    run = _fast_path(c.last, signature, units, root, source, c, stats)
    if run is None:
        summaries = _summaries(units, range(len(units)), root, source, c, stats)
        facts = FileFacts(summaries)
        contexts: list = [None] * len(units)
        results: list = [None] * len(units)
        found: list[list[Finding]] = [[] for _ in units]
        todo = range(len(units))
    else:
        summaries, facts, contexts, results, found, todo = run
        stats.fast_path = True

    for i in todo:
        unit, s = units[i], summaries[i]
        contexts[i], results[i], found[i] = _check_unit(unit, s, facts, active, root, source, c, stats)

    c.last = LastRun(signature, [u.key for u in units], [u.start for u in units], [u.end for u in units],
                     summaries, facts, contexts, results, found)

    failed = {name for r in results if r is not None for name, v in r.by_rule.items() if v is FAILED}
    index = SuppressionIndex(suppressions_from(facts.comments, source))
    findings = [f for unit_findings in found for f in unit_findings
                if f.rule not in failed and not (index and index.covers(f))]
    findings.sort(key=lambda f: (f.span.start, f.span.end, f.rule))
    return FileAnalysis(tuple(facts.kernels), tuple(facts.launches), tuple(findings))


def analyze_source(source: bytes, levels: Mapping[str, Level] | None = None) -> FileAnalysis:
    """Parse ``source`` (UTF-8 bytes, may be invalid or have syntax errors) and analyse it."""
    tree = parse(source)
    return analyze_tree(source, tree.root_node, levels)


# ------------------------------------------------------------------------------- units


def _summaries(units: list[Unit], indices, root: Node, source: bytes, c: AnalysisCache,
               stats: CacheStats) -> list[UnitSummary]:
    """Summaries of ``units[i]`` for ``i`` in ``indices``, from the cache where possible."""
    out: list = []
    missing: list[int] = []
    for i in indices:
        u = units[i]
        s = c.summary(u.key, u.start) if u.key is not None else None
        if s is None:
            missing.append(len(out))
        out.append(s)
    if missing:
        picked = list(indices)
        todo = [units[picked[j]] for j in missing]
        memo: dict[bytes, bool] = {}
        for j, u, caps in zip(missing, todo, unit_captures(todo, root)):
            s = summarize(u, caps, source, memo)
            out[j] = s
            if u.key is not None:
                c.summaries.put(u.key, s)
        stats.summarized += len(missing)
    return out


def _fast_path(last: LastRun | None, signature, units: list[Unit], root: Node, source: bytes,
               c: AnalysisCache, stats: CacheStats):
    """The previous analysis's facts and results, with only the changed units to check,
    when every unit is where it was and no changed unit's summary changed (then the file's
    facts are the same); ``None`` otherwise."""
    if last is None or last.active != signature:
        return None
    n = len(units)
    if len(last.keys) != n:
        return None
    changed = []
    starts, ends, keys = last.starts, last.ends, last.keys
    for i, u in enumerate(units):
        if u.start != starts[i] or u.end != ends[i]:
            return None
        if u.key is None or u.key != keys[i]:
            changed.append(i)
    summaries = list(last.summaries)
    if changed:
        fresh = _summaries(units, changed, root, source, c, stats)
        for i, s in zip(changed, fresh):
            if s != summaries[i]:
                return None
    return summaries, last.facts, list(last.contexts), list(last.results), list(last.findings), changed


def _check_unit(unit: Unit, s: UnitSummary, facts: FileFacts, active, root: Node, source: bytes,
                c: AnalysisCache, stats: CacheStats):
    """(context key, results, findings with levels) of one unit."""
    dfns = facts.device_fns_of(s) if s.fns else []
    holds = set()
    if s.kernels:
        holds.add("kernels")
    if dfns:
        holds.add("device_fns")
    if s.launches:
        holds.add("launches")
    if s.has_casts:
        holds.add("casts")
    wanted = [(name, rule, level) for name, rule, level in active if not rule.needs or rule.needs & holds]
    if not wanted:
        return None, None, []
    context = unit_context(unit, s, facts, dfns)
    key = (unit.key, context) if unit.key is not None else None
    cached = c.result(key, unit.start) if key is not None else None
    if cached is None:
        cached = UnitResult(unit.start, unit.end, {})
    missing = [(name, rule) for name, rule, _ in wanted if name not in cached.by_rule]
    if missing:
        ctx = FileContext(source, root, facts, unit, s)
        by_rule = dict(cached.by_rule)
        for name, rule in missing:
            by_rule[name] = _run(rule, ctx)
        cached = UnitResult(unit.start, unit.end, by_rule)
        if key is not None:
            c.results.put(key, cached)
        stats.checked.append((unit.start, unit.end))
    out: list[Finding] = []
    for name, _, level in wanted:
        v = cached.by_rule[name]
        if v is FAILED:
            continue
        for f in v:  # type: ignore[union-attr]
            out.append(f if f.level is level else Finding(f.rule, f.span, f.message, level, f.fixes, f.related))
    return context, cached, out


def _run(rule: Rule, ctx: FileContext):
    try:
        return tuple(rule.check(ctx))
    except Exception:  # a bug in one rule must not hide the others' findings
        log.exception("rule %s failed; its findings are missing for this file", rule.name)
        return FAILED


def unit_context(unit: Unit, s: UnitSummary, facts: FileFacts, dfns: list[DeviceFn]) -> tuple:
    """The facts of the rest of the file that the rules' findings in ``unit`` depend on:
    two analyses of the same unit bytes with equal contexts give equal findings (moved by
    the unit's offset). Each part names the rules that read it."""
    start = unit.start
    parts: list = []
    if s.kernels:
        names = [k.name for k in s.kernels]
        # unindexed_kernel_write: are all launches of the kernel single-threaded?
        parts.append(tuple(facts.single_thread(n) for n in names))
        # unsafe_in_kernel: which called names are the file's unsafe / known functions
        parts.append(s.callees & facts.unsafe_names)
        parts.append(s.callees & facts.fn_names)
        # heap_owning_kernel_arg: heap type names imported from another crate
        parts.append(facts.shadowed & HEAP_NAMES)
        # raw_pointer_kernel_param: host-side `extern` declarations of the kernels (the fix
        # edits them too; their spans are pinned here)
        if facts.has_externs:
            parts.append(tuple(tuple(facts.extern_decls_named(n)) for n in names))
        # unchecked_thread_index: `#[cube(launch)]` counts only in a file with CubeCL kernels
        if s.cube_launch:
            parts.append(facts.any_cubecl)
    if dfns:
        # unchecked_thread_index, host_only_api_in_kernel, static_mut_in_kernel, and
        # aliased_launch_args (casts in device code): which functions are device code, why
        parts.append(tuple((d.span.start - start, d.name, d.reason) for d in dfns))
        if any(d.kernel is None for d in dfns):
            # host_only_api_in_kernel (helpers of Rust-CUDA kernels), unchecked_thread_index
            # (helpers of CubeCL checked kernels)
            parts.append((facts.all_cuda, facts.all_cube_checked))
        # host_only_api_in_kernel: std names the file defines itself
        parts.append(facts.defined & _HOST_ONLY_NAMES)
    if (s.kernels or dfns) and facts.has_statics:
        # static_mut_in_kernel, unsafe_in_kernel: module-level `static mut` items whose name
        # occurs in the unit, and where they are declared (the findings point there)
        text = unit.key[0] if unit.key is not None else b""
        parts.append(tuple((n, sp) for n, sp in facts.module_statics.items() if n.encode() in text))
        parts.append(True)
    if s.launches:
        # aliased_launch_args: the parameters of the kernel each launch names
        parts.append(tuple(_params_sig(facts.kernel_named(la.kernel)) if la.kernel else None for la in s.launches))
    if s.has_casts:
        # aliased_launch_args: casts after the file's last launch are not reported
        parts.append(max(-1, min(facts.last_launch_end - start, unit.end - start + 1)))
    return tuple(parts)


def _params_sig(kernel: Kernel | None) -> tuple | None:
    if kernel is None:
        return None
    return tuple((p.kind, p.transfer) for p in kernel.params)
