"""Open documents' analysis lifecycle: when a text is analysed, where, and who gets it.

Each open document's text is analysed in the documents' worker thread (never on the event
loop: a big document takes seconds and every request would wait), one job per text version;
an edit while the worker is busy drops older texts' jobs that have not started. The result
becomes the document's cached analysis, which requests read through :meth:`snapshot`.
Diagnostics are published as soon as an analysis ends (no fixed delay unless the user set
``debounceMs``).
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
from collections.abc import Callable
from concurrent.futures import Executor
from pathlib import Path

from lsprotocol import types

from offload_ls.analysis import engine
from offload_ls.analysis.crate_index import file_items
from offload_ls.analysis.engine import FileAnalysis
from offload_ls.lsp.diagnostics import to_diagnostics
from offload_ls.lsp.documents import Document
from offload_ls.lsp.notices import analysis_failed_message, rule_failed_message, skip_message
from offload_ls.lsp.scheduler import Debouncer
from offload_ls.lsp.session import DocumentSnapshot, Session
from offload_ls.workspace.read import screen

log = logging.getLogger(__name__)

EMPTY = FileAnalysis((), (), ())
#: seconds before re-analysing after file-system events and crate-wide changes (a burst of
#: them, as a `git checkout` makes, becomes one analysis per file)
BACKGROUND_DELAY_S = 0.15


class DocumentAnalyses:
    """Analyses of the open documents of ``session``.

    Args:
        session: the server's state. pool: the documents' worker (one thread).
        jobs: the server's debouncer (keyed by URI).
        publish: ``(uri, diagnostics, version)`` -> sends the lint diagnostics.
        log: ``(message, type)`` -> one ``window/logMessage`` line (any thread).
        call_on_loop: ``(fn, *args)`` -> runs ``fn`` on the event loop's thread.
    """

    def __init__(self, session: Session, pool: Executor, jobs: Debouncer,
                 publish: Callable[[str, list, int | None], None], log: Callable[..., None],
                 call_on_loop: Callable[..., None]) -> None:
        self.session = session
        self.pool = pool
        self.jobs = jobs
        self._publish = publish
        self._log = log
        self._call_on_loop = call_on_loop
        self._failures_lock = threading.Lock()

    # ------------------------------------------------------------------ analysing one text

    def screen(self, key: str, label: str, source: bytes) -> bool:
        """False (and one log line per new reason) if the text must not be analysed."""
        skip = screen(source, self.session.settings.maxFileBytes)
        reason = skip_message(skip, label) if skip is not None else None
        if reason is None:
            self.session.skip_logged.pop(key, None)
            return True
        if self.session.skip_logged.get(key) != reason:
            self.session.skip_logged[key] = reason
            self._log(reason, types.MessageType.Warning)
        return False

    def analyze(self, source: bytes, tree, levels: dict, label: str = "document",
                cache=None, path: Path | None = None) -> FileAnalysis:
        """Run the rules with the rest of ``path``'s crate (workspace/crates.py); an
        exception in them gives no findings and one log line to the client (``<label>:
        analysis failed (<error>); no lints for this text``) plus the traceback on stderr.
        The document's items then replace its file's in the crate index; when something
        other files read changed, the other open documents of the crate are analysed
        again. Safe to call from worker threads."""
        crates = self.session.crates
        try:
            result = engine.analyze_tree(source, tree.root_node, levels, cache=cache,
                                         crate=crates.view(path, own_items_follow=True))
            if path is not None and result.facts is not None and \
                    crates.update(path, file_items(os.path.abspath(path), result.facts)):
                self._call_on_loop(self.reanalyze_crate_mates, path)
            self.report_failures(label, result.failures)
            return result
        except Exception as exc:  # noqa: BLE001 - never crash a handler on odd input
            if path is not None:  # its items did not follow: the crate index reads the file
                crates.refresh_from_disk(path)
            log.exception("analysis of %s failed", label)
            self._log(analysis_failed_message(label, exc), types.MessageType.Error)
            return EMPTY

    def report_failures(self, label: str, failures) -> None:
        """One log line per rule that raises on ``label``'s text, the first time it does
        (not on every keystroke). Safe to call from worker threads: ``session.failures_logged``
        is the one part of the session changed off the event loop, under a lock."""
        with self._failures_lock:
            logged = self.session.failures_logged.setdefault(label, set())
            new = [f for f in failures if f.rule not in logged]
            logged.update(f.rule for f in new)
        for failure in new:
            self._log(rule_failed_message(label, failure.message), types.MessageType.Error)
            log.error("%s: rule %s failed:\n%s", label, failure.rule, failure.traceback)  # stderr

    # ------------------------------------------------------------------ reading analyses

    async def analysis_of(self, doc: Document) -> FileAnalysis | None:
        """The analysis of ``doc``'s current text, never computed on the event loop's
        thread: the cached one, or the documents' worker's job for this text (shared with
        the publish). ``None`` if the text changed or the document closed meanwhile: an
        answer about a text the client no longer has is wrong."""
        current = doc.current_analysis()
        if current is not None:
            return current
        version = doc.parsed.version
        job = self._job(doc)
        try:
            analysis = await asyncio.shield(job)
        except asyncio.CancelledError:
            if job.cancelled() and not asyncio.current_task().cancelling():
                return None  # superseded by a newer text before it started
            raise
        if self.session.documents.get(doc.uri) is not doc or doc.parsed.version != version:
            return None
        return analysis

    async def snapshot(self, uri: str) -> DocumentSnapshot | None:
        """A snapshot of the open document ``uri`` with its analysis; ``None`` when it is
        not open, or its text changed or it closed while the analysis ran."""
        doc = self.session.documents.get(uri)
        analysis = await self.analysis_of(doc) if doc is not None else None
        if analysis is None:
            return None
        return self.session.snapshot(doc, analysis)

    def _job(self, doc: Document) -> asyncio.Future:
        """The future analysis of ``doc``'s current text in the documents' worker thread:
        one job per text version; when it ends it becomes the document's cached analysis
        (unless the text changed or the settings did, see :meth:`reanalyze_open_documents`)."""
        version = doc.parsed.version
        job = self.session.inflight.get(doc.uri)
        if job is not None and job[0] == version:
            return job[1]
        if job is not None:
            job[1].cancel()  # an older text's job that has not started is not run at all
        loop = asyncio.get_running_loop()
        label = _label(doc)
        if not self.screen(doc.uri, label, doc.source):
            future = loop.create_future()
            future.set_result(EMPTY)
        else:
            future = loop.run_in_executor(self.pool, self.analyze, doc.source, doc.parsed.tree.copy(),
                                          self.session.levels_for(doc.path), label, doc.cache, doc.path)
        self.session.inflight[doc.uri] = (version, future)
        future.add_done_callback(lambda f: self._job_done(f, doc, version))
        return future

    def _job_done(self, future: asyncio.Future, doc: Document, version: int) -> None:
        """Keep a finished job's analysis as ``doc``'s if it is still the newest of its text."""
        uri = doc.uri
        if self.session.inflight.get(uri, (None, None))[1] is not future:
            return  # superseded
        del self.session.inflight[uri]
        if not future.cancelled() and future.exception() is None and self.session.documents.get(uri) is doc \
                and doc.parsed.version == version:
            doc.analysis, doc.analyzed_version = future.result(), version

    # ------------------------------------------------------------------ scheduling

    def schedule(self, uri: str, delay_s: float | None = None) -> None:
        """(Re-)analyse an open document after ``delay_s`` seconds (default: the
        ``debounceMs`` setting, 0 unless the user set one) and publish its diagnostics; a
        newer call for the same URI cancels this one. With no delay the analysis starts at
        once when the documents' worker is idle; while it is busy, the newest text's job
        waits and older texts' jobs that have not started are dropped (:meth:`_job`)."""
        if delay_s is None:
            delay_s = self.session.settings.debounceMs / 1000.0
        self.jobs.schedule(uri, delay_s, lambda: self._analyze_and_publish(uri))

    def background_delay_s(self) -> float:
        """Seconds to wait before work that no keystroke waits for: files changed on
        disk (a `git checkout` changes hundreds at once), Cargo.toml, and open documents
        of a crate whose other file changed: :data:`BACKGROUND_DELAY_S`, or the user's
        ``debounceMs`` when longer."""
        return max(BACKGROUND_DELAY_S, self.session.settings.debounceMs / 1000.0)

    async def _analyze_and_publish(self, uri: str) -> None:
        doc = self.session.documents.get(uri)
        if doc is None:
            return
        analysis = await self.analysis_of(doc)
        if analysis is None:
            return  # changed meanwhile: the newer job publishes
        self._publish(uri, to_diagnostics(analysis.findings, doc.line_index, self.session.encoding, uri),
                      doc.version)

    def reanalyze_crate_mates(self, path: Path) -> None:
        """Re-analyse the open documents of ``path``'s crate other than ``path`` (what they
        read of it changed), after the background delay."""
        session = self.session
        for doc in session.documents:
            if doc.path is not None and doc.path != path and session.crates.same_crate(doc.path, path):
                doc.analyzed_version = -1
                self.schedule(doc.uri, self.background_delay_s())

    def reanalyze_open_documents(self) -> None:
        """Drop every open document's cached analysis and re-analyse it now."""
        for _, job in self.session.inflight.values():
            job.cancel()  # jobs of the old settings are not used (nor run, if not started)
        self.session.inflight.clear()
        for doc in self.session.documents:
            doc.analyzed_version = -1
            self.schedule(doc.uri, 0)

    def forget(self, uri: str) -> None:
        """The document ``uri`` closes: drop its pending and queued work and what was logged
        about its text."""
        self.jobs.cancel(uri)
        job = self.session.inflight.pop(uri, None)
        if job is not None:
            job[1].cancel()
        self.session.skip_logged.pop(uri, None)
        doc = self.session.documents.get(uri)
        if doc is not None:
            self.session.failures_logged.pop(_label(doc), None)

    async def documents_first(self) -> None:
        """Wait while an open document's analysis is queued or running: background work
        (the workspace scan's batches) would slow it down (one interpreter lock), and the
        user is looking at it."""
        while self.session.inflight:
            await asyncio.wait([job for _, job in list(self.session.inflight.values())])


def _label(doc: Document) -> str:
    """How log lines name a document: its path, or its URI when it has none."""
    return doc.path and str(doc.path) or doc.uri
