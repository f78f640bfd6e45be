"""Find GPU kernels in a syntax tree, in every marking convention seen in real code.

Markers (queries in grammars/rust/kernel_markers.scm and kernel_abi.scm):

- rustc offload (rust-lang/rust #131513): ``#[offload_kernel]``, ``#[rustc_offload_kernel]``
  on ``extern "gpu-kernel" fn`` (also via ``#[cfg_attr(.., rustc_offload_kernel)]``);
- a bare ``extern "gpu-kernel"`` / ``"ptx-kernel"`` / ``"amdgpu-kernel"`` fn;
- ``#[kernel]`` (Rust-CUDA ``cuda_std::kernel``, krnl, cuda-oxide);
- rust-gpu ``#[spirv(compute(threads(..)))]``;
- CubeCL ``#[cube(launch)]`` / ``#[cube(launch_unchecked)]``.
"""

from __future__ import annotations

import bisect

from tree_sitter import Node

from offload_ls.analysis.model import Ecosystem, Kernel, Span
from offload_ls.analysis.transfer import classify_param
from offload_ls.syntax.parse import node_text
from offload_ls.syntax.queries import captures

#: Marker name (the attribute's last path segment) -> ecosystem.
ECOSYSTEM_OF_MARKER: dict[str, Ecosystem] = {
    "offload_kernel": Ecosystem.OFFLOAD,
    "rustc_offload_kernel": Ecosystem.OFFLOAD,
    "kernel": Ecosystem.CUDA,
    "spirv": Ecosystem.RUST_GPU,
    "cube": Ecosystem.CUBECL,
}

_SKIPPABLE = {"attribute_item", "line_comment", "block_comment"}


def attributed_item(attr: Node) -> Node | None:
    """The item an outer attribute applies to: the next sibling that is not another
    attribute or a comment. ``None`` if there is none (e.g. in a broken file)."""
    sib = attr.next_sibling
    while sib is not None and sib.type in _SKIPPABLE:
        sib = sib.next_sibling
    return sib


def first_attribute(item: Node) -> Node:
    """The first of the attributes/comments directly preceding ``item`` (or ``item``)."""
    first = item
    sib = item.prev_sibling
    while sib is not None and sib.type in _SKIPPABLE:
        if sib.type == "attribute_item":
            first = sib
        sib = sib.prev_sibling
    return first


def find_kernels(root: Node) -> list[Kernel]:
    """All kernels in the tree rooted at ``root``, in document order.

    A function carrying several markers is reported once (the first marker wins).
    Works on trees with ERROR nodes: whatever parsed as a function item is considered.
    """
    return kernels_from_captures(captures("kernel_markers", root), captures("kernel_abi", root).get("fn", []))


def kernels_from_captures(marker_caps: dict[str, list[Node]], abi_fns: list[Node]) -> list[Kernel]:
    """Kernels from the captures of grammars/rust/kernel_markers.scm (``marker_caps``,
    capture name -> nodes in document order) and the ``@fn`` captures of kernel_abi.scm
    (``abi_fns``), in document order: what :func:`find_kernels` returns for the subtree
    the captures were taken from."""
    found: dict[int, Kernel] = {}
    for attr, marker in _pair_attr_marker(marker_caps):
        fn = attributed_item(attr)
        if fn is None or fn.type != "function_item" or fn.start_byte in found:
            continue
        ecosystem = ECOSYSTEM_OF_MARKER[node_text(marker)]
        found[fn.start_byte] = _kernel(fn, ecosystem, node_text(attr))
    for fn in abi_fns:
        if fn.start_byte in found:
            continue
        abi = fn.child(0)
        found[fn.start_byte] = _kernel(fn, Ecosystem.GPU_KERNEL_ABI, _abi_text(fn) or node_text(abi))
    return sorted(found.values(), key=lambda k: k.span.start)


def _pair_attr_marker(caps: dict[str, list[Node]]) -> list[tuple[Node, Node]]:
    """Pair each captured @attr with the @marker inside it."""
    markers = caps.get("marker", [])
    starts = [m.start_byte for m in markers]  # document order: sorted
    pairs = []
    for attr in caps.get("attr", []):
        i = bisect.bisect_left(starts, attr.start_byte)
        if i < len(starts) and starts[i] < attr.end_byte:
            pairs.append((attr, markers[i]))
    return pairs


def _abi_text(fn: Node) -> str | None:
    for child in fn.children:
        if child.type == "function_modifiers":
            for mod in child.children:
                if mod.type == "extern_modifier":
                    return node_text(mod)
    return None


def _kernel(fn: Node, ecosystem: Ecosystem, marker: str) -> Kernel:
    name = fn.child_by_field_name("name")
    params_node = fn.child_by_field_name("parameters")
    body = fn.child_by_field_name("body")
    params = []
    if params_node is not None:
        params = [classify_param(p, ecosystem) for p in params_node.named_children if p.type == "parameter"]
    unsafe_kw = None
    for child in fn.children:
        if child.type == "function_modifiers":
            for mod in child.children:
                if mod.type == "unsafe":
                    unsafe_kw = Span(mod.start_byte, mod.end_byte)
    start = first_attribute(fn).start_byte
    name_span = Span(name.start_byte, name.end_byte) if name is not None else Span(fn.start_byte, fn.start_byte)
    return Kernel(
        name=node_text(name) if name is not None else "<unnamed>",
        ecosystem=ecosystem,
        marker=marker,
        span=Span(start, fn.end_byte),
        name_span=name_span,
        body_span=Span(body.start_byte, body.end_byte) if body is not None else None,
        params=tuple(params),
        is_unsafe_fn=unsafe_kw is not None,
        unsafe_span=unsafe_kw,
        fn_start=fn.start_byte,
    )
