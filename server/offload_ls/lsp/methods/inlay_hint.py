"""``textDocument/inlayHint``: the compiled transfer plan at each launch argument
(``→ 4 KiB`` to the device, ``⇄ 4 KiB`` there and back; lsp/compile.py)."""

from __future__ import annotations

from lsprotocol import types

from offload_ls.lsp.positions import to_span

METHOD = types.TEXT_DOCUMENT_INLAY_HINT
OPTIONS = types.InlayHintOptions(resolve_provider=False)


async def handle(ls, params: types.InlayHintParams) -> list[types.InlayHint] | None:
    snap = await ls.analyses.snapshot(params.text_document.uri)
    if snap is None:
        return None
    return ls.compiles.inlay_hints(snap, to_span(snap.line_index, params.range, snap.encoding))
