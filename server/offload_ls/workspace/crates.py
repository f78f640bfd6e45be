"""Which files form a crate: the directory of the nearest ``Cargo.toml`` above a file, and
the ``.rs`` files below it that do not belong to a nested crate.

The analysis layer's crate index (analysis/crate_index.py) is built from these files, so
that a kernel defined in one file and launched from another, or a constant defined
elsewhere, is understood the way the compiler understands it. A file with no ``Cargo.toml``
above it is a crate of its own.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from offload_ls.analysis.context import file_facts
from offload_ls.analysis.crate_index import CrateIndex, CrateView, FileItems, file_items
from offload_ls.syntax.parse import parse
from offload_ls.workspace.files import SKIP_DIRS
from offload_ls.workspace.read import read_for_analysis

#: Most ``.rs`` files read for one crate's index (a directory tree that is not really one
#: crate, such as a home directory with a stray Cargo.toml, stays bounded).
MAX_CRATE_FILES = 5000


def crate_root(file: Path) -> Path | None:
    """The directory of the nearest ``Cargo.toml`` at or above ``file``'s directory, or
    ``None``. Never raises."""
    try:
        d = Path(os.path.abspath(file)).parent
    except (OSError, ValueError):
        return None
    for candidate in (d, *d.parents):
        try:
            if (candidate / "Cargo.toml").is_file():
                return candidate
        except OSError:
            return None
    return None


def crate_files(root: Path) -> list[Path]:
    """The ``.rs`` files of the crate at ``root``, sorted: everything below it except build
    output and VCS directories (workspace/files.py ``SKIP_DIRS``) and directories holding
    a ``Cargo.toml`` of their own (nested crates); directory links are not followed.
    At most :data:`MAX_CRATE_FILES`."""
    out: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        keep = []
        for d in sorted(dirnames):
            if d in SKIP_DIRS:
                continue
            if os.path.isfile(os.path.join(dirpath, d, "Cargo.toml")):
                continue  # a nested crate
            keep.append(d)
        dirnames[:] = keep
        for name in sorted(filenames):
            if name.endswith(".rs"):
                out.append(Path(dirpath) / name)
                if len(out) >= MAX_CRATE_FILES:
                    return out
    return out


class CrateIndexes:
    """The crate index (analysis/crate_index.py) of every crate the server has seen,
    thread-safe: files are read from disk when a crate is first needed; open documents
    then replace their file's items with those of the editor's text.

    Args:
        max_file_bytes: ``() -> int``, the current size limit (setting maxFileBytes);
            larger files are left out of the index.
        keep_trees: keep each file's (bytes, tree) as read for the index, for
            :meth:`take_tree` (the CLI analyses the same files next; the server does not).
    """

    def __init__(self, max_file_bytes, keep_trees: bool = False) -> None:
        self._max = max_file_bytes
        self._lock = threading.Lock()
        self._indexes: dict[Path, CrateIndex] = {}
        self._trees: dict[str, tuple[bytes, object]] | None = {} if keep_trees else None

    def take_tree(self, path: Path, data: bytes):
        """The tree parsed for the index when the file's bytes were ``data`` (then
        forgotten), else a new parse of ``data``."""
        found = self._trees.pop(os.path.abspath(path), None) if self._trees is not None else None
        if found is not None and found[0] == data:
            return found[1]
        return parse(data)

    def _index_of(self, path: Path | None) -> CrateIndex | None:
        """The index of ``path``'s crate (read on first use); None outside a crate."""
        root = crate_root(path) if path is not None else None
        return self._index(root) if root is not None else None

    def view(self, path: Path | None, own_items_follow: bool = False) -> CrateView | None:
        """The rest of ``path``'s crate as a ``CrateView``; ``None`` outside a crate.

        ``own_items_follow``: the caller analyses ``path``'s text now and then gives its
        items to :meth:`update` (the server with an open document), so a crate indexed
        for the first time here does not read ``path`` from disk too."""
        root = crate_root(path) if path is not None else None
        if root is None:
            return None
        index = self._index(root, skip=os.path.abspath(path) if own_items_follow else None)
        with self._lock:
            return index.view(os.path.abspath(path))

    def update(self, path: Path | None, items: FileItems) -> bool:
        """Replace ``path``'s items (``FileItems`` of its current text); True if something
        other files' analyses read changed (their views' fingerprints)."""
        index = self._index_of(path)
        if index is None:
            return False
        key = os.path.abspath(path)
        with self._lock:
            old = index.files.get(key)
            index.set(items)
            return old is None or old.key != items.key

    def forget(self, path: Path) -> bool:
        """A file was deleted: drop its items. True if it was indexed."""
        root = crate_root(path)
        with self._lock:
            index = self._indexes.get(root) if root is not None else None
            if index is None or os.path.abspath(path) not in index.files:
                return False
            index.remove(os.path.abspath(path))
            return True

    def refresh_from_disk(self, path: Path) -> bool:
        """Re-read one file of an indexed crate from disk (the watcher saw it change).
        True if its items changed."""
        root = crate_root(path)
        with self._lock:
            known = root is not None and root in self._indexes
        if not known:
            return False
        items = self._read(path)
        if items is None:
            return self.forget(path)
        return self.update(path, items)

    def same_crate(self, a: Path, b: Path) -> bool:
        ra = crate_root(a)
        return ra is not None and ra == crate_root(b)

    def _index(self, root: Path, skip: str | None = None) -> CrateIndex:
        with self._lock:
            found = self._indexes.get(root)
        if found is not None:
            return found
        index = CrateIndex()
        for f in crate_files(root):
            if skip is not None and os.path.abspath(f) == skip:
                continue
            items = self._read(f)
            if items is not None:
                index.set(items)
        with self._lock:
            return self._indexes.setdefault(root, index)

    def _read(self, path: Path) -> FileItems | None:
        """The items of one file on disk (``None``: unreadable, too large or binary)."""
        data = read_for_analysis(path, self._max()).source
        if data is None:
            return None
        tree = parse(data)
        if self._trees is not None:
            self._trees[os.path.abspath(path)] = (data, tree)
        return file_items(os.path.abspath(path), file_facts(data, tree.root_node))
