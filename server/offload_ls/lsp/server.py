"""The offload-ls language server: the pygls ``LanguageServer`` subclass that wires the
session to the client, and :func:`serve_stdio`, the entry point used by ``offload-ls serve``,
bare ``offload-ls`` and ``python -m offload_ls.lsp``.

The server is a thin adapter (ruff_server's shape): state lives in the
:class:`~offload_ls.lsp.session.Session`; each LSP method is one module of
:mod:`offload_ls.lsp.methods` whose handler reads the session or a document snapshot and
calls the feature modules; the features with their own state are objects here
(``analyses``: open documents' analyses, ``files``: files on disk, ``compiles``: checks on
save, ``gpu``: build/run/profile, ``progress``: ``$/progress``). All state is
touched on the event loop's thread; analysis and file I/O run in worker threads (one for
open documents, one for files on disk) and hand results back to the loop.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from lsprotocol import types
from pygls.capabilities import get_capability
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer

from offload_ls import __version__
from offload_ls.analysis.engine import warm_up
from offload_ls.lsp import wire
from offload_ls.lsp.command_args import register_command_args
from offload_ls.lsp.commands import GpuCommands
from offload_ls.lsp.compile import CompileFeature
from offload_ls.lsp.diagnostics import publish_params
from offload_ls.lsp.disk_files import WorkspaceFiles
from offload_ls.lsp.document_analysis import DocumentAnalyses
from offload_ls.lsp.documents import uri_path
from offload_ls.lsp.progress import Progress
from offload_ls.lsp.protocol import OffloadProtocol
from offload_ls.lsp.scheduler import Debouncer
from offload_ls.lsp.session import Session
from offload_ls.lsp.toolchain_state import ToolchainState
from offload_ls.toolchain.process import kill_all, set_guard

log = logging.getLogger(__name__)

NAME = "offload-ls"
#: methods whose message hooks the warm-up generates (:meth:`OffloadLanguageServer._warm_up`)
HOT_METHODS = (types.TEXT_DOCUMENT_DID_OPEN, types.TEXT_DOCUMENT_DID_CHANGE, types.TEXT_DOCUMENT_DID_SAVE,
               types.TEXT_DOCUMENT_DID_CLOSE, types.TEXT_DOCUMENT_HOVER, types.TEXT_DOCUMENT_CODE_ACTION,
               types.TEXT_DOCUMENT_CODE_LENS)


class OffloadLanguageServer(LanguageServer):
    """offload-ls: lints, hovers and quick fixes for Rust GPU kernels.

    Attributes:
        session: the mutable state (lsp/session.py). analyses / files / compiles / gpu /
            progress: the features (see the module docstring).
        jobs: debounced work keyed by URI. doc_pool / pool: the open documents' worker
            and the files-on-disk worker (one thread each).
        warmed: the warm-up (rules imported, queries compiled) started with the process.
    """

    def __init__(self) -> None:
        super().__init__(NAME, __version__, protocol_cls=OffloadProtocol,
                         text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        register_command_args(self.protocol._converter)
        self.session = Session(self._workspace_roots, on_problem=lambda m: self.log(m, types.MessageType.Warning))
        self.jobs = Debouncer()
        # Open documents get their own worker, so an edit is never queued behind a batch
        # of the workspace scan; files on disk share the other one.
        self.doc_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="offload-ls-documents")
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="offload-ls-disk")
        # import the rules and compile the queries while the client starts up
        self.warmed = self.doc_pool.submit(self._warm_up, self.protocol._converter)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: int | None = None
        self.analyses = DocumentAnalyses(self.session, self.doc_pool, self.jobs, self.publish, self.log,
                                         self.call_on_loop)
        self.progress = Progress(self)
        self.session.toolchain = ToolchainState(lambda: self.session.settings, self.log, self.show_threadsafe)
        self.files = WorkspaceFiles(self)
        self.compiles = CompileFeature(self)
        self.gpu = GpuCommands(self)

    def _workspace_roots(self) -> list[Path]:
        """Workspace folder paths (the root URI if the client sent no folders)."""
        try:
            ws = self.workspace
        except RuntimeError:
            return []
        uris = [f.uri for f in ws.folders.values()] or ([ws.root_uri] if ws.root_uri else [])
        return [p for p in (uri_path(u) for u in uris) if p is not None]

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

    # ------------------------------------------------------------------ threads

    def bind_loop(self) -> None:
        """Remember the event loop and its thread (called from the first handlers)."""
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
            self._loop_thread = threading.get_ident()

    def call_on_loop(self, fn, *args) -> None:
        """Run ``fn(*args)`` on the event loop's thread (from a worker thread)."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(fn, *args)

    def _off_loop(self) -> bool:
        return self._loop is not None and threading.get_ident() != self._loop_thread

    # ------------------------------------------------------------------ messaging

    def log(self, message: str, type_: types.MessageType = types.MessageType.Info) -> None:
        """Send a ``window/logMessage`` line (safe to call from worker threads)."""
        if self._off_loop():
            self._loop.call_soon_threadsafe(self.log, message, type_)
            return
        log.info("%s", message)
        self.window_log_message(types.LogMessageParams(type=type_, message=message))

    def show(self, message: str, type_: types.MessageType = types.MessageType.Warning) -> None:
        """Send a ``window/showMessage`` (a pop-up: use sparingly)."""
        self.window_show_message(types.ShowMessageParams(type=type_, message=message))

    def show_threadsafe(self, message: str, type_: types.MessageType = types.MessageType.Warning) -> None:
        """``window/showMessage`` from any thread."""
        if self._off_loop():
            self._loop.call_soon_threadsafe(self.show, message, type_)
        else:
            self.show(message, type_)

    def publish(self, uri: str, diagnostics: list[types.Diagnostic], version: int | None = None) -> None:
        """Send ``textDocument/publishDiagnostics`` (``version``: the open document's, or
        ``None``): the lint ``diagnostics`` together with the compiler's (the newest
        finished offload check of the file's crate)."""
        lint = self.session.lint
        lint[uri] = (diagnostics, version)
        if not diagnostics and uri not in self.session.documents:
            lint.pop(uri, None)
        self.text_document_publish_diagnostics(publish_params(
            uri, self.compiles.shown_lints(uri, diagnostics) + self.compiles.diagnostics_for(uri), version))

    def republish(self, uri: str) -> None:
        """Send ``uri``'s diagnostics again (its compiler diagnostics changed)."""
        lint, version = self.session.lint.get(uri, ([], None))
        self.text_document_publish_diagnostics(publish_params(
            uri, self.compiles.shown_lints(uri, lint) + self.compiles.diagnostics_for(uri), version))

    def capability(self, path: str, default):
        """A client capability by pygls' dotted snake_case path."""
        return get_capability(self.client_capabilities, path, default)

    def client_supports(self, path: str) -> bool:
        """A boolean client capability, by pygls' dotted snake_case path."""
        return bool(self.capability(path, False))

    def refresh_inlay_hints(self) -> None:
        """Ask the client to re-request inlay hints (the transfer plan changed)."""
        if self.client_supports("workspace.inlay_hint.refresh_support"):
            try:
                self.workspace_inlay_hint_refresh(None)
            except Exception:  # noqa: BLE001
                log.exception("workspace/inlayHint/refresh failed")

    def refresh_code_lenses(self) -> None:
        """Ask the client to re-request code lenses (a run report or build changed)."""
        if self.client_supports("workspace.code_lens.refresh_support"):
            try:
                self.workspace_code_lens_refresh(None)
            except Exception:  # noqa: BLE001
                log.exception("workspace/codeLens/refresh failed")

    # ------------------------------------------------------------------ session end

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
        self.files.cancel_scan()
        self.compiles.service.cancel()
        self.pool.shutdown(wait=False, cancel_futures=True)
        self.doc_pool.shutdown(wait=False, cancel_futures=True)

    def report_server_error(self, error: Exception, source) -> None:
        """pygls' error hook. pygls' reader loop calls it with ``source`` =
        ``JsonRpcException`` when a message body is not JSON (or not UTF-8, or nested too
        deeply to decode): answer with the JSON-RPC parse error, ``"id": null``."""
        if source is JsonRpcException and isinstance(error, (json.JSONDecodeError, UnicodeDecodeError,
                                                             RecursionError)):
            self.protocol.send_error(None, wire.PARSE_ERROR, f"Parse error: {type(error).__name__}: {error}"[:500])
            return
        super().report_server_error(error, source)


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
    set_guard(server.session.program_refusal)
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
