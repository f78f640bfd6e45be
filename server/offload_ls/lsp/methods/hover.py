"""``textDocument/hover``: a kernel's or a launch's summary (lsp/hover.py), with the last
build's resources and PTX figures of a kernel (lsp/commands.py) and the compiled transfer
plan of a launch (lsp/compile.py)."""

from __future__ import annotations

from lsprotocol import types

from offload_ls.lsp import kernel_views
from offload_ls.lsp.hover import hover_at, to_hover
from offload_ls.lsp.positions import to_offset

METHOD = types.TEXT_DOCUMENT_HOVER


async def handle(ls, params: types.HoverParams) -> types.Hover | None:
    snap = await ls.analyses.snapshot(params.text_document.uri)
    if snap is None:
        return None
    found = hover_at(snap.analysis, snap.source, to_offset(snap.line_index, params.position, snap.encoding))
    if found is None:
        return None
    text, span = found
    kernel = next((k for k in snap.analysis.kernels if k.name_span == span), None)
    if kernel is not None:
        text += kernel_views.resources_markdown(ls.gpu, snap.path, kernel.name) or ""
    launch = next((la for la in snap.analysis.launches if la.span == span), None)
    if launch is not None:
        table = ls.compiles.hover_table(snap, launch)
        if table:
            text += "\n" + table
    formats = ls.capability("text_document.hover.content_format", None)
    markdown_ok = not formats or types.MarkupKind.Markdown in formats
    return to_hover(text, span, snap.line_index, snap.encoding, markdown_ok)
