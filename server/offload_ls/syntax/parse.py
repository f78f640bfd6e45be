"""Parsing Rust with tree-sitter-rust, whole and incrementally.

Parsing never fails: a file with syntax errors yields a tree with ERROR / MISSING nodes,
and analysis runs on what could be parsed.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import tree_sitter_rust
from tree_sitter import Language, Node, Parser, Point, Tree

from offload_ls.syntax.text import LineIndex


@cache
def rust_language() -> Language:
    """The tree-sitter-rust grammar (loaded once per process)."""
    return Language(tree_sitter_rust.language())


def _parser() -> Parser:
    return Parser(rust_language())


def parse(source: bytes, old_tree: Tree | None = None) -> Tree:
    """Parse ``source`` (UTF-8 bytes). With ``old_tree`` (already ``edit``-ed), re-parse
    incrementally, reusing unchanged subtrees."""
    parser = _parser()
    return parser.parse(source, old_tree) if old_tree is not None else parser.parse(source)


@dataclass
class TextEdit:
    """Replace bytes ``[start, end)`` of the current text with ``new_text`` (UTF-8 bytes)."""

    start: int
    end: int
    new_text: bytes


class ParsedFile:
    """A file's bytes and its syntax tree, kept up to date through incremental edits.

    Args:
        source: the full text as UTF-8 bytes.

    Attributes:
        source: current bytes.
        tree: current tree-sitter tree (always present; may contain ERROR nodes).
        version: increases by one per applied batch of edits.
    """

    def __init__(self, source: bytes) -> None:
        self.source = source
        self.tree = parse(source)
        self.version = 0
        self._line_index: LineIndex | None = None

    @property
    def line_index(self) -> LineIndex:
        """Byte/position map of the current text (built lazily, once per version)."""
        if self._line_index is None:
            self._line_index = LineIndex(self.source)
        return self._line_index

    @property
    def root(self) -> Node:
        return self.tree.root_node

    def replace(self, source: bytes) -> None:
        """Replace the whole text (full re-parse)."""
        self.source = source
        self.tree = parse(source)
        self.version += 1
        self._line_index = None

    def apply(self, edits: list[TextEdit]) -> None:
        """Apply edits in order (each one's byte offsets refer to the text left by the
        previous one), telling tree-sitter about each, then re-parse incrementally once.

        Offsets are clamped into the text; an inverted range is treated as empty.
        """
        tree = self.tree
        source = self.source
        for e in edits:
            start = max(0, min(e.start, len(source)))
            end = max(start, min(e.end, len(source)))
            new_source = source[:start] + e.new_text + source[end:]
            new_end = start + len(e.new_text)
            tree.edit(
                start_byte=start,
                old_end_byte=end,
                new_end_byte=new_end,
                start_point=_point(source, start),
                old_end_point=_point(source, end),
                new_end_point=_point(new_source, new_end),
            )
            source = new_source
        self.source = source
        self.tree = parse(source, tree)
        self.version += 1
        self._line_index = None


def _point(source: bytes, offset: int) -> Point:
    """tree-sitter Point (row, byte column) of ``offset``."""
    row = source.count(b"\n", 0, offset)
    line_start = source.rfind(b"\n", 0, offset) + 1
    return Point(row, offset - line_start)


def node_text(node: Node) -> str:
    """The node's source text decoded as UTF-8 (invalid bytes replaced)."""
    return (node.text or b"").decode("utf-8", errors="replace")


#: Wrapper that makes a macro's token text parse as the arguments of a call
#: (DESIGN.md "Known hard parts": macro bodies are token trees).
SNIPPET_PREFIX = b"fn __offload_ls() { __offload_ls("
SNIPPET_SUFFIX = b"); }"


def parse_type(text: str) -> Node | None:
    """The type node of the Rust type written ``text`` (``&mut [f32; N]``), parsed as the
    type of ``type __T = <text>;``; ``None`` when it is no type."""
    tree = parse(b"type __T = " + text.encode("utf-8", "replace") + b";")
    item = tree.root_node.named_children[0] if tree.root_node.named_children else None
    return item.child_by_field_name("type") if item is not None else None


def identifier_nodes(node: Node, kind: str = "identifier") -> list[Node]:
    """Every node of type ``kind`` (``identifier``, or ``type_identifier`` for the names in
    a type) below ``node`` (``node`` included), token trees of attributes and macros too,
    in no particular order."""
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        if n.type == kind:
            out.append(n)
        stack.extend(n.children)
    return out


def snippet_call(tree: Tree) -> Node | None:
    """The first ``call_expression`` (in document order) of a tree parsed from
    ``SNIPPET_PREFIX + text + SNIPPET_SUFFIX``: normally the wrapper call itself, found by
    its fixed place (``fn`` item, body, first statement) without walking the tree; a walk
    in document order otherwise (text that broke the wrapper's shape)."""
    root = tree.root_node
    fn = root.child(0)
    if fn is not None and fn.type == "function_item":
        body = fn.child_by_field_name("body")
        stmt = body.named_child(0) if body is not None else None
        call = stmt.child(0) if stmt is not None and stmt.type == "expression_statement" else None
        # nothing before the body can hold a call: the wrapper's name and `()` are fixed text
        if call is not None and call.type == "call_expression" and _before_only_fixed(fn, body, stmt):
            return call
    stack = [root]
    while stack:
        n = stack.pop()
        if n.type == "call_expression":
            return n
        stack.extend(reversed(n.children))
    return None


def _before_only_fixed(fn: Node, body: Node, stmt: Node) -> bool:
    """``fn __offload_ls() {`` precedes ``stmt`` exactly (no ERROR or extra node)."""
    return (fn.start_byte == 0 and body.start_byte == len(SNIPPET_PREFIX) - len(b" __offload_ls(") - 1
            and stmt.start_byte == len(SNIPPET_PREFIX) - len(b"__offload_ls("))
