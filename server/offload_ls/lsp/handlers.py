"""Registers every LSP method module (:mod:`offload_ls.lsp.methods`) and every
``workspace/executeCommand`` command on the server."""

from __future__ import annotations

from offload_ls.lsp import methods
from offload_ls.lsp.methods.commands import COMMANDS


def register(server) -> None:
    """Register every feature offload-ls implements on ``server``."""
    for module in methods.ALL:
        server.feature(module.METHOD, getattr(module, "OPTIONS", None))(module.handle)
    for name, handler in COMMANDS.items():
        server.command(name)(handler)
