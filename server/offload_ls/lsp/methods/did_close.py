"""``textDocument/didClose``: forget the editor's text; the file on disk takes over
(lsp/disk_files.py ``on_document_closed``)."""

from __future__ import annotations

from lsprotocol import types

METHOD = types.TEXT_DOCUMENT_DID_CLOSE


def handle(ls, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.analyses.forget(uri)
    doc = ls.session.documents.close(uri)
    if doc is not None:
        ls.files.on_document_closed(uri, doc.path)
