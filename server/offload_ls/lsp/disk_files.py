"""Files on disk that are not open in the editor: the workspace scan, file events (the
server's own watchdog watcher or the client's ``workspace/didChangeWatchedFiles``), and
their diagnostics.

The editor's text wins: a file open in the editor is never analysed from disk. Bursts of
events (a ``git checkout``) are debounced per file by :data:`BACKGROUND_DELAY_S`.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from offload_ls.lsp.diagnostics import to_diagnostics
from offload_ls.lsp.document_analysis import BACKGROUND_DELAY_S
from offload_ls.lsp.watcher import WATCH_GLOBS, FolderWatcher
from offload_ls.lsp.workspace_scan import DiskResult, analyze_batch, analyze_file, batches, workspace_rust_files
from offload_ls.workspace.files import is_ignored

if TYPE_CHECKING:
    from offload_ls.lsp.host import Host

log = logging.getLogger(__name__)

#: How long to wait for the client to answer a registration (seconds).
REGISTRATION_TIMEOUT_S = 10.0
#: Watched-files registration id (for a later unregister).
WATCHED_FILES_REGISTRATION_ID = "offload-ls-watched-files"


class WorkspaceFiles:
    """The server's files on disk (``server.files``)."""

    def __init__(self, server: "Host") -> None:
        self.server = server
        self.session = server.session
        self.watcher: FolderWatcher | None = None
        #: the client registered our watched-files globs (no watchdog then)
        self.client_watches_files = False
        self._scan_task: asyncio.Task | None = None

    # ------------------------------------------------------------------ one file

    def schedule(self, path: Path, uri: str | None = None, delay_s: float | None = None,
                 force: bool = False) -> None:
        """(Re-)analyse a file from disk (not open in the editor) after ``delay_s``
        seconds (default: the background delay); ``force``: publish even if clean."""
        uri = uri or path.as_uri()
        if delay_s is None:
            delay_s = self.server.analyses.background_delay_s()
        generations = self.session.disk_generation
        generation = generations[path] = generations.get(path, 0) + 1
        self.server.jobs.schedule(uri, delay_s, lambda: self._analyze(path, uri, force, generation))

    async def _analyze(self, path: Path, uri: str, force: bool = False, generation: int = 0) -> None:
        session = self.session
        if session.documents.by_path(path) is not None:
            return  # the editor's text wins
        result = await asyncio.get_running_loop().run_in_executor(
            self.server.pool, analyze_file, path, session.settings.maxFileBytes, session.levels_for(path),
            session.crates)
        if session.disk_generation.get(path, 0) == generation:  # else a newer read is on its way
            self.publish_result(result, uri, force)

    def publish_result(self, result: DiskResult, uri: str | None = None, force: bool = False) -> None:
        """Log a disk file's messages and publish its diagnostics (unless it is open).

        A clean file is published (as an empty list) only if it had diagnostics before,
        or with ``force`` (after the editor closed it: its editor diagnostics must go)."""
        session, server = self.session, self.server
        if session.documents.by_path(result.path) is not None:
            return
        uri = uri or result.path.as_uri()
        for m in result.messages:
            server.log(m, types.MessageType.Warning)
        if result.analysis is not None:  # once per file and rule, as for open documents
            server.analyses.report_failures(str(result.path), result.analysis.failures)
        if result.analysis is None or result.index is None:
            if session.disk_uris.pop(uri, None) is not None or force:
                server.publish(uri, [], None)
            return
        diagnostics = to_diagnostics(result.analysis.findings, result.index, session.encoding, uri)
        if diagnostics:
            session.disk_uris[uri] = result.path
        elif session.disk_uris.pop(uri, None) is None and not force:
            return  # clean and never reported: nothing to tell the client
        server.publish(uri, diagnostics, None)

    # ------------------------------------------------------------------ the workspace scan

    def start_scan(self) -> None:
        """(Re)start the background scan of every workspace ``.rs`` file."""
        if self._scan_task is not None:
            self._scan_task.cancel()
        # files the watcher reports from now on get their own analysis: the scan skips them
        at_start = dict(self.session.disk_generation)
        self._scan_task = asyncio.get_running_loop().create_task(self._scan(at_start))

    async def _scan(self, at_start: dict[Path, int]) -> None:
        try:
            # the documents an editor opens with the workspace arrive just after
            # `initialized`: they go first
            await asyncio.sleep(BACKGROUND_DELAY_S)
            paths = await asyncio.get_running_loop().run_in_executor(
                self.server.pool, workspace_rust_files, self.session.workspace_roots())
            analyzed = skipped = 0
            for batch in batches(paths):
                done, left_out = await self._scan_batch(batch, at_start)
                analyzed, skipped = analyzed + done, skipped + left_out
                await asyncio.sleep(0)  # let queued requests run between batches
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001
            log.exception("workspace scan failed")
            self.server.log(f"workspace scan failed: {type(exc).__name__}: {exc}", types.MessageType.Error)
            return
        self.server.log(f"workspace scan: {analyzed} files analysed, {skipped} not analysed")

    async def _scan_batch(self, batch: list[Path], at_start: dict[Path, int]) -> tuple[int, int]:
        """Analyse one batch of the scan in the disk worker; (analysed, skipped) counts."""
        session = self.session
        await self.server.analyses.documents_first()
        # open files are the editor's; files the watcher saw change since the scan was
        # started have their own analysis
        todo = [p for p in batch if session.documents.by_path(p) is None
                and session.disk_generation.get(p, 0) == at_start.get(p, 0)]
        results = await asyncio.get_running_loop().run_in_executor(
            self.server.pool, analyze_batch, todo, session.settings.maxFileBytes, session.levels_for,
            session.crates)
        analyzed = skipped = 0
        for r in results:
            if r.analysis is None:
                skipped += 1
            else:
                analyzed += 1
            if session.disk_generation.get(r.path, 0) == at_start.get(r.path, 0):
                self.publish_result(r)  # else the watcher saw it change: a newer read publishes
        return analyzed, skipped

    # ------------------------------------------------------------------ file events

    def on_file_event(self, path: Path, deleted: bool) -> None:
        """A watched file was created/changed (``deleted=False``) or deleted, as seen by
        watchdog or reported by the client. Runs on the loop thread."""
        if path.name == "Cargo.toml":
            self._on_manifest_event(path, deleted)
            return
        session, server = self.session, self.server
        if path.suffix != ".rs" or session.documents.by_path(path) is not None:
            return  # open in the editor: the editor's text wins
        uri = path.as_uri()
        if deleted:
            if session.crates.forget(path):
                server.analyses.reanalyze_crate_mates(path)
            server.jobs.cancel(uri)
            session.disk_uris.pop(uri, None)
            server.publish(uri, [], None)
            return
        server.jobs.schedule(f"\0crate {path}", server.analyses.background_delay_s(),
                             lambda p=path: self.refresh_crate_file(p))
        root = session.root_of(path)
        if root is not None and not is_ignored(path, root):
            server.compiles.on_source_saved(path)  # an external change counts as a save
            if session.settings.scanWorkspace:
                self.schedule(path, uri)

    def on_document_opened(self, uri: str) -> None:
        """The editor opened ``uri``: its text wins over the file on disk, whose diagnostics
        are no longer this feature's to publish."""
        self.session.disk_uris.pop(uri, None)

    def on_document_closed(self, uri: str, path: Path | None) -> None:
        """The editor closed ``uri`` (its text is gone, maybe unsaved): the crate mates read
        the file on disk again; a workspace file still on disk goes back to its disk
        diagnostics (when scanning), any other document's are cleared."""
        session, server = self.session, self.server
        if path is not None and path.suffix == ".rs":
            server.jobs.schedule(f"\0crate {path}", 0, lambda p=path: self.refresh_crate_file(p))
        root = session.root_of(path) if path is not None else None
        if (session.settings.scanWorkspace and root is not None and path.suffix == ".rs"
                and path.is_file() and not is_ignored(path, root)):
            self.schedule(path, uri, 0, force=True)
        else:
            server.publish(uri, [], None)

    def _on_manifest_event(self, manifest: Path, deleted: bool) -> None:
        """A Cargo.toml appeared, changed or went: crates, levels and checks follow."""
        self.session.forget_manifests()
        if not deleted:
            self.server.compiles.on_manifest_changed(manifest)
        self.session.cargo.invalidate()
        self.server.jobs.schedule("\0cargo", self.server.analyses.background_delay_s(), self.reanalyze_all)

    async def refresh_crate_file(self, path: Path) -> None:
        """A crate file changed on disk (not open): re-read its items in a worker thread;
        if other files read something that changed, re-analyse the crate's open documents."""
        changed = await asyncio.get_running_loop().run_in_executor(
            self.server.pool, self.session.crates.refresh_from_disk, path)
        if changed:
            self.server.analyses.reanalyze_crate_mates(path)

    async def on_folders_changed(self) -> None:
        """Workspace folders were added or removed (pygls has updated its list): forget
        files outside the remaining folders, re-watch and re-scan."""
        session = self.session
        for uri, path in list(session.disk_uris.items()):
            if session.root_of(path) is None:
                self.server.jobs.cancel(uri)
                del session.disk_uris[uri]
                self.server.publish(uri, [], None)
        if not session.settings.scanWorkspace:
            return
        await self._stop_watcher()
        await self.start_watching()
        self.start_scan()

    async def reanalyze_all(self, scan_changed: bool = False) -> None:
        """After a settings or Cargo.toml change: every open document, and the workspace
        files (rescanned, or cleared if scanning was turned off)."""
        session = self.session
        self.server.analyses.reanalyze_open_documents()
        if session.settings.scanWorkspace:
            if scan_changed:
                await self.start_watching()
            self.start_scan()
        elif scan_changed:
            if self._scan_task is not None:
                self._scan_task.cancel()
            await self._stop_watcher()
            for uri in list(session.disk_uris):
                self.server.jobs.cancel(uri)
                self.server.publish(uri, [], None)
            session.disk_uris.clear()

    # ------------------------------------------------------------------ watching

    async def register_watched_files(self) -> None:
        """Ask the client to watch ``**/*.rs`` and ``**/Cargo.toml`` for us, if it can
        register ``workspace/didChangeWatchedFiles`` dynamically."""
        server = self.server
        if not server.client_supports("workspace.did_change_watched_files.dynamic_registration"):
            return
        options = types.DidChangeWatchedFilesRegistrationOptions(
            watchers=[types.FileSystemWatcher(glob_pattern=g) for g in WATCH_GLOBS])
        params = types.RegistrationParams(registrations=[types.Registration(
            id=WATCHED_FILES_REGISTRATION_ID, method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=options)])
        try:
            await asyncio.wait_for(server.client_register_capability_async(params), REGISTRATION_TIMEOUT_S)
        except Exception as exc:  # noqa: BLE001 - fall back to our own watcher
            server.log(f"client/registerCapability for watched files failed ({exc}); "
                       f"watching files with watchdog instead", types.MessageType.Warning)
            return
        self.client_watches_files = True

    async def start_watching(self) -> None:
        """Start the watchdog observer unless the client watches files for us."""
        if self.client_watches_files or self.watcher is not None:
            return
        roots = self.session.workspace_roots()
        if not roots:
            return
        watcher = FolderWatcher(roots, asyncio.get_running_loop(), self.on_file_event)
        self.watcher = watcher
        try:
            await asyncio.to_thread(watcher.start)
        except Exception as exc:  # noqa: BLE001 - e.g. inotify watch limit reached
            self.watcher = None
            self.server.log(f"cannot watch the workspace for changes ({type(exc).__name__}: {exc}); "
                            f"files changed outside the editor are not re-analysed", types.MessageType.Warning)
            return
        for root in watcher.roots:
            self.server.log(f"watching {root} for changes to .rs and Cargo.toml files")

    async def _stop_watcher(self) -> None:
        watcher, self.watcher = self.watcher, None
        if watcher is not None:
            await asyncio.to_thread(watcher.stop)

    def stop(self) -> None:
        """Stop the watcher and the scan (``shutdown``)."""
        if self.watcher is not None:
            self.watcher.stop()
            self.watcher = None
        self.cancel_scan()

    def cancel_scan(self) -> None:
        """Stop the workspace scan, if one runs."""
        if self._scan_task is not None:
            self._scan_task.cancel()
            self._scan_task = None
