"""Analysing files on disk: the workspace scan at ``initialized`` and single files the
watcher reports.

Bad input never stops the scan (issue: "Bad input never crashes the server"): each file
is screened first and a skipped or degraded file produces exactly one log line —

- unreadable (vanished, permissions): ``<path>: cannot read: <reason>; not analysed``;
- larger than ``maxFileBytes`` (``... bytes, above the ...-byte limit (setting maxFileBytes); not analysed``);
- a NUL byte in the first 8 KiB (:func:`~offload_ls.workspace.files.looks_binary`):
  ``<path>: binary file (NUL byte at offset N); not analysed``;
- invalid UTF-8: ``<path>: invalid UTF-8 at byte offset N; analysed with U+FFFD in its
  place`` (tree-sitter parses the bytes as they are, so findings still come out).

The functions here run in worker threads: they do file I/O and call the (pure) analysis,
and return plain results that the event-loop thread turns into notifications.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from offload_ls.analysis.engine import FileAnalysis, analyze_source
from offload_ls.analysis.model import Level
from offload_ls.lsp.notices import analysis_failed_message, invalid_utf8_message, skip_message
from offload_ls.syntax.text import LineIndex
from offload_ls.workspace.files import is_ignored, rust_files
from offload_ls.workspace.read import read_for_analysis

#: Files analysed per worker-thread job during a workspace scan; between batches the
#: event loop publishes results and answers requests.
BATCH_SIZE = 16


@dataclass
class DiskResult:
    """The outcome for one file on disk.

    Attributes:
        path: the file. analysis / index: the findings and the file's LineIndex (``None``
        when the file was not analysed). messages: log lines for the client.
    """

    path: Path
    analysis: FileAnalysis | None = None
    index: LineIndex | None = None
    messages: list[str] = field(default_factory=list)


def analyze_file(path: Path, max_bytes: int, levels: dict[str, Level], crates=None) -> DiskResult:
    """Read, screen (workspace/read.py) and analyse one file, with the rest of its crate when
    ``crates`` (workspace/crates.py ``CrateIndexes``) is given. Never raises (a crash in the
    analysis is reported as a log line)."""
    result = DiskResult(path)
    read = read_for_analysis(path, max_bytes)
    if read.skip is not None:
        result.messages.append(skip_message(read.skip, str(path)))
        return result
    source = read.source
    note = invalid_utf8_message(str(path), read)
    if note is not None:
        result.messages.append(note)
    try:
        crate = crates.view(path) if crates is not None else None
        result.analysis = analyze_source(source, levels, crate=crate)
    except Exception as exc:  # noqa: BLE001 - one bad file must not stop the scan
        result.messages.append(analysis_failed_message(str(path), exc))
        return result
    result.index = LineIndex(source)
    return result


def analyze_batch(paths: Iterable[Path], max_bytes: int,
                  levels_for: Callable[[Path], dict[str, Level]], crates=None) -> list[DiskResult]:
    """:func:`analyze_file` for each path (run in a worker thread)."""
    out = []
    for p in paths:
        try:
            levels = levels_for(p)
        except Exception:  # noqa: BLE001 - a broken Cargo.toml reader: use defaults
            levels = {}
        out.append(analyze_file(p, max_bytes, levels, crates))
    return out


def workspace_rust_files(roots: Iterable[Path]) -> list[Path]:
    """Every ``.rs`` file under the workspace folders, skipping ``target/`` and the other
    :data:`~offload_ls.workspace.files.SKIP_DIRS`, and symlinks that lead out of their
    folder (run in a worker thread: it walks the file system)."""
    seen: set[Path] = set()
    out = []
    for root in roots:
        if not root.is_dir():
            continue
        for p in rust_files(root):
            if p in seen or is_ignored(p, root):
                continue
            seen.add(p)
            out.append(p)
    return out


def batches(items: list, size: int = BATCH_SIZE):
    """Consecutive slices of ``items`` of at most ``size`` elements."""
    for i in range(0, len(items), size):
        yield items[i:i + size]
