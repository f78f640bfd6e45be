"""``// offload-ls: allow(<rule>, ..)`` suppression comments.

A comment with code before it on its line suppresses findings that start on that line.
A comment on a line of its own suppresses findings inside the next item or statement
(the next sibling node that is not a comment or attribute) — e.g. above a kernel, it
covers the whole kernel.
"""

from __future__ import annotations

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


def find_suppressions(root: Node, source: bytes) -> list[Suppression]:
    """All suppression comments of the file with the range each one covers."""
    out = []
    for comment in captures("suppressions", root).get("comment", []):
        text = (comment.text or b"").decode("utf-8", errors="replace")
        m = _ALLOW.search(text)
        if not m:
            continue
        rules = frozenset(r.strip() for r in m.group(1).split(",") if r.strip())
        line_start = source.rfind(b"\n", 0, comment.start_byte) + 1
        if source[line_start : comment.start_byte].strip():
            line_end = source.find(b"\n", comment.end_byte)
            span = Span(line_start, len(source) if line_end == -1 else line_end)
        else:
            target = comment.next_sibling
            while target is not None and target.type in ("line_comment", "block_comment", "attribute_item"):
                target = target.next_sibling
            if target is None:
                continue
            span = Span(comment.start_byte, target.end_byte)
        out.append(Suppression(rules, span, Span(comment.start_byte, comment.end_byte)))
    return out
