"""Offload checks on save: trust gate, doctor, ``$/progress``, pass-labelled compiler
diagnostics with generations, the transfer plan as inlay hints and hover.

Scheduling (debounce, cancel-on-newer, one compile per crate, generations) lives in
:class:`offload_ls.toolchain.service.CompileService`; this module converts its results to
LSP and keeps, per crate, exactly the diagnostics of the newest finished check: a new
result replaces all of that crate's earlier ones, including clearing files that no longer
have any (nothing stale after a fix).
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

from lsprotocol import types

from offload_ls.analysis.model import Span
from offload_ls.lsp.crate_state import CheckDiagnostics, compiler_diagnostics, compiler_error_ranges
from offload_ls.lsp.positions import to_range
from offload_ls.syntax.text import LineIndex
from offload_ls.toolchain.compile import CheckResult
from offload_ls.toolchain.diagnostics import SpanRef
from offload_ls.toolchain.plan import Plan
from offload_ls.toolchain.service import CompileService, ProgressEvent
from offload_ls.workflow.check import (
    NOT_NEEDED,
    CompilerMessage,
    check_from_result,
    check_plan_for,
    crate_transfer_findings,
    crate_uses_offload,
    mentions_offload,
    package_line_span,
    predicted,
)
from offload_ls.workspace.read import read_named

if TYPE_CHECKING:
    from offload_ls.lsp.host import Host

log = logging.getLogger(__name__)

_SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "ice": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "note": types.DiagnosticSeverity.Information,
    "help": types.DiagnosticSeverity.Hint,
}



class CompileFeature:
    """State and logic of compile-on-save, owned by the server (``server.compiles``)."""

    def __init__(self, server: "Host") -> None:
        self.server = server
        self.service = CompileService(self._make_plan, self._on_result, self._on_error,
                                      self._on_progress, debounce_s=0.3)

    # ------------------------------------------------------------------ triggers

    def manifest_for(self, path: Path) -> Path | None:
        return self.server.session.manifest_for(path)

    def on_source_saved(self, path: Path) -> None:
        """A ``.rs`` file was saved (or changed on disk): check its crate if allowed. The crate
        has offload code when the saved text has; else its files are read in a worker thread."""
        if not self.server.session.settings.checkOnSave or path.suffix != ".rs":
            return
        manifest = self.manifest_for(path)
        if manifest is None:
            return
        doc = self.server.session.documents.by_path(path)
        if doc is not None and mentions_offload(doc.source):
            self._check_if_allowed(manifest, True)  # the saved text itself has offload code
        else:
            asyncio.ensure_future(self._check_if_needed(manifest))

    async def _check_if_needed(self, manifest: Path) -> None:
        """Whether the crate has offload code is read from its files in a worker thread."""
        session = self.server.session
        needed = await asyncio.get_running_loop().run_in_executor(
            None, lambda: crate_uses_offload(manifest, max_bytes=session.settings.maxFileBytes))
        self._check_if_allowed(manifest, needed)

    def _check_if_allowed(self, manifest: Path, needed: bool) -> None:
        session = self.server.session
        if not needed:
            if manifest not in session.told_no_kernels:
                session.told_no_kernels.add(manifest)
                self.server.log(f"{manifest.parent}: {NOT_NEEDED}", types.MessageType.Info)
            return
        session.told_no_kernels.discard(manifest)
        if not session.trusted(manifest):
            if manifest not in session.told_untrusted:
                session.told_untrusted.add(manifest)
                self.server.log(f"{manifest.parent} is not a trusted workspace: offload-ls does not compile it "
                                f"(compiling runs build scripts and proc macros). Lints still run. To allow it, "
                                f"add the folder to the setting offload-ls.trustedWorkspaces.",
                                types.MessageType.Info)
            return
        self.service.request(manifest)

    def on_manifest_changed(self, manifest: Path) -> None:
        """A Cargo.toml changed: re-check its crate if it was checked before (trusted)."""
        session = self.server.session
        checked = session.result_of(manifest).check is not None
        if session.settings.checkOnSave and checked and session.trusted(manifest):
            self.service.request(manifest)

    def stop_untrusted(self) -> set[Path]:
        """The trusted folders changed: stop the pending or running check of every crate
        no longer trusted (its process group is killed); the manifests of those that ran."""
        stopped = set()
        for manifest in self.service.manifests():
            if not self.server.session.trusted(manifest):
                self.service.cancel(manifest)
                if self.service.running(manifest):
                    stopped.add(manifest)
        return stopped

    # ------------------------------------------------------------------ plan / progress

    def _make_plan(self, manifest: Path) -> Plan:
        """The check plan of ``manifest``'s crate (workflow/check.py); runs in a worker thread."""
        session = self.server.session
        s = session.settings
        return check_plan_for(manifest, session.toolchain.doctor(), s.compileTimeoutS,
                              transfer_plan=s.transferPlan)

    def _on_progress(self, manifest: Path, event: ProgressEvent, message: str, percent: int | None) -> None:
        progress = self.server.progress
        if not progress.supported():
            return
        if event == "begin":
            token = f"offload-ls/check/{uuid.uuid4().hex[:12]}"
            self.server.session.progress.checks[manifest] = token
            progress.on_cancel(token, lambda: self.service.cancel(manifest))
            progress.begin(token, "offload-ls", message, cancellable=True)
        elif event == "report":
            token = self.server.session.progress.checks.get(manifest)
            if token:
                progress.report(token, message, percent)
        else:
            token = self.server.session.progress.checks.pop(manifest, None)
            if token:
                progress.forget(token)
                progress.end(token, message)

    def _on_error(self, manifest: Path, message: str) -> None:
        self.server.log(f"offload check of {manifest.parent} not run: {message}", types.MessageType.Warning)
        diag = types.Diagnostic(range=self._manifest_range(manifest), message=f"offload check not run: {message}",
                                severity=types.DiagnosticSeverity.Warning, source="offload-ls")
        self._replace(manifest, CheckDiagnostics(diagnostics={manifest.as_uri(): [diag]}))

    # ------------------------------------------------------------------ results

    async def _on_result(self, manifest: Path, generation: int, result: CheckResult) -> None:
        max_bytes = self.server.session.settings.maxFileBytes
        loop = asyncio.get_running_loop()
        # placing the messages reads Cargo.toml, and their ranges need the files they name:
        # blocking file I/O, in a worker thread
        checked = await loop.run_in_executor(None, check_from_result, manifest, manifest.parent.name, result,
                                             max_bytes)
        named = {m.path for m in checked.messages} | {p for m in checked.messages for p, _, _ in m.related}
        data = await loop.run_in_executor(None, lambda: {p: read_named(p, max_bytes) for p in named})
        indexes = {path: self._index_of(path, d) for path, d in data.items()}
        new = CheckDiagnostics(generation=generation, transfers=checked.transfers)
        for message in checked.messages:
            diag = self._diagnostic(message, indexes)
            uri = message.path.as_uri()
            new.diagnostics.setdefault(uri, []).append(diag)
            if message.is_error:
                new.error_ranges.setdefault(uri, []).append(diag.range)
            if message.fix:
                edits = [types.TextEdit(range=self._range(message.path, e.span, None, indexes), new_text=e.new_text)
                         for e in message.fix]
                new.fixes.setdefault(uri, []).append((diag, edits))
        await self._add_transfer_findings(new, manifest)
        self._replace(manifest, new)
        failed = checked.failed_passes
        self.server.log(f"offload check of {manifest.parent.name}: {len(checked.messages)} compiler messages"
                        + (f", failed passes: {', '.join(failed)}" if failed else "")
                        + f" ({checked.seconds:.1f} s)")

    def _replace(self, manifest: Path, new: CheckDiagnostics) -> None:
        old = self.server.session.result_of(manifest).check
        self.server.session.record(manifest, check=new)
        touched = set(new.diagnostics) | (set(old.diagnostics) if old else set())
        for uri in touched:
            self.server.republish(uri)
        self.server.refresh_inlay_hints()

    def _index_of(self, file: Path, data: bytes | None) -> LineIndex | None:
        """The line index of ``file`` read as ``data`` (``None``: unreadable): the open
        document's when its text is what was read."""
        doc = self.server.session.documents.by_path(file)
        if doc is not None and (data is None or doc.source == data):
            return doc.line_index
        return LineIndex(data) if data is not None else None

    def _manifest_range(self, manifest: Path) -> types.Range:
        """The ``[package]`` header of ``manifest`` (its first line when it has none)."""
        index = self._index_of(manifest, read_named(manifest, self.server.session.settings.maxFileBytes))
        span = package_line_span(index.source) if index is not None else Span(0, 0)
        return self._range(manifest, span, None, {manifest: index})

    def _range(self, path: Path, span: Span, ref: SpanRef | None,
               indexes: dict[Path, LineIndex | None]) -> types.Range:
        """The range of a byte ``span`` of ``path``; for a file that cannot be read, rustc's
        own line/column (``ref``), or the first line (a Cargo.toml)."""
        index = indexes.get(path)
        if index is not None:
            return to_range(index, span, self.server.session.encoding)
        if ref is None:
            return types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=9))
        return types.Range(start=types.Position(line=max(ref.line - 1, 0), character=max(ref.column - 1, 0)),
                           end=types.Position(line=max(ref.end_line - 1, 0), character=max(ref.end_column - 1, 0)))

    def _diagnostic(self, message: CompilerMessage, indexes: dict[Path, LineIndex | None]) -> types.Diagnostic:
        """A placed compiler message (worded by workflow/check.py) as an LSP diagnostic;
        related places in readable files are kept."""
        related = [types.DiagnosticRelatedInformation(
            location=types.Location(uri=path.as_uri(), range=to_range(index, span, self.server.session.encoding)),
            message=text) for path, span, text in message.related if (index := indexes.get(path)) is not None]
        return types.Diagnostic(range=self._range(message.path, message.span, message.rustc_place, indexes),
                                message=message.text, code=message.code, source=message.source,
                                severity=_SEVERITY.get(message.level, types.DiagnosticSeverity.Error),
                                related_information=related or None)

    # ------------------------------------------------------------------ transfer plan

    async def _add_transfer_findings(self, results: CheckDiagnostics, manifest: Path) -> None:
        """Disagreements between source types and the compiled map types, at each launch
        argument of the crate's open documents (their analyses are awaited, never
        computed on the event loop's thread)."""
        if not results.transfers:
            return
        docs, analyses = {}, {}
        for doc in list(self.server.session.documents):
            if doc.path is None or self.manifest_for(doc.path) != manifest:
                continue
            analysis = await self.server.analyses.analysis_of(doc)
            if analysis is not None:  # None: the text changed meanwhile, its positions would be wrong
                docs[doc.uri], analyses[doc.uri] = doc, analysis
        for uri, findings in crate_transfer_findings(analyses, results.transfers).items():
            results.diagnostics.setdefault(uri, []).extend(types.Diagnostic(
                range=to_range(docs[uri].line_index, f.span, self.server.session.encoding), message=f.message,
                severity=types.DiagnosticSeverity.Warning, code=f.rule, source=f.source) for f in findings)

    # ------------------------------------------------------------------ for the server

    def diagnostics_for(self, uri: str) -> list[types.Diagnostic]:
        """Every crate's newest compiler diagnostics in ``uri``."""
        return compiler_diagnostics(self.server.session.results, uri)

    def shown_lints(self, uri: str, lint: list[types.Diagnostic]) -> list[types.Diagnostic]:
        """``uri``'s lint diagnostics without those a compiler error on the same range stands
        for (workflow/check.py ``predicted``)."""
        errors = compiler_error_ranges(self.server.session.results, uri)
        return [d for d in lint if not predicted(d.code, d.source, d.range, errors)] if errors else lint
