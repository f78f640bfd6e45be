"""``offload-ls check``: find the ``.rs`` files under the given paths, work out each file's
rule levels and analyse it, collecting findings and problems for a renderer.

Rule levels, lowest precedence first: each rule's default < the crate's Cargo.toml
(``[workspace.metadata.offload-ls]`` then ``[package.metadata.offload-ls]``, read by
:func:`offload_ls.workspace.cargo.load_cargo_config`) < ``--warn/--deny/--allow`` on the
command line, the later flag winning as with clippy's ``-W/-D/-A``.

A problem with one file (unreadable, binary, too large, an analysis failure) is reported
and the other files are still checked; a file with invalid UTF-8 is checked, with a note.
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, TextIO

from offload_ls.analysis.engine import FileAnalysis, analyze_tree
from offload_ls.analysis.model import Finding, Level, Span
from offload_ls.syntax.text import LineIndex
from offload_ls.workspace.cargo import CargoConfig, load_cargo_config
from offload_ls.workspace.crates import CrateIndexes
from offload_ls.workspace.files import rust_files
from offload_ls.workspace.read import DEFAULT_MAX_FILE_BYTES, Skip, SkipKind, analysis_failed, read_for_analysis

#: Exit statuses of ``check`` (and of usage errors in every command).
EXIT_OK = 0
EXIT_DENIED = 1
EXIT_ERROR = 2

#: Show a progress counter on a terminal's stderr when there are more files than this.
PROGRESS_MIN_FILES = 200


@dataclass(frozen=True)
class Location:
    """A range as 1-based lines and 1-based columns in Unicode code points (as rustc
    prints them); ``end_column`` is the column just after the last character."""

    line: int
    column: int
    end_line: int
    end_column: int


#: how much a notice matters: ``error`` makes the exit status 2
NoticeLevel = Literal["error", "warning", "note"]


@dataclass(frozen=True)
class Notice:
    """A message about the run rather than about the code: an unreadable path, a skipped
    file, a bad Cargo.toml setting, an analysis failure.

    Attributes:
        level: ``"error"`` (makes the exit status 2), ``"warning"`` or ``"note"``.
        text: the message. file: the file it is about, if any.
    """

    level: NoticeLevel
    text: str
    file: "SourcePath | None" = None
    skipped: bool = False

    def line(self) -> str:
        """The stderr line: ``offload-ls: <level>: [<path>: ]<text>``."""
        where = f"{self.file.display}: " if self.file is not None else ""
        return f"offload-ls: {self.level}: {where}{self.text}"


@dataclass(frozen=True)
class SourcePath:
    """A file's path as the user should see it.

    Attributes:
        path: the path as found (possibly relative to the current directory).
        absolute: the absolute path (symbolic links not resolved).
        relative: POSIX path relative to the current directory when the file lies below
            it, else ``None``.
    """

    path: Path
    absolute: Path
    relative: str | None

    @classmethod
    def of(cls, path: Path, cwd: Path) -> "SourcePath":
        absolute = Path(os.path.abspath(path))
        relative = None
        for p, base in ((absolute, cwd), (absolute.resolve(), cwd.resolve())):
            try:
                relative = p.relative_to(base).as_posix()
                break
            except ValueError:
                continue
        return cls(path, absolute, relative)

    @property
    def display(self) -> str:
        """Relative path when below the current directory, else the absolute path; bytes
        that are not valid UTF-8 and control characters in a file name are shown as
        ``\\xNN`` escapes (:func:`_printable`)."""
        text = self.relative if self.relative is not None else self.absolute.as_posix()
        return _printable(text)


_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _printable(text: str) -> str:
    """``text`` (a file name) safe to print on one line of a terminal: bytes that are not
    UTF-8 (lone surrogates from ``surrogateescape``) and control characters (a newline,
    ESC, C1 controls) as ``\\xNN`` / ``\\n`` escapes, so a name can neither break the
    ``file:line:col`` format nor send escape sequences to the terminal."""
    if text.isprintable():
        return text
    out = []
    for ch in text:
        o = ord(ch)
        if 0xDC80 <= o <= 0xDCFF:
            out.append(f"\\x{o - 0xDC00:02x}")
        elif ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif o < 0x20 or 0x7F <= o < 0xA0:
            out.append(f"\\x{o:02x}")
        else:
            out.append(ch)
    return "".join(out)


@dataclass
class FileReport:
    """One analysed file: its bytes, findings (sorted by span) and position index;
    ``analysis``: the analysis the findings came from (kept for ``--compile`` only)."""

    file: SourcePath
    source: bytes
    findings: tuple[Finding, ...]
    analysis: FileAnalysis | None = field(default=None, repr=False, compare=False)
    _index: LineIndex | None = field(default=None, repr=False)

    @property
    def index(self) -> LineIndex:
        if self._index is None:
            self._index = LineIndex(self.source)
        return self._index

    def location(self, span: Span) -> Location:
        """1-based :class:`Location` of a UTF-8 byte ``span``, columns in code points."""
        l1, c1 = self.index.position(span.start, "utf-32")
        l2, c2 = self.index.position(span.end, "utf-32")
        return Location(l1 + 1, c1 + 1, l2 + 1, c2 + 1)


@dataclass
class CheckReport:
    """Everything ``check`` found, in the order files were checked.

    Attributes:
        files: analysed files (including those without findings).
        notices: problems and skipped files, in the order they happened.
        cwd: the directory relative paths (and SARIF's ``%SRCROOT%``) refer to.
        transfer_plans: what the host pass's IR says each kernel's launch copies.
    """

    files: list[FileReport] = field(default_factory=list)
    notices: list[Notice] = field(default_factory=list)
    cwd: Path = field(default_factory=Path.cwd)
    #: crate directory -> (package name, kernel -> compiled transfer plan) (``--compile`` only)
    transfer_plans: dict[Path, tuple[str, dict]] = field(default_factory=dict)

    @property
    def findings(self) -> list[tuple[FileReport, Finding]]:
        return [(fr, f) for fr in self.files for f in fr.findings]

    def count(self, level: Level) -> int:
        return sum(1 for _, f in self.findings if f.level is level)

    @property
    def skipped(self) -> int:
        """Number of files not analysed on purpose (binary, too large)."""
        return sum(1 for n in self.notices if n.skipped)

    @property
    def failed(self) -> bool:
        """True if a path, a file or its analysis failed (exit status 2)."""
        return any(n.level == "error" for n in self.notices)

    @property
    def exit_status(self) -> int:
        """2 if something failed, else 1 if a ``deny``-level finding exists, else 0."""
        if self.failed:
            return EXIT_ERROR
        if self.count(Level.DENY):
            return EXIT_DENIED
        return EXIT_OK


def check_paths(
    paths: Sequence[str | Path],
    overrides: Mapping[str, Level] | None = None,
    *,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
    verbose: bool = False,
    stderr: TextIO | None = None,
    cwd: Path | None = None,
    keep_analyses: bool = False,
) -> CheckReport:
    """Check every ``.rs`` file under ``paths``.

    Args:
        paths: files (checked whatever their extension) and directories (every ``.rs``
            file below them, skipping ``target/`` and VCS directories, see
            :func:`offload_ls.workspace.files.rust_files`). Each file is checked once.
        overrides: rule -> level from the command line, above Cargo.toml and defaults.
        max_file_bytes: larger files are skipped with a note (bytes).
        verbose: include tracebacks of analysis failures in the notices.
        stderr: where notices are written as they happen (default ``sys.stderr``).
        cwd: the directory shown paths are relative to (default: the current directory;
            relative ``paths`` are always opened from the current directory).
        keep_analyses: keep each file's analysis in its report (``--compile`` reads the
            launches and kernels, with the crate view and levels the findings came from).

    Never raises for a bad path or file: each becomes a :class:`Notice`.
    """
    err = stderr if stderr is not None else sys.stderr
    result = CheckReport(cwd=cwd or Path.cwd())
    seen_notices: set[str] = set()
    progress = _Progress(err, 0)

    def report(notice: Notice) -> None:
        line = notice.line()
        if line in seen_notices:
            return  # e.g. the same Cargo.toml problem for every file of a crate
        seen_notices.add(line)
        result.notices.append(notice)
        progress.clear()
        _write(err, line + "\n")

    files = _collect(paths, result.cwd, report)
    progress = _Progress(err, len(files))
    configs: dict[Path, CargoConfig] = {}
    crates = CrateIndexes(lambda: max_file_bytes, keep_trees=True)
    try:
        for n, src in enumerate(files, 1):
            progress.show(n)
            levels = _levels_for(src, configs, overrides or {}, report, result.cwd)
            fr = _check_file(src, levels, max_file_bytes, report, crates, verbose)
            if fr is not None:
                if not keep_analyses:
                    fr.analysis = None
                result.files.append(fr)
    finally:
        progress.clear()
    return result


def _collect(paths: Sequence[str | Path], cwd: Path, report: Callable[[Notice], None]) -> list[SourcePath]:
    """The files to check, in argument order, each once (by resolved path)."""
    out: list[SourcePath] = []
    seen: set[Path] = set()
    for raw in paths:
        path = Path(raw)
        if path.name == "Cargo.toml" and path.is_file():
            path = path.parent  # the crate, as `build` and `run` take it
        if not path.exists():
            report(Notice("error", f"{_printable(str(raw))}: {os.strerror(errno.ENOENT)}"))
            continue
        if path.is_dir() and not os.access(path, os.R_OK | os.X_OK):
            report(Notice("error", f"{_printable(str(raw))}: {os.strerror(errno.EACCES)}"))
            continue
        found = 0
        try:
            for f in rust_files(path):
                found += 1
                key = f.resolve()
                if key not in seen:
                    seen.add(key)
                    out.append(SourcePath.of(f, cwd))
        except OSError as exc:
            report(Notice("error", f"{_printable(str(raw))}: {exc.strerror or exc}"))
            continue
        if found == 0 and path.is_dir():
            report(Notice("warning", f"{_printable(str(raw))}: no .rs files found"))
    return out


def _levels_for(src: SourcePath, configs: dict[Path, CargoConfig], overrides: Mapping[str, Level],
                report: Callable[[Notice], None], cwd: Path) -> dict[str, Level]:
    """Cargo.toml levels of the file's crate (read once per directory), then ``overrides``."""
    directory = src.absolute.parent
    cfg = configs.get(directory)
    if cfg is None:
        cfg = load_cargo_config(directory)
        configs[directory] = cfg
        for problem in cfg.problems:
            report(Notice("warning", _printable(_relative_manifest(problem, cwd))))
    return {**cfg.levels, **overrides}


def _relative_manifest(problem: str, cwd: Path) -> str:
    """Show the Cargo.toml path a problem starts with (``/abs/Cargo.toml: ...``) the way
    source paths are shown: relative to ``cwd`` when below it."""
    head, sep, rest = problem.partition(": ")
    if not sep or not head.endswith("Cargo.toml"):
        return problem
    return f"{SourcePath.of(Path(head), cwd).display}: {rest}"


def _check_file(src: SourcePath, levels: Mapping[str, Level], max_file_bytes: int,
                report: Callable[[Notice], None], crates: CrateIndexes | None = None,
                verbose: bool = False) -> FileReport | None:
    read = read_for_analysis(src.path, max_file_bytes)
    if read.skip is not None:
        report(_skip_notice(read.skip, src, verbose))
        return None
    if read.utf8_note is not None:
        report(Notice("note", read.utf8_note, src))
    data = read.source
    try:
        crates = crates or CrateIndexes(lambda: max_file_bytes, keep_trees=True)
        crate = crates.view(src.path)
        tree = crates.take_tree(src.path, data)
        analysis = analyze_tree(data, tree.root_node, levels, crate=crate)
    except Exception as exc:  # noqa: BLE001 - one file's failure must not stop the others
        report(_skip_notice(analysis_failed(exc), src, verbose))
        return None
    for failure in analysis.failures:  # a rule that raised: its findings are missing
        report(Notice("error", failure.message + _trace(failure.traceback, verbose), src))
    return FileReport(src, data, analysis.findings, analysis)


def _trace(traceback: str, verbose: bool) -> str:
    """A failure's traceback on the lines after its notice (``--verbose`` only)."""
    return "\n" + traceback.rstrip() if verbose and traceback else ""


def _skip_notice(skip: Skip, src: SourcePath, verbose: bool = False) -> Notice:
    """The notice of a file not analysed (workspace/read.py), worded for the command line."""
    if skip.kind is SkipKind.TOO_LARGE:
        size = f"{skip.size} bytes" if skip.size is not None else "size unknown"
        return Notice("note", f"skipped: file too large ({size}; the limit is {skip.limit} bytes, "
                              f"see --max-file-bytes)", src, skipped=True)
    if skip.kind is SkipKind.BINARY:
        return Notice("note", "skipped: binary file (a NUL byte in the first 8 KiB)", src, skipped=True)
    return Notice("error", skip.reason + _trace(skip.traceback, verbose), src)


class _Progress:
    """``[n/total]`` on a terminal's stderr for long runs (nothing otherwise)."""

    def __init__(self, stream: TextIO, total: int) -> None:
        isatty = getattr(stream, "isatty", None)
        self.stream = stream
        self.total = total
        self.enabled = total > PROGRESS_MIN_FILES and bool(isatty and isatty())
        self.shown = False

    def show(self, n: int) -> None:
        if self.enabled and (n == 1 or n % 25 == 0 or n == self.total):
            _write(self.stream, f"\rchecking [{n}/{self.total}]")
            self.shown = True

    def clear(self) -> None:
        if self.shown:
            _write(self.stream, "\r\x1b[K")
            self.shown = False


def _write(stream: TextIO, text: str) -> None:
    """Write ``text``, escaping what the stream's encoding cannot represent."""
    try:
        stream.write(text)
    except UnicodeEncodeError:
        enc = getattr(stream, "encoding", None) or "ascii"
        stream.write(text.encode(enc, "backslashreplace").decode(enc))
    stream.flush()
