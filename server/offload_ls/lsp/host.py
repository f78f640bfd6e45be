"""What the server's features (check on save: lsp/compile.py; build, run, profile:
lsp/commands.py; files on disk: lsp/disk_files.py; ``$/progress``: lsp/progress.py; settings:
lsp/settings_sync.py) use of the server, as protocols.

The features are typed against these protocols, not against
:class:`~offload_ls.lsp.server.OffloadLanguageServer`: the server builds the features and
hands itself over, the features never import the server (no import cycle, not even one of
type annotations; tests/test_architecture.py checks it). A leaf module of lsp/: it imports
the session and the documents' analyses only.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from concurrent.futures import Executor
from pathlib import Path
from typing import Any, Protocol

from lsprotocol import types

from offload_ls.lsp.document_analysis import DocumentAnalyses
from offload_ls.lsp.scheduler import Debouncer
from offload_ls.lsp.session import Session


class ProgressPort(Protocol):
    """``$/progress`` as the features send it (lsp/progress.py ``Progress``)."""

    def supported(self) -> bool: ...
    def begin(self, token: str, title: str, message: str, cancellable: bool = False) -> None: ...
    def report(self, token: str, message: str, percent: int | None = None) -> None: ...
    def end(self, token: str, message: str) -> None: ...
    def forget(self, token: str) -> None: ...
    def on_cancel(self, token: str, cancel: Callable[[], None]) -> None: ...


class CheckOnSavePort(Protocol):
    """Check on save as the other features reach it (lsp/compile.py ``CompileFeature``)."""

    def on_source_saved(self, path: Path) -> None: ...
    def on_manifest_changed(self, manifest: Path) -> None: ...
    def stop_untrusted(self) -> set[Path]: ...


class JobsPort(Protocol):
    """Builds, runs and profiles as the other features reach them (lsp/commands.py)."""

    def stop_untrusted(self) -> set[Path]: ...


class FilesPort(Protocol):
    """Files on disk as the other features reach them (lsp/disk_files.py)."""

    def reanalyze_all(self, scan_changed: bool = False) -> Awaitable[None]: ...


class Notifier(Protocol):
    """pygls's protocol object, for custom notifications (``offload-ls/runOutput``)."""

    def notify(self, method: str, params: Any = None) -> None: ...


class Host(Protocol):
    """The server as its features see it.

    Attributes:
        session: the mutable state (lsp/session.py). analyses: open documents' analyses.
        jobs: per-key debounced work on the event loop. pool: the disk worker (one thread).
        progress / compiles / gpu / files: the other features, by what they are asked.
        protocol: pygls's protocol (notifications). work_done_progress: pygls's ``$/progress``.
    """

    session: Session
    analyses: DocumentAnalyses
    jobs: Debouncer
    pool: Executor
    progress: ProgressPort
    compiles: CheckOnSavePort
    gpu: JobsPort
    files: FilesPort
    protocol: Notifier
    work_done_progress: Any

    def log(self, message: str, type_: types.MessageType = types.MessageType.Info) -> None: ...
    def show(self, message: str, type_: types.MessageType = types.MessageType.Warning) -> None: ...
    def publish(self, uri: str, diagnostics: list[types.Diagnostic], version: int | None = None) -> None: ...
    def republish(self, uri: str) -> None: ...
    def client_supports(self, path: str) -> bool: ...
    def refresh_inlay_hints(self) -> None: ...
    def refresh_code_lenses(self) -> None: ...
    def workspace_configuration_async(self, params: types.ConfigurationParams) -> Awaitable[list]: ...
    def client_register_capability_async(self, params: types.RegistrationParams) -> Awaitable[None]: ...
