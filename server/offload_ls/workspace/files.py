"""Finding a workspace's Rust sources and reading them safely."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path

#: Directories never scanned: build output and VCS/editor state.
SKIP_DIRS = frozenset({"target", ".git", "node_modules", ".hg", ".svn", "offload-build"})


def rust_files(root: Path) -> Iterator[Path]:
    """``.rs`` files under ``root`` (a directory, or anything else returned as is), sorted,
    skipping :data:`SKIP_DIRS`. Symbolic links to directories are not followed, so a link
    loop or a link out of the tree is never walked (a dangling link or a link loop is
    yielded: reading it fails, which callers report). Editors' lock files (Emacs's
    ``.#main.rs``, a dangling link to ``user@host.pid``) are no source files: skipped."""
    if not root.is_dir():
        yield root  # a file named on purpose (reading a FIFO or a device is refused later)
        return
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for name in sorted(filenames):
            if name.endswith(".rs") and not is_lock_file(name):
                yield Path(dirpath) / name


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


def is_lock_file(name: str) -> bool:
    """An editor's lock file (Emacs: ``.#main.rs``, a link to ``user@host.pid``)."""
    return name.startswith(".#")


def is_ignored(path: Path, root: Path) -> bool:
    """True if ``path`` is an editor's lock file (:func:`is_lock_file`), lies in a skipped
    directory below ``root``, outside ``root`` (also
    through a symbolic link), or is reached through a link to a directory (which
    :func:`rust_files` never walks: such a path is an alias, and a link loop gives
    endless ones). Never raises (see :func:`real_path`)."""
    if is_lock_file(os.path.basename(path)):
        return True
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
        OSError: unreadable or vanished, or not a regular file (a FIFO or a device, whose
            read could block for ever: ``strerror`` "not a regular file").
    """
    # O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        if st.st_size > max_bytes:
            raise FileTooLarge(f"{path}: {st.st_size} bytes, above the {max_bytes}-byte limit "
                               f"(setting maxFileBytes); not analysed")
        return f.read()


#: bytes of a file's start searched for a NUL byte (:func:`looks_binary`)
BINARY_PROBE_BYTES = 8192


def looks_binary(data: bytes) -> bool:
    """Heuristic for non-text files: a NUL byte in the first 8 KiB."""
    return b"\x00" in data[:BINARY_PROBE_BYTES]
