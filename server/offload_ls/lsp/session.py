"""The session: the language server's mutable state, and the snapshots handlers read.

Modelled on ruff_server's ``Session`` / ``DocumentSnapshot`` and rust-analyzer's
``AnalysisHost`` / ``Analysis``: one object owns everything that changes during a session
(open documents, settings, rule-level and crate caches, which files on disk have published
diagnostics, the file -> crate lookup, trust), and request handlers get an immutable
:class:`DocumentSnapshot` of one document's text with its analysis, taken on the event
loop's thread and safe to read anywhere.

All methods run on the event loop's thread unless their docstring says otherwise.
"""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from offload_ls.analysis.engine import FileAnalysis
from offload_ls.lsp.config import CargoCache, merge_levels
from offload_ls.lsp.crate_state import NOTHING, ClientView, CrateState, compiler_fixes
from offload_ls.lsp.documents import Document, DocumentStore
from offload_ls.settings import Settings
from offload_ls.syntax.text import Encoding, LineIndex
from offload_ls.toolchain.process import CancelToken
from offload_ls.workspace.cargo import find_manifest
from offload_ls.workspace.crates import CrateIndexes
from offload_ls.workspace.files import real_path, within

if TYPE_CHECKING:
    from offload_ls.lsp.toolchain_state import ToolchainState

#: Environment variables naming programs that cargo starts (checked by program_refusal).
PROGRAM_VARIABLES = frozenset({"RUSTC", "CARGO", "RUSTC_WRAPPER", "RUSTC_WORKSPACE_WRAPPER", "RUSTDOC"})


@attrs.frozen
class DocumentSnapshot:
    """One open document's text and its analysis, as they were when the snapshot was taken.

    Attributes:
        uri: as the client sent it. path: its file path (``None`` for ``untitled:``).
        version: the client's version of the text. source: the text (UTF-8 bytes).
        line_index: byte offsets <-> positions of ``source``. tree: its syntax tree (a copy:
            later edits of the document do not move its nodes).
        analysis: the rules' result for exactly this text.
        encoding: the session's position encoding (``utf-8`` / ``utf-16`` / ``utf-32``).
        manifest: the Cargo.toml of the document's crate (``None``: no crate).
        crate: that crate's newest check, build, run and profile (lsp/crate_state.py).
        compiler_fixes: the compiler's MachineApplicable suggestions in this document, from
            the newest check of every crate (diagnostic, edits).
        settings: the session's settings. client: what the client can show.
    """

    uri: str
    path: Path | None
    version: int
    source: bytes
    line_index: LineIndex
    tree: object
    analysis: FileAnalysis
    encoding: Encoding
    manifest: Path | None = None
    crate: CrateState = NOTHING
    compiler_fixes: tuple = ()
    settings: Settings = attrs.field(factory=Settings)
    client: ClientView = ClientView()

    @property
    def root(self):
        """The tree's root node (``source_file``)."""
        return self.tree.root_node


@dataclass
class ProgressTokens:
    """The session's ``$/progress`` tokens (lsp/progress.py).

    Attributes:
        ended_early: token -> end message, for work that ended before the client answered
            its ``window/workDoneProgress/create``.
        on_cancel: token -> what a client cancel of it does.
        checks: crate (Cargo.toml) -> the token of its running offload check.
    """

    ended_early: dict[str, str] = field(default_factory=dict)
    on_cancel: dict[str, Callable[[], None]] = field(default_factory=dict)
    checks: dict[Path, str] = field(default_factory=dict)


class Session:
    """Everything the server knows that changes during a session.

    Args:
        roots: returns the workspace folders' paths (pygls keeps the folder list).
        on_problem: receives Cargo.toml problems (one line each) for the client's log.

    Attributes:
        encoding: negotiated position encoding. documents: open documents (editor text).
        settings / init_settings: effective settings and those of ``initializationOptions``.
        init_problems / shown_problems: settings problems to report at ``initialized`` and
            the last set shown in a pop-up (a set is shown once).
        cargo: Cargo.toml rule levels per manifest. crates: each crate's items (what one
            file's rules read of the others; open documents' items come from the editor).
        disk_uris: files on disk whose diagnostics were published (URI -> path).
        disk_generation: file on disk -> how many analyses of it were asked for (a result
            read before the latest request is not published: it would replace newer ones).
        lint: URI -> (lint diagnostics last published, document version), so compiler
            diagnostics can be published beside them again.
        inflight: URI -> (text version, future analysis) of each open document's worker job.
        skip_logged: URI -> why its text was last not analysed (logged once per new reason).
        failures_logged: file label -> the rules whose failure on it was logged (once each;
            changed from worker threads too, under DocumentAnalyses' lock).
        toolchain: the doctor's report per toolchain settings (lsp/toolchain_state.py; set
            by the server). progress: the ``$/progress`` tokens.
        results: Cargo.toml -> the crate's newest check, build, run and profile
            (lsp/crate_state.py; replaced as a whole by :meth:`record`).
        client: what the client can show (set at ``initialize``).
        told_untrusted / told_no_kernels: crates whose check was skipped and said so in the
            log (untrusted; no offload kernel), so it is said once.
        jobs: Cargo.toml -> the cancel token of the crate's running build, run or profile.
    """

    def __init__(self, roots: Callable[[], list[Path]], on_problem: Callable[[str], None] | None = None) -> None:
        self.encoding: Encoding = "utf-16"
        self.documents = DocumentStore()
        self.init_settings = Settings()
        self.settings = Settings()
        self.init_problems: list[str] = []
        self.shown_problems: tuple[str, ...] = ()
        self.cargo = CargoCache(on_problem=on_problem)
        self.crates = CrateIndexes(lambda: self.settings.maxFileBytes)
        self.disk_uris: dict[str, Path] = {}
        self.disk_generation: dict[Path, int] = {}
        self.lint: dict[str, tuple[list, int | None]] = {}
        self.inflight: dict[str, tuple[int, asyncio.Future]] = {}
        self.skip_logged: dict[str, str] = {}
        self.failures_logged: dict[str, set[str]] = {}
        self.toolchain: ToolchainState | None = None
        self.progress = ProgressTokens()
        self.results: dict[Path, CrateState] = {}
        self.client = ClientView()
        self.told_untrusted: set[Path] = set()
        self.told_no_kernels: set[Path] = set()
        self.jobs: dict[Path, CancelToken] = {}
        self._roots = roots
        self._manifests: dict[Path, Path | None] = {}

    # ------------------------------------------------------------------ workspace folders

    def workspace_roots(self) -> list[Path]:
        """Workspace folder paths (the root URI if the client sent no folders)."""
        return self._roots()

    def root_of(self, path: Path) -> Path | None:
        """The innermost workspace folder containing ``path``, or ``None``."""
        best = None
        for root in self.workspace_roots():
            if path == root or root in path.parents:
                if best is None or len(root.parts) > len(best.parts):
                    best = root
        return best

    # ------------------------------------------------------------------ crates, levels, trust

    def levels_for(self, path: Path | None) -> dict:
        """Rule levels for a file: Cargo.toml metadata < editor settings (defaults are
        filled in by the engine). Safe to call from worker threads."""
        cargo = self.cargo.levels_for(path, self.root_of(path) if path else None)
        return merge_levels(cargo, dict(self.settings.rules))

    def manifest_for(self, path: Path) -> Path | None:
        """The Cargo.toml of the crate containing ``path`` (within its workspace folder;
        ``None`` for a link out of it). Cached per real directory: a link must not decide
        the crate of the other files beside it."""
        d = real_path(path).parent
        if d not in self._manifests:
            self._manifests[d] = find_manifest(path, self.root_of(path))
        return self._manifests[d]

    def forget_manifests(self) -> None:
        """A Cargo.toml appeared or went: recompute file -> crate lookups."""
        self._manifests.clear()

    def trusted(self, manifest: Path) -> bool:
        """True if the user trusts the crate of ``manifest`` (setting ``trustedWorkspaces``)."""
        return self.settings.trusts(manifest.parent)

    def program_refusal(self, argv: tuple[str, ...], env=None) -> str | None:
        """Why the program ``argv[0]`` must not start, or ``None``: a program inside a
        workspace folder the user has not trusted is the workspace's code (a ``rustc``
        setting or a PATH entry pointing into it), and nothing of an untrusted workspace
        runs. The programs cargo would start (``env``'s ``RUSTC``, ``RUSTC_WRAPPER``, ...)
        are checked too. Installed as :func:`offload_ls.toolchain.process.set_guard` by
        :func:`offload_ls.lsp.server.serve_stdio`; called before every start, from any thread."""
        programs = [argv[0]] + [v for k, v in (env or {}).items() if k in PROGRAM_VARIABLES and v]
        for program in programs:
            found = program if os.sep in program else shutil.which(program)
            if not found:
                continue  # missing: it fails to start like any missing program
            for root in self.workspace_roots():
                if within(Path(found), root) and not self.settings.trusts(found):
                    return (f"{program}: not run: it lies in the workspace folder {root}, which is not "
                            f"trusted (setting offload-ls.trustedWorkspaces)")
        return None

    # ------------------------------------------------------------------ per-crate results

    def result_of(self, manifest: Path | None) -> CrateState:
        """The newest results of the crate of ``manifest`` (empty when none finished)."""
        return self.results.get(manifest, NOTHING) if manifest is not None else NOTHING

    def record(self, manifest: Path, **changes) -> CrateState:
        """Replace the crate's state by one with ``changes`` (fields of
        :class:`~offload_ls.lsp.crate_state.CrateState`); snapshots taken before keep the old one."""
        state = attrs.evolve(self.result_of(manifest), **changes)
        self.results[manifest] = state
        return state

    # ------------------------------------------------------------------ snapshots

    def snapshot(self, doc: Document, analysis: FileAnalysis) -> DocumentSnapshot:
        """A snapshot of ``doc``'s current text with ``analysis`` (the caller makes sure
        ``analysis`` is of this text)."""
        parsed = doc.parsed
        manifest = self.manifest_for(doc.path) if doc.path is not None else None
        return DocumentSnapshot(uri=doc.uri, path=doc.path, version=doc.version, source=parsed.source,
                                line_index=doc.line_index, tree=parsed.tree.copy(), analysis=analysis,
                                encoding=self.encoding, manifest=manifest, crate=self.result_of(manifest),
                                compiler_fixes=compiler_fixes(self.results, doc.uri), settings=self.settings,
                                client=self.client)
