"""offload-ls: a language server for Rust GPU kernels.

Layers (see ARCHITECTURE.md): ``syntax`` -> ``analysis`` -> ``lsp`` / ``cli``.
"""

__version__ = "0.1.0"
