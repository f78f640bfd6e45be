"""Small questions about Rust paths and types in a tree-sitter tree, shared by the rules.

Syntax only: no name resolution, no types; every function takes tree-sitter nodes.
"""

from __future__ import annotations

from tree_sitter import Node

from offload_ls.syntax.parse import node_text


def path_segments(node: Node) -> list[str]:
    """Segments of a (scoped) identifier or type identifier node: ``std::vec::Vec`` ->
    ``["std", "vec", "Vec"]``; a bare ``Vec`` -> ``["Vec"]``."""
    if node.type in ("scoped_identifier", "scoped_type_identifier"):
        path = node.child_by_field_name("path")
        name = node.child_by_field_name("name")
        head = path_segments(path) if path is not None else []
        return head + ([node_text(name)] if name is not None else [])
    return [node_text(node)]


def type_name_node(type_node: Node) -> Node:
    """The name part of a type: the ``type`` of a ``generic_type``, else the node itself."""
    if type_node.type == "generic_type":
        inner = type_node.child_by_field_name("type")
        if inner is not None:
            return inner
    return type_node


def type_arguments(type_node: Node) -> list[Node]:
    """The type arguments of a ``generic_type`` (``Vec<f32>`` -> ``[f32]``), else ``[]``."""
    args = type_node.child_by_field_name("type_arguments") if type_node.type == "generic_type" else None
    if args is None:
        return []
    return [a for a in args.named_children if a.type not in ("lifetime", "line_comment", "block_comment")]


def outermost(nodes: list[Node]) -> list[Node]:
    """Nodes not contained in another node of the list, in document order, each once."""
    out: list[Node] = []
    for n in sorted(nodes, key=lambda n: (n.start_byte, -n.end_byte)):
        if out and out[-1].start_byte <= n.start_byte and n.end_byte <= out[-1].end_byte:
            continue
        out.append(n)
    return out


def fn_abi(fn: Node) -> str | None:
    """The ``extern "..."`` modifier of a ``function_item`` as written (``extern "gpu-kernel"``),
    ``None`` without one."""
    for child in fn.children:
        if child.type == "function_modifiers":
            for mod in child.children:
                if mod.type == "extern_modifier":
                    return node_text(mod)
    return None
