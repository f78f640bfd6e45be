"""Syntax-node helpers the dataflow shares: an expression without its parentheses and casts,
a node's named children, the value identifiers of an expression, parents found top-down.

Pure functions of tree-sitter nodes of one tree; nothing here reads or writes files.
"""

from __future__ import annotations

from tree_sitter import Node

from offload_ls.syntax.parse import node_text

#: Expression nodes that hold no binding of their own and pass their operands through.
TRANSPARENT = {"parenthesized_expression", "type_cast_expression"}

LITERALS = {"integer_literal", "float_literal", "boolean_literal", "char_literal"}

#: Deepest expression / binding chain followed before giving up (an answer of "not known"),
#: so that pathological code cannot exhaust Python's recursion limit.
MAX_DEPTH = 120


def strip(expr: Node) -> Node:
    """``expr`` without surrounding parentheses and ``as`` casts (``((i as usize))`` -> ``i``)."""
    while expr.type in TRANSPARENT:
        inner = expr.child_by_field_name("value") if expr.type == "type_cast_expression" else first_named(expr)
        if inner is None:
            break
        expr = inner
    return expr


def first_named(node: Node) -> Node | None:
    for c in node.named_children:
        if not c.type.endswith("comment"):
            return c
    return None


def named(node: Node) -> list[Node]:
    """Named children of ``node`` except comments."""
    return [c for c in node.named_children if not c.type.endswith("comment")]



def method_name(call: Node | None) -> str:
    """``recv.name(..)`` -> ``name``, else "" (also for ``None`` or a node that is no call)."""
    fn = call.child_by_field_name("function") if call is not None and call.type == "call_expression" else None
    field = fn.child_by_field_name("field") if fn is not None and fn.type == "field_expression" else None
    return node_text(field) if field is not None else ""



class ParentMap:
    """Parents of the nodes of one function, found top-down once.

    tree-sitter keeps no parent pointers: ``Node.parent`` searches down from the root, so
    walking up from a node ``d`` levels deep costs O(d) per step and O(d**2) in all — a
    long expression chain (``a + b + .. + z``, as deep as it is long) made every walk up
    quadratic. Nodes outside the function fall back to ``Node.parent``."""

    def __init__(self, root: Node) -> None:
        self.root = root
        self._map: dict[int, Node] | None = None

    def __call__(self, node: Node) -> Node | None:
        if self._map is None:
            self._map = {}
            stack = [self.root]
            while stack:
                n = stack.pop()
                for c in n.children:
                    self._map[c.id] = n
                    stack.append(c)
        found = self._map.get(node.id)
        return found if found is not None else node.parent



def _names_a_value(n: Node, parent: Node | None) -> bool:
    """Is identifier node ``n`` (whose parent is ``parent``) a use of a value: not a path
    segment after ``::``, not a macro name, not a closure parameter, not inside generic
    arguments?"""
    if parent is None:
        return True
    if parent.type in ("scoped_identifier", "macro_invocation", "closure_parameters", "type_arguments"):
        return False
    if parent.type == "parameter" and parent.parent is not None and parent.parent.type == "closure_parameters":
        return False
    return True


def identifiers(expr: Node) -> list[Node]:
    """Identifier nodes in ``expr`` that name a value (see :func:`_names_a_value`), in
    document order."""
    out = []
    stack: list[tuple[Node, Node | None]] = [(expr, None)]
    while stack:
        n, parent = stack.pop()
        if n.type == "identifier":
            if _names_a_value(n, parent if parent is not None else n.parent):
                out.append(n)
            continue
        if n.type in ("closure_parameters", "function_item", "type_arguments"):
            continue
        stack.extend((c, n) for c in n.named_children)
    out.sort(key=lambda n: n.start_byte)
    return out


def is_constant_name(name: str) -> bool:
    """``SCREAMING_CASE`` names (``N``, ``BLOCK_SIZE``, ``K2``): Rust constants and
    const generics by convention."""
    return any(ch.isalpha() for ch in name) and name == name.upper()

