"""``textDocument/didChange``: apply incremental changes (ranges in the negotiated
encoding, lsp/documents.py); re-analysis at once, or after ``debounceMs`` when the user set
one."""

from __future__ import annotations

from lsprotocol import types

METHOD = types.TEXT_DOCUMENT_DID_CHANGE


def handle(ls, params: types.DidChangeTextDocumentParams) -> None:
    td = params.text_document
    session = ls.session
    if session.documents.change(td.uri, td.version, params.content_changes, session.encoding) is not None:
        ls.analyses.schedule(td.uri)
