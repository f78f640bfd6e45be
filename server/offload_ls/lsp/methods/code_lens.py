"""``textDocument/codeLens``: Build / Run / Profile on ``fn main`` and kernels, the last
run's and build's figures, "Show PTX" (lsp/commands.py, lsp/profile.py, lsp/assembly.py)."""

from __future__ import annotations

from lsprotocol import types

from offload_ls.lsp import kernel_views

METHOD = types.TEXT_DOCUMENT_CODE_LENS
OPTIONS = types.CodeLensOptions(resolve_provider=False)


async def handle(ls, params: types.CodeLensParams) -> list[types.CodeLens] | None:
    snap = await ls.analyses.snapshot(params.text_document.uri)
    if snap is None:
        return None
    return kernel_views.code_lenses(ls.gpu, snap)
