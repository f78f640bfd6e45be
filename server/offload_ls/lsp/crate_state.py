"""What the server knows of each crate from its newest check, build, run and profile.

The :class:`~offload_ls.lsp.session.Session` keeps one :class:`CrateState` per crate
(Cargo.toml path) and replaces it as a whole when a check, build, run or profile finishes
(:meth:`Session.record`), so a :class:`~offload_ls.lsp.session.DocumentSnapshot` holding a
state sees one consistent set of figures however long a request takes. Nothing here is
changed after it is stored.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import attrs
from lsprotocol import types

from offload_ls.gpu.launch import RunReport
from offload_ls.gpu.profile import ProfileReport
from offload_ls.gpu.ptx_perf import PtxKernelPerf
from offload_ls.gpu.resources import KernelResources
from offload_ls.toolchain.transfer_plan import KernelTransfers


@dataclass(frozen=True)
class CheckDiagnostics:
    """The newest delivered offload check of one crate as the server shows it (lsp/compile.py
    builds it from workflow/check.py's ``CrateCheck``; its dicts are filled before it is stored
    and not changed after).

    Attributes:
        generation: the check's generation (toolchain/service.py; newer checks count higher).
        diagnostics: URI -> the compiler's diagnostics there, and the transfer plan's findings
            in the crate's open documents.
        fixes: URI -> (diagnostic, its MachineApplicable suggestion's edits).
        error_ranges: URI -> the ranges of the compiler's errors there (a lint finding on
            one of them may be hidden: workflow/check.py ``predicted``).
        transfers: kernel symbol -> the compiled host pass's transfer plan.
    """

    generation: int = 0
    diagnostics: dict[str, list[types.Diagnostic]] = field(default_factory=dict)
    fixes: dict[str, list[tuple[types.Diagnostic, list[types.TextEdit]]]] = field(default_factory=dict)
    error_ranges: dict[str, list[types.Range]] = field(default_factory=dict)
    transfers: dict[str, KernelTransfers] = field(default_factory=dict)


@attrs.frozen
class CrateState:
    """One crate's newest results.

    Attributes:
        check: the newest offload check (``None``: not checked in this session).
        resources: the last build's per-kernel resources (``ptxas -v``; empty after a failed build).
        ptx_perf: the last build's per-kernel PTX counts (gpu/ptx_perf.py).
        run: the last run's report (a profile's run too).
        profile: the last profile (lsp/profile.py).
    """

    check: CheckDiagnostics | None = None
    resources: tuple[KernelResources, ...] = ()
    ptx_perf: tuple[PtxKernelPerf, ...] = ()
    run: RunReport | None = None
    profile: ProfileReport | None = None

    @property
    def transfers(self) -> dict[str, KernelTransfers]:
        """The newest check's transfer plan per kernel symbol (empty without a check)."""
        return self.check.transfers if self.check is not None else {}


#: the state of a crate nothing finished for yet
NOTHING = CrateState()


@attrs.frozen
class ClientView:
    """What the client can show, read once from ``initialize``'s capabilities.

    Attributes:
        hover_markdown: hover text may be Markdown (the client named it, or named no format).
        assembly_view: the client has the ``offload-ls.showAssembly`` command (in
            ``capabilities.experimental.commands.commands``, rust-analyzer's convention).
    """

    hover_markdown: bool = True
    assembly_view: bool = False

    @classmethod
    def of(cls, capabilities: types.ClientCapabilities | None, show_assembly: str) -> ClientView:
        """The view of ``capabilities`` (``show_assembly``: the client command's name)."""
        if capabilities is None:
            return cls()
        hover = capabilities.text_document.hover if capabilities.text_document else None
        formats = hover.content_format if hover else None
        experimental = capabilities.experimental
        listed = experimental.get("commands") if isinstance(experimental, dict) else None
        commands = listed.get("commands") if isinstance(listed, dict) else None
        return cls(hover_markdown=not formats or types.MarkupKind.Markdown in formats,
                   assembly_view=isinstance(commands, list) and show_assembly in commands)


def compiler_diagnostics(states: dict, uri: str) -> list[types.Diagnostic]:
    """Every crate's newest compiler diagnostics in ``uri`` (``states``: manifest ->
    :class:`CrateState`; a file can be in the messages of a crate that depends on it)."""
    out: list[types.Diagnostic] = []
    for state in states.values():
        if state.check is not None:
            out += state.check.diagnostics.get(uri, [])
    return out


def compiler_error_ranges(states: dict, uri: str) -> list[types.Range]:
    """Every crate's newest compiler error ranges in ``uri``."""
    return [r for state in states.values() if state.check is not None
            for r in state.check.error_ranges.get(uri, [])]


def compiler_fixes(states: dict, uri: str) -> tuple[tuple[types.Diagnostic, list[types.TextEdit]], ...]:
    """Every crate's newest MachineApplicable compiler suggestions in ``uri``."""
    return tuple(fix for state in states.values() if state.check is not None
                 for fix in state.check.fixes.get(uri, []))
