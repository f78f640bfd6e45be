"""``textDocument/inlayHint``: the compiled transfer plan at each launch argument
(``→ 4 KiB`` to the device, ``⇄ 4 KiB`` there and back; lsp/check_views.py)."""

from __future__ import annotations

from lsprotocol import types

from offload_ls.lsp import check_views
from offload_ls.lsp.positions import to_span
from offload_ls.lsp.session import DocumentSnapshot

METHOD = types.TEXT_DOCUMENT_INLAY_HINT
OPTIONS = types.InlayHintOptions(resolve_provider=False)


def handle(snap: DocumentSnapshot, params: types.InlayHintParams) -> list[types.InlayHint]:
    return check_views.inlay_hints(snap, to_span(snap.line_index, params.range, snap.encoding))
