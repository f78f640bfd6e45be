"""``workspace/didChangeWatchedFiles``: file events the client watches for us (registered
at ``initialized``; lsp/disk_files.py)."""

from __future__ import annotations

from lsprotocol import types

from offload_ls.lsp.documents import uri_path

METHOD = types.WORKSPACE_DID_CHANGE_WATCHED_FILES


def handle(ls, params: types.DidChangeWatchedFilesParams) -> None:
    for change in params.changes:
        path = uri_path(change.uri)
        if path is not None:
            ls.files.on_file_event(path, change.type == types.FileChangeType.Deleted)
