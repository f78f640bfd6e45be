"""Watching the workspace folders for ``.rs`` and ``Cargo.toml`` changes.

Two sources of file events, one consumer (``OffloadLanguageServer.on_file_event``):

- ``workspace/didChangeWatchedFiles`` from the client. When the client supports
  *dynamic* registration (``workspace.didChangeWatchedFiles.dynamicRegistration``), the
  server registers the globs ``**/*.rs`` and ``**/Cargo.toml`` and does **not** start its
  own watcher: the editor already watches the tree, and a second set of inotify watches
  per folder would only duplicate events (and count against
  ``fs.inotify.max_user_watches``). Notifications are honoured whether registered or not.
- Otherwise, a watchdog 7 observer (this module): one recursive watch per workspace
  folder, symlinks not followed; patterns are matched against full paths (watchdog 7
  uses ``PurePath.full_match``), so they are written ``**/*.rs``; ``target/`` and the
  other skipped directories and paths outside the folder (e.g. through a symlink) are
  dropped.

Watchdog calls back on its own threads; events are handed to the event loop with
``loop.call_soon_threadsafe``, so all server state is touched on one thread.
"""

from __future__ import annotations

import asyncio
import logging
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path

from watchdog.events import (
    FileClosedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    PatternMatchingEventHandler,
)
from watchdog.observers import Observer

from offload_ls.workspace.files import SKIP_DIRS, is_ignored

# watchdog 7's inotify observer warns when a directory is created and re-watched quickly (a
# cargo build in target/): "Callback with id ... already exists ... will be Overwritten".
# Harmless, and pages of it on the server's stderr; the events still arrive.
warnings.filterwarnings("ignore", message="Callback with id", category=RuntimeWarning)

log = logging.getLogger(__name__)

#: Globs for the files whose changes matter (LSP FileSystemWatcher and watchdog).
WATCH_GLOBS = ("**/*.rs", "**/Cargo.toml")
IGNORE_GLOBS = tuple(f"**/{d}/**" for d in sorted(SKIP_DIRS))
#: Only these events are asked of the kernel (not opens/reads, which our own reads cause).
EVENT_FILTER = [FileCreatedEvent, FileModifiedEvent, FileDeletedEvent, FileMovedEvent, FileClosedEvent]

#: Callback signature: (path, deleted) — ``deleted`` is False for created/changed.
FileEventSink = Callable[[Path, bool], None]


class _Handler(PatternMatchingEventHandler):
    def __init__(self, root: Path, loop: asyncio.AbstractEventLoop, sink: FileEventSink) -> None:
        super().__init__(patterns=list(WATCH_GLOBS), ignore_patterns=list(IGNORE_GLOBS),
                         ignore_directories=True, case_sensitive=True, ignore_policy="all")
        self._root = root
        self._loop = loop
        self._sink = sink

    def dispatch(self, event: FileSystemEvent) -> None:
        """Never let an exception out: it would end watchdog's dispatch thread, and the
        watcher would go deaf for the rest of the session without a word."""
        try:
            super().dispatch(event)
        except Exception:  # noqa: BLE001
            log.exception("file watcher: handling %r failed; watching continues", event)

    def _emit(self, raw: str | bytes, deleted: bool) -> None:
        path = Path(raw.decode() if isinstance(raw, bytes) else raw)
        if not path.name.endswith(".rs") and path.name != "Cargo.toml":
            return
        if not deleted and is_ignored(path, self._root):
            return  # inside target/ etc., or a symlink out of the folder
        if deleted and _outside_or_skipped(path, self._root):
            return
        try:
            self._loop.call_soon_threadsafe(self._sink, path, deleted)
        except RuntimeError:  # the loop is closed: the server is exiting
            pass

    def on_created(self, event: FileSystemEvent) -> None:
        self._emit(event.src_path, False)

    def on_modified(self, event: FileSystemEvent) -> None:
        self._emit(event.src_path, False)

    def on_closed(self, event: FileSystemEvent) -> None:
        self._emit(event.src_path, False)

    def on_deleted(self, event: FileSystemEvent) -> None:
        self._emit(event.src_path, True)

    def on_moved(self, event: FileSystemEvent) -> None:
        self._emit(event.src_path, True)
        self._emit(event.dest_path, False)


def _outside_or_skipped(path: Path, root: Path) -> bool:
    """Like ``is_ignored`` for a path that no longer exists (nothing to resolve)."""
    try:
        rel = path.relative_to(root)
    except ValueError:
        return True
    return any(part in SKIP_DIRS for part in rel.parts[:-1])


class FolderWatcher:
    """A watchdog observer over the workspace folders.

    Args:
        roots: workspace folder paths. loop: the server's event loop. sink: called on the
        loop's thread with (path, deleted) per relevant event.
    """

    def __init__(self, roots: Iterable[Path], loop: asyncio.AbstractEventLoop, sink: FileEventSink) -> None:
        self.roots = [r for r in roots if r.is_dir()]
        self._loop = loop
        self._sink = sink
        self._observer: Observer | None = None

    def start(self) -> None:
        """Create the watches (blocking: a recursive inotify watch walks the tree, so call
        this from a worker thread)."""
        observer = Observer()
        for root in self.roots:
            observer.schedule(_Handler(root, self._loop, self._sink), str(root),
                              recursive=True, follow_symlink=False,
                              event_filter=EVENT_FILTER)
        observer.daemon = True
        observer.start()
        self._observer = observer

    def stop(self, timeout_s: float = 2.0) -> None:
        """Stop the observer and wait up to ``timeout_s`` seconds for its thread."""
        observer, self._observer = self._observer, None
        if observer is None:
            return
        try:
            observer.stop()
            observer.join(timeout_s)
        except Exception:  # noqa: BLE001 - shutting down anyway
            log.exception("stopping the file watcher failed")

    @property
    def running(self) -> bool:
        """True between :meth:`start` and :meth:`stop`."""
        return self._observer is not None
