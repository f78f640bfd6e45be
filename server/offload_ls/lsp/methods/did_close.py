"""``textDocument/didClose``: forget the editor's text. A workspace file still on disk
goes back to its disk diagnostics (when scanning); any other document's are cleared."""

from __future__ import annotations

from lsprotocol import types

from offload_ls.workspace.files import is_ignored

METHOD = types.TEXT_DOCUMENT_DID_CLOSE


def handle(ls, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    session = ls.session
    ls.analyses.forget(uri)
    doc = session.documents.close(uri)
    if doc is None:
        return
    path = doc.path
    if path is not None and path.suffix == ".rs":
        # the editor's text is gone (maybe unsaved): its crate mates read the file on disk again
        ls.jobs.schedule(f"\0crate {path}", 0, lambda p=path: ls.files.refresh_crate_file(p))
    root = session.root_of(path) if path is not None else None
    if (session.settings.scanWorkspace and root is not None and path.suffix == ".rs"
            and path.is_file() and not is_ignored(path, root)):
        ls.files.schedule(path, uri, 0, force=True)
    else:
        ls.publish(uri, [], None)
