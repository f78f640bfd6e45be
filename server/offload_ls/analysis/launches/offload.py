"""The std offload forms: ``offload! { kernel = k, workgroup_dim = [..], thread_dim = [..],
args = (..) }`` and ``core::intrinsics::offload(k, ..)`` with 2, 4, 5 or 6 arguments."""

from __future__ import annotations

from tree_sitter import Node

from offload_ls.analysis.consts import capture as capture_const
from offload_ls.analysis.launches.dims import dim_exprs, literal_dims
from offload_ls.analysis.launches.tokens import Reparsed, inner_range, last_segment, tuple_args
from offload_ls.analysis.model import Launch, LaunchArg, LaunchForm, Span
from offload_ls.syntax.parse import node_text

_WORKGROUP_KEYS = ("workgroup_dim", "grid_dim")
_THREAD_KEYS = ("thread_dim", "block_dim")


def offload_macro(node: Node, tokens: Node, source: bytes) -> Launch:
    start, end = inner_range(tokens)
    rp = Reparsed(start, source[start:end])
    kernel = kernel_span = None
    args: tuple[LaunchArg, ...] = ()
    wg = th = None
    wg_span = th_span = None
    wg_expr = th_expr = None
    fields: list[tuple[str, Span]] = []
    device_span = device_expr = None
    has_args = False
    for a in rp.args:
        if a.type != "assignment_expression":
            continue
        left, right = a.child_by_field_name("left"), a.child_by_field_name("right")
        if left is None or right is None:
            continue
        key = node_text(left)
        fields.append((key, rp.span(left)))
        if key == "kernel":
            name = last_segment(right)
            kernel, kernel_span = node_text(name), rp.span(name)
        elif key in _WORKGROUP_KEYS:
            wg, wg_span, wg_expr = literal_dims(right), rp.span(right), dim_exprs(right, node)
        elif key in _THREAD_KEYS:
            th, th_span, th_expr = literal_dims(right), rp.span(right), dim_exprs(right, node)
        elif key == "args":
            args, has_args = tuple_args(right, rp), True
        elif key == "device":
            device_span, device_expr = rp.span(right), capture_const(right)
    return Launch(
        form=LaunchForm.OFFLOAD_MACRO, kernel=kernel, kernel_span=kernel_span,
        span=Span(node.start_byte, node.end_byte), args=args,
        workgroup_dim=wg, thread_dim=th, workgroup_dim_span=wg_span, thread_dim_span=th_span,
        workgroup_expr=wg_expr, thread_expr=th_expr, fields=tuple(fields),
        device_span=device_span, device_expr=device_expr, has_args=has_args,
    )


def offload_call(call: Node, arguments: Node, bare: bool) -> Launch | None:
    args = [c for c in arguments.named_children if not c.type.endswith("comment")]
    if len(args) < 2:
        return None
    if bare and args[-1].type not in ("tuple_expression", "parenthesized_expression", "unit_expression"):
        return None  # some other function that happens to be called `offload`
    fn = call.child_by_field_name("function")
    if fn is not None and fn.type == "generic_function":  # offload::<_, _, ()>(..)
        fn = fn.child_by_field_name("function")
    if fn is not None and fn.type == "scoped_identifier":
        path = fn.child_by_field_name("path")
        if path is None or "intrinsics" not in node_text(path):
            return None
    kernel_node = last_segment(args[0])
    wg = th = None
    wg_span = th_span = None
    wg_expr = th_expr = None
    if len(args) >= 4:
        wg, wg_span, wg_expr = (literal_dims(args[1]), Span(args[1].start_byte, args[1].end_byte),
                                dim_exprs(args[1], call))
        th, th_span, th_expr = (literal_dims(args[2]), Span(args[2].start_byte, args[2].end_byte),
                                dim_exprs(args[2], call))
    return Launch(
        form=LaunchForm.OFFLOAD_CALL, kernel=node_text(kernel_node),
        kernel_span=Span(kernel_node.start_byte, kernel_node.end_byte),
        span=Span(call.start_byte, call.end_byte), args=tuple_args(args[-1], None),
        workgroup_dim=wg, thread_dim=th, workgroup_dim_span=wg_span, thread_dim_span=th_span,
        arity=len(args), workgroup_expr=wg_expr, thread_expr=th_expr,
    )
