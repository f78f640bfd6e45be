"""``textDocument/hover``: a kernel's or a launch's summary (lsp/hover.py), with the last
build's resources and PTX figures of a kernel (lsp/kernel_views.py) and the compiled
transfer plan of a launch (lsp/check_views.py)."""

from __future__ import annotations

from lsprotocol import types

from offload_ls.lsp import check_views, kernel_views
from offload_ls.lsp.hover import hover_at, to_hover
from offload_ls.lsp.positions import to_offset
from offload_ls.lsp.session import DocumentSnapshot

METHOD = types.TEXT_DOCUMENT_HOVER


def handle(snap: DocumentSnapshot, params: types.HoverParams) -> types.Hover | None:
    found = hover_at(snap.analysis, snap.source, to_offset(snap.line_index, params.position, snap.encoding))
    if found is None:
        return None
    text, span = found
    kernel = next((k for k in snap.analysis.kernels if k.name_span == span), None)
    if kernel is not None:
        text += kernel_views.resources_markdown(snap, kernel.name) or ""
    launch = next((la for la in snap.analysis.launches if la.span == span), None)
    if launch is not None:
        table = check_views.hover_table(snap, launch)
        if table:
            text += "\n" + table
    return to_hover(text, span, snap.line_index, snap.encoding, snap.client.hover_markdown)
