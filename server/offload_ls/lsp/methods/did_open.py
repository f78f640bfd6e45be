"""``textDocument/didOpen``: track a Rust document and analyze it at once."""

from __future__ import annotations

from lsprotocol import types

from offload_ls.lsp.documents import is_rust_document

METHOD = types.TEXT_DOCUMENT_DID_OPEN


def handle(ls, params: types.DidOpenTextDocumentParams) -> None:
    td = params.text_document
    if not is_rust_document(td.uri, td.language_id):
        return
    ls.bind_loop()
    ls.session.documents.open(td.uri, td.text, td.version)
    ls.files.on_document_opened(td.uri)
    ls.analyses.schedule(td.uri, 0)
