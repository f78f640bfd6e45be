"""The ``offload-ls`` command line: ``serve`` (the language server over stdio), ``check``
(lint files for CI and pre-commit, as text, JSON or SARIF 2.1.0) and ``rules``.

Entry point: :func:`offload_ls.cli.main.main`. This layer may do I/O; it uses the pure
``analysis`` layer through :func:`offload_ls.analysis.engine.analyze_source` and never
imports pygls/lsprotocol except lazily, to start the server.
"""
