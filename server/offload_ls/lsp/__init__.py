"""The language-server layer: the only package that imports pygls / lsprotocol.

Modules (one feature each): ``server`` (the LanguageServer subclass holding state, and
``serve_stdio``), ``handlers`` (thin LSP method handlers), ``positions`` (LSP positions
<-> UTF-8 byte offsets), ``documents`` (open-document store, incremental sync),
``diagnostics``, ``hover``, ``code_actions``, ``config`` (settings and Cargo.toml
levels), ``scheduler`` (per-URI debounce), ``workspace_scan`` and ``watcher``.
"""
