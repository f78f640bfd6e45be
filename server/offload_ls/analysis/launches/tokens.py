"""Macro token text re-parsed as Rust: macro bodies are token trees, not expressions
(DESIGN.md, "Known hard parts"), so the tokens' source text is wrapped into a synthetic call
``__offload_ls(<text>);`` inside a function, parsed with tree-sitter, and every byte offset
is mapped back into the file.
"""

from __future__ import annotations

from tree_sitter import Node

from offload_ls.analysis.model import LaunchArg, Span
from offload_ls.syntax.parse import SNIPPET_PREFIX, SNIPPET_SUFFIX, node_text, parse, snippet_call


class Reparsed:
    """Arguments of ``__offload_ls(<text>)`` with offsets mapped back to the file."""

    def __init__(self, text_start: int, text: bytes) -> None:
        self.base = text_start - len(SNIPPET_PREFIX)
        tree = parse(SNIPPET_PREFIX + text + SNIPPET_SUFFIX)
        self.args: list[Node] = []
        call = snippet_call(tree)
        if call is not None:
            arguments = call.child_by_field_name("arguments")
            if arguments is not None:
                self.args = [c for c in arguments.named_children if not c.type.endswith("comment")]

    def span(self, node: Node) -> Span:
        return Span(node.start_byte + self.base, node.end_byte + self.base)


def inner_range(token_tree: Node) -> tuple[int, int]:
    """Byte range inside a token tree's delimiters."""
    start, end = token_tree.start_byte, token_tree.end_byte
    if token_tree.child_count >= 2:
        start = token_tree.children[0].end_byte
        end = token_tree.children[-1].start_byte
    return start, end


def tuple_args(node: Node, rp: Reparsed | None) -> tuple[LaunchArg, ...]:
    """Elements of a tuple / parenthesized expression as launch arguments."""
    span = rp.span if rp is not None else (lambda n: Span(n.start_byte, n.end_byte))
    if node.type == "tuple_expression":
        elems = [c for c in node.named_children if not c.type.endswith("comment")]
    elif node.type == "parenthesized_expression":
        elems = [c for c in node.named_children if not c.type.endswith("comment")]
    elif node.type == "unit_expression":
        elems = []
    else:
        elems = [node]
    return tuple(LaunchArg(node_text(e), span(e)) for e in elems)


def named(node: Node) -> list[Node]:
    return [c for c in node.named_children if not c.type.endswith("comment")]


def last_segment(node: Node) -> Node:
    """The name in a path (``module.k`` -> ``k``, ``a::b::k`` -> ``k``)."""
    if node.type == "scoped_identifier":
        name = node.child_by_field_name("name")
        return name if name is not None else node
    if node.type == "field_expression":
        field = node.child_by_field_name("field")
        return field if field is not None else node
    if node.type == "generic_function":
        inner = node.child_by_field_name("function")
        return last_segment(inner) if inner is not None else node
    return node
