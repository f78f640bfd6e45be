"""``#[cfg(..)]`` predicates: which select device code (``offload_device`` (the cfg the offload
build passes to the device pass only, see docs/offload-notes.md) or upstream's ``device``
(rustc's run-make offload tests), ``target_arch = "nvptx64"`` / ``"amdgpu"``, ``target_os =
"cuda"`` / ``"amdhsa"``, unless the predicate sits inside ``not(..)``), which select host code
only, and a predicate's value in the host pass. Predicates are token trees of the syntax
tree; nothing here reads files.
"""

from __future__ import annotations

from tree_sitter import Node

from offload_ls.syntax.parse import node_text

# `offload_device`: docs/offload-notes.md; `device`: what rustc's own offload tests pass to the
# device pass (rust-lang/rust tests/run-make/offload/*/rmake.rs, `.cfg("device")`).
_DEVICE_CFG_FLAGS = {"offload_device", "device"}
_DEVICE_CFG_VALUES = {("target_arch", "nvptx64"), ("target_arch", "amdgpu"),
                      ("target_os", "cuda"), ("target_os", "amdhsa")}



def is_device_cfg(predicate: Node) -> bool:
    """True if a ``cfg(..)`` token tree selects device code (see module docstring)."""
    tokens = _flatten(predicate, negated=False)
    for i, (tok, negated) in enumerate(tokens):
        if negated or tok.type != "identifier":
            continue
        name = node_text(tok)
        if name in _DEVICE_CFG_FLAGS:
            nxt = tokens[i + 1][0] if i + 1 < len(tokens) else None
            if nxt is None or nxt.type != "=":
                return True
        if i + 2 < len(tokens) and tokens[i + 1][0].type == "=":
            value = tokens[i + 2][0]
            if value.type == "string_literal":
                text = node_text(value).strip('"')
                if (name, text) in _DEVICE_CFG_VALUES:
                    return True
    return False


def is_host_cfg(predicate: Node, depth: int = 0) -> bool:
    """True if a ``cfg(..)`` token tree selects host code only: ``not(<device cfg>)``, or
    ``all(..)`` with such a ``not(..)`` among its parts (``#[cfg(not(offload_device))]``,
    ``#[cfg(all(unix, not(target_os = "cuda")))]``). Nesting deeper than 32 levels: False."""
    if depth > 32:
        return False
    inner = [c for c in predicate.children if c.type not in ("(", ")", "[", "]", "{", "}")]
    for part in _parts(inner):
        if len(part) == 2 and part[0].type == "identifier" and part[1].type == "token_tree":
            head = node_text(part[0])
            if head == "not" and is_device_cfg(part[1]):
                return True
            if head == "all" and is_host_cfg(part[1], depth + 1):
                return True
        if depth > 0:
            continue  # inside all(..): any host-only part makes the whole host-only
        return False  # top level: one predicate
    return False


#: what the host pass of an x86_64 Linux release build sets (rustc's `--print cfg` for
#: x86_64-unknown-linux-gnu; offload-ls's device cfgs are not set on the host)
_HOST_FLAGS = {"unix": True, "windows": False, "test": False, "debug_assertions": False, "offload_device": False,
               "device": False, "target_thread_local": True}
_HOST_VALUES = {"target_arch": "x86_64", "target_os": "linux", "target_family": "unix", "target_env": "gnu",
                "target_vendor": "unknown", "target_pointer_width": "64", "target_endian": "little"}


def host_cfg_value(predicate: Node, depth: int = 0) -> bool | None:
    """The value of a ``cfg(..)`` token tree in the host pass (x86_64 Linux, release, no
    device cfg): True, False, or ``None`` when it depends on what is not known here (a
    ``feature``, a custom flag). ``all`` / ``any`` / ``not`` in three-valued logic; deeper
    than 32 levels: ``None``."""
    if depth > 32:
        return None
    inner = [c for c in predicate.children if c.type not in ("(", ")", "[", "]", "{", "}")]
    parts = _parts(inner)
    if len(parts) != 1:
        return None
    return _host_part(parts[0], depth)


def _host_part(part: list[Node], depth: int) -> bool | None:
    if len(part) == 1 and part[0].type == "identifier":
        return _HOST_FLAGS.get(node_text(part[0]))
    if len(part) == 3 and part[0].type == "identifier" and part[1].type == "=" and part[2].type == "string_literal":
        want = _HOST_VALUES.get(node_text(part[0]))
        return None if want is None else node_text(part[2]).strip('"') == want
    if len(part) == 2 and part[0].type == "identifier" and part[1].type == "token_tree":
        head = node_text(part[0])
        inner = [c for c in part[1].children if c.type not in ("(", ")")]
        values = [_host_part(p, depth + 1) for p in _parts(inner)]
        if head == "not" and len(values) == 1:
            return None if values[0] is None else not values[0]
        if head == "all":
            return False if False in values else (True if all(v is True for v in values) else None)
        if head == "any":
            return True if True in values else (False if all(v is False for v in values) else None)
    return None


def _parts(tokens: list[Node]) -> list[list[Node]]:
    """``a, b(..), c = "x"`` -> the comma-separated parts."""
    out: list[list[Node]] = [[]]
    for t in tokens:
        if t.type == ",":
            out.append([])
        else:
            out[-1].append(t)
    return [p for p in out if p]


def _flatten(tree: Node, negated: bool) -> list[tuple[Node, bool]]:
    """Leaf tokens of a token tree, each with whether it sits inside ``not(..)``.

    Iterative (an explicit stack, not recursion): a ``cfg`` nested thousands of levels
    deep must not exhaust Python's recursion limit."""
    out: list[tuple[Node, bool]] = []
    stack: list[tuple[list[Node], int, bool]] = [(tree.children, 0, negated)]
    while stack:
        children, i, neg = stack.pop()
        if i >= len(children):
            continue
        stack.append((children, i + 1, neg))
        child = children[i]
        if child.type == "token_tree":
            prev = children[i - 1] if i > 0 else None
            inner_neg = neg or (prev is not None and prev.type == "identifier" and node_text(prev) == "not")
            stack.append((child.children, 0, inner_neg))
        elif child.type == "string_literal":
            out.append((child, neg))
        elif child.child_count == 0 and child.type not in ("(", ")", "[", "]", "{", "}"):
            out.append((child, neg))
    return out
