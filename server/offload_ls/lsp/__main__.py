"""``python -m offload_ls.lsp``: run the language server over stdio."""

from offload_ls.lsp.server import serve_stdio

serve_stdio()
