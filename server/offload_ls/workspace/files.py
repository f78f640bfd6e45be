"""Finding a workspace's Rust sources and reading them safely."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

#: Directories never scanned: build output and VCS/editor state.
SKIP_DIRS = frozenset({"target", ".git", "node_modules", ".hg", ".svn", "offload-build"})


def rust_files(root: Path) -> Iterator[Path]:
    """``.rs`` files under ``root`` (a directory, or a file returned as is), sorted,
    skipping :data:`SKIP_DIRS`. Symbolic links to directories are not followed, so a link
    loop or a link out of the tree is never walked."""
    if root.is_file():
        yield root
        return
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for name in sorted(filenames):
            if name.endswith(".rs"):
                yield Path(dirpath) / name


def is_ignored(path: Path, root: Path) -> bool:
    """True if ``path`` lies in a skipped directory below ``root`` or outside ``root``."""
    try:
        rel = path.resolve().relative_to(root.resolve())
    except ValueError:
        return True
    return any(part in SKIP_DIRS for part in rel.parts[:-1])


class FileTooLarge(Exception):
    """The file exceeds the configured size limit (``maxFileBytes``)."""


def read_source(path: Path, max_bytes: int) -> bytes:
    """Read a source file's bytes.

    Raises:
        FileTooLarge: larger than ``max_bytes``.
        OSError: unreadable or vanished.
    """
    size = path.stat().st_size
    if size > max_bytes:
        raise FileTooLarge(f"{path}: {size} bytes, above the {max_bytes}-byte limit (setting maxFileBytes); not analysed")
    return path.read_bytes()


def looks_binary(data: bytes) -> bool:
    """Heuristic for non-text files: a NUL byte in the first 8 KiB."""
    return b"\x00" in data[:8192]
