"""Tree-sitter queries, loaded once from ``grammars/rust/*.scm``.

Queries are data: each ``.scm`` file is one query; Python code asks for it by file stem
(e.g. ``query("kernel_attributes")``) and runs it with :func:`captures` / :func:`matches`.
"""

from __future__ import annotations

from functools import cache

from tree_sitter import Node, Query, QueryCursor

from offload_ls.resources import data_dir
from offload_ls.syntax.parse import rust_language


@cache
def query(name: str) -> Query:
    """Compile ``grammars/rust/<name>.scm`` (once per process).

    Raises:
        FileNotFoundError: no such query file.
        tree_sitter.QueryError: the file does not compile against tree-sitter-rust.
    """
    path = data_dir("grammars") / "rust" / f"{name}.scm"
    return Query(rust_language(), path.read_text(encoding="utf-8"))


def captures(name: str, node: Node) -> dict[str, list[Node]]:
    """Run query ``name`` on ``node``; capture name -> nodes in document order."""
    found = QueryCursor(query(name)).captures(node)
    return {k: sorted(v, key=lambda n: n.start_byte) for k, v in found.items()}


def matches(name: str, node: Node) -> list[tuple[int, dict[str, list[Node]]]]:
    """Run query ``name`` on ``node``; a list of (pattern index, captures) per match."""
    return QueryCursor(query(name)).matches(node)
