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
    loop or a link out of the tree is never walked; a dangling link (Emacs's lock file
    ``.#main.rs`` points at ``user@host.pid``) is no source file and is skipped."""
    if root.is_file():
        yield root
        return
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for name in sorted(filenames):
            if not name.endswith(".rs"):
                continue
            path = Path(dirpath) / name
            if path.is_symlink() and not path.exists():
                continue
            yield path


def real_path(path: Path | str) -> Path:
    """``path`` with every symbolic link resolved, as far as they resolve.

    Never raises: ``Path.resolve()`` raises ``RuntimeError`` on a symlink loop (Python
    3.11) and ``ValueError`` on an embedded NUL; here a loop stays where it loops (reading
    it then fails with ``ELOOP``, which callers report) and an invalid path is returned
    as it is (absolute, normalised)."""
    try:
        return Path(os.path.realpath(path))
    except (OSError, ValueError):
        return Path(os.path.abspath(path))


def within(path: Path, root: Path) -> bool:
    """True if ``path``, links resolved, is ``root`` or below it (links in ``root``
    resolved too). Never raises."""
    real, top = real_path(path), real_path(root)
    return real == top or top in real.parents


def is_ignored(path: Path, root: Path) -> bool:
    """True if ``path`` lies in a skipped directory below ``root``, outside ``root`` (also
    through a symbolic link), or is reached through a link to a directory (which
    :func:`rust_files` never walks: such a path is an alias, and a link loop gives
    endless ones). Never raises (see :func:`real_path`)."""
    try:
        rel = real_path(path).relative_to(real_path(root))
    except ValueError:
        return True
    if any(part in SKIP_DIRS for part in rel.parts[:-1]):
        return True
    try:
        lexical = Path(os.path.abspath(path)).relative_to(os.path.abspath(root))
    except (ValueError, TypeError):
        return False
    d = Path(os.path.abspath(root))
    for part in lexical.parts[:-1]:
        d = d / part
        if d.is_symlink():
            return True
    return False


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
