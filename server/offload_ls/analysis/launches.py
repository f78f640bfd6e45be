"""Find kernel launch sites and their arguments.

Macro bodies are token trees, not expressions (DESIGN.md, "Known hard parts"), so the
argument lists of ``offload! { .. }`` and ``launch!(..)`` are re-parsed: the tokens'
source text is wrapped into a synthetic call ``__offload_ls(<text>);`` inside a function,
parsed with tree-sitter, and every byte offset is mapped back into the file.

Forms (grammars/rust/launches.scm):

- ``offload! { kernel = k, workgroup_dim = [..], thread_dim = [..], args = (..) }``
  (``grid_dim`` / ``block_dim`` accepted as synonyms);
- ``core::intrinsics::offload(k, args)`` (2 arguments, the first form of #131513; also with a
  turbofish, ``offload::<_, _, ()>(..)``, as rustc's tests write it),
  ``offload(k, workgroup_dim, thread_dim, args)`` (4), and the 5- and 6-argument forms,
  whose extra arguments sit between the dimensions and the argument tuple;
- Rust-CUDA ``launch!(module.k<<<grid, block, shared_mem, stream>>>(args..))``;
- CubeCL ``k::launch::<F, R>(&client, cube_count, cube_dim, args..)`` and
  ``k::launch_unchecked`` (cubecl-macros generates both for ``#[cube(launch)]`` /
  ``#[cube(launch_unchecked)]``); ``CubeCount::Static(x, y, z)`` and
  ``CubeDim::new(x, y, z)`` give the dimensions;
- krnl ``module::k::builder()?..build(device)?.dispatch(args..)``;
- wgpu ``ComputePipelineDescriptor { entry_point: Some("main_cs"), .. }`` naming a rust-gpu
  shader (form ``"wgpu"``: a name only; the dispatch is elsewhere).

Launch dimensions are kept as constant expressions (analysis/consts.py) so that the
crate's constants can fold them; an identifier bound by a ``let`` in the launching
function is followed to its value.
"""

from __future__ import annotations

from tree_sitter import Node

from offload_ls.analysis.consts import capture as capture_const
from offload_ls.analysis.flow.scopes import find_binding
from offload_ls.analysis.model import Launch, LaunchArg, Span
from offload_ls.syntax.parse import SNIPPET_PREFIX, SNIPPET_SUFFIX, node_text, parse, snippet_call
from offload_ls.syntax.queries import captures


_WORKGROUP_KEYS = ("workgroup_dim", "grid_dim")
_THREAD_KEYS = ("thread_dim", "block_dim")


def find_launches(root: Node, source: bytes) -> list[Launch]:
    """All launch sites under ``root`` in document order.

    Args:
        root: a node of the tree parsed from ``source``.
        source: the whole file's bytes (needed to re-parse macro token text; a root node's
            own ``text`` starts at its first token, not at byte 0).

    Never raises on broken code: a launch whose pieces cannot be found is reported with
    what could be read."""
    return launches_from_captures(captures("launches", root), source)


def launches_from_captures(caps: dict[str, list[Node]], source: bytes) -> list[Launch]:
    """Launches from the captures of grammars/rust/launches.scm (capture name -> nodes), in
    document order: what :func:`find_launches` returns for the subtree they were taken from.

    Each ``@launch`` / ``@call`` / ``@bare_call`` node is one site; its macro name, token
    tree and argument list are the node's own fields (the ones the query matched)."""
    launches: list[Launch] = []
    for node in caps.get("launch", []):
        macro = node.child_by_field_name("macro")
        if macro is not None and macro.type == "scoped_identifier":
            macro = macro.child_by_field_name("name")
        name = node_text(macro) if macro is not None else ""
        for tokens in node.children:
            if tokens.type == "token_tree":  # one site per token tree, as the query matches
                parse_macro = {"offload": _offload_macro, "cuda_launch": _oxide_launch}.get(name, _cuda_launch)
                launch = parse_macro(node, tokens, source)
                if launch is not None:
                    launches.append(launch)
    for key, bare in (("call", False), ("bare_call", True)):
        for call in caps.get(key, []):
            args = call.child_by_field_name("arguments")
            launch = _offload_call(call, args, bare=bare) if args is not None else None
            if launch is not None:
                launches.append(launch)
    for call, name, path, arguments in zip(caps.get("cube_call", []), caps.get("cube_fn", []),
                                           caps.get("cube_path", []), caps.get("cube_args", [])):
        launch = _cube_launch(call, name, path, arguments)
        if launch is not None:
            launches.append(launch)
    for call, arguments in zip(caps.get("krnl_dispatch", []), caps.get("krnl_args", [])):
        launch = _krnl_dispatch(call, arguments)
        if launch is not None:
            launches.append(launch)
    for entry, name in zip(caps.get("wgpu_entry", []), caps.get("wgpu_name", [])):
        launches.append(Launch(form="wgpu", kernel=node_text(name), kernel_span=Span(name.start_byte, name.end_byte),
                               span=Span(entry.start_byte, entry.end_byte), args=()))
    launches.sort(key=lambda launch: launch.span.start)
    return launches


# ----------------------------------------------------------------- re-parsing token text


class _Reparsed:
    """Arguments of ``__offload_ls(<text>)`` with offsets mapped back to the file."""

    def __init__(self, text_start: int, text: bytes) -> None:
        self.base = text_start - len(SNIPPET_PREFIX)
        tree = parse(SNIPPET_PREFIX + text + SNIPPET_SUFFIX)
        self.args: list[Node] = []
        call = snippet_call(tree)
        if call is not None:
            arguments = call.child_by_field_name("arguments")
            if arguments is not None:
                self.args = [c for c in arguments.named_children if not c.type.endswith("comment")]

    def span(self, node: Node) -> Span:
        return Span(node.start_byte + self.base, node.end_byte + self.base)


def _inner_range(token_tree: Node) -> tuple[int, int]:
    """Byte range inside a token tree's delimiters."""
    start, end = token_tree.start_byte, token_tree.end_byte
    if token_tree.child_count >= 2:
        start = token_tree.children[0].end_byte
        end = token_tree.children[-1].start_byte
    return start, end


def _tuple_args(node: Node, rp: _Reparsed | None) -> tuple[LaunchArg, ...]:
    """Elements of a tuple / parenthesized expression as launch arguments."""
    span = rp.span if rp is not None else (lambda n: Span(n.start_byte, n.end_byte))
    if node.type == "tuple_expression":
        elems = [c for c in node.named_children if not c.type.endswith("comment")]
    elif node.type == "parenthesized_expression":
        elems = [c for c in node.named_children if not c.type.endswith("comment")]
    elif node.type == "unit_expression":
        elems = []
    else:
        elems = [node]
    return tuple(LaunchArg(node_text(e), span(e)) for e in elems)


def _dims(node: Node) -> tuple[int | None, ...] | None:
    """Literal launch dimensions of ``[a, b, c]`` / ``(a, b, c)`` / a single integer."""
    if node.type in ("array_expression", "tuple_expression"):
        return tuple(_int_literal(c) for c in node.named_children if not c.type.endswith("comment"))
    return (_int_literal(node),)


#: Deepest ``let`` chain followed for a launch dimension.
_LET_DEPTH = 4


def dim_exprs(node: Node, scope: Node | None, depth: int = 0) -> tuple | None:
    """Launch dimensions of ``node`` as constant expressions (analysis/consts.py), one per
    dimension: ``[a, b, c]``, ``(a, b)``, a single expression, ``CubeDim::new(x, y, z)`` /
    ``CubeCount::Static(x, y, z)`` / ``new_1d``/``new_2d``/``new_3d``, ``Dim3 { .. }`` is
    not read. An identifier bound by a ``let`` visible at ``scope`` (a node of the file's
    tree; ``None`` for re-parsed macro text) is followed to its value."""
    if depth > _LET_DEPTH:
        return None
    t = node.type
    if t in ("array_expression", "tuple_expression"):
        return tuple(_dim_expr(c, scope, depth) for c in _named(node))
    if t == "call_expression":
        fn, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
        if fn is not None and args is not None and fn.type == "scoped_identifier":
            name = fn.child_by_field_name("name")
            if name is not None and node_text(name) == "default":
                return None  # CubeDim::default(): the ecosystem's default block
            if name is not None and node_text(name) in ("new", "new_1d", "new_2d", "new_3d", "Static", "new_single"):
                if node_text(name) == "new_single":
                    return (("int", 1), ("int", 1), ("int", 1))
                return tuple(_dim_expr(c, scope, depth) for c in _named(args))
    if t == "identifier" and scope is not None:
        b = find_binding(node_text(node), scope)
        if b is not None and b.kind == "let" and b.value is not None and not b.mutable:
            return dim_exprs(b.value, b.value, depth + 1)
    return (_dim_expr(node, scope, depth),)


def _dim_expr(node: Node, scope: Node | None, depth: int) -> tuple | None:
    """One dimension: a constant expression, or a ``let`` in scope followed to one."""
    if node.type == "identifier" and scope is not None and depth <= _LET_DEPTH:
        b = find_binding(node_text(node), scope)
        if b is not None and b.kind == "let" and b.value is not None and not b.mutable:
            return _dim_expr(b.value, b.value, depth + 1)
    return capture_const(node)


def _named(node: Node) -> list[Node]:
    return [c for c in node.named_children if not c.type.endswith("comment")]


def _int_literal(node: Node) -> int | None:
    if node.type != "integer_literal":
        return None
    text = node_text(node).replace("_", "")
    for suffix in ("usize", "isize", "u128", "i128", "u64", "i64", "u32", "i32", "u16", "i16", "u8", "i8"):
        if text.endswith(suffix):
            text = text[: -len(suffix)]
            break
    try:
        return int(text, 0)
    except ValueError:
        return None


def _last_segment(node: Node) -> Node:
    """The name in a path (``module.k`` -> ``k``, ``a::b::k`` -> ``k``)."""
    if node.type == "scoped_identifier":
        name = node.child_by_field_name("name")
        return name if name is not None else node
    if node.type == "field_expression":
        field = node.child_by_field_name("field")
        return field if field is not None else node
    if node.type == "generic_function":
        inner = node.child_by_field_name("function")
        return _last_segment(inner) if inner is not None else node
    return node


# ----------------------------------------------------------------- the three forms


def _offload_macro(node: Node, tokens: Node, source: bytes) -> Launch:
    start, end = _inner_range(tokens)
    rp = _Reparsed(start, source[start:end])
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
            name = _last_segment(right)
            kernel, kernel_span = node_text(name), rp.span(name)
        elif key in _WORKGROUP_KEYS:
            wg, wg_span, wg_expr = _dims(right), rp.span(right), dim_exprs(right, node)
        elif key in _THREAD_KEYS:
            th, th_span, th_expr = _dims(right), rp.span(right), dim_exprs(right, node)
        elif key == "args":
            args, has_args = _tuple_args(right, rp), True
        elif key == "device":
            device_span, device_expr = rp.span(right), capture_const(right)
    return Launch(
        form="offload!", kernel=kernel, kernel_span=kernel_span,
        span=Span(node.start_byte, node.end_byte), args=args,
        workgroup_dim=wg, thread_dim=th, workgroup_dim_span=wg_span, thread_dim_span=th_span,
        workgroup_expr=wg_expr, thread_expr=th_expr, fields=tuple(fields),
        device_span=device_span, device_expr=device_expr, has_args=has_args,
    )


def _offload_call(call: Node, arguments: Node, bare: bool) -> Launch | None:
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
    kernel_node = _last_segment(args[0])
    wg = th = None
    wg_span = th_span = None
    wg_expr = th_expr = None
    if len(args) >= 4:
        wg, wg_span, wg_expr = _dims(args[1]), Span(args[1].start_byte, args[1].end_byte), dim_exprs(args[1], call)
        th, th_span, th_expr = _dims(args[2]), Span(args[2].start_byte, args[2].end_byte), dim_exprs(args[2], call)
    return Launch(
        form="offload()", kernel=node_text(kernel_node),
        kernel_span=Span(kernel_node.start_byte, kernel_node.end_byte),
        span=Span(call.start_byte, call.end_byte), args=_tuple_args(args[-1], None),
        workgroup_dim=wg, thread_dim=th, workgroup_dim_span=wg_span, thread_dim_span=th_span,
        arity=len(args), workgroup_expr=wg_expr, thread_expr=th_expr,
    )


def _cuda_launch(node: Node, tokens: Node, source: bytes) -> Launch | None:
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
    cfg = _Reparsed(cfg_start, source[cfg_start:cfg_end])
    wg = th = None
    wg_span = th_span = None
    wg_expr = th_expr = None
    if len(cfg.args) >= 2:
        wg, wg_span, wg_expr = _dims(cfg.args[0]), cfg.span(cfg.args[0]), _reparsed_dims(cfg.args[0], node)
        th, th_span, th_expr = _dims(cfg.args[1]), cfg.span(cfg.args[1]), _reparsed_dims(cfg.args[1], node)
    args: tuple[LaunchArg, ...] = ()
    arg_tree = children[close_idx + 2] if close_idx + 2 < len(children) else None
    if arg_tree is not None and arg_tree.type == "token_tree":
        s, e = _inner_range(arg_tree)
        rp = _Reparsed(s, source[s:e])
        args = tuple(LaunchArg(node_text(a), rp.span(a)) for a in rp.args)
    return Launch(
        form="launch!", kernel=kernel, kernel_span=kernel_span,
        span=Span(node.start_byte, node.end_byte), args=args,
        workgroup_dim=wg, thread_dim=th, workgroup_dim_span=wg_span, thread_dim_span=th_span,
        workgroup_expr=wg_expr, thread_expr=th_expr,
    )


def _reparsed_dims(expr: Node, at: Node) -> tuple | None:
    """Dimensions of a re-parsed macro expression; a plain identifier is looked up as a
    ``let`` visible at ``at`` (the macro node in the file's tree)."""
    if expr.type == "identifier":
        b = find_binding(node_text(expr), at)
        if b is not None and b.kind == "let" and b.value is not None and not b.mutable:
            return dim_exprs(b.value, b.value)
    return dim_exprs(expr, None)


# ----------------------------------------------------------------- cuda-oxide


def _oxide_launch(node: Node, tokens: Node, source: bytes) -> Launch | None:
    """cuda-oxide ``cuda_launch! { kernel: k, stream: s, module: m, config: cfg, args: [..] }``
    (crates/cuda-macros/README.md): the fields are re-parsed as a struct expression's;
    ``config`` is a ``LaunchConfig { grid_dim, block_dim, .. }`` literal, a ``let`` of one, or
    ``LaunchConfig::for_num_elems(n)`` (1-D, blocks computed from ``n``)."""
    start, end = _inner_range(tokens)
    prefix = b"S{"
    tree = parse(SNIPPET_PREFIX + prefix + source[start:end] + b"}" + SNIPPET_SUFFIX)
    base = start - len(SNIPPET_PREFIX) - len(prefix)
    call = snippet_call(tree)
    args_node = call.child_by_field_name("arguments") if call is not None else None
    struct = _named(args_node)[0] if args_node is not None and _named(args_node) else None
    body = struct.child_by_field_name("body") if struct is not None else None
    if body is None:
        return None

    def span(n: Node) -> Span:
        return Span(n.start_byte + base, n.end_byte + base)

    kernel = kernel_span = None
    args: tuple[LaunchArg, ...] = ()
    wg_expr = th_expr = None
    fields: list[tuple[str, Span]] = []
    for f in _named(body):
        if f.type != "field_initializer":
            continue
        name, value = f.child_by_field_name("field"), f.child_by_field_name("value")
        if name is None or value is None:
            continue
        key = node_text(name)
        fields.append((key, span(name)))
        if key == "kernel":
            k = _last_segment(value)
            kernel, kernel_span = node_text(k), span(k)
        elif key == "args" and value.type == "array_expression":
            args = tuple(LaunchArg(node_text(a), span(a)) for a in _named(value))
        elif key == "config":
            wg_expr, th_expr = _launch_config(value, node)
    return Launch(form="cuda_launch!", kernel=kernel, kernel_span=kernel_span,
                  span=Span(node.start_byte, node.end_byte), args=args,
                  workgroup_expr=wg_expr, thread_expr=th_expr, fields=tuple(fields))


def _launch_config(value: Node, at: Node, depth: int = 0) -> tuple[tuple | None, tuple | None]:
    """(grid dims, block dims) of a cuda-oxide ``LaunchConfig`` expression; a dimension
    computed at run time is ``None`` in its tuple."""
    if depth > _LET_DEPTH:
        return None, None
    if value.type == "identifier":
        b = find_binding(node_text(value), at)
        if b is not None and b.kind == "let" and b.value is not None:
            return _launch_config(b.value, b.value, depth + 1)
        return None, None
    if value.type == "struct_expression":
        body = value.child_by_field_name("body")
        grid = block = None
        for f in _named(body) if body is not None else ():
            name, v = f.child_by_field_name("field"), f.child_by_field_name("value")
            if name is None or v is None:
                continue
            if node_text(name) == "grid_dim":
                grid = dim_exprs(v, None)
            elif node_text(name) == "block_dim":
                block = dim_exprs(v, None)
        return grid, block
    if value.type == "call_expression":
        fn = value.child_by_field_name("function")
        if fn is not None and fn.type == "scoped_identifier" and node_text(fn).endswith("for_num_elems"):
            return (None,), None  # as many blocks as the element count needs
    return None, None


# ----------------------------------------------------------------- CubeCL and krnl


def _cube_launch(call: Node, fn_name: Node, path: Node, arguments: Node) -> Launch | None:
    """``k::launch::<F, R>(&client, cube_count, cube_dim, args..)`` (and ``launch_unchecked``):
    the kernel is the path's last segment; the first three arguments are the client, the
    cube count and the cube dimensions."""
    args = _named(arguments)
    if len(args) < 3:
        return None
    kernel_node = _last_segment(path)
    if kernel_node.type not in ("identifier",):
        return None
    count, dim = args[1], args[2]
    return Launch(
        form="cube", kernel=node_text(kernel_node), kernel_span=Span(kernel_node.start_byte, kernel_node.end_byte),
        span=Span(call.start_byte, call.end_byte),
        args=tuple(LaunchArg(node_text(a), Span(a.start_byte, a.end_byte)) for a in args[3:]),
        workgroup_dim=_dims(count) if count.type != "call_expression" else None,
        thread_dim=_dims(dim) if dim.type != "call_expression" else None,
        workgroup_dim_span=Span(count.start_byte, count.end_byte), thread_dim_span=Span(dim.start_byte, dim.end_byte),
        workgroup_expr=dim_exprs(count, call), thread_expr=dim_exprs(dim, call),
    )


def _krnl_dispatch(call: Node, arguments: Node) -> Launch | None:
    """``path::k::builder()?[.with_..(..)]..build(device)?.dispatch(args..)``: the kernel is
    the path segment before ``builder``."""
    node = call.child_by_field_name("function")
    node = node.child_by_field_name("value") if node is not None else None
    steps = 0
    grid: tuple | None = None
    while node is not None and steps < 32:
        steps += 1
        if node.type == "try_expression":
            node = _named(node)[0] if _named(node) else None
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
            k = _last_segment(path)
            args = _named(arguments)
            return Launch(form="krnl", kernel=node_text(k), kernel_span=Span(k.start_byte, k.end_byte),
                          span=Span(call.start_byte, call.end_byte),
                          args=tuple(LaunchArg(node_text(a), Span(a.start_byte, a.end_byte)) for a in args),
                          workgroup_expr=grid)
        if fn.type == "field_expression":
            method = fn.child_by_field_name("field")
            margs = node.child_by_field_name("arguments")
            if method is not None and margs is not None and _named(margs):
                if node_text(method) == "with_groups":
                    grid = dim_exprs(_named(margs)[0], call)
                elif node_text(method) == "with_global_threads" and grid is None:
                    grid = (None,)  # groups enough for the global threads: computed at run time
            node = fn.child_by_field_name("value")
            continue
        return None
    return None
