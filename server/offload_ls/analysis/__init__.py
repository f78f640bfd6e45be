"""Analysis layer: pure functions from a syntax tree to kernels, launches and findings.

No I/O, no asyncio, no LSP types: results are plain dataclasses with UTF-8 byte ranges.
Never imports pygls or lsprotocol (checked by tests/test_architecture.py).
"""
