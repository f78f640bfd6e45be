"""A file as a sequence of items ("units"): each top-level item (or item of an inline ``mod {
.. }`` body) with the attributes and comments directly before it, a ``mod`` with a body as a
header unit and the units of its body. A unit's cache key is its bytes, whether an enclosing
``mod`` is under a device-only or host-only ``#[cfg]``, and its node types.
"""

from __future__ import annotations

from tree_sitter import Node

from offload_ls.analysis.cfg import is_device_cfg, is_host_cfg
from offload_ls.syntax.queries import captures_many

#: Node types that belong to the item after them (attributes, comments).
SKIPPABLE = frozenset({"attribute_item", "line_comment", "block_comment"})


class Unit:
    """One unit of the current tree.

    Attributes:
        start, end: UTF-8 byte range the unit's facts are read from: from its first
            attribute or comment to the end of its item; for a ``mod`` header, to the
            start of the ``mod``'s body.
        parent: the node whose children the unit's nodes are (``source_file`` or a
            ``mod``'s ``declaration_list``).
        nodes: those children, in order (attributes, comments, then the item, if any).
        gate: an enclosing ``mod`` is under a device-only ``#[cfg]``; host: under a
            host-only one (``#[cfg(not(offload_device))] mod host { .. }``).
        key: the cache key: the unit's bytes, ``gate``, ``host``, the node types, and for a ``mod``
            header the length of the whole ``mod``; ``None`` when the unit holds a syntax
            error (never cached: an ERROR node's shape may depend on the text around it).
        mod_body: for a ``mod`` header, its body (``declaration_list``), else ``None``.
    """

    __slots__ = ("start", "end", "parent", "nodes", "gate", "key", "mod_body", "host", "stale")

    def __init__(self, start: int, end: int, parent: Node, nodes: tuple[Node, ...], gate: bool,
                 key: tuple | None, mod_body: Node | None = None, host: bool = False) -> None:
        self.start, self.end, self.parent, self.nodes = start, end, parent, nodes
        self.gate, self.key, self.mod_body, self.host = gate, key, mod_body, host
        #: taken over from the previous tree by :func:`split_units_after_edit`: ``parent``,
        #: ``nodes`` and ``mod_body`` belong to that tree until :func:`resolve` replaces them
        self.stale = False

    def __repr__(self) -> str:
        return f"Unit({self.start}, {self.end}, {[n.type for n in self.nodes]})"


def split_units(root: Node, source: bytes) -> list[Unit]:
    """The units of the file, in document order (ranges do not overlap).

    Args:
        root: the tree's root node; source: the bytes it was parsed from."""
    out: list[Unit] = []
    split_children(root, root.children, False, source, out, root.has_error, 0, False)
    return out



#: ``mod`` bodies nested deeper than this stay inside their ``mod``'s unit (no recursion
#: limit for pathological nesting; the unit is analysed all the same, only less finely).
MAX_MOD_DEPTH = 32


def split_children(parent: Node, children: list[Node], gate: bool, source: bytes, out: list[Unit],
           errors: bool, depth: int, host: bool) -> None:
    """Append the units of ``parent``'s ``children``; ``errors``: the tree has syntax
    errors somewhere (else no node needs checking); ``depth``: ``mod`` nesting; ``gate`` /
    ``host``: an enclosing ``mod`` is device-only / host-only. (Run on every edit for
    every top-level item: node types are read once per child.)"""
    pending: list[Node] = []
    types: list[str] = []  # pending's node types
    in_mod = parent.type == "declaration_list"
    for child in children:
        t = child.type
        if t in SKIPPABLE:
            pending.append(child)
            types.append(t)
            continue
        if in_mod and (t == "{" or t == "}"):
            if pending:
                out.append(_unit(parent, pending, types, gate, source, errors, host=host))
                pending, types = [], []
            continue
        if t == "mod_item" and depth < MAX_MOD_DEPTH:
            body = child.child_by_field_name("body")
            if body is not None and body.type == "declaration_list":
                pending.append(child)
                types.append(t)
                out.append(_unit(parent, pending, types, gate, source, errors, mod_body=body, host=host))
                attrs = [n for n, nt in zip(pending, types) if nt == "attribute_item"]
                inner_gate, inner_host = gate, host
                if attrs:
                    inner_gate = gate or any(_cfg_attr(n, is_device_cfg) for n in attrs)
                    inner_host = not inner_gate and (host or any(_cfg_attr(n, is_host_cfg) for n in attrs))
                split_children(body, body.children, inner_gate, source, out, errors, depth + 1, inner_host)
                pending, types = [], []
                continue
        if pending:
            pending.append(child)
            types.append(t)
            out.append(_unit(parent, pending, types, gate, source, errors, host=host))
            pending, types = [], []
        else:  # the common case: an item alone
            start, end = child.start_byte, child.end_byte
            key = None if errors and child.has_error else (source[start:end], gate, (t,), 0, host)
            out.append(Unit(start, end, parent, (child,), gate, key, None, host))
    if pending:
        out.append(_unit(parent, pending, types, gate, source, errors, host=host))


def _unit(parent: Node, nodes: list[Node], types: list[str], gate: bool, source: bytes, errors: bool,
          mod_body: Node | None = None, host: bool = False) -> Unit:
    start = nodes[0].start_byte
    last = nodes[-1]
    end = mod_body.start_byte if mod_body is not None else last.end_byte
    if not errors:
        broken = False
    elif mod_body is None:
        broken = any(n.has_error for n in nodes)
    else:
        broken = any(n.has_error for n in nodes[:-1]) or _header_has_error(last, mod_body)
    if broken:
        key = None
    else:
        # a header's suppression comment covers the whole `mod`: its length is a fact too
        extra = last.end_byte - start if mod_body is not None else 0
        key = (source[start:end], gate, tuple(types), extra, host)
    return Unit(start, end, parent, tuple(nodes), gate, key, mod_body, host)


def _header_has_error(mod: Node, body: Node) -> bool:
    return any(c.has_error for c in mod.children if c.start_byte < body.start_byte)


def _cfg_attr(attr: Node, test) -> bool:
    """Is ``attr`` a ``#[cfg(..)]`` whose predicate passes ``test`` (:func:`is_device_cfg`,
    :func:`is_host_cfg`)?"""
    return any(test(p) for p in captures_many(("cfg_attributes",), attr)["cfg_attributes"].get("predicate", []))
