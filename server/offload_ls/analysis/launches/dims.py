"""Launch dimensions: literal values (``[256, 1, 1]``) and constant expressions
(analysis/consts.py) the crate's constants can fold, with an identifier bound by a ``let`` in
the launching function followed to its value.
"""

from __future__ import annotations

from tree_sitter import Node

from offload_ls.analysis.consts import capture as capture_const
from offload_ls.analysis.flow.scopes import BindingKind, find_binding
from offload_ls.analysis.launches.tokens import named
from offload_ls.syntax.parse import node_text


def literal_dims(node: Node) -> tuple[int | None, ...] | None:
    """Literal launch dimensions of ``[a, b, c]`` / ``(a, b, c)`` / a single integer."""
    if node.type in ("array_expression", "tuple_expression"):
        return tuple(_int_literal(c) for c in node.named_children if not c.type.endswith("comment"))
    return (_int_literal(node),)


#: Deepest ``let`` chain followed for a launch dimension.
_LET_DEPTH = 4


def dim_exprs(node: Node, scope: Node | None, depth: int = 0) -> tuple | None:
    """Launch dimensions of ``node`` as constant expressions (analysis/consts.py), one per
    dimension: ``[a, b, c]``, ``(a, b)``, a single expression, ``CubeDim::new(x, y, z)`` /
    ``CubeCount::Static(x, y, z)`` / ``new_1d``/``new_2d``/``new_3d``, ``Dim3 { .. }`` is
    not read. An identifier bound by a ``let`` visible at ``scope`` (a node of the file's
    tree; ``None`` for re-parsed macro text) is followed to its value."""
    if depth > _LET_DEPTH:
        return None
    t = node.type
    if t in ("array_expression", "tuple_expression"):
        return tuple(_dim_expr(c, scope, depth) for c in named(node))
    if t == "call_expression":
        fn, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
        if fn is not None and args is not None and fn.type == "scoped_identifier":
            name = fn.child_by_field_name("name")
            if name is not None and node_text(name) == "default":
                return None  # CubeDim::default(): the ecosystem's default block
            if name is not None and node_text(name) in ("new", "new_1d", "new_2d", "new_3d", "Static", "new_single"):
                if node_text(name) == "new_single":
                    return (("int", 1), ("int", 1), ("int", 1))
                return tuple(_dim_expr(c, scope, depth) for c in named(args))
    if t == "identifier" and scope is not None:
        b = find_binding(node_text(node), scope)
        if b is not None and b.kind == BindingKind.LET and b.value is not None and not b.mutable:
            return dim_exprs(b.value, b.value, depth + 1)
    return (_dim_expr(node, scope, depth),)


def _dim_expr(node: Node, scope: Node | None, depth: int) -> tuple | None:
    """One dimension: a constant expression, or a ``let`` in scope followed to one."""
    if node.type == "identifier" and scope is not None and depth <= _LET_DEPTH:
        b = find_binding(node_text(node), scope)
        if b is not None and b.kind == BindingKind.LET and b.value is not None and not b.mutable:
            return _dim_expr(b.value, b.value, depth + 1)
    return capture_const(node)


def _int_literal(node: Node) -> int | None:
    if node.type != "integer_literal":
        return None
    text = node_text(node).replace("_", "")
    for suffix in ("usize", "isize", "u128", "i128", "u64", "i64", "u32", "i32", "u16", "i16", "u8", "i8"):
        if text.endswith(suffix):
            text = text[: -len(suffix)]
            break
    try:
        return int(text, 0)
    except ValueError:
        return None


def reparsed_dims(expr: Node, at: Node) -> tuple | None:
    """Dimensions of a re-parsed macro expression; a plain identifier is looked up as a
    ``let`` visible at ``at`` (the macro node in the file's tree)."""
    if expr.type == "identifier":
        b = find_binding(node_text(expr), at)
        if b is not None and b.kind == BindingKind.LET and b.value is not None and not b.mutable:
            return dim_exprs(b.value, b.value)
    return dim_exprs(expr, None)


def launch_config(value: Node, at: Node, depth: int = 0) -> tuple[tuple | None, tuple | None]:
    """(grid dims, block dims) of a cuda-oxide ``LaunchConfig`` expression; a dimension
    computed at run time is ``None`` in its tuple."""
    if depth > _LET_DEPTH:
        return None, None
    if value.type == "identifier":
        b = find_binding(node_text(value), at)
        if b is not None and b.kind == BindingKind.LET and b.value is not None:
            return launch_config(b.value, b.value, depth + 1)
        return None, None
    if value.type == "struct_expression":
        body = value.child_by_field_name("body")
        grid = block = None
        for f in named(body) if body is not None else ():
            name, v = f.child_by_field_name("field"), f.child_by_field_name("value")
            if name is None or v is None:
                continue
            if node_text(name) == "grid_dim":
                grid = dim_exprs(v, None)
            elif node_text(name) == "block_dim":
                block = dim_exprs(v, None)
        return grid, block
    if value.type == "call_expression":
        fn = value.child_by_field_name("function")
        if fn is not None and fn.type == "scoped_identifier" and node_text(fn).endswith("for_num_elems"):
            return (None,), None  # as many blocks as the element count needs
    return None, None
