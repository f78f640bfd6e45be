"""The offload-ls language server: the pygls ``LanguageServer`` subclass holding all
state, and :func:`serve_stdio`, the entry point used by ``offload-ls serve``, bare
``offload-ls`` and ``python -m offload_ls.lsp``.

State lives on :class:`OffloadLanguageServer` (pygls examples' pattern); handlers in
:mod:`offload_ls.lsp.handlers` stay thin and call the methods here, which delegate the
feature work to one module each (positions, documents, diagnostics, hover, code actions,
config, workspace scan, watcher). All state is touched on the event loop's thread;
analysis and file I/O run in worker threads (one for open documents, one for files on
disk) and hand results back to the loop.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import shutil
import signal
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import unquote

import attrs
from lsprotocol import types
from pygls.capabilities import get_capability
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.json_rpc import RPCRequest
from pygls.protocol.language_server import lsp_method

from offload_ls import __version__
from offload_ls.analysis.crate_index import file_items
from offload_ls.analysis.engine import FileAnalysis, analyze_tree, warm_up
from offload_ls.lsp import wire
from offload_ls.lsp.code_actions import code_actions
from offload_ls.lsp.commands import GpuCommands, register_command_args
from offload_ls.lsp.compile import CompileFeature
from offload_ls.lsp.config import SECTION, CargoCache, merge_levels, parse_client_settings
from offload_ls.lsp.diagnostics import publish_params, to_diagnostics
from offload_ls.lsp.documents import Document, DocumentStore, is_rust_document, uri_path
from offload_ls.lsp.hover import hover_at, to_hover
from offload_ls.lsp.positions import choose_encoding, encoding_kind, to_offset, to_span
from offload_ls.lsp.scheduler import Debouncer
from offload_ls.lsp.watcher import WATCH_GLOBS, FolderWatcher
from offload_ls.lsp.workspace_scan import (
    DiskResult,
    analyse_batch,
    analyse_file,
    batches,
    skip_reason,
    workspace_rust_files,
)
from offload_ls.settings import Settings
from offload_ls.syntax.text import Encoding
from offload_ls.toolchain.process import kill_all, set_guard
from offload_ls.workspace.crates import CrateIndexes
from offload_ls.workspace.files import is_ignored, within

log = logging.getLogger(__name__)

NAME = "offload-ls"
_EMPTY = FileAnalysis((), (), ())
#: How long to wait for the client to answer ``workspace/configuration`` (seconds).
CONFIG_TIMEOUT_S = 10.0
#: seconds before re-analysing after file-system events and crate-wide changes (a burst of
#: them, as a `git checkout` makes, becomes one analysis per file)
BACKGROUND_DELAY_S = 0.15
#: methods whose message hooks the warm-up generates (:meth:`OffloadLanguageServer._warm_up`)
HOT_METHODS = (types.TEXT_DOCUMENT_DID_OPEN, types.TEXT_DOCUMENT_DID_CHANGE, types.TEXT_DOCUMENT_DID_SAVE,
               types.TEXT_DOCUMENT_DID_CLOSE, types.TEXT_DOCUMENT_HOVER, types.TEXT_DOCUMENT_CODE_ACTION,
               types.TEXT_DOCUMENT_CODE_LENS)

#: most seconds `initialize` waits for the warm-up analysis (analysis/engine.py ``warm_up``)
WARM_UP_TIMEOUT_S = 10.0
#: Environment variables naming programs that cargo starts (checked by program_refusal).
_PROGRAM_VARIABLES = frozenset({"RUSTC", "CARGO", "RUSTC_WRAPPER", "RUSTC_WORKSPACE_WRAPPER", "RUSTDOC"})
#: Watched-files registration id (for a later unregister).
WATCHED_FILES_REGISTRATION_ID = "offload-ls-watched-files"


class _Undecodable:
    """A message body that is JSON but not a valid message (answered per :func:`wire.classify`)."""

    __slots__ = ("data",)

    def __init__(self, data) -> None:
        self.data = data


class OffloadProtocol(LanguageServerProtocol):
    """pygls' protocol with offload-ls's position-encoding preference and a hardened
    message lifecycle.

    Encoding: pygls picks the first encoding in the client's list that it supports;
    offload-ls prefers UTF-8 whenever the client offers it (no conversion: tree-sitter
    counts bytes), then UTF-16, then UTF-32
    (:func:`offload_ls.lsp.positions.choose_encoding`). The choice is made here, before
    pygls builds its workspace and the ``ServerCapabilities.positionEncoding`` it reports,
    so both agree with it.

    Lifecycle and malformed messages (:mod:`offload_ls.lsp.wire`): every request gets an
    answer — ``-32600`` / ``-32602`` for one that cannot be decoded, ``-32002`` before
    ``initialize``, ``-32600`` for a second ``initialize`` and after ``shutdown``;
    notifications before ``initialize`` (other than ``exit``) are dropped.
    """

    _server: "OffloadLanguageServer"
    _initialize_seen = False
    #: the client sent `exit` (the session did not end by the pipe closing)
    exit_seen = False

    def structure_message(self, data):
        """pygls' decoding, but a message it cannot decode is kept for an error reply
        instead of raising inside ``json.loads`` (which loses the request id)."""
        if "jsonrpc" in data and wire.bad_envelope(data):
            return _Undecodable(data)
        try:
            return super().structure_message(data)
        except JsonRpcException:
            return _Undecodable(data)

    def _execute_handler(self, msg_id, handler, callback, args=None, kwargs=None):
        """pygls' handler call, minus a leak: pygls files the future of every async or
        generator handler under ``msg_id`` in ``_request_futures`` (for cancellation) but
        removes it only when answering a request. Notifications (a uuid as ``msg_id``)
        and the inner calls of its generator handlers left one future per ``didChange``,
        ``didOpen``, ``didSave``... for the life of the session. Their entries now go when
        their future is done."""
        super()._execute_handler(msg_id, handler, callback, args, kwargs)
        if getattr(callback, "func", None) == self._send_handler_result:
            return  # a request's future: pygls removes it when it answers
        future = self._request_futures.get(msg_id)
        if future is None:
            return
        if future.done():
            self._request_futures.pop(msg_id, None)
        else:
            future.add_done_callback(lambda _f, key=msg_id: self._request_futures.pop(key, None))

    def send_error(self, rid, code: int, message: str) -> None:
        """Send a JSON-RPC error response (``rid`` may be ``None``: ``"id": null``)."""
        self._send_data(wire.error_response(rid, code, message))

    def handle_message(self, message) -> None:
        if isinstance(message, _Undecodable) or not hasattr(message, "jsonrpc"):
            data = message.data if isinstance(message, _Undecodable) else message
            reply = wire.classify(data)
            log.warning("ignored an invalid JSON-RPC message%s",
                        f" (answered {reply[1]}: {reply[2]})" if reply else "")
            if reply is not None:
                self.send_error(*reply)
            elif isinstance(data, dict) and "method" not in data and wire.valid_id(data.get("id")):
                # A client response we cannot decode: fail the request that waits for it.
                future = self._request_futures.pop(data["id"], None)
                if future is not None and not future.done():
                    future.set_exception(JsonRpcException(f"invalid response from the client: {data!r:.200}"))
            return
        method = getattr(message, "method", None)
        if method is None:
            super().handle_message(message)  # a response from the client
            return
        request = isinstance(message, RPCRequest)
        if method == types.EXIT:
            self.exit_seen = True
        if method == types.INITIALIZE:
            if self._initialize_seen:
                self.send_error(message.id, wire.INVALID_REQUEST, "initialize may only be sent once")
                return
            self._initialize_seen = True
        elif not self._initialize_seen and method != types.EXIT:
            if request:
                self.send_error(message.id, wire.SERVER_NOT_INITIALIZED,
                                f"{method} before initialize: the server is not initialized")
            else:
                log.warning("dropped the %s notification sent before initialize", method)
            return
        elif self._shutdown and method != types.EXIT:
            if request:
                self.send_error(message.id, wire.INVALID_REQUEST, f"{method} after shutdown")
            return
        super().handle_message(message)

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams):
        """Choose the encoding, then run pygls' initialize with only that encoding offered."""
        caps = params.capabilities
        general = caps.general or types.GeneralClientCapabilities()
        encoding = choose_encoding(general.position_encodings)
        self._server.encoding = encoding
        narrowed = attrs.evolve(caps, general=attrs.evolve(
            general, position_encodings=[encoding_kind(encoding)]))
        result = yield from super().lsp_initialize(attrs.evolve(params, capabilities=narrowed))
        self.client_capabilities = caps  # keep what the client really sent
        return result

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams):
        """pygls' didChange, but a change to a document that was never opened is logged and
        dropped (pygls raised ``KeyError`` and showed "Error in server" to the user)."""
        if unquote(params.text_document.uri) not in self.workspace._text_documents:
            log.warning("didChange for %s, which is not open: ignored", params.text_document.uri)
            return None
        result = yield from super().lsp_text_document__did_change(params)
        return result

    @lsp_method(types.SHUTDOWN)
    def lsp_shutdown(self, *args):
        """pygls' shutdown, after cancelling the pending requests from a copy of their
        table: pygls cancels them while iterating the table itself, and a cancelled
        thread-pool future's callback removes its entry at once (``RuntimeError: dictionary
        changed size during iteration`` answered to the client's ``shutdown``)."""
        current = self.msg_id
        for msg_id, future in list(self._request_futures.items()):
            if msg_id != current and not future.done():
                future.cancel()
        result = yield from super().lsp_shutdown(*args)
        return result


class OffloadLanguageServer(LanguageServer):
    """offload-ls: lints, hovers and quick fixes for Rust GPU kernels.

    Attributes:
        encoding: negotiated position encoding (``"utf-8"`` / ``"utf-16"`` / ``"utf-32"``).
        documents: open documents (editor text). settings: current effective settings.
        init_settings: from ``initializationOptions`` (base for pulled configuration).
        cargo: Cargo.toml rule levels, cached per manifest.
        disk_uris: files on disk whose diagnostics were published (URI -> path).
        client_watches_files: the client registered our watched-files globs (no watchdog).
    """

    def __init__(self) -> None:
        super().__init__(NAME, __version__, protocol_cls=OffloadProtocol,
                         text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        register_command_args(self.protocol._converter)
        self.encoding: Encoding = "utf-16"
        self.documents = DocumentStore()
        self.init_settings = Settings()
        self.settings = Settings()
        self._init_problems: list[str] = []
        self._shown_problems: tuple[str, ...] = ()
        self.cargo = CargoCache(on_problem=lambda m: self.log(m, types.MessageType.Warning))
        self.jobs = Debouncer()
        # Open documents get their own worker, so an edit is never queued behind a batch
        # of the workspace scan; files on disk share the other one.
        self.doc_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="offload-ls-documents")
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="offload-ls-disk")
        self.disk_uris: dict[str, Path] = {}
        self.watcher: FolderWatcher | None = None
        self.client_watches_files = False
        self._scan_task: asyncio.Task | None = None
        # import the rules and compile the queries while the client starts up
        self._warmed = self.doc_pool.submit(self._warm_up, self.protocol._converter)
        #: file on disk -> how many analyses of it were asked for (a result read before the
        #: latest request is not published: it would replace newer diagnostics)
        self._disk_generation: dict[Path, int] = {}
        self._skip_logged: dict[str, str] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: int | None = None
        self._lint: dict[str, tuple[list[types.Diagnostic], int | None]] = {}
        #: URI -> (text version, future analysis) of each open document's worker job.
        self._inflight: dict[str, tuple[int, asyncio.Future]] = {}
        self.compiles = CompileFeature(self)
        self.gpu = GpuCommands(self)
        #: $/progress tokens ended before the client answered their create -> end message
        self._ended_early: dict[str, str] = {}
        #: each crate's items (analysis/crate_index.py): what a file's rules read of the
        #: other files of its crate; open documents' items come from the editor's text
        self.crates = CrateIndexes(lambda: self.settings.maxFileBytes)

    # ------------------------------------------------------------------ messaging

    def _bind_loop(self) -> None:
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
            self._loop_thread = threading.get_ident()

    def log(self, message: str, type_: types.MessageType = types.MessageType.Info) -> None:
        """Send a ``window/logMessage`` line (safe to call from worker threads)."""
        if self._loop is not None and threading.get_ident() != self._loop_thread:
            self._loop.call_soon_threadsafe(self.log, message, type_)
            return
        log.info("%s", message)
        self.window_log_message(types.LogMessageParams(type=type_, message=message))

    def shutdown(self) -> None:
        """pygls' end of the session, without waiting for pygls' worker threads: one of
        them may be blocked reading stdin for good (a client that keeps the pipe open
        after sending a signal), and waiting for it hung the process."""
        if self._stop_event is not None:
            self._stop_event.set()
        if self._thread_pool:
            self._thread_pool.shutdown(wait=False, cancel_futures=True)
        if self._server:
            self._server.close()

    def report_server_error(self, error: Exception, source) -> None:
        """pygls' error hook. pygls' reader loop calls it with ``source`` =
        ``JsonRpcException`` when a message body is not JSON (or not UTF-8, or nested too
        deeply to decode): answer with the JSON-RPC parse error, ``"id": null``."""
        if source is JsonRpcException and isinstance(error, (json.JSONDecodeError, UnicodeDecodeError,
                                                             RecursionError)):
            self.protocol.send_error(None, wire.PARSE_ERROR, f"Parse error: {type(error).__name__}: {error}"[:500])
            return
        super().report_server_error(error, source)

    def show(self, message: str, type_: types.MessageType = types.MessageType.Warning) -> None:
        """Send a ``window/showMessage`` (a pop-up: use sparingly)."""
        self.window_show_message(types.ShowMessageParams(type=type_, message=message))

    def publish(self, uri: str, diagnostics: list[types.Diagnostic], version: int | None = None) -> None:
        """Send ``textDocument/publishDiagnostics`` (``version``: the open document's, or
        ``None``): the lint ``diagnostics`` together with the compiler's (the newest
        finished offload check of the file's crate)."""
        self._lint[uri] = (diagnostics, version)
        if not diagnostics and uri not in self.documents:
            self._lint.pop(uri, None)
        self.text_document_publish_diagnostics(
            publish_params(uri, diagnostics + self.compiles.diagnostics_for(uri), version))

    def republish(self, uri: str) -> None:
        """Send ``uri``'s diagnostics again (its compiler diagnostics changed)."""
        lint, version = self._lint.get(uri, ([], None))
        self.text_document_publish_diagnostics(
            publish_params(uri, lint + self.compiles.diagnostics_for(uri), version))

    def show_threadsafe(self, message: str, type_: types.MessageType = types.MessageType.Warning) -> None:
        """``window/showMessage`` from any thread."""
        if self._loop is not None and threading.get_ident() != self._loop_thread:
            self._loop.call_soon_threadsafe(self.show, message, type_)
        else:
            self.show(message, type_)

    def client_supports_progress(self) -> bool:
        return bool(self._capability("window.work_done_progress", False))

    def progress_begin(self, token: str, title: str, message: str, cancellable: bool = False) -> None:
        """Create a server-initiated ``$/progress`` and send its begin."""
        def created(*_args, **_kwargs):
            self.work_done_progress.begin(token, types.WorkDoneProgressBegin(
                title=title, message=message, cancellable=cancellable, percentage=0))
            ended = self._ended_early.pop(token, None)
            if ended is not None:  # the work ended before the client answered `create`
                self.progress_end(token, ended)
        try:
            self.work_done_progress.create(token, created)
        except Exception:  # noqa: BLE001 - progress is a courtesy
            log.exception("window/workDoneProgress/create failed")

    def progress_report(self, token: str, message: str, percent: int | None = None) -> None:
        if token in self.work_done_progress.tokens:
            self.work_done_progress.report(token, types.WorkDoneProgressReport(message=message, percentage=percent))

    def progress_end(self, token: str, message: str) -> None:
        """End ``$/progress`` ``token``; when the client has not answered its ``create`` yet,
        the end is sent right after the begin (a spinner must never be left running)."""
        if token in self.work_done_progress.tokens:
            self.work_done_progress.end(token, types.WorkDoneProgressEnd(message=message))
            self.work_done_progress.tokens.pop(token, None)
        else:
            self._ended_early[token] = message
            while len(self._ended_early) > 256:  # tokens whose create never got an answer
                self._ended_early.pop(next(iter(self._ended_early)))

    def refresh_inlay_hints(self) -> None:
        """Ask the client to re-request inlay hints (the transfer plan changed)."""
        if self._capability("workspace.inlay_hint.refresh_support", False):
            try:
                self.workspace_inlay_hint_refresh(None)
            except Exception:  # noqa: BLE001
                log.exception("workspace/inlayHint/refresh failed")

    def refresh_code_lenses(self) -> None:
        """Ask the client to re-request code lenses (a run report or build changed)."""
        if self._capability("workspace.code_lens.refresh_support", False):
            try:
                self.workspace_code_lens_refresh(None)
            except Exception:  # noqa: BLE001
                log.exception("workspace/codeLens/refresh failed")

    async def code_lens(self, params: types.CodeLensParams) -> list[types.CodeLens] | None:
        """Build / run lenses on ``fn main`` and kernels (see :mod:`offload_ls.lsp.commands`)."""
        doc = self.documents.get(params.text_document.uri)
        analysis = await self.analysis_of(doc) if doc is not None else None
        if analysis is None:
            return None
        return self.gpu.code_lenses(doc, analysis)

    async def inlay_hints(self, params: types.InlayHintParams) -> list[types.InlayHint] | None:
        """Transfer-plan hints at the launch arguments of an open document."""
        doc = self.documents.get(params.text_document.uri)
        analysis = await self.analysis_of(doc) if doc is not None else None
        if analysis is None:
            return None
        return self.compiles.inlay_hints(doc, analysis, to_span(doc.line_index, params.range, self.encoding))

    # ------------------------------------------------------------------ workspace / levels

    def workspace_roots(self) -> list[Path]:
        """Workspace folder paths (the root URI if the client sent no folders)."""
        try:
            ws = self.workspace
        except RuntimeError:
            return []
        uris = [f.uri for f in ws.folders.values()] or ([ws.root_uri] if ws.root_uri else [])
        return [p for p in (uri_path(u) for u in uris) if p is not None]

    def root_of(self, path: Path) -> Path | None:
        """The innermost workspace folder containing ``path``, or ``None``."""
        best = None
        for root in self.workspace_roots():
            if path == root or root in path.parents:
                if best is None or len(root.parts) > len(best.parts):
                    best = root
        return best

    def program_refusal(self, argv: tuple[str, ...], env=None) -> str | None:
        """Why the program ``argv[0]`` must not start, or ``None``: a program inside a
        workspace folder the user has not trusted is the workspace's code (a ``rustc``
        setting or a PATH entry pointing into it), and nothing of an untrusted workspace
        runs. The programs cargo would start (``env``'s ``RUSTC``, ``RUSTC_WRAPPER``, ...)
        are checked too. Installed as :func:`offload_ls.toolchain.process.set_guard` by
        :func:`serve_stdio`; called before every start, from any thread."""
        programs = [argv[0]] + [v for k, v in (env or {}).items() if k in _PROGRAM_VARIABLES and v]
        for program in programs:
            found = program if os.sep in program else shutil.which(program)
            if not found:
                continue  # missing: it fails to start like any missing program
            for root in self.workspace_roots():
                if within(Path(found), root) and not self.settings.trusts(found):
                    return (f"{program}: not run: it lies in the workspace folder {root}, which is not "
                            f"trusted (setting offload-ls.trustedWorkspaces)")
        return None

    def levels_for(self, path: Path | None) -> dict:
        """Rule levels for a file: Cargo.toml metadata < editor settings (defaults are
        filled in by the engine). Safe to call from worker threads."""
        cargo = self.cargo.levels_for(path, self.root_of(path) if path else None)
        return merge_levels(cargo, dict(self.settings.rules))

    # ------------------------------------------------------------------ settings

    def set_init_options(self, raw) -> None:
        """Parse ``initializationOptions`` (problems are reported at ``initialized``), and
        wait for the documents' worker to be warm (started with the process): the first
        document's analysis then does not pay for importing the rules and compiling the
        queries (about 0.2-0.6 s on these machines)."""
        self.init_settings, self._init_problems = parse_client_settings(raw)
        self.settings = self.init_settings
        try:  # started with the process; `initialize` is answered when it is done
            self._warmed.result(timeout=WARM_UP_TIMEOUT_S)
        except Exception:  # noqa: BLE001 - a slow or failed warm-up only costs the first analysis
            log.warning("warm-up not done within %s s", WARM_UP_TIMEOUT_S)

    @staticmethod
    def _warm_up(converter) -> None:
        """Import the rules, compile the queries, and have cattrs generate the (un)structure
        hooks of the messages of every keystroke (5-8 ms each when first used: the first
        ``didOpen``, ``didChange`` and ``publishDiagnostics`` waited for them)."""
        try:
            warm_up()
        except Exception:  # noqa: BLE001 - the real analyses report their own failures
            log.exception("warm-up analysis failed")
        try:
            for method in HOT_METHODS:
                request, response = types.METHOD_TO_TYPES[method][:2]
                converter.get_structure_hook(request)
                if response is not None:
                    converter.get_unstructure_hook(response)
            for sent in (types.PublishDiagnosticsNotification, types.LogMessageNotification):
                converter.get_unstructure_hook(sent)
        except Exception:  # noqa: BLE001 - only the first message of each kind pays
            log.exception("warm-up of the message converters failed")

    def report_settings_problems(self, problems: list[str]) -> None:
        """Each problem to ``window/logMessage``; one ``showMessage`` warning for a new set."""
        for p in problems:
            self.log(f"settings: {p}", types.MessageType.Warning)
        if problems and tuple(problems) != self._shown_problems:
            self._shown_problems = tuple(problems)
            n = len(problems)
            self.show(f"offload-ls: {n} problem{'s' if n != 1 else ''} in the settings "
                      f"{'were' if n != 1 else 'was'} ignored; see the offload-ls log for details")

    def _client_supports(self, path: str) -> bool:
        """A boolean client capability, by pygls' dotted snake_case path."""
        return bool(self._capability(path, False))

    async def pull_settings(self, fallback=None) -> tuple[Settings, list[str]]:
        """Settings from ``workspace/configuration`` (section ``offload-ls``) on top of the
        ``initializationOptions``; ``fallback`` (a didChangeConfiguration payload) is used
        when the client cannot be asked."""
        if not self._client_supports("workspace.configuration"):
            if fallback is None:
                return self.settings, []
            return parse_client_settings(fallback, self.init_settings)
        try:
            result = await asyncio.wait_for(
                self.workspace_configuration_async(
                    types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)])),
                CONFIG_TIMEOUT_S)
        except Exception as exc:  # noqa: BLE001 - timeout or error reply: keep settings
            self.log(f"workspace/configuration failed ({type(exc).__name__}: {exc}); "
                     f"keeping the current settings", types.MessageType.Warning)
            return self.settings, []
        raw = result[0] if result else None
        return parse_client_settings(raw, self.init_settings)

    async def refresh_settings(self, fallback=None) -> None:
        """Re-read the settings and re-analyse everything if they changed."""
        new, problems = await self.pull_settings(fallback)
        self.report_settings_problems(problems)
        old, self.settings = self.settings, new
        if new.trustedWorkspaces != old.trustedWorkspaces:
            self.compiles.stop_untrusted()  # consent withdrawn: nothing of those crates keeps running
        if new != old:
            await self.reanalyse_all(scan_changed=new.scanWorkspace != old.scanWorkspace)

    # ------------------------------------------------------------------ lifecycle

    async def on_initialized(self) -> None:
        """``initialized``: report init-option problems, pull the configuration, set up file
        watching and start the workspace scan (``scanWorkspace``)."""
        self._bind_loop()
        self.report_settings_problems(self._init_problems)
        new, problems = await self.pull_settings()
        self.report_settings_problems(problems)
        if new != self.settings:
            self.settings = new
            self.reanalyse_open_documents()
        await self.register_watched_files()
        if self.settings.scanWorkspace:
            await self.start_watching()
            self.start_scan()
        if any(self.settings.trusts(root) for root in self.workspace_roots()):
            # Probe the toolchain now (logged; one showMessage if nothing can compile for a
            # GPU) rather than on the first save. Untrusted workspaces start no compiler.
            asyncio.get_running_loop().run_in_executor(None, self.compiles.doctor)

    async def register_watched_files(self) -> None:
        """Ask the client to watch ``**/*.rs`` and ``**/Cargo.toml`` for us, if it can
        register ``workspace/didChangeWatchedFiles`` dynamically."""
        if not self._client_supports("workspace.did_change_watched_files.dynamic_registration"):
            return
        options = types.DidChangeWatchedFilesRegistrationOptions(
            watchers=[types.FileSystemWatcher(glob_pattern=g) for g in WATCH_GLOBS])
        params = types.RegistrationParams(registrations=[types.Registration(
            id=WATCHED_FILES_REGISTRATION_ID, method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=options)])
        try:
            await asyncio.wait_for(self.client_register_capability_async(params), CONFIG_TIMEOUT_S)
        except Exception as exc:  # noqa: BLE001 - fall back to our own watcher
            self.log(f"client/registerCapability for watched files failed ({exc}); "
                     f"watching files with watchdog instead", types.MessageType.Warning)
            return
        self.client_watches_files = True

    async def start_watching(self) -> None:
        """Start the watchdog observer unless the client watches files for us."""
        if self.client_watches_files or self.watcher is not None:
            return
        roots = self.workspace_roots()
        if not roots:
            return
        watcher = FolderWatcher(roots, asyncio.get_running_loop(), self.on_file_event)
        self.watcher = watcher
        try:
            await asyncio.to_thread(watcher.start)
        except Exception as exc:  # noqa: BLE001 - e.g. inotify watch limit reached
            self.watcher = None
            self.log(f"cannot watch the workspace for changes ({type(exc).__name__}: {exc}); "
                     f"files changed outside the editor are not re-analysed", types.MessageType.Warning)
            return
        for root in watcher.roots:
            self.log(f"watching {root} for changes to .rs and Cargo.toml files")

    def stop_background(self) -> None:
        """Stop the watcher, pending jobs and the scan (``shutdown``)."""
        if self.watcher is not None:
            self.watcher.stop()
            self.watcher = None
        self.jobs.cancel_all()
        if self._scan_task is not None:
            self._scan_task.cancel()
            self._scan_task = None
        self.compiles.service.cancel()
        self.pool.shutdown(wait=False, cancel_futures=True)
        self.doc_pool.shutdown(wait=False, cancel_futures=True)

    # ------------------------------------------------------------------ open documents

    def _screen(self, key: str, label: str, source: bytes) -> bool:
        """False (and one log line per new reason) if the text must not be analysed."""
        reason = skip_reason(label, source, self.settings.maxFileBytes)
        if reason is None:
            self._skip_logged.pop(key, None)
            return True
        if self._skip_logged.get(key) != reason:
            self._skip_logged[key] = reason
            self.log(reason, types.MessageType.Warning)
        return False

    def _analyse(self, source: bytes, tree, levels: dict, label: str = "document",
                 cache=None, path: Path | None = None) -> FileAnalysis:
        """Run the rules with the rest of ``path``'s crate (workspace/crates.py); an
        exception in them gives no findings and one log line to the client (``<label>:
        analysis failed (<error>); no lints for this text``) plus the traceback on stderr.
        The document's items then replace its file's in the crate index; when something
        other files read changed, the other open documents of the crate are analysed
        again. Safe to call from worker threads."""
        try:
            result = analyze_tree(source, tree.root_node, levels, cache=cache,
                                  crate=self.crates.view(path, own_items_follow=True))
            if path is not None and result.facts is not None and \
                    self.crates.update(path, file_items(os.path.abspath(path), result.facts)):
                self._call_on_loop(self._reanalyse_crate_mates, path)
            return result
        except Exception as exc:  # noqa: BLE001 - never crash a handler on odd input
            if path is not None:  # its items did not follow: the crate index reads the file
                self.crates.refresh_from_disk(path)
            log.exception("analysis of %s failed", label)
            self.log(f"{label}: analysis failed ({type(exc).__name__}: {exc}); no lints for this text",
                     types.MessageType.Error)
            return _EMPTY

    async def analysis_of(self, doc: Document) -> FileAnalysis | None:
        """The analysis of ``doc``'s current text, never computed on the event loop's
        thread (a big document takes seconds; every other request would wait): the
        cached one, or the documents' worker's job for this text (shared with the
        debounced publish). ``None`` if the text changed or the document closed
        meanwhile: an answer about a text the client no longer has is wrong."""
        current = doc.current_analysis()
        if current is not None:
            return current
        version = doc.parsed.version
        job = self._analysis_job(doc)
        try:
            analysis = await asyncio.shield(job)
        except asyncio.CancelledError:
            if job.cancelled() and not asyncio.current_task().cancelling():
                return None  # superseded by a newer text before it started
            raise
        if self.documents.get(doc.uri) is not doc or doc.parsed.version != version:
            return None
        return analysis

    def _analysis_job(self, doc: Document) -> asyncio.Future:
        """The future analysis of ``doc``'s current text in the documents' worker thread:
        one job per text version; when it ends it becomes the document's cached analysis
        (unless the text changed or the settings did, see :meth:`reanalyse_open_documents`)."""
        version = doc.parsed.version
        job = self._inflight.get(doc.uri)
        if job is not None and job[0] == version:
            return job[1]
        if job is not None:
            job[1].cancel()  # an older text's job that has not started is not run at all
        loop = asyncio.get_running_loop()
        label = doc.path and str(doc.path) or doc.uri
        if not self._screen(doc.uri, label, doc.source):
            future = loop.create_future()
            future.set_result(_EMPTY)
        else:
            future = loop.run_in_executor(self.doc_pool, self._analyse, doc.source, doc.parsed.tree.copy(),
                                          self.levels_for(doc.path), label, doc.cache, doc.path)
        self._inflight[doc.uri] = (version, future)

        def done(f: asyncio.Future, uri: str = doc.uri) -> None:
            if self._inflight.get(uri, (None, None))[1] is not f:
                return  # superseded
            del self._inflight[uri]
            if not f.cancelled() and f.exception() is None and self.documents.get(uri) is doc \
                    and doc.parsed.version == version:
                doc.analysis, doc.analysed_version = f.result(), version
        future.add_done_callback(done)
        return future

    def schedule_document(self, uri: str, delay_s: float | None = None) -> None:
        """(Re-)analyse an open document after ``delay_s`` seconds (default: the
        ``debounceMs`` setting, 0 unless the user set one); a newer call for the same URI
        cancels this one. With no delay the analysis starts at once when the documents'
        worker is idle; while it is busy, the newest text's job waits and older texts'
        jobs that have not started are dropped (:meth:`_analysis_job`)."""
        if delay_s is None:
            delay_s = self.settings.debounceMs / 1000.0
        self.jobs.schedule(uri, delay_s, lambda: self._analyse_document(uri))

    def _background_delay_s(self) -> float:
        """Seconds to wait before work that no keystroke waits for: files changed on
        disk (a `git checkout` changes hundreds at once), Cargo.toml, and open documents
        of a crate whose other file changed: :data:`BACKGROUND_DELAY_S`, or the user's
        ``debounceMs`` when longer."""
        return max(BACKGROUND_DELAY_S, self.settings.debounceMs / 1000.0)

    async def _analyse_document(self, uri: str) -> None:
        doc = self.documents.get(uri)
        if doc is None:
            return
        analysis = await self.analysis_of(doc)
        if analysis is None:
            return  # changed meanwhile: the newer job publishes
        self.publish(uri, to_diagnostics(analysis.findings, doc.line_index, self.encoding, uri), doc.version)

    def _call_on_loop(self, fn, *args) -> None:
        """Run ``fn(*args)`` on the event loop's thread (from a worker thread)."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(fn, *args)

    def _reanalyse_crate_mates(self, path: Path) -> None:
        """Re-analyse the open documents of ``path``'s crate other than ``path`` (what they
        read of it changed), after the debounce delay."""
        for doc in self.documents:
            if doc.path is not None and doc.path != path and self.crates.same_crate(doc.path, path):
                doc.analysed_version = -1
                self.schedule_document(doc.uri, self._background_delay_s())

    def reanalyse_open_documents(self) -> None:
        """Drop every open document's cached analysis and re-analyse it now."""
        for _, job in self._inflight.values():
            job.cancel()  # jobs of the old settings are not used (nor run, if not started)
        self._inflight.clear()
        for doc in self.documents:
            doc.analysed_version = -1
            self.schedule_document(doc.uri, 0)

    def did_open(self, params: types.DidOpenTextDocumentParams) -> None:
        """Track a Rust document and analyse it at once (no debounce)."""
        td = params.text_document
        if not is_rust_document(td.uri, td.language_id):
            return
        self._bind_loop()
        self.documents.open(td.uri, td.text, td.version)
        self.disk_uris.pop(td.uri, None)
        self.schedule_document(td.uri, 0)

    def did_change(self, params: types.DidChangeTextDocumentParams) -> None:
        """Apply incremental changes (ranges in the negotiated encoding); re-analysis at once,
        or after ``debounceMs`` when the user set one (:meth:`schedule_document`)."""
        td = params.text_document
        if self.documents.change(td.uri, td.version, params.content_changes, self.encoding) is not None:
            self.schedule_document(td.uri)

    def did_save(self, params: types.DidSaveTextDocumentParams) -> None:
        """A saved Cargo.toml drops the levels cache; a saved ``.rs`` is re-analysed."""
        uri = params.text_document.uri
        path = uri_path(uri)
        if path is not None and path.name == "Cargo.toml":
            self.on_file_event(path, False)
        elif uri in self.documents:
            self.schedule_document(uri, 0)
        if path is not None and path.suffix == ".rs":
            self.compiles.on_source_saved(path)

    def did_close(self, params: types.DidCloseTextDocumentParams) -> None:
        """Forget the editor's text. A workspace file still on disk goes back to its disk
        diagnostics (when scanning); any other document's diagnostics are cleared."""
        uri = params.text_document.uri
        self.jobs.cancel(uri)
        job = self._inflight.pop(uri, None)
        if job is not None:
            job[1].cancel()
        doc = self.documents.close(uri)
        self._skip_logged.pop(uri, None)
        if doc is None:
            return
        path = doc.path
        if path is not None and path.suffix == ".rs":
            # the editor's text is gone (maybe unsaved): its crate mates read the file on disk again
            self.jobs.schedule(f"\0crate {path}", 0, lambda p=path: self._refresh_crate_file(p))
        root = self.root_of(path) if path is not None else None
        if (self.settings.scanWorkspace and root is not None and path.suffix == ".rs"
                and path.is_file() and not is_ignored(path, root)):
            self.schedule_disk(path, uri, 0, force=True)
        else:
            self.publish(uri, [], None)

    # ------------------------------------------------------------------ hover / code actions

    async def hover(self, params: types.HoverParams) -> types.Hover | None:
        """Hover on a kernel name or a launch (see :mod:`offload_ls.lsp.hover`)."""
        doc = self.documents.get(params.text_document.uri)
        analysis = await self.analysis_of(doc) if doc is not None else None
        if analysis is None:
            return None
        offset = to_offset(doc.line_index, params.position, self.encoding)
        found = hover_at(analysis, doc.source, offset)
        if found is None:
            return None
        formats = self._capability("text_document.hover.content_format", None)
        markdown_ok = not formats or types.MarkupKind.Markdown in formats
        text, span = found
        kernel = next((k for k in analysis.kernels if k.name_span == span), None)
        if kernel is not None:
            extra = self.gpu.resources_markdown(doc.path, kernel.name)
            if extra:
                text += extra
        launch = next((la for la in analysis.launches if la.span == span), None)
        if launch is not None:
            table = self.compiles.hover_table(doc, analysis, launch)
            if table:
                text += "\n" + table
        return to_hover(text, span, doc.line_index, self.encoding, markdown_ok)

    async def code_action(self, params: types.CodeActionParams) -> list[types.CodeAction] | None:
        """Quick fixes for the findings touching the requested range."""
        uri = params.text_document.uri
        doc = self.documents.get(uri)
        analysis = await self.analysis_of(doc) if doc is not None else None
        if analysis is None:
            return None
        wanted = to_span(doc.line_index, params.range, self.encoding)
        only = params.context.only if params.context else None
        actions = code_actions(analysis, uri, doc.line_index, self.encoding, wanted, only)
        if not only or types.CodeActionKind.QuickFix in only:
            compiler = self.compiles.code_actions(uri, params.range)
            if compiler:
                actions = (actions or []) + compiler
        # Build/Run are source actions: offered when the client asks for source actions
        # (VS Code's "Source Action..." menu), not mixed into the quick fixes.
        if only and any(k == types.CodeActionKind.Source or str(k).startswith("source.offload-ls") for k in only):
            gpu = self.gpu.code_actions(doc, analysis, wanted)
            if gpu:
                actions = (actions or []) + gpu
        return actions

    def _capability(self, path: str, default):
        return get_capability(self.client_capabilities, path, default)

    # ------------------------------------------------------------------ files on disk

    def schedule_disk(self, path: Path, uri: str | None = None, delay_s: float | None = None,
                      force: bool = False) -> None:
        """(Re-)analyse a file from disk (not open in the editor) after ``delay_s``
        seconds (default: the debounce delay); ``force``: publish even if clean."""
        uri = uri or path.as_uri()
        if delay_s is None:
            delay_s = self._background_delay_s()
        generation = self._disk_generation[path] = self._disk_generation.get(path, 0) + 1
        self.jobs.schedule(uri, delay_s, lambda: self._analyse_disk(path, uri, force, generation))

    async def _analyse_disk(self, path: Path, uri: str, force: bool = False, generation: int = 0) -> None:
        if self.documents.by_path(path) is not None:
            return  # the editor's text wins
        result = await asyncio.get_running_loop().run_in_executor(
            self.pool, analyse_file, path, self.settings.maxFileBytes, self.levels_for(path), self.crates)
        if self._disk_generation.get(path, 0) == generation:  # else a newer read of the file is on its way
            self.publish_disk_result(result, uri, force)

    def publish_disk_result(self, result: DiskResult, uri: str | None = None, force: bool = False) -> None:
        """Log a disk file's messages and publish its diagnostics (unless it is open).

        A clean file is published (as an empty list) only if it had diagnostics before,
        or with ``force`` (after the editor closed it: its editor diagnostics must go)."""
        if self.documents.by_path(result.path) is not None:
            return
        uri = uri or result.path.as_uri()
        for m in result.messages:
            self.log(m, types.MessageType.Warning)
        if result.analysis is None or result.index is None:
            if self.disk_uris.pop(uri, None) is not None or force:
                self.publish(uri, [], None)
            return
        diagnostics = to_diagnostics(result.analysis.findings, result.index, self.encoding, uri)
        if diagnostics:
            self.disk_uris[uri] = result.path
        elif self.disk_uris.pop(uri, None) is None and not force:
            return  # clean and never reported: nothing to tell the client
        self.publish(uri, diagnostics, None)

    def start_scan(self) -> None:
        """(Re)start the background scan of every workspace ``.rs`` file."""
        if self._scan_task is not None:
            self._scan_task.cancel()
        # files the watcher reports from now on get their own analysis: the scan skips them
        self._scan_task = asyncio.get_running_loop().create_task(self._scan(dict(self._disk_generation)))

    async def _documents_first(self) -> None:
        """Wait while an open document's analysis is queued or running: the scan's batches
        would slow it down (one interpreter lock), and the user is looking at it."""
        while self._inflight:
            await asyncio.wait([job for _, job in list(self._inflight.values())])

    async def _scan(self, at_start: dict[Path, int]) -> None:
        loop = asyncio.get_running_loop()
        roots = self.workspace_roots()
        try:
            # the documents an editor opens with the workspace arrive just after
            # `initialized`: they go first
            await asyncio.sleep(BACKGROUND_DELAY_S)
            paths = await loop.run_in_executor(self.pool, workspace_rust_files, roots)
            analysed = skipped = 0
            for batch in batches(paths):
                await self._documents_first()
                # open files are the editor's; files the watcher saw change since the scan
                # was started have their own analysis
                todo = [p for p in batch if self.documents.by_path(p) is None
                        and self._disk_generation.get(p, 0) == at_start.get(p, 0)]
                results = await loop.run_in_executor(
                    self.pool, analyse_batch, todo, self.settings.maxFileBytes, self.levels_for, self.crates)
                for r in results:
                    if r.analysis is None:
                        skipped += 1
                    else:
                        analysed += 1
                    if self._disk_generation.get(r.path, 0) == at_start.get(r.path, 0):
                        self.publish_disk_result(r)  # else the watcher saw it change: a newer read publishes
                await asyncio.sleep(0)  # let queued requests run between batches
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001
            log.exception("workspace scan failed")
            self.log(f"workspace scan failed: {type(exc).__name__}: {exc}", types.MessageType.Error)
            return
        self.log(f"workspace scan: {analysed} files analysed, {skipped} not analysed")

    def on_file_event(self, path: Path, deleted: bool) -> None:
        """A watched file was created/changed (``deleted=False``) or deleted, as seen by
        watchdog or reported by the client. Runs on the loop thread."""
        if path.name == "Cargo.toml":
            self.compiles.forget_manifests()
            if not deleted:
                self.compiles.on_manifest_changed(path)
            self.cargo.invalidate()
            self.jobs.schedule("\0cargo", self._background_delay_s(), self.reanalyse_all)
            return
        if path.suffix != ".rs" or self.documents.by_path(path) is not None:
            return  # open in the editor: the editor's text wins
        if deleted:
            if self.crates.forget(path):
                self._reanalyse_crate_mates(path)
        else:
            self.jobs.schedule(f"\0crate {path}", self._background_delay_s(),
                               lambda p=path: self._refresh_crate_file(p))
        uri = path.as_uri()
        if deleted:
            self.jobs.cancel(uri)
            self.disk_uris.pop(uri, None)
            self.publish(uri, [], None)
            return
        root = self.root_of(path)
        if root is not None and not is_ignored(path, root):
            self.compiles.on_source_saved(path)  # an external change counts as a save
        if self.settings.scanWorkspace and root is not None and not is_ignored(path, root):
            self.schedule_disk(path, uri)

    async def _refresh_crate_file(self, path: Path) -> None:
        """A crate file changed on disk (not open): re-read its items in a worker thread;
        if other files read something that changed, re-analyse the crate's open documents."""
        changed = await asyncio.get_running_loop().run_in_executor(self.pool, self.crates.refresh_from_disk, path)
        if changed:
            self._reanalyse_crate_mates(path)

    def did_change_watched_files(self, params: types.DidChangeWatchedFilesParams) -> None:
        """File events reported by the client (see :mod:`offload_ls.lsp.watcher`)."""
        for change in params.changes:
            path = uri_path(change.uri)
            if path is not None:
                self.on_file_event(path, change.type == types.FileChangeType.Deleted)

    async def on_folders_changed(self) -> None:
        """Workspace folders were added or removed (pygls has updated its list): forget
        files outside the remaining folders, re-watch and re-scan."""
        for uri, path in list(self.disk_uris.items()):
            if self.root_of(path) is None:
                self.jobs.cancel(uri)
                del self.disk_uris[uri]
                self.publish(uri, [], None)
        if not self.settings.scanWorkspace:
            return
        await self._stop_watcher()
        await self.start_watching()
        self.start_scan()

    async def _stop_watcher(self) -> None:
        watcher, self.watcher = self.watcher, None
        if watcher is not None:
            await asyncio.to_thread(watcher.stop)

    async def reanalyse_all(self, scan_changed: bool = False) -> None:
        """After a settings or Cargo.toml change: every open document, and the workspace
        files (rescanned, or cleared if scanning was turned off)."""
        self.reanalyse_open_documents()
        if self.settings.scanWorkspace:
            if scan_changed:
                await self.start_watching()
            self.start_scan()
        elif scan_changed:
            if self._scan_task is not None:
                self._scan_task.cancel()
            await self._stop_watcher()
            for uri in list(self.disk_uris):
                self.jobs.cancel(uri)
                self.publish(uri, [], None)
            self.disk_uris.clear()


def create_server() -> OffloadLanguageServer:
    """A new server with every feature registered (see :mod:`offload_ls.lsp.handlers`)."""
    from offload_ls.lsp.handlers import register

    server = OffloadLanguageServer()
    register(server)
    return server



#: What the commands' argument hooks raise (lsp/commands.py ``register_command_args``): the
#: client gets the message as the request's error; the log needs no traceback for it.
_ARGUMENT_ERRORS = ("expected one argument", "unknown argument field", "bad arguments")


def _one_line_for_bad_input(record: logging.LogRecord) -> bool:
    """pygls logs a message it cannot handle (bad JSON from the client, already answered
    with -32700 by lsp/wire.py; command arguments of the wrong shape, answered with the
    error; a request cancelled as the session ends) with its whole traceback: keep the line,
    with the error's type and text, and drop the traceback."""
    exc = record.exc_info[1] if record.exc_info else None
    expected = (str(record.msg).startswith("Unable to handle message")
                or str(record.msg).startswith("Exception occurred for message") and (
                    isinstance(exc, TypeError) and str(exc).startswith(_ARGUMENT_ERRORS)
                    or isinstance(exc, asyncio.CancelledError)))
    if record.exc_info and expected:
        # formatted here: the error's text may hold a `%` that the record's args would misread
        record.msg = f"{record.getMessage()}: {type(exc).__name__}: {exc}" if exc is not None else record.getMessage()
        record.args = ()
        record.exc_info = None
        record.exc_text = None
    return True


def session_end_reason(signalled: list[int], exit_seen: bool, shutdown_seen: bool) -> str:
    """The one line the server writes to stderr as it leaves: why the session ended."""
    if signalled:
        return f"stopped by signal {signal.Signals(signalled[0]).name}"
    if exit_seen:
        return "session ended (shutdown, then exit)" if shutdown_seen else "exit without shutdown"
    return "the client closed the connection"


def serve_stdio() -> None:
    """Run the language server over stdin/stdout until the client sends ``exit`` (or
    closes the pipe, or a SIGTERM/SIGHUP arrives), then exit the process.

    Exit status (LSP 3.17 "Exit Notification"): 0 if ``shutdown`` was received before,
    else 1; 128 + the signal number after a signal. Python logging goes to stderr (stdout
    carries the protocol)."""
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING,
                        format="offload-ls %(levelname)s %(name)s: %(message)s")
    for handler in logging.getLogger().handlers:  # a logger's filter would miss pygls.server's records
        handler.addFilter(_one_line_for_bad_input)
    signalled: list[int] = []

    def on_signal(signum, _frame):
        # An editor that stops the server with a signal ends the session like `exit` does.
        signalled.append(signum)
        sys.exit(128 + signum)

    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, on_signal)
    server = create_server()
    set_guard(server.program_refusal)
    killed = 0
    try:
        server.start_io(stdin=wire.ResyncStdin(sys.stdin.buffer))
    finally:
        # However the session ended (exit, end of input, a crash), no compiler or program
        # the server started outlives it.
        killed = kill_all()
    # pygls swallows the SystemExit of `exit` (and of the signal handler): give the
    # status here, and leave at once: a worker thread may still be blocked reading stdin,
    # and the interpreter's exit would wait for it.
    status = 128 + signalled[0] if signalled else (0 if server.protocol._shutdown else 1)
    # Nothing is logged after the last line (the child watcher's thread would report the
    # programs just killed, "Loop ... that handles pid ... is closed", in the middle of it).
    logging.disable(logging.CRITICAL)
    stopped = f"; killed {killed} program{'s' if killed != 1 else ''} it had started" if killed else ""
    print(f"offload-ls: {session_end_reason(signalled, server.protocol.exit_seen, server.protocol._shutdown)}"
          f"{stopped}; exit status {status}", file=sys.stderr)
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(status)
