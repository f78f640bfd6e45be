"""Syntax layer: tree-sitter parsing, incremental re-parse, queries, byte/position maps.

Never imports pygls or lsprotocol (checked by tests/test_architecture.py).
"""
