"""Which function bodies in a file are device code.

Device code is (1) each kernel's body, (2) any function of the same file that device code
calls by name, transitively, and (3) functions inside items gated by a device-only cfg:
``offload_device`` (the cfg the offload build passes to the device pass only, see
shared/offload-recipe/build-offload.sh), ``target_arch = "nvptx64"`` / ``"amdgpu"``,
``target_os = "cuda"`` / ``"amdhsa"``, unless the predicate sits inside ``not(..)``.
Host code that merely shares the file is not device code (DESIGN.md, "Known hard parts").
"""

from __future__ import annotations

from dataclasses import dataclass

from tree_sitter import Node

from offload_ls.analysis.kernels import attributed_item
from offload_ls.analysis.model import Kernel, Span
from offload_ls.syntax.parse import node_text
from offload_ls.syntax.queries import captures

_DEVICE_CFG_FLAGS = {"offload_device"}
_DEVICE_CFG_VALUES = {("target_arch", "nvptx64"), ("target_arch", "amdgpu"),
                      ("target_os", "cuda"), ("target_os", "amdhsa")}


@dataclass(frozen=True)
class DeviceFn:
    """A function body that runs on the GPU.

    Attributes:
        name: function name. body_span: its block. span: the whole function item.
        reason: human-readable why (``"kernel"``, ``"called from kernel `saxpy`"``,
            ``"under #[cfg(offload_device)]"``).
        kernel: the kernel itself for reason ``"kernel"``, else ``None``.
    """

    name: str
    span: Span
    body_span: Span
    reason: str
    kernel: Kernel | None = None


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


def device_functions(root: Node, kernels: list[Kernel]) -> list[DeviceFn]:
    """Device-code function bodies of the file, kernels first, each body once."""
    fns = _function_items(root)
    by_name: dict[str, list[Node]] = {}
    for fn in fns:
        name = fn.child_by_field_name("name")
        if name is not None:
            by_name.setdefault(node_text(name), []).append(fn)

    result: dict[int, DeviceFn] = {}
    queue: list[tuple[Node, str]] = []
    fn_at = {fn.start_byte: fn for fn in fns}
    for k in kernels:
        fn = fn_at.get(k.fn_start)
        if fn is not None and k.body_span is not None:
            result[fn.start_byte] = DeviceFn(k.name, Span(fn.start_byte, fn.end_byte), k.body_span, "kernel", k)
            queue.append((fn, f"called from kernel `{k.name}`"))

    gated = _device_cfg_fn_starts(root)
    for fn in fns:
        if fn.start_byte not in result and fn.start_byte in gated:
            body = fn.child_by_field_name("body")
            if body is not None:
                name = node_text(fn.child_by_field_name("name"))
                result[fn.start_byte] = DeviceFn(name, Span(fn.start_byte, fn.end_byte),
                                                 Span(body.start_byte, body.end_byte), "under a device-only #[cfg]")
                queue.append((fn, f"called from device function `{name}`"))

    while queue:
        fn, why = queue.pop()
        body = fn.child_by_field_name("body")
        if body is None:
            continue
        # Each called name once: a body can hold thousands of calls to the same name
        # (and nested functions' bodies repeat them), each matching every same-named fn.
        called = dict.fromkeys(node_text(c) for c in captures("calls", body).get("callee", []))
        for name in called:
            for target in by_name.get(name, []):
                if target.start_byte in result:
                    continue
                tbody = target.child_by_field_name("body")
                if tbody is None:
                    continue
                result[target.start_byte] = DeviceFn(name, Span(target.start_byte, target.end_byte),
                                                     Span(tbody.start_byte, tbody.end_byte), why)
                queue.append((target, f"called from device function `{name}`"))
    kernel_first = sorted(result.values(), key=lambda d: (d.kernel is None, d.span.start))
    return kernel_first


def _function_items(root: Node) -> list[Node]:
    out = []
    stack = [root]
    while stack:
        n = stack.pop()
        if n.type == "function_item":
            out.append(n)
        stack.extend(n.children)
    out.sort(key=lambda n: n.start_byte)
    return out


def _device_cfg_fn_starts(root: Node) -> set[int]:
    """Start bytes of the function items that are, or lie inside an item that is, gated by
    a device-only ``#[cfg]`` (the attributes directly before an item apply to it).

    One top-down pass with an explicit stack: walking up with ``Node.parent`` costs
    O(depth) per step in tree-sitter, which made deeply nested files take minutes."""
    out: set[int] = set()
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, gated = stack.pop()
        if gated and node.type == "function_item":
            out.add(node.start_byte)
        pending = False  # a device cfg among the attributes seen since the last item
        for child in node.children:
            if child.type == "attribute_item":
                pending = pending or _is_device_cfg_attribute(child)
                continue
            if child.type in ("line_comment", "block_comment"):
                continue
            stack.append((child, gated or pending))
            pending = False
    return out


def _is_device_cfg_attribute(attr: Node) -> bool:
    """Is ``attr`` (an ``attribute_item``) a ``#[cfg(..)]`` selecting device code?"""
    return any(is_device_cfg(pred) for pred in captures("cfg_attributes", attr).get("predicate", []))
