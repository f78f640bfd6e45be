"""Tree-sitter queries, loaded once from ``grammars/rust/*.scm``.

Queries are data: each ``.scm`` file is one query; Python code asks for it by file stem
(e.g. ``query("kernel_attributes")``) and runs it with :func:`captures` / :func:`matches`.

Every run of a query walks the whole subtree it is given, so code that needs several
queries over the same nodes asks for them together with :func:`captures_many`: the files
are compiled into one query (each capture renamed ``<file>.<capture>``), run once, and the
captures are handed back per file exactly as :func:`captures` would give them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

from tree_sitter import Node, Query, QueryCursor

from offload_ls.resources import data_dir
from offload_ls.syntax.parse import rust_language

_CAPTURE = re.compile(r"@([A-Za-z_][\w.-]*)")
#: ``"@@name@@"`` in a query file: a list of quoted names filled in from the vocabulary.
_PLACEHOLDER = re.compile(r'"@@([a-z_]+)@@"')

_vocabulary: Callable[[], dict[str, str]] | None = None


def set_vocabulary(provider: Callable[[], dict[str, str]]) -> None:
    """Set where placeholders in query files get their names: ``provider()`` returns
    placeholder -> quoted, space-separated names (the analysis layer's ecosystem profiles,
    analysis/ecosystems ``query_vocabulary``). Call before the first query that uses one."""
    global _vocabulary
    _vocabulary = provider


def _text(name: str) -> str:
    path = data_dir("grammars") / "rust" / f"{name}.scm"
    text = path.read_text(encoding="utf-8")
    if "@@" not in text:
        return text
    if _vocabulary is None:
        raise RuntimeError(f"query {name}.scm has vocabulary placeholders and no vocabulary was set")
    vocab = _vocabulary()
    return _PLACEHOLDER.sub(lambda m: vocab[m.group(1)], text)


@cache
def query(name: str) -> Query:
    """Compile ``grammars/rust/<name>.scm`` (once per process).

    Raises:
        FileNotFoundError: no such query file.
        tree_sitter.QueryError: the file does not compile against tree-sitter-rust.
    """
    return Query(rust_language(), _text(name))


def compile_all() -> int:
    """Compile every ``grammars/rust/*.scm`` query now (a server's warm-up); returns how
    many there are."""
    names = sorted(p.stem for p in (data_dir("grammars") / "rust").glob("*.scm"))
    for name in names:
        query(name)
    return len(names)


def captures(name: str, node: Node) -> dict[str, list[Node]]:
    """Run query ``name`` on ``node``; capture name -> nodes in document order."""
    found = QueryCursor(query(name)).captures(node)
    return {k: sorted(v, key=_start) for k, v in found.items()}


def matches(name: str, node: Node) -> list[tuple[int, dict[str, list[Node]]]]:
    """Run query ``name`` on ``node``; a list of (pattern index, captures) per match."""
    return QueryCursor(query(name)).matches(node)


@cache
def combined_query(names: tuple[str, ...]) -> Query:
    """The query files ``names`` compiled into one query whose captures are renamed
    ``<file>.<capture>`` (predicates refer to the renamed captures too), compiled once per
    process. Capture names are letters, digits, ``_``, ``.`` and ``-``; the ``.scm`` files
    hold no ``@`` inside string literals, so renaming every ``@name`` is exact."""
    parts = [_CAPTURE.sub(lambda m, n=n: f"@{n}.{m.group(1)}", _text(n)) for n in names]
    return Query(rust_language(), "\n".join(parts))


def captures_many(names: tuple[str, ...], node: Node, byte_range: tuple[int, int] | None = None
                  ) -> dict[str, dict[str, list[Node]]]:
    """Run the query files ``names`` over ``node`` in one pass.

    Args:
        names: query file stems, e.g. ``("dataflow", "thread_index")``.
        node: the subtree to search.
        byte_range: optional UTF-8 byte range ``(start, end)``: only nodes that intersect
            it are searched (tree-sitter ``QueryCursor.set_byte_range``); callers that want
            nodes wholly inside it filter the result.

    Returns:
        file stem -> capture name -> nodes in document order: for each file, what
        :func:`captures` gives for that file alone (files without captures map to ``{}``).
    """
    cursor = QueryCursor(combined_query(names))
    if byte_range is not None:
        cursor.set_byte_range(byte_range[0], byte_range[1])
    found = cursor.captures(node)
    out: dict[str, dict[str, list[Node]]] = {n: {} for n in names}
    for key, nodes in found.items():
        file, _, cap = key.partition(".")
        out[file][cap] = sorted(nodes, key=_start)
    return out


def _start(node: Node) -> int:
    return node.start_byte
