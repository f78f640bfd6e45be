"""Reading a file for analysis, and screening a text before the rules run: one decision for
the CLI, the workspace scan and the editor's documents.

A file is not analysed when it cannot be read, is larger than the size limit, or looks
binary (a NUL byte in the first 8 KiB); invalid UTF-8 is analysed as it is (tree-sitter
parses the bytes; the front ends say that U+FFFD stands for the bad bytes). The outcome is
data (:class:`Skip`); each front end words it for its users (the CLI names its
``--max-file-bytes`` flag, the server its ``maxFileBytes`` setting).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from pathlib import Path

from offload_ls.workspace.files import FileTooLarge, looks_binary, read_source


class SkipKind(str, enum.Enum):
    """Why a file or text is not analysed."""

    UNREADABLE = "unreadable"
    TOO_LARGE = "too_large"
    BINARY = "binary"


@dataclass(frozen=True)
class Skip:
    """A file or text that is not analysed, and the figures that say why.

    Attributes:
        kind: the reason. size / limit: the file's size and the limit, bytes (``TOO_LARGE``;
            ``size`` is ``None`` when it could not be read). nul_offset: byte offset of the
            first NUL (``BINARY``). error: the system's reason (``UNREADABLE``).
    """

    kind: SkipKind
    size: int | None = None
    limit: int | None = None
    nul_offset: int | None = None
    error: str | None = None

    def describe(self, label: str, limit_name: str = "setting maxFileBytes") -> str:
        """One log line: ``<label>: <why>; not analysed`` (``limit_name``: how the user sets
        the size limit, e.g. ``setting maxFileBytes``)."""
        if self.kind is SkipKind.TOO_LARGE:
            size = f"{self.size} bytes" if self.size is not None else "size unknown"
            return f"{label}: {size}, above the {self.limit}-byte limit ({limit_name}); not analysed"
        if self.kind is SkipKind.BINARY:
            return f"{label}: binary file (NUL byte at offset {self.nul_offset}); not analysed"
        return f"{label}: cannot read: {self.error}; not analysed"


@dataclass(frozen=True)
class SourceRead:
    """A file read for analysis: ``source`` (UTF-8 bytes as on disk) when it is to be
    analysed, else ``skip``; ``invalid_utf8_at``: byte offset of the first invalid UTF-8
    sequence of an analysed file, ``None`` when it is valid."""

    path: Path
    source: bytes | None = None
    skip: Skip | None = None
    invalid_utf8_at: int | None = None


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
