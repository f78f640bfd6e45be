"""A unit's module-level items that the crate index reads (:class:`ItemFacts`: constants,
aliases, crate roots, renames, modules, functions, imports, names a macro may define), and the
shape of its ``static`` items (block-shared memory, declared in a block).
"""

from __future__ import annotations

from tree_sitter import Node

from offload_ls.analysis.consts import capture as capture_const
from offload_ls.analysis.ecosystems import profiles
from offload_ls.analysis.kernels import function_record
from offload_ls.analysis.units.records import _NO_ITEMS, ItemFacts
from offload_ls.analysis.units.split import SKIPPABLE, Unit
from offload_ls.syntax.parse import identifier_nodes, node_text
from offload_ls.syntax.queries import matches

_STD_ROOTS = frozenset({"std", "alloc", "core"})


def _shared_static_attrs() -> frozenset[tuple[str, str]]:
    return frozenset(a for p in profiles().values() for a in p.shared_static_attrs)


def _shared_types() -> frozenset[str]:
    return frozenset(t for p in profiles().values() for t in p.shared_types)


def is_shared_static(item: Node) -> bool:
    """Is ``static`` item ``item`` block-shared memory: an attribute from an ecosystem
    profile's ``shared_static_attrs`` (``#[address_space(shared)]``), a type from its
    ``shared_types`` (cuda-oxide ``SharedArray<f32, 256>``, ``Barrier``), or a static of an
    ``extern`` block, whose memory is defined outside Rust (a bare nvptx crate gets shared
    memory from a linked ``.ll`` / PTX ``addrspace(3)`` global: Rust has no attribute for it)?"""
    body = item.parent
    if body is not None and body.type == "declaration_list" and body.parent is not None \
            and body.parent.type == "foreign_mod_item":
        return True
    t = item.child_by_field_name("type")
    if t is not None:
        base = t.child_by_field_name("type") if t.type == "generic_type" else t
        if base is not None and node_text(base).rsplit("::", 1)[-1] in _shared_types():
            return True
    wanted = _shared_static_attrs()
    sib = item.prev_sibling
    while sib is not None and sib.type in SKIPPABLE:
        if sib.type == "attribute_item":
            attr = next((c for c in sib.named_children if c.type == "attribute"), None)
            if attr is not None:
                head = attr.named_children[0] if attr.named_children else None
                name = node_text(head).rsplit("::", 1)[-1] if head is not None else ""
                words = {node_text(t) for t in identifier_nodes(attr)}
                if any(a == name and w in words for a, w in wanted):
                    return True
        sib = sib.prev_sibling
    return False


def _module_level(node: Node, unit: Unit) -> bool:
    """``node`` is one of the unit's own items (an item of the file or of a ``mod`` body,
    not one inside a function or ``impl``): a fact of the unit's bytes alone, whatever
    node the unit's items hang from (a broken file's ERROR node included)."""
    return any(n.start_byte == node.start_byte and n.end_byte == node.end_byte for n in unit.nodes)


def item_facts(icaps: dict[str, list[Node]], anchors: dict[str, list[Node]], fn_nodes: list[Node],
           unit: Unit) -> ItemFacts:
    """The unit's :class:`ItemFacts` from the captures of grammars/rust/items.scm."""
    consts = []
    for item in icaps.get("const", []) + icaps.get("static_item", []):
        if not _module_level(item, unit) or any(c.type == "mutable_specifier" for c in item.children):
            continue
        name = item.child_by_field_name("name")
        if name is not None:
            consts.append((node_text(name), capture_const(item.child_by_field_name("value"))))
    aliases = tuple((node_text(n), node_text(t))
                    for n, t in zip(icaps.get("alias_name", []), icaps.get("alias_type", []))
                    if n.parent is not None and n.parent.child_by_field_name("type_parameters") is None)
    roots: set[str] = set()
    renames = []
    imports = []
    for use in anchors.get("use", []):
        for _, m in matches("use_imports", use):
            if "use_path" in m:
                roots.add(_first_segment(m["use_path"][0]))
                if "use_name" in m:
                    imports.append((node_text(m["use_name"][0]), _first_segment(m["use_path"][0])))
            if ("use_name" in m and m["use_name"][0].parent is not None
                    and m["use_name"][0].parent.type == "use_as_clause"):
                clause = m["use_name"][0].parent
                path = clause.child_by_field_name("path")
                if path is not None:
                    last = path.child_by_field_name("name") if path.type == "scoped_identifier" else path
                    if last is not None:
                        renames.append((node_text(m["use_name"][0]), node_text(last)))
        root = _use_root(use.child_by_field_name("argument"))
        if root:
            roots.add(root)
    for p in icaps.get("attr_path", []):
        roots.add(_first_segment(p))
    for n in icaps.get("extern_crate", []):
        roots.add(node_text(n))
    mods = tuple(node_text(n) for n in icaps.get("mod_name", []))
    fns = tuple(function_record(fn) for fn in fn_nodes
                if _module_level(fn, unit) and fn.child_by_field_name("name") is not None)
    loose = loose_names(unit)
    if not (consts or aliases or roots or renames or mods or fns or loose):
        return _NO_ITEMS
    return ItemFacts(tuple(consts), aliases, frozenset(roots), tuple(dict.fromkeys(renames)), mods, fns,
                     tuple(dict.fromkeys(imports)), loose)


def loose_names(unit: Unit) -> frozenset[str]:
    """:attr:`ItemFacts.loose_names` of a unit: identifiers in its item-position macro
    invocations, and ``fn <name>`` in its nodes that hold a syntax error where the tree
    shows no function item (a function item whose body holds the error is an item all
    the same: typing inside a kernel must not change what the crate defines)."""
    out: set[str] = set()
    for mac in _item_macro_calls(unit):
        for t in mac.children:
            if t.type == "token_tree":
                out |= {node_text(i) for i in identifier_nodes(t)}
    for node in unit.nodes:
        if node.has_error:
            stack = [node]
            while stack:
                n = stack.pop()
                kids = n.children
                if n.type not in ("function_item", "function_signature_item"):
                    for a, b in zip(kids, kids[1:]):
                        if a.type == "fn" and b.type == "identifier":
                            out.add(node_text(b))
                stack.extend(kids)
    return frozenset(out)


def _item_macro_calls(unit: Unit) -> list[Node]:
    """The unit's item-position macro invocations (``mk!(gen_k);`` parses as a statement of
    one macro call)."""
    out = []
    for node in unit.nodes:
        mac = node.named_children[0] if node.type == "expression_statement" and node.named_children else node
        if mac.type == "macro_invocation":
            out.append(mac)
    return out


def macro_rules_in_macros(unit: Unit) -> frozenset[str]:
    """Names of the ``macro_rules!`` definitions inside the unit's item-position macro calls
    (``cfg_if::cfg_if! { if #[cfg(target_os = "cuda")] { macro_rules! print { .. } } }``):
    macros the file defines, which the syntax tree shows only as tokens."""
    out: set[str] = set()
    for mac in _item_macro_calls(unit):
        stack = [c for c in mac.children if c.type == "token_tree"]
        while stack:
            tt = stack.pop()
            kids = tt.children
            for a, b, c in zip(kids, kids[1:], kids[2:]):
                if a.type == "identifier" and node_text(a) == "macro_rules" and b.type == "!" \
                        and c.type == "identifier":
                    out.add(node_text(c))
            stack.extend(k for k in kids if k.type == "token_tree")
    return frozenset(out)


def enclosing_block(node: Node) -> Node | None:
    """The block a nested item is declared in, ``None`` at module level."""
    n = node.parent
    while n is not None:
        if n.type == "block":
            return n
        if n.type in ("mod_item", "source_file"):
            return None
        n = n.parent
    return None


def shadowed_names(uses: list[Node]) -> set[str]:
    """Names imported by ``use`` from a root other than std/alloc/core
    (grammars/rust/use_imports.scm)."""
    names: set[str] = set()
    for use in uses:
        for _, caps in matches("use_imports", use):
            if "use_name" in caps and "use_path" in caps:
                root = _first_segment(caps["use_path"][0])
                if root not in _STD_ROOTS:
                    names.add(node_text(caps["use_name"][0]))
    return names


def _use_root(arg: Node | None) -> str:
    """First path segment of a ``use`` declaration's argument (``cuda_std`` for
    ``use cuda_std::prelude::*;``, ``use cuda_std::{a, b};``, ``use cuda_std as cs;``)."""
    depth = 0
    while arg is not None and depth < 16:
        depth += 1
        if arg.type in ("identifier", "scoped_identifier", "crate", "super", "self"):
            return _first_segment(arg)
        if arg.type in ("use_wildcard", "scoped_use_list", "use_as_clause"):
            arg = arg.child_by_field_name("path") or (arg.named_children[0] if arg.named_children else None)
            continue
        return ""
    return ""


def _first_segment(node: Node) -> str:
    """First segment of a path (``std::vec::Vec`` -> ``std``; ``crate::x`` -> ``crate``)."""
    while node.type in ("scoped_identifier", "scoped_type_identifier"):
        path = node.child_by_field_name("path")
        if path is None:
            name = node.child_by_field_name("name")
            return node_text(name) if name is not None else ""
        node = path
    return node_text(node)
