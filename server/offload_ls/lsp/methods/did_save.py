"""``textDocument/didSave``: a saved Cargo.toml counts as a file event; a saved ``.rs`` is
re-analysed and its crate gets an offload check (lsp/compile.py)."""

from __future__ import annotations

from lsprotocol import types

from offload_ls.lsp.documents import uri_path

METHOD = types.TEXT_DOCUMENT_DID_SAVE
OPTIONS = types.SaveOptions(include_text=False)


def handle(ls, params: types.DidSaveTextDocumentParams) -> None:
    uri = params.text_document.uri
    path = uri_path(uri)
    if path is not None and path.name == "Cargo.toml":
        ls.files.on_file_event(path, False)
    elif uri in ls.session.documents:
        ls.analyses.schedule(uri, 0)
    if path is not None and path.suffix == ".rs":
        ls.compiles.on_source_saved(path)
