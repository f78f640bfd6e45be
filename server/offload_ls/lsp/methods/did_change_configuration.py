"""``workspace/didChangeConfiguration``: pull the settings again (the payload is used only
when the client cannot be asked; lsp/settings_sync.py)."""

from __future__ import annotations

from lsprotocol import types

from offload_ls.lsp import settings_sync

METHOD = types.WORKSPACE_DID_CHANGE_CONFIGURATION


async def handle(ls, params: types.DidChangeConfigurationParams) -> None:
    await settings_sync.refresh(ls, params.settings)
