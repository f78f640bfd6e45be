"""The labelled lint corpus (tests/corpus/README.md): reading its annotations and case
labels, checking an entry the way a user runs ``offload-ls check``, and comparing.

Used by tests/test_corpus.py (exact agreement) and benchmarks/lint_quality.py (precision
and recall per rule and per ecosystem). Comments are found with tree-sitter (line comment
nodes); only the text inside a comment is matched against the annotation syntax.
"""

from __future__ import annotations

import io
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from offload_ls.cli.check import check_paths
from offload_ls.syntax.parse import parse

CORPUS = Path(__file__).parent / "corpus"

#: ``//~ WARN rule``, ``//~^^ ERROR rule`` (one ``^`` per line up); several per comment.
_ANNOTATION = re.compile(r"//~(\^*)\s*(WARN|ERROR)\s+([a-z_][a-z0-9_]*)")
#: ``//@ case: correct`` / ``//@ case: hazard rule_name``
_CASE = re.compile(r"^//@\s*case:\s*(correct|hazard)(?:\s+([a-z_][a-z0-9_]*))?")

LEVEL_OF = {"WARN": "warn", "ERROR": "deny"}


@dataclass(frozen=True, order=True)
class Expected:
    """One annotated (or reported) finding: file (POSIX path relative to the entry), 1-based
    line of the finding's start, rule, level (``warn`` / ``deny``)."""

    file: str
    line: int
    rule: str
    level: str


@dataclass(frozen=True)
class Case:
    """A ``//@ case:`` label: file, 1-based line, ``correct`` or ``hazard``, the hazard's
    rule (``None`` for correct code), and the line where the next case (or the file) ends."""

    file: str
    line: int
    label: str
    rule: str | None
    end_line: int


@dataclass
class Entry:
    """One corpus entry: a single ``.rs`` file, or a crate directory (its ``.rs`` files)."""

    path: Path
    ecosystem: str
    files: list[Path]
    expected: list[Expected] = field(default_factory=list)
    cases: list[Case] = field(default_factory=list)
    lines: int = 0

    @property
    def name(self) -> str:
        return f"{self.ecosystem}/{self.path.name}"

    def rel(self, file: Path) -> str:
        return file.name if self.path.is_file() else file.relative_to(self.path).as_posix()


def annotations(source: bytes, file: str) -> tuple[list[Expected], list[Case]]:
    """The expected findings and case labels written in ``source``'s line comments.

    Raises:
        ValueError: an annotation points above line 1, or a comment starting ``//~`` /
            ``//@`` is not in the annotation syntax (a typo must not silently drop an
            expectation).
    """
    tree = parse(source)
    expected: list[Expected] = []
    labels: list[tuple[int, str, str | None]] = []
    for node in _line_comments(tree.root_node):
        text = (node.text or b"").decode("utf-8", "replace")
        line = node.start_point[0] + 1
        if text.startswith("//@"):
            m = _CASE.match(text)
            if m is None:
                raise ValueError(f"{file}:{line}: malformed case label: {text!r}")
            if m.group(1) == "hazard" and not m.group(2):
                raise ValueError(f"{file}:{line}: a hazard label names its rule: {text!r}")
            labels.append((line, m.group(1), m.group(2)))
            continue
        found = list(_ANNOTATION.finditer(text))
        if "//~" in text and len(found) != text.count("//~"):
            raise ValueError(f"{file}:{line}: malformed annotation: {text!r}")
        for m in found:
            target = line - len(m.group(1))
            if target < 1:
                raise ValueError(f"{file}:{line}: annotation points above the first line")
            expected.append(Expected(file, target, m.group(3), LEVEL_OF[m.group(2)]))
    total = source.count(b"\n") + 1
    cases = [Case(file, ln, label, rule, labels[i + 1][0] - 1 if i + 1 < len(labels) else total)
             for i, (ln, label, rule) in enumerate(labels)]
    return expected, cases


def _line_comments(root):
    stack = [root]
    while stack:
        n = stack.pop()
        if n.type == "line_comment":
            yield n
            continue
        stack.extend(reversed(n.children))


def load(root: Path = CORPUS) -> list[Entry]:
    """Every entry under ``root``/<ecosystem>/, with its annotations, in name order."""
    entries = []
    for eco in sorted(p for p in root.iterdir() if p.is_dir()):
        for item in sorted(eco.iterdir()):
            if item.is_file() and item.suffix == ".rs":
                files = [item]
            elif item.is_dir() and (item / "Cargo.toml").is_file():
                files = sorted(item.rglob("*.rs"))
            else:
                continue
            entry = Entry(item, eco.name, files)
            for f in files:
                data = f.read_bytes()
                exp, cases = annotations(data, entry.rel(f))
                entry.expected.extend(exp)
                entry.cases.extend(cases)
                entry.lines += data.count(b"\n")
            entries.append(entry)
    return entries


def reported(entry: Entry) -> list[Expected]:
    """What ``offload-ls check <entry>`` reports with default settings, as :class:`Expected`
    records (notices about the run are ignored; a failed analysis raises)."""
    err = io.StringIO()
    result = check_paths([entry.path], stderr=err, cwd=entry.path if entry.path.is_dir() else entry.path.parent)
    if result.failed:
        raise RuntimeError(f"offload-ls check {entry.path} failed:\n{err.getvalue()}")
    out = []
    for fr, f in result.findings:
        loc = fr.location(f.span)
        out.append(Expected(entry.rel(fr.file.absolute), loc.line, f.rule, f.level.value))
    return sorted(out)


@dataclass
class Comparison:
    """Expected vs reported findings of one entry (multisets)."""

    tp: list[Expected]
    fp: list[Expected]
    fn: list[Expected]


def compare(expected: list[Expected], got: list[Expected]) -> Comparison:
    e, g = Counter(expected), Counter(got)
    tp, fp, fn = e & g, g - e, e - g
    return Comparison(sorted(tp.elements()), sorted(fp.elements()), sorted(fn.elements()))


def case_of(entry: Entry, finding: Expected) -> Case | None:
    """The labelled case whose lines hold ``finding``."""
    for c in entry.cases:
        if c.file == finding.file and c.line <= finding.line <= c.end_line:
            return c
    return None
