"""Integer constant expressions: read from the syntax tree into plain data, folded later.

A ``const N: usize = 1 << 10;`` may use other constants, of the same file or of another
file of the crate, so an expression is first captured as a small tree of tuples
(:func:`capture`, per item, cacheable) and folded when the crate's constants are known
(:func:`fold`, given a lookup of constant names).

Captured forms (anything else is ``None``, "not known"):

- ``("int", value)``: an integer literal (``1_024``, ``0x40``, ``256usize``);
- ``("name", "N")``: a path; the last segment names a constant (``config::N``);
- ``("neg", e)``, ``("bin", op, a, b)`` with op in ``+ - * / % << >> & | ^``;
- casts and parentheses are transparent (``(N as u32)`` is ``N``);
- ``("min", a, b)`` / ``("max", a, b)`` for ``a.min(b)`` and ``core::cmp::min(a, b)``.

Folding follows Rust's integer semantics where it matters here: ``/`` truncates toward
zero, a division by zero or a negative shift is "not known". Values are Python ints.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from tree_sitter import Node

from offload_ls.syntax.parse import node_text

#: A captured constant expression: a tuple whose first item is its :data:`ConstTag`.
ConstExpr = tuple
#: The kinds of captured expression (the module docstring lists their forms).
ConstTag = Literal["int", "name", "neg", "bin", "min", "max"]

_INT_SUFFIXES = ("usize", "isize", "u128", "i128", "u64", "i64", "u32", "i32", "u16", "i16", "u8", "i8")
_OPS = frozenset({"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^"})
#: Deepest expression captured / constant chain followed (pathological code stays cheap).
MAX_DEPTH = 64


def int_literal(text: str) -> int | None:
    """Value of an integer literal's text (``1_024``, ``0x40``, ``256usize``), else ``None``."""
    t = text.replace("_", "")
    for suffix in _INT_SUFFIXES:  # `u` and `i` are not hex digits: a suffix is unambiguous
        if t.endswith(suffix):
            t = t[: -len(suffix)]
            break
    try:
        return int(t, 0)
    except ValueError:
        return None


def capture(node: Node | None, depth: int = 0) -> ConstExpr | None:
    """The constant-expression form of ``node`` (see module docstring), or ``None``."""
    if node is None or depth > MAX_DEPTH:
        return None
    t = node.type
    if t == "integer_literal":
        v = int_literal(node_text(node))
        return None if v is None else ("int", v)
    if t in ("identifier", "scoped_identifier"):
        name = node.child_by_field_name("name") if t == "scoped_identifier" else node
        return ("name", node_text(name)) if name is not None else None
    if t == "parenthesized_expression":
        inner = [c for c in node.named_children if not c.type.endswith("comment")]
        return capture(inner[0], depth + 1) if len(inner) == 1 else None
    if t == "type_cast_expression":
        return capture(node.child_by_field_name("value"), depth + 1)
    if t == "unary_expression":
        op = node.child(0)
        inner = [c for c in node.named_children if not c.type.endswith("comment")]
        if op is not None and op.type == "-" and len(inner) == 1:
            e = capture(inner[0], depth + 1)
            return None if e is None else ("neg", e)
        return None
    if t == "binary_expression":
        op = node.child_by_field_name("operator")
        if op is None or op.type not in _OPS:
            return None
        a = capture(node.child_by_field_name("left"), depth + 1)
        b = capture(node.child_by_field_name("right"), depth + 1)
        return None if a is None or b is None else ("bin", op.type, a, b)
    if t == "call_expression":
        return _capture_min_max(node, depth)
    return None


def _capture_min_max(node: Node, depth: int) -> ConstExpr | None:
    """The ``("min" | "max", a, b)`` form of call ``node`` (``a.min(b)``, ``min(a, b)``), or ``None``."""
    fn, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
    if fn is None or args is None:
        return None
    arg_nodes = [c for c in args.named_children if not c.type.endswith("comment")]
    if fn.type == "field_expression" and len(arg_nodes) == 1:  # a.min(b)
        field = fn.child_by_field_name("field")
        if field is not None and node_text(field) in ("min", "max"):
            a = capture(fn.child_by_field_name("value"), depth + 1)
            b = capture(arg_nodes[0], depth + 1)
            return None if a is None or b is None else (node_text(field), a, b)
    if fn.type in ("identifier", "scoped_identifier") and len(arg_nodes) == 2:  # min(a, b)
        name = fn.child_by_field_name("name") if fn.type == "scoped_identifier" else fn
        if name is not None and node_text(name) in ("min", "max"):
            a, b = capture(arg_nodes[0], depth + 1), capture(arg_nodes[1], depth + 1)
            return None if a is None or b is None else (node_text(name), a, b)
    return None


def fold(expr: ConstExpr | None, lookup: Callable[[str], ConstExpr | None], depth: int = 0) -> int | None:
    """The value of a captured expression, resolving ``("name", n)`` with ``lookup(n)``
    (the constant's captured expression, ``None`` when unknown); ``None`` when any part is
    not known. Cycles (``const A: usize = B; const B: usize = A;``) end at MAX_DEPTH."""
    if expr is None or depth > MAX_DEPTH:
        return None
    kind = expr[0]
    if kind == "int":
        return expr[1]
    if kind == "name":
        return fold(lookup(expr[1]), lookup, depth + 1)
    if kind == "neg":
        v = fold(expr[1], lookup, depth + 1)
        return None if v is None else -v
    if kind in ("min", "max"):
        a, b = fold(expr[1], lookup, depth + 1), fold(expr[2], lookup, depth + 1)
        if a is None or b is None:
            return None
        return min(a, b) if kind == "min" else max(a, b)
    if kind == "bin":
        a, b = fold(expr[2], lookup, depth + 1), fold(expr[3], lookup, depth + 1)
        if a is None or b is None:
            return None
        return _apply(expr[1], a, b)
    return None


def _apply(op: str, a: int, b: int) -> int | None:
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op in ("/", "%"):
        if b == 0:
            return None
        q = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)
        return q if op == "/" else a - q * b
    if op in ("<<", ">>"):
        if b < 0 or b > 128:
            return None
        return a << b if op == "<<" else a >> b
    if op == "&":
        return a & b
    if op == "|":
        return a | b
    if op == "^":
        return a ^ b
    return None
