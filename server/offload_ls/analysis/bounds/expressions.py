"""Index expressions in canonical forms: without parentheses, casts and value-preserving
conversions (:func:`strip`), as canonical text (:func:`canon`: guards and indexes are matched
by it) and as ``key + constant offset`` (:func:`affine`), and the operands of sums and
products. Pure syntax; no I/O.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tree_sitter import Node

from offload_ls.analysis.consts import int_literal
from offload_ls.syntax.parse import node_text

#: Deepest expression followed.
MAX_DEPTH = 64
#: Methods that convert a value without changing it (cuda-oxide ``ThreadIndex::get``).
_TRANSPARENT_METHODS = frozenset({"get", "into", "try_into", "unwrap", "as_usize", "to_usize"})


@dataclass(frozen=True)
class Affine:
    """``key + off``: ``key`` the canonical text of the non-constant part ("" for a
    constant), ``off`` an integer (a constant's value when ``key`` is "")."""

    key: str
    off: int




def named(node: Node) -> list[Node]:
    return [c for c in node.named_children if not c.type.endswith("comment")]


def strip(node: Node) -> Node:
    """``node`` without parentheses, ``as`` casts, value-preserving conversions and
    blocks whose only content is their value (``unsafe { i }``)."""
    depth = 0
    while depth < MAX_DEPTH:
        depth += 1
        t = node.type
        if t == "parenthesized_expression":
            inner = named(node)
            if len(inner) != 1:
                return node
            node = inner[0]
        elif t == "type_cast_expression":
            v = node.child_by_field_name("value")
            if v is None:
                return node
            node = v
        elif t in ("unsafe_block", "block"):  # `unsafe { _thread_idx_x() }`: its value
            block = node if t == "block" else next((c for c in node.named_children if c.type == "block"), None)
            inner = named(block) if block is not None else []
            if len(inner) != 1 or inner[0].type.endswith("_statement") or inner[0].type == "let_declaration":
                return node
            node = inner[0]
        elif t == "call_expression":
            fn, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
            if fn is None or fn.type != "field_expression" or args is None or named(args):
                return node
            field = fn.child_by_field_name("field")
            if field is None or node_text(field) not in _TRANSPARENT_METHODS:
                return node
            v = fn.child_by_field_name("value")
            if v is None:
                return node
            node = v
        else:
            return node
    return node


def canon(node: Node, depth: int = 0) -> str:
    """Canonical text of an expression (see module docstring)."""
    node = strip(node)
    if depth > MAX_DEPTH:
        return node_text(node)
    t = node.type
    if t == "integer_literal":
        v = int_literal(node_text(node))
        return str(v) if v is not None else node_text(node)
    if t == "binary_expression":
        op = node.child_by_field_name("operator")
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if op is None or left is None or right is None:
            return node_text(node)
        a, b = canon(left, depth + 1), canon(right, depth + 1)
        if op.type == "*" and b < a:
            a, b = b, a  # `TILE * i` and `i * TILE` are one value (a guard in one order, the index in the other)
        return f"({a}{op.type}{b})"
    if t == "field_expression":
        v, f = node.child_by_field_name("value"), node.child_by_field_name("field")
        if v is None or f is None:
            return node_text(node)
        return f"{canon(v, depth + 1)}.{node_text(f)}"
    if t == "call_expression":
        fn, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
        if fn is None or args is None:
            return node_text(node)
        inner = ",".join(canon(a, depth + 1) for a in named(args))
        return f"{canon(fn, depth + 1)}({inner})"
    if t == "unary_expression":
        op = node.child(0)
        inner = named(node)
        if op is not None and inner:
            return f"{op.type}{canon(inner[0], depth + 1)}"
    return "".join(node_text(node).split())


def affine(node: Node, fold: Callable[[Node], int | None] | None = None, depth: int = 0) -> Affine:
    """``node`` as ``key + off``: constant terms added or subtracted at the top are taken
    into ``off`` (``i + 1`` -> ("i", 1), ``n - 1`` -> ("n", -1), ``256`` -> ("", 256));
    ``fold`` gives the value of a constant name (``N``) where known."""
    node = strip(node)
    value = constant(node, fold)
    if value is not None:
        return Affine("", value)
    if node.type == "binary_expression" and depth < MAX_DEPTH:
        op = node.child_by_field_name("operator")
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if op is not None and left is not None and right is not None and op.type in ("+", "-"):
            rv = constant(strip(right), fold)
            if rv is not None:
                a = affine(left, fold, depth + 1)
                return Affine(a.key, a.off + (rv if op.type == "+" else -rv))
            lv = constant(strip(left), fold)
            if lv is not None and op.type == "+":
                a = affine(right, fold, depth + 1)
                return Affine(a.key, a.off + lv)
    return Affine(canon(node), 0)


def constant(node: Node, fold: Callable[[Node], int | None] | None) -> int | None:
    if node.type == "integer_literal":
        return int_literal(node_text(node))
    if fold is not None:
        return fold(node)
    return None


def path_name(call: Node) -> str:
    """Last segment of a call's function path (``thread::index_2d_col()`` ->
    ``index_2d_col``), "" for a method call or anything else."""
    fn = call.child_by_field_name("function") if call.type == "call_expression" else None
    if fn is not None and fn.type == "scoped_identifier":
        fn = fn.child_by_field_name("name")
    return node_text(fn) if fn is not None and fn.type == "identifier" else ""



def method_call(call: Node) -> tuple[str, Node, list[Node]] | None:
    """``recv.name(args..)`` -> (name, recv, the arguments), else None."""
    if call.type != "call_expression":
        return None
    fn, args = call.child_by_field_name("function"), call.child_by_field_name("arguments")
    if fn is None or fn.type != "field_expression" or args is None:
        return None
    field, recv = fn.child_by_field_name("field"), fn.child_by_field_name("value")
    if field is None or recv is None:
        return None
    return node_text(field), recv, named(args)



def operands(node: Node, operator: str, limit: int | None = None) -> list[Node]:
    """The operands of a chain of one operator, ``a + b + c`` or ``a * b * c`` (parentheses
    and casts stripped), split at most ``limit`` levels deep (``None``: all)."""
    node = strip(node)
    if node.type == "binary_expression" and (limit is None or limit > 0):
        op = node.child_by_field_name("operator")
        if op is not None and op.type == operator:
            inner = None if limit is None else limit - 1
            return operands(node.child_by_field_name("left"), operator, inner) + \
                operands(node.child_by_field_name("right"), operator, inner)
    return [node]


def sum_terms(node: Node) -> list[Node]:
    """The terms of a sum ``a + b + c`` (parentheses and casts stripped)."""
    return operands(node, "+")


def sum_key(terms: list[Node]) -> str:
    """The guard key (:func:`canon`) of the sum of ``terms`` in the order written, as if
    parenthesized on their own: ``kk``, ``tx`` -> the key of ``(kk + tx)``."""
    key = canon(terms[0])
    for t in terms[1:]:
        key = f"({key}+{canon(t)})"
    return key


