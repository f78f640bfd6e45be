"""Run every rule on one file: the analysis entry point used by the CLI and the server."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, replace

from tree_sitter import Node

from offload_ls.analysis.context import FileContext
from offload_ls.analysis.model import Finding, Kernel, Launch, Level
from offload_ls.analysis.rules import all_rules
from offload_ls.analysis.suppress import find_suppressions
from offload_ls.syntax.parse import parse

log = logging.getLogger(__name__)


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


def analyze_tree(source: bytes, root: Node, levels: Mapping[str, Level] | None = None) -> FileAnalysis:
    """Analyse an already parsed file.

    Args:
        source: the file's bytes; root: root node of the tree parsed from them.
        levels: rule name -> level (missing rules use their defaults); ``allow`` rules are
            not run.

    A rule that raises is logged and skipped; the other rules still report.
    """
    ctx = FileContext(source, root)
    lv = effective_levels(levels)
    suppressions = find_suppressions(root, source)
    findings: list[Finding] = []
    for name, rule in all_rules().items():
        level = lv[name]
        if level is Level.ALLOW:
            continue
        try:
            produced = list(rule.check(ctx))
        except Exception:  # a bug in one rule must not hide the others' findings
            log.exception("rule %s failed; its findings are missing for this file", name)
            continue
        for f in produced:
            if not any(s.covers(f) for s in suppressions):
                findings.append(replace(f, level=level))
    findings.sort(key=lambda f: (f.span.start, f.span.end, f.rule))
    return FileAnalysis(tuple(ctx.kernels), tuple(ctx.launches), tuple(findings))


def analyze_source(source: bytes, levels: Mapping[str, Level] | None = None) -> FileAnalysis:
    """Parse ``source`` (UTF-8 bytes, may be invalid or have syntax errors) and analyse it."""
    tree = parse(source)
    return analyze_tree(source, tree.root_node, levels)
