"""Launch arguments already on the device: ``core::offload::preload`` / ``preload_mut`` guards.

Source: rust-lang/rust library/core/src/offload/mod.rs (nightly, 2026): ``preload(&x)`` returns a
``Preload`` guard and maps ``x`` to the device (``offload_preload(ptr, false)``),
``preload_mut(&mut x)`` a ``PreloadMut`` (``offload_preload(ptr, true)``); dropping the guard ends
the mapping (``offload_preload_end``), and for ``PreloadMut`` copies the data back. While a guard
lives, libomptarget finds the data present, so a launch that passes ``x`` copies nothing for it
(a present mapping is not copied again without ALWAYS; its FROM happens when the reference count
reaches zero: at the guard's drop). ``let _ = preload(&x)`` drops the guard at once.
"""

from __future__ import annotations

from dataclasses import dataclass

from tree_sitter import Node

from offload_ls.analysis.model import Launch, Span
from offload_ls.syntax.parse import node_text, parse

PRELOAD_FNS = {"preload": False, "preload_mut": True}


@dataclass(frozen=True)
class PreloadGuard:
    """One live guard: the preloaded place (``x``), the guard's name, whether it is
    ``preload_mut`` (copied back at the drop), and the span of the ``let``."""

    place: str
    guard: str
    mutable: bool
    span: Span


def preloaded_args(source: bytes, launch: Launch) -> dict[int, PreloadGuard]:
    """Launch argument index -> the guard that keeps it on the device, for ``launch``.

    A guard counts when its ``let`` (``let g = preload(&x);``) comes before the launch in a
    block that contains the launch, binds a name (not ``_``), and no ``drop(g)`` lies between."""
    if b"preload" not in source:
        return {}
    root = parse(source).root_node
    fn = _enclosing_fn(root, launch.span.start)
    if fn is None:
        return {}
    guards = [g for g in _guards(fn, launch.span.start) if g is not None]
    out: dict[int, PreloadGuard] = {}
    for i, arg in enumerate(launch.args):
        place = _place(arg.text)
        for g in guards:
            if g.place == place:
                out[i] = g
    return out


def _enclosing_fn(root: Node, offset: int) -> Node | None:
    node = root.descendant_for_byte_range(offset, offset)
    while node is not None and node.type != "function_item":
        node = node.parent
    return node


def _guards(fn: Node, before: int) -> list[PreloadGuard | None]:
    out: list[PreloadGuard | None] = []
    dropped: list[tuple[str, int]] = []
    stack = [fn]
    while stack:
        n = stack.pop()
        if n.start_byte >= before:
            continue
        if n.type == "call_expression":
            callee = n.child_by_field_name("function")
            args = n.child_by_field_name("arguments")
            if callee is not None and node_text(callee).split("::")[-1] == "drop" and args is not None \
                    and args.named_child_count == 1:
                dropped.append((node_text(args.named_children[0]), n.start_byte))
        if n.type == "let_declaration" and n.end_byte <= before and _block_contains(n.parent, before):
            out.append(_guard(n))
        stack.extend(n.children)
    return [g for g in out if g is None or not any(name == g.guard and at > g.span.end for name, at in dropped)]


def _block_contains(block: Node | None, offset: int) -> bool:
    return block is not None and block.start_byte <= offset < block.end_byte


def _guard(let: Node) -> PreloadGuard | None:
    value = let.child_by_field_name("value")
    pattern = let.child_by_field_name("pattern")
    if value is None or value.type != "call_expression" or pattern is None:
        return None
    callee = value.child_by_field_name("function")
    name = node_text(callee).split("::")[-1] if callee is not None else ""
    args = value.child_by_field_name("arguments")
    if name not in PRELOAD_FNS or args is None or args.named_child_count != 1:
        return None
    guard = node_text(pattern).removeprefix("mut ").strip()
    if guard == "_":
        return None  # `let _ = preload(..)` drops the guard at once
    return PreloadGuard(_place(node_text(args.named_children[0])), guard, PRELOAD_FNS[name],
                        Span(let.start_byte, let.end_byte))


def _place(text: str) -> str:
    """``&mut *x`` / ``&(x)`` / ``&x`` -> ``x``: the place an argument refers to."""
    t = text.strip()
    while True:
        stripped = t.removeprefix("&mut ").removeprefix("&").removeprefix("*").strip()
        if stripped.startswith("(") and stripped.endswith(")"):
            stripped = stripped[1:-1].strip()
        if stripped == t:
            return t
        t = stripped
