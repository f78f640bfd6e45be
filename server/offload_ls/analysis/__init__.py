"""Analysis layer: pure functions from a syntax tree to kernels, launches and findings.

No I/O, no asyncio, no LSP types: results are plain dataclasses with UTF-8 byte ranges.
Never imports pygls or lsprotocol (checked by tests/test_architecture.py).
"""

from offload_ls.analysis.ecosystems import query_vocabulary as _query_vocabulary
from offload_ls.syntax import queries as _queries

# The thread-index queries (grammars/rust/thread_index.scm, ..) list the names of every
# ecosystem profile through placeholders.
_queries.set_vocabulary(_query_vocabulary)
