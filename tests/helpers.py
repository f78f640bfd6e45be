"""Shared test helpers: run the analysis on a snippet and express findings as exact
1-based (line, column, end line, end column, message) tuples, columns in code points."""

from __future__ import annotations

import textwrap

from offload_ls.analysis.engine import analyze_source
from offload_ls.analysis.model import Finding, Level
from offload_ls.syntax.text import LineIndex


def dedent(src: str) -> str:
    return textwrap.dedent(src).lstrip("\n")


def located(src: str, findings) -> list[tuple[int, int, int, int, str]]:
    index = LineIndex(src.encode())
    out = []
    for f in findings:
        l1, c1 = index.position(f.span.start, "utf-32")
        l2, c2 = index.position(f.span.end, "utf-32")
        out.append((l1 + 1, c1 + 1, l2 + 1, c2 + 1, f.message))
    return out


def findings_of(src: str, rule: str, levels: dict[str, Level] | None = None) -> list[Finding]:
    """Findings of ``rule`` only, for ``src`` (a str; encoded as UTF-8)."""
    return [f for f in analyze_source(src.encode(), levels).findings if f.rule == rule]


def lint(src: str, rule: str) -> list[tuple[int, int, int, int, str]]:
    """``rule``'s findings in ``src`` as (line, col, end_line, end_col, message), 1-based."""
    return located(src, findings_of(src, rule))


def span_text(src: str, finding: Finding) -> str:
    return src.encode()[finding.span.start : finding.span.end].decode()


def doc_rust_blocks(rule: str) -> list[str]:
    """The ```rust code blocks of ``docs/rules/<rule>.md``, in order."""
    from offload_ls.resources import rule_doc_path

    text = rule_doc_path(rule).read_text(encoding="utf-8")
    return [block.split("```")[0] for block in text.split("```rust\n")[1:]]
