"""The session's settings as the client gives them: ``initializationOptions`` at start, the
``workspace/configuration`` section ``offload-ls`` pulled at ``initialized`` and on every
``workspace/didChangeConfiguration`` (lsp/config.py parses them; settings.py is the schema).
A problem in them is logged, and a new set of problems is shown once."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from lsprotocol import types

from offload_ls.lsp.config import SECTION, parse_client_settings
from offload_ls.settings import Settings

if TYPE_CHECKING:
    from offload_ls.lsp.host import Host

#: How long to wait for the client to answer ``workspace/configuration`` (seconds).
CONFIG_TIMEOUT_S = 10.0


def report_problems(server: "Host", problems: list[str]) -> None:
    """Each problem to ``window/logMessage``; one ``showMessage`` warning for a new set."""
    session = server.session
    for p in problems:
        server.log(f"settings: {p}", types.MessageType.Warning)
    if problems and tuple(problems) != session.shown_problems:
        session.shown_problems = tuple(problems)
        n = len(problems)
        server.show(f"offload-ls: {n} problem{'s' if n != 1 else ''} in the settings "
                    f"{'were' if n != 1 else 'was'} ignored; see the offload-ls log for details")


async def pull(server: "Host", fallback=None) -> tuple[Settings, list[str]]:
    """Settings from ``workspace/configuration`` (section ``offload-ls``) on top of the
    ``initializationOptions``; ``fallback`` (a didChangeConfiguration payload) is used
    when the client cannot be asked. A failed or late answer keeps the current settings."""
    session = server.session
    if not server.client_supports("workspace.configuration"):
        if fallback is None:
            return session.settings, []
        return parse_client_settings(fallback, session.init_settings)
    try:
        result = await asyncio.wait_for(
            server.workspace_configuration_async(
                types.ConfigurationParams(items=[types.ConfigurationItem(section=SECTION)])),
            CONFIG_TIMEOUT_S)
    except Exception as exc:  # noqa: BLE001 - timeout or error reply: keep settings
        server.log(f"workspace/configuration failed ({type(exc).__name__}: {exc}); "
                   f"keeping the current settings", types.MessageType.Warning)
        return session.settings, []
    raw = result[0] if result else None
    return parse_client_settings(raw, session.init_settings)


async def refresh(server: "Host", fallback=None) -> None:
    """Re-read the settings and re-analyse everything if they changed; trust withdrawn
    stops that workspace's checks, builds and runs."""
    session = server.session
    new, problems = await pull(server, fallback)
    report_problems(server, problems)
    old, session.settings = session.settings, new
    if new.trustedWorkspaces != old.trustedWorkspaces:
        # consent withdrawn: nothing of those crates keeps running
        stopped = server.compiles.stop_untrusted() | server.gpu.stop_untrusted()
        for manifest in sorted(stopped):
            server.log(f"{manifest.parent} is no longer trusted: its running offload check, build or run "
                       f"was stopped", types.MessageType.Warning)
    if new != old:
        await server.files.reanalyze_all(scan_changed=new.scanWorkspace != old.scanWorkspace)
