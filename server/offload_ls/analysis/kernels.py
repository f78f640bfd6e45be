"""Find GPU kernels in a syntax tree, in every marking convention seen in real code.

Markers (queries in grammars/rust/kernel_markers.scm and kernel_abi.scm):

- rustc offload (rust-lang/rust #131513): ``#[offload_kernel]``, ``#[rustc_offload_kernel]``
  on ``extern "gpu-kernel" fn`` (also via ``#[cfg_attr(.., rustc_offload_kernel)]``);
- a bare ``extern "gpu-kernel"`` fn (rustc offload's ABI), and a bare ``"ptx-kernel"`` /
  ``"amdgpu-kernel"`` fn (a driver-launched kernel: ecosystems/ptx_kernel.py);
- ``#[kernel]`` (Rust-CUDA ``cuda_std::kernel``, krnl, cuda-oxide);
- rust-gpu ``#[spirv(compute(threads(..)))]``;
- CubeCL ``#[cube(launch)]`` / ``#[cube(launch_unchecked)]``.
"""

from __future__ import annotations

import bisect
import dataclasses

from tree_sitter import Node

from offload_ls.analysis.consts import capture
from offload_ls.analysis.model import Ecosystem, Kernel, Span
from offload_ls.analysis.transfer import classify_param
from offload_ls.syntax.parse import SNIPPET_PREFIX, SNIPPET_SUFFIX, node_text, parse, snippet_call
from offload_ls.syntax.paths import fn_abi
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
        if fn is None or fn.type != "function_item":
            continue
        if fn.start_byte in found:
            first = found[fn.start_byte]
            if first.declared_dims is not None and first.declared_dims != declared_dims(attr):
                # one shape per feature (`#[cfg_attr(feature = "dim1", spirv(compute(threads(1, 1, 64))))]`
                # beside a "dim3" one): the block shape is not known
                found[fn.start_byte] = dataclasses.replace(first, declared_dims=None)
            continue
        ecosystem = ECOSYSTEM_OF_MARKER[node_text(marker)]
        found[fn.start_byte] = _kernel(fn, ecosystem, node_text(attr), declared_dims(attr))
    for fn in abi_fns:
        if fn.start_byte in found:
            continue
        abi = fn_abi(fn) or node_text(fn.child(0))
        # "gpu-kernel" is rustc offload's ABI; "ptx-kernel"/"amdgpu-kernel" kernels are
        # launched through the driver API with device pointers (ecosystems/ptx_kernel.py)
        ecosystem = Ecosystem.GPU_KERNEL_ABI if '"gpu-kernel"' in abi else Ecosystem.PTX_KERNEL
        found[fn.start_byte] = _kernel(fn, ecosystem, abi)
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


def declared_dims(attr: Node) -> tuple | None:
    """Threads per block declared by a marker attribute: ``threads(x, y, z)`` anywhere in
    its arguments (rust-gpu ``#[spirv(compute(threads(64)))]``, krnl
    ``#[kernel(threads(256))]``), as constant expressions (analysis/consts.py); the token
    text is re-parsed as a call's arguments."""
    stack = [attr]
    while stack:
        n = stack.pop()
        if n.type == "token_tree":
            kids = n.children
            for i, c in enumerate(kids[:-1]):
                if c.type == "identifier" and node_text(c) == "threads" and kids[i + 1].type == "token_tree":
                    tt = kids[i + 1]
                    text = (tt.text or b"")[1:-1]
                    tree = parse(SNIPPET_PREFIX + text + SNIPPET_SUFFIX)
                    call = snippet_call(tree)
                    args = call.child_by_field_name("arguments") if call is not None else None
                    if args is None:
                        return None
                    return tuple(capture(a) for a in args.named_children if not a.type.endswith("comment"))
        stack.extend(reversed(n.children))
    return None


def function_record(fn: Node) -> Kernel:
    """A module-level function as a :class:`Kernel` record with no marker (std offload's
    conventions): what a launch that names an unmarked function launches."""
    return _kernel(fn, Ecosystem.OFFLOAD, "")


def _kernel(fn: Node, ecosystem: Ecosystem, marker: str, dims: tuple | None = None) -> Kernel:
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
        declared_dims=dims,
        generics=_generics(fn),
        generic_bounds=_generic_bounds(fn),
    )


def _generic_bounds(fn: Node) -> tuple[tuple[str, ...], ...]:
    """:attr:`Kernel.generic_bounds` of the function item ``fn``."""
    tp = fn.child_by_field_name("type_parameters")
    out = []
    for p in tp.named_children if tp is not None else ():
        if p.type in ("lifetime", "lifetime_parameter", "const_parameter", "attribute_item", "line_comment",
                      "block_comment"):
            continue
        bounds = p.child_by_field_name("bounds")
        out.append(tuple(node_text(b).split("<", 1)[0].rsplit("::", 1)[-1]
                         for b in (bounds.named_children if bounds is not None else ())))
    return tuple(out)


def _generics(fn: Node) -> tuple[str, ...]:
    tp = fn.child_by_field_name("type_parameters")
    if tp is None:
        return ()
    out = []
    for c in tp.named_children:
        name = c.child_by_field_name("name")
        if name is None and c.type == "type_identifier":
            name = c
        if name is None:
            for g in c.named_children:
                if g.type in ("type_identifier", "identifier"):
                    name = g
                    break
        if name is not None:
            out.append(node_text(name))
    return tuple(out)
