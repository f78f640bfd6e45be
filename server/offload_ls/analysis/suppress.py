"""``// offload-ls: allow(<rule>, ..)`` suppression comments.

A comment with code before it on its line suppresses findings that start on that line.
A comment on a line of its own suppresses findings inside the next item or statement
(the next sibling node that is not a comment or attribute) — e.g. above a kernel, it
covers the whole kernel.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from tree_sitter import Node

from offload_ls.analysis.model import Finding, Span
from offload_ls.syntax.queries import captures

# The text inside a comment is not Rust syntax, so reading it with a pattern is fine.
_ALLOW = re.compile(r"offload-ls:\s*allow\(\s*([A-Za-z0-9_,\s]*)\)")


@dataclass(frozen=True)
class Suppression:
    """``rules`` are allowed inside ``span`` (byte range). ``comment`` is where it was written."""

    rules: frozenset[str]
    span: Span
    comment: Span

    def covers(self, finding: Finding) -> bool:
        return finding.rule in self.rules and self.span.start <= finding.span.start < self.span.end


@dataclass(frozen=True, slots=True)
class CommentRec:
    """A ``// offload-ls: allow(..)`` comment: its span (UTF-8 bytes), the rules it names,
    and the end of the item or statement it precedes (``None`` if nothing follows it)."""

    start: int
    end: int
    rules: frozenset[str]
    target_end: int | None


def comment_record(comment: Node) -> CommentRec | None:
    """The suppression a comment node holds, ``None`` for any other comment."""
    text = (comment.text or b"").decode("utf-8", errors="replace")
    m = _ALLOW.search(text)
    if not m:
        return None
    rules = frozenset(r.strip() for r in m.group(1).split(",") if r.strip())
    target = comment.next_sibling
    while target is not None and target.type in ("line_comment", "block_comment", "attribute_item"):
        target = target.next_sibling
    return CommentRec(comment.start_byte, comment.end_byte, rules, None if target is None else target.end_byte)


def find_suppressions(root: Node, source: bytes) -> list[Suppression]:
    """All suppression comments of the file with the range each one covers."""
    records = [comment_record(c) for c in captures("suppressions", root).get("comment", [])]
    return suppressions_from(records, source)


def suppressions_from(records, source: bytes) -> list[Suppression]:
    """Suppressions of the comments ``records`` (:class:`CommentRec`, ``None`` entries
    skipped) in the file ``source``: a comment with code before it on its line covers that
    line; one on a line of its own covers the item or statement it precedes."""
    out = []
    for rec in records:
        if rec is None:
            continue
        line_start = source.rfind(b"\n", 0, rec.start) + 1
        if source[line_start : rec.start].strip():
            line_end = source.find(b"\n", rec.end)
            span = Span(line_start, len(source) if line_end == -1 else line_end)
        else:
            if rec.target_end is None:
                continue
            span = Span(rec.start, rec.target_end)
        out.append(Suppression(rec.rules, span, Span(rec.start, rec.end)))
    return out


class SuppressionIndex:
    """Answers "is this finding suppressed?" in O(log n): per rule, the union of the spans
    that suppress it, as sorted disjoint intervals.

    Args:
        suppressions: the file's suppressions."""

    def __init__(self, suppressions: list[Suppression]) -> None:
        by_rule: dict[str, list[tuple[int, int]]] = {}
        for s in suppressions:
            for rule in s.rules:
                by_rule.setdefault(rule, []).append((s.span.start, s.span.end))
        self._starts: dict[str, list[int]] = {}
        self._ends: dict[str, list[int]] = {}
        for rule, spans in by_rule.items():
            merged: list[list[int]] = []
            for a, b in sorted(spans):
                if a >= b:
                    continue  # covers nothing
                if merged and a <= merged[-1][1]:
                    merged[-1][1] = max(merged[-1][1], b)
                else:
                    merged.append([a, b])
            self._starts[rule] = [m[0] for m in merged]
            self._ends[rule] = [m[1] for m in merged]

    def __bool__(self) -> bool:
        return bool(self._starts)

    def covers(self, finding: Finding) -> bool:
        """Some suppression of ``finding.rule`` covers ``finding.span.start``."""
        starts = self._starts.get(finding.rule)
        if not starts:
            return False
        pos = finding.span.start
        i = bisect.bisect_right(starts, pos) - 1
        return i >= 0 and pos < self._ends[finding.rule][i]
