"""``workspace/didChangeWorkspaceFolders``: pygls has updated its folder list; forget files
outside the remaining folders, re-watch and re-scan (lsp/disk_files.py)."""

from __future__ import annotations

from lsprotocol import types

METHOD = types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS


async def handle(ls, params: types.DidChangeWorkspaceFoldersParams) -> None:
    await ls.files.on_folders_changed()
