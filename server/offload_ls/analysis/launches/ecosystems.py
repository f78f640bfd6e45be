"""The other ecosystems' launch forms: Rust-CUDA ``launch!``, cuda-oxide ``cuda_launch!``,
CubeCL ``k::launch::<..>(..)`` and krnl's ``builder()..dispatch(..)``."""

from __future__ import annotations

from tree_sitter import Node

from offload_ls.analysis.launches.dims import dim_exprs, launch_config, literal_dims, reparsed_dims
from offload_ls.analysis.launches.tokens import Reparsed, inner_range, last_segment, named
from offload_ls.analysis.model import Launch, LaunchArg, LaunchForm, Span
from offload_ls.syntax.parse import SNIPPET_PREFIX, SNIPPET_SUFFIX, node_text, parse, snippet_call


def cuda_launch(node: Node, tokens: Node, source: bytes) -> Launch | None:
    """``launch!(path.kernel<<<g, b, smem, stream>>>(args))``: the token tree holds
    ``path.kernel``, the operators ``<<`` ``<``, the configuration tokens, ``>>`` ``>``,
    and a final parenthesized token tree with the arguments."""
    children = tokens.children
    open_idx = close_idx = None
    for i in range(len(children) - 1):
        a, b = children[i], children[i + 1]
        if a.type == "<<" and b.type == "<" and open_idx is None and a.end_byte == b.start_byte:
            open_idx = i
        if a.type == ">>" and b.type == ">" and a.end_byte == b.start_byte:
            close_idx = i
    if open_idx is None or close_idx is None or close_idx < open_idx:
        return None
    kernel = kernel_span = None
    name_tokens = [c for c in children[1:open_idx] if c.type == "identifier"]
    if name_tokens:
        kernel, kernel_span = node_text(name_tokens[-1]), Span(name_tokens[-1].start_byte, name_tokens[-1].end_byte)
    cfg_start, cfg_end = children[open_idx + 1].end_byte, children[close_idx].start_byte
    cfg = Reparsed(cfg_start, source[cfg_start:cfg_end])
    wg = th = None
    wg_span = th_span = None
    wg_expr = th_expr = None
    if len(cfg.args) >= 2:
        wg, wg_span, wg_expr = literal_dims(cfg.args[0]), cfg.span(cfg.args[0]), reparsed_dims(cfg.args[0], node)
        th, th_span, th_expr = literal_dims(cfg.args[1]), cfg.span(cfg.args[1]), reparsed_dims(cfg.args[1], node)
    args: tuple[LaunchArg, ...] = ()
    arg_tree = children[close_idx + 2] if close_idx + 2 < len(children) else None
    if arg_tree is not None and arg_tree.type == "token_tree":
        s, e = inner_range(arg_tree)
        rp = Reparsed(s, source[s:e])
        args = tuple(LaunchArg(node_text(a), rp.span(a)) for a in rp.args)
    return Launch(
        form=LaunchForm.RUST_CUDA, kernel=kernel, kernel_span=kernel_span,
        span=Span(node.start_byte, node.end_byte), args=args,
        workgroup_dim=wg, thread_dim=th, workgroup_dim_span=wg_span, thread_dim_span=th_span,
        workgroup_expr=wg_expr, thread_expr=th_expr,
    )


def oxide_launch(node: Node, tokens: Node, source: bytes) -> Launch | None:
    """cuda-oxide ``cuda_launch! { kernel: k, stream: s, module: m, config: cfg, args: [..] }``
    (crates/cuda-macros/README.md): the fields are re-parsed as a struct expression's;
    ``config`` is a ``LaunchConfig { grid_dim, block_dim, .. }`` literal, a ``let`` of one, or
    ``LaunchConfig::for_num_elems(n)`` (1-D, blocks computed from ``n``)."""
    start, end = inner_range(tokens)
    prefix = b"S{"
    tree = parse(SNIPPET_PREFIX + prefix + source[start:end] + b"}" + SNIPPET_SUFFIX)
    base = start - len(SNIPPET_PREFIX) - len(prefix)
    call = snippet_call(tree)
    args_node = call.child_by_field_name("arguments") if call is not None else None
    struct = named(args_node)[0] if args_node is not None and named(args_node) else None
    body = struct.child_by_field_name("body") if struct is not None else None
    if body is None:
        return None

    def span(n: Node) -> Span:
        return Span(n.start_byte + base, n.end_byte + base)

    kernel = kernel_span = None
    args: tuple[LaunchArg, ...] = ()
    wg_expr = th_expr = None
    fields: list[tuple[str, Span]] = []
    for f in named(body):
        if f.type != "field_initializer":
            continue
        name, value = f.child_by_field_name("field"), f.child_by_field_name("value")
        if name is None or value is None:
            continue
        key = node_text(name)
        fields.append((key, span(name)))
        if key == "kernel":
            k = last_segment(value)
            kernel, kernel_span = node_text(k), span(k)
        elif key == "args" and value.type == "array_expression":
            args = tuple(LaunchArg(node_text(a), span(a)) for a in named(value))
        elif key == "config":
            wg_expr, th_expr = launch_config(value, node)
    return Launch(form=LaunchForm.CUDA_OXIDE, kernel=kernel, kernel_span=kernel_span,
                  span=Span(node.start_byte, node.end_byte), args=args,
                  workgroup_expr=wg_expr, thread_expr=th_expr, fields=tuple(fields))


def cube_launch(call: Node, fn_name: Node, path: Node, arguments: Node) -> Launch | None:
    """``k::launch::<F, R>(&client, cube_count, cube_dim, args..)`` (and ``launch_unchecked``):
    the kernel is the path's last segment; the first three arguments are the client, the
    cube count and the cube dimensions."""
    args = named(arguments)
    if len(args) < 3:
        return None
    kernel_node = last_segment(path)
    if kernel_node.type not in ("identifier",):
        return None
    count, dim = args[1], args[2]
    return Launch(
        form=LaunchForm.CUBE, kernel=node_text(kernel_node),
        kernel_span=Span(kernel_node.start_byte, kernel_node.end_byte),
        span=Span(call.start_byte, call.end_byte),
        args=tuple(LaunchArg(node_text(a), Span(a.start_byte, a.end_byte)) for a in args[3:]),
        workgroup_dim=literal_dims(count) if count.type != "call_expression" else None,
        thread_dim=literal_dims(dim) if dim.type != "call_expression" else None,
        workgroup_dim_span=Span(count.start_byte, count.end_byte), thread_dim_span=Span(dim.start_byte, dim.end_byte),
        workgroup_expr=dim_exprs(count, call), thread_expr=dim_exprs(dim, call),
    )


def krnl_dispatch(call: Node, arguments: Node) -> Launch | None:
    """``path::k::builder()?[.with_..(..)]..build(device)?.dispatch(args..)``: the kernel is
    the path segment before ``builder``."""
    node = call.child_by_field_name("function")
    node = node.child_by_field_name("value") if node is not None else None
    steps = 0
    grid: tuple | None = None
    while node is not None and steps < 32:
        steps += 1
        if node.type == "try_expression":
            node = named(node)[0] if named(node) else None
            continue
        if node.type != "call_expression":
            return None
        fn = node.child_by_field_name("function")
        if fn is None:
            return None
        if fn.type == "scoped_identifier":
            name, path = fn.child_by_field_name("name"), fn.child_by_field_name("path")
            if name is None or node_text(name) != "builder" or path is None:
                return None
            k = last_segment(path)
            args = named(arguments)
            return Launch(form=LaunchForm.KRNL, kernel=node_text(k), kernel_span=Span(k.start_byte, k.end_byte),
                          span=Span(call.start_byte, call.end_byte),
                          args=tuple(LaunchArg(node_text(a), Span(a.start_byte, a.end_byte)) for a in args),
                          workgroup_expr=grid)
        if fn.type == "field_expression":
            method = fn.child_by_field_name("field")
            margs = node.child_by_field_name("arguments")
            if method is not None and margs is not None and named(margs):
                if node_text(method) == "with_groups":
                    grid = dim_exprs(named(margs)[0], call)
                elif node_text(method) == "with_global_threads" and grid is None:
                    grid = (None,)  # groups enough for the global threads: computed at run time
            node = fn.child_by_field_name("value")
            continue
        return None
    return None
