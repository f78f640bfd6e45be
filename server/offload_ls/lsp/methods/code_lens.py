"""``textDocument/codeLens``: Build / Run / Profile on ``fn main`` and kernels, the last
run's and build's figures, "Show PTX" (lsp/kernel_views.py, lsp/profile.py, lsp/assembly.py)."""

from __future__ import annotations

from lsprotocol import types

from offload_ls.lsp import kernel_views
from offload_ls.lsp.session import DocumentSnapshot

METHOD = types.TEXT_DOCUMENT_CODE_LENS
OPTIONS = types.CodeLensOptions(resolve_provider=False)


def handle(snap: DocumentSnapshot, params: types.CodeLensParams) -> list[types.CodeLens]:
    return kernel_views.code_lenses(snap)
