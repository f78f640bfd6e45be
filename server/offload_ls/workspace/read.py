"""Reading a file for analysis, and screening a text before the rules run: one decision for
the CLI, the workspace scan and the editor's documents.

A file is not analysed when it cannot be read, is larger than the size limit, or looks
binary (a NUL byte in the first 8 KiB); invalid UTF-8 is analysed as it is (tree-sitter
parses the bytes; the front ends say that U+FFFD stands for the bad bytes,
:attr:`SourceRead.utf8_note`). A file whose analysis raised is not analysed either
(:func:`analysis_failed`). The outcome is data (:class:`Skip`); each front end words it for
its users (the CLI names its ``--max-file-bytes`` flag, the server its ``maxFileBytes``
setting).

Files a compiler message names (to place its byte spans: a source file, a Cargo.toml) are
read with the same screening and size limit (:func:`read_named`).
"""

from __future__ import annotations

import enum
import traceback as tb
from dataclasses import dataclass, field
from pathlib import Path

from offload_ls.workspace.files import FileTooLarge, looks_binary, read_source

#: The size limit both front ends default to, bytes: the CLI's ``--max-file-bytes`` and the
#: server's ``maxFileBytes`` setting (8 MiB).
DEFAULT_MAX_FILE_BYTES = 8 * 1024 * 1024


class SkipKind(str, enum.Enum):
    """Why a file or text is not analysed."""

    UNREADABLE = "unreadable"
    TOO_LARGE = "too_large"
    BINARY = "binary"
    #: the analysis itself raised (not one rule: those are ``FileAnalysis.failures``)
    ANALYSIS_FAILED = "analysis_failed"


@dataclass(frozen=True)
class Skip:
    """A file or text that is not analysed, and the figures that say why.

    Attributes:
        kind: the reason. size / limit: the file's size and the limit, bytes (``TOO_LARGE``;
            ``size`` is ``None`` when it could not be read). nul_offset: byte offset of the
            first NUL (``BINARY``). error: the system's reason (``UNREADABLE``), or
            ``"<ExceptionType>: <text>"`` (``ANALYSIS_FAILED``; text cut at 200 characters).
        traceback: the formatted traceback (``ANALYSIS_FAILED``; for ``--verbose`` and logs).
    """

    kind: SkipKind
    size: int | None = None
    limit: int | None = None
    nul_offset: int | None = None
    error: str | None = None
    traceback: str = field(default="", compare=False, repr=False)

    @property
    def reason(self) -> str:
        """``analysis failed (<error>)`` for ``ANALYSIS_FAILED``, the system's reason for
        ``UNREADABLE`` (the other kinds: :meth:`describe`)."""
        if self.kind is SkipKind.ANALYSIS_FAILED:
            return f"analysis failed ({self.error})"
        return self.error or "cannot read"

    def describe(self, label: str, limit_name: str = "setting maxFileBytes") -> str:
        """One log line: ``<label>: <why>; not analysed`` (``limit_name``: how the user sets
        the size limit, e.g. ``setting maxFileBytes``)."""
        if self.kind is SkipKind.TOO_LARGE:
            size = f"{self.size} bytes" if self.size is not None else "size unknown"
            return f"{label}: {size}, above the {self.limit}-byte limit ({limit_name}); not analysed"
        if self.kind is SkipKind.BINARY:
            return f"{label}: binary file (NUL byte at offset {self.nul_offset}); not analysed"
        if self.kind is SkipKind.ANALYSIS_FAILED:
            return f"{label}: {self.reason}; not analysed"
        return f"{label}: cannot read: {self.error}; not analysed"


def analysis_failed(exc: BaseException) -> Skip:
    """The :class:`Skip` of a file or text whose analysis raised ``exc`` (the front ends
    catch it around the analysis: one file's failure must not stop the others)."""
    text = str(exc)
    return Skip(SkipKind.ANALYSIS_FAILED,
                error=f"{type(exc).__name__}: {text if len(text) <= 200 else text[:200] + '…'}",
                traceback="".join(tb.format_exception(type(exc), exc, exc.__traceback__)))


@dataclass(frozen=True)
class SourceRead:
    """A file read for analysis: ``source`` (UTF-8 bytes as on disk) when it is to be
    analysed, else ``skip``; ``invalid_utf8_at``: byte offset of the first invalid UTF-8
    sequence of an analysed file, ``None`` when it is valid."""

    path: Path
    source: bytes | None = None
    skip: Skip | None = None
    invalid_utf8_at: int | None = None

    @property
    def utf8_note(self) -> str | None:
        """``invalid UTF-8 at byte offset N; analysed with U+FFFD in its place`` (``None``
        for valid UTF-8): what the front ends say of such a file, after its name."""
        if self.invalid_utf8_at is None:
            return None
        return f"invalid UTF-8 at byte offset {self.invalid_utf8_at}; analysed with U+FFFD in its place"


def screen(source: bytes, max_bytes: int) -> Skip | None:
    """Why ``source`` (a file's or an editor's text) must not be analysed, or ``None``."""
    if len(source) > max_bytes:
        return Skip(SkipKind.TOO_LARGE, size=len(source), limit=max_bytes)
    if looks_binary(source):
        return Skip(SkipKind.BINARY, nul_offset=source.index(b"\0"))
    return None


def invalid_utf8_offset(source: bytes) -> int | None:
    """Byte offset of the first invalid UTF-8 sequence of ``source``, ``None`` if valid."""
    try:
        source.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start
    return None


def read_for_analysis(path: Path, max_bytes: int) -> SourceRead:
    """Read and screen ``path``. Never raises: an unreadable, vanished, too large or
    binary file gives a :class:`SourceRead` with ``skip`` set."""
    try:
        source = read_source(path, max_bytes)
    except FileTooLarge:
        try:
            size = path.stat().st_size
        except OSError:
            size = None
        return SourceRead(path, skip=Skip(SkipKind.TOO_LARGE, size=size, limit=max_bytes))
    except OSError as exc:
        return SourceRead(path, skip=Skip(SkipKind.UNREADABLE, error=str(exc.strerror or exc)))
    skip = screen(source, max_bytes)
    if skip is not None:
        return SourceRead(path, skip=skip)
    return SourceRead(path, source=source, invalid_utf8_at=invalid_utf8_offset(source))


def read_named(path: Path, max_bytes: int) -> bytes | None:
    """The bytes of a file a compiler message names (to place its byte spans, or to find a
    Cargo.toml's ``[package]`` line), screened like a file to analyse: ``None`` when it
    cannot be read, is over ``max_bytes`` or looks binary. Blocking file I/O: the server
    calls it from an executor, never on the event loop's thread."""
    return read_for_analysis(path, max_bytes).source
