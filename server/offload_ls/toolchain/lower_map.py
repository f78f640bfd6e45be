"""From the lowered copy back to the user's files (toolchain/lower.py): compiler diagnostics
and listing lines of the generated copy moved to the bytes, lines and columns they came from
(:class:`~offload_ls.toolchain.lower_emit.SourceMap`), and the lowering's own issues as
compiler diagnostics."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from offload_ls.syntax.text import LineIndex
from offload_ls.toolchain.diagnostics import CompilerDiagnostic, Replacement, SpanRef
from offload_ls.toolchain.lower_emit import SourceMap
from offload_ls.toolchain.lower_scan import MAX_FILE_BYTES
from offload_ls.workspace.files import FileTooLarge, read_source

if TYPE_CHECKING:
    from offload_ls.toolchain.lower import Lowering


def _line_col(index: LineIndex, offset: int) -> tuple[int, int]:
    """rustc's 1-based (line, column in characters) of UTF-8 byte ``offset``."""
    line, column = index.position(offset, "utf-32")
    return line + 1, column + 1


def map_span(low: Lowering, span: SpanRef) -> SpanRef:
    """``span`` in the generated copy -> the same place in the user's file (other files as is)."""
    smap = low.maps.get(span.file)
    original = low.original_path(span.file)
    if smap is None:
        return SpanRef(original, span.start, span.end, span.line, span.column, span.end_line, span.end_column)
    start, end = smap.span_to_original(span.start, span.end)
    (l0, c0), (l1, c1) = _line_col(smap.original_index, start), _line_col(smap.original_index, end)
    return SpanRef(original, start, end, l0, c0, l1, c1)


def map_diagnostics(low: Lowering, diags: list[CompilerDiagnostic]) -> list[CompilerDiagnostic]:
    """Compiler diagnostics of the generated copy with every span moved to the user's files
    (fixes whose replacement lands in generated text are dropped: they would edit the wrong
    bytes)."""
    out = []
    for d in diags:
        m = CompilerDiagnostic(list(d.passes), d.level, d.message, map_span(low, d.span) if d.span else None,
                               d.code, [(map_span(low, s), t) for s, t in d.related], list(d.notes))
        exact = all(low.maps.get(r.span.file) is None or _exact(low.maps[r.span.file], r.span) for r in d.fixes)
        if exact:
            m.fixes = [Replacement(map_span(low, r.span), r.text) for r in d.fixes]
        out.append(m)
    return out


def _exact(smap: SourceMap, span: SpanRef) -> bool:
    return any(g0 <= span.start and span.end <= g1 and exact for g0, g1, _, _, exact in smap.segments)


def issue_diagnostics(low: Lowering) -> list[CompilerDiagnostic]:
    """The lowering's own findings as compiler diagnostics of pass ``lowering``."""
    out = []
    indexes: dict[Path, LineIndex | None] = {}
    for i in low.issues:
        if i.file not in indexes:  # each file read once (an issue may be on Cargo.toml)
            try:
                indexes[i.file] = LineIndex(read_source(i.file, MAX_FILE_BYTES))
            except (OSError, FileTooLarge):
                indexes[i.file] = None
        index = indexes[i.file]
        (l0, c0), (l1, c1) = (_line_col(index, i.start), _line_col(index, i.end)) if index else ((1, 1), (1, 1))
        out.append(CompilerDiagnostic(["lowering"], i.level, i.message,
                                      SpanRef(i.file, i.start, i.end, l0, c0, l1, c1)))
    return out


class LineMapper:
    """Lines of the generated copy -> lines of the user's files, for listings whose debug
    info names the copy (the assembly view); positions from the lowering's own bytes."""

    def __init__(self, low: Lowering) -> None:
        self.low = low
        self._memo: dict[tuple[Path, int], tuple[Path, int]] = {}

    def map(self, path: Path, line: int) -> tuple[Path, int]:
        """(file, 1-based line) of the copy -> the user's; other files unchanged."""
        key = (path, line)
        if key not in self._memo:
            self._memo[key] = self._map(path, line)
        return self._memo[key]

    def _map(self, path: Path, line: int) -> tuple[Path, int]:
        smap = self.low.maps.get(path)
        original = self.low.original_path(path)
        gen = smap.generated_index if smap is not None else None
        if gen is None or not 1 <= line <= gen.line_count:
            return original, line
        start, end = gen.line_start(line - 1), gen.line_end(line - 1)
        text = smap.generated_source[start:end]
        offset = start + len(text) - len(text.lstrip())  # the line's first token, not its indentation
        o0, _ = smap.to_original(offset)
        return original, smap.original_index.line_of(o0) + 1
