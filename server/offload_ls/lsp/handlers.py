"""Registers every LSP method module (:mod:`offload_ls.lsp.methods`) and every
``workspace/executeCommand`` command on the server."""

from __future__ import annotations

from offload_ls.lsp import methods
from offload_ls.lsp.methods.commands import COMMANDS


def document_request(handle):
    """``handle(snapshot, params)`` as a pygls handler: it takes a snapshot of the request's
    document first (awaiting its analysis off the event loop's thread); a document that is
    not open, or whose text changed while it was analysed, gets ``None`` (no answer about a
    text the client no longer has)."""
    async def run(ls, params):
        snap = await ls.analyses.snapshot(params.text_document.uri)
        return handle(snap, params) if snap is not None else None
    run.__name__ = run.__qualname__ = f"{handle.__module__}.handle"
    return run


def register(server) -> None:
    """Register every feature offload-ls implements on ``server``."""
    for module in methods.DOCUMENT_REQUESTS:
        server.feature(module.METHOD, getattr(module, "OPTIONS", None))(document_request(module.handle))
    for module in methods.SESSION_METHODS:
        server.feature(module.METHOD, getattr(module, "OPTIONS", None))(module.handle)
    for name, handler in COMMANDS.items():
        server.command(name)(handler)
