"""Finding today's upstream offload spelling in a package's files (toolchain/lower.py lowers it).

What counts (rust-lang/rust, nightly since August 2026): ``#[offload_kernel]`` /
``#[core::offload::offload_kernel]`` on a ``fn``, or ``#[rustc_offload_kernel]`` on a plain ``fn``
without an ``extern`` ABI (tests/run-make/offload/*/example.rs); ``offload!`` /
``core::offload::offload!`` launches and their fields (tests/ui/offload/offload_macro.rs);
``use core::offload::..`` items. Kernels in rustc 1.96's spelling (``extern "gpu-kernel"``) are
recorded too, to report a crate mixing both.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from tree_sitter import Node

from offload_ls.syntax.parse import node_text, parse
from offload_ls.syntax.paths import fn_abi
from offload_ls.workspace.files import FileTooLarge, read_source, rust_files

MAX_FILE_BYTES = 4 << 20
#: Barrier calls (the same names as the std-offload profile's ``barriers``).
BARRIERS = frozenset({"_syncthreads", "s_barrier", "barrier"})


@dataclass
class ScannedKernel:
    file: Path
    name: str
    fn: Node
    attrs: list[Node]
    generics: list[tuple[str, bool, str]]  # (name, is_const, a const parameter's type)
    params: list[tuple[str, Node]]  # (name to pass, type node)
    container_end: int  # where the entries go (end of file / before the module's `}`)
    is_unsafe: bool
    vis: str
    module: tuple[str, ...] = ()  # module path from the crate root (`kernels`, `kernels::inner`)
    lifetimes: list[str] = field(default_factory=list)  # `'a` of `fn k<'a>(..)`
    inline_attr: bool = False  # the kernel has its own #[inline(..)]


@dataclass
class ScannedLaunch:
    file: Path
    node: Node
    values: dict[str, tuple[int, int]]  # field name -> value byte range in the file
    args_tuple: bool = False  # `args` is a tuple expression (or `()`)
    arg_spans: list[tuple[int, int]] = field(default_factory=list)  # the tuple's elements
    kernel_segments: tuple[str, ...] = ()  # `kernels::saxpy` -> ("kernels", "saxpy")
    kernel_name: str | None = None
    kernel_path: tuple[int, int] | None = None  # the path without turbofish
    type_args: list[str] = field(default_factory=list)
    module: tuple[str, ...] = ()  # module of the launch
    container_end: int = 0  # end of the launch's module (where its type-argument aliases go)


@dataclass
class ScannedFile:
    path: Path
    source: bytes
    root: Node
    module: tuple[str, ...] = ()  # the file's module path from the crate root
    kernels: list[ScannedKernel] = field(default_factory=list)
    launches: list[ScannedLaunch] = field(default_factory=list)
    legacy_kernels: list[tuple[str, Node]] = field(default_factory=list)  # 1.96 spelling
    offload_uses: list[Node] = field(default_factory=list)
    module_ends: list[int] = field(default_factory=list)
    mod_decls: list[tuple[str, ...]] = field(default_factory=list)  # `mod x;` as (inline scopes.., x)
    barrier_calls: dict[str, list[Node]] = field(default_factory=dict)  # fn name -> barrier calls
    calls: dict[str, set[str]] = field(default_factory=dict)  # fn name -> called names


def _attr_path(attr: Node) -> str:
    """``core::offload::offload_kernel`` for ``#[core::offload::offload_kernel]`` ('' if none)."""
    inner = next((c for c in attr.named_children if c.type == "attribute"), None)
    if inner is None or not inner.named_children:
        return ""
    return node_text(inner.named_children[0])


def _is_upstream_marker(path: str) -> bool:
    return path.split("::")[-1] == "offload_kernel"


def _fn_attrs(fn: Node) -> list[Node]:
    out, prev = [], fn.prev_named_sibling
    while prev is not None and prev.type in ("attribute_item", "line_comment", "block_comment"):
        if prev.type == "attribute_item":
            out.append(prev)
        prev = prev.prev_named_sibling
    return list(reversed(out))


def _is_unsafe_fn(fn: Node) -> bool:
    return any(c.type == "function_modifiers" and any(m.type == "unsafe" for m in c.children)
               for c in fn.children)


def _param_name(pattern: Node | None, i: int) -> str:
    if pattern is not None and pattern.type == "identifier":
        return node_text(pattern)
    if pattern is not None and pattern.type == "mut_pattern":
        ident = next((c for c in pattern.named_children if c.type == "identifier"), None)
        if ident is not None:
            return node_text(ident)
    return f"arg{i}"


def _scan_items(f: ScannedFile, decls: Node, container_end: int, module: tuple[str, ...]) -> None:
    f.module_ends.append(container_end)
    for item in decls.named_children:
        if item.type == "mod_item":
            body = item.child_by_field_name("body")
            name = item.child_by_field_name("name")
            if body is not None:
                _scan_items(f, body, body.end_byte - 1, (*module, node_text(name) if name else "_"))
            elif name is not None:
                f.mod_decls.append((*module[len(f.module):], node_text(name)))
        elif item.type == "use_declaration":
            arg = item.child_by_field_name("argument")
            text = node_text(arg) if arg is not None else ""
            if text.startswith(("core::offload", "std::offload")):
                f.offload_uses.append(item)
        elif item.type == "function_item":
            _scan_fn(f, item, container_end, module)
        elif item.type in ("impl_item", "trait_item"):
            body = item.child_by_field_name("body")
            for method in body.named_children if body is not None else []:
                name = method.child_by_field_name("name") if method.type == "function_item" else None
                block = method.child_by_field_name("body") if name is not None else None
                if block is not None:  # launches in methods (methods are never kernels)
                    _scan_body(f, node_text(name), block, module, container_end)


def _scan_fn(f: ScannedFile, fn: Node, container_end: int, module: tuple[str, ...]) -> None:
    name_node = fn.child_by_field_name("name")
    if name_node is None:
        return
    name = node_text(name_node)
    attrs = _fn_attrs(fn)
    paths = [_attr_path(a) for a in attrs]
    abi = fn_abi(fn)
    body = fn.child_by_field_name("body")
    if body is not None:
        _scan_body(f, name, body, module, container_end)
    upstream = any(_is_upstream_marker(p) for p in paths) or (
        "rustc_offload_kernel" in paths and abi is None)
    if not upstream:
        if "rustc_offload_kernel" in paths or (abi is not None and "gpu-kernel" in abi):
            f.legacy_kernels.append((name, fn))
        return
    generics: list[tuple[str, bool, str]] = []
    lifetimes: list[str] = []
    tp = fn.child_by_field_name("type_parameters")
    for g in tp.named_children if tp is not None else []:
        if g.type == "lifetime_parameter":
            lt = next((c for c in g.named_children if c.type == "lifetime"), None)
            lifetimes.append(node_text(lt) if lt is not None else node_text(g))
        elif g.type == "const_parameter":
            n, ty = g.child_by_field_name("name"), g.child_by_field_name("type")
            generics.append((node_text(n) if n else "", True, node_text(ty) if ty else "usize"))
        elif g.type in ("type_parameter", "constrained_type_parameter", "type_identifier"):
            n = g.child_by_field_name("name") or g.child_by_field_name("left") or (
                g if g.type == "type_identifier" else None)
            if n is None:
                n = next((c for c in g.named_children if c.type == "type_identifier"), None)
            generics.append((node_text(n) if n else "", False, ""))
    params: list[tuple[str, Node]] = []
    plist = fn.child_by_field_name("parameters")
    for i, p in enumerate(c for c in (plist.named_children if plist else []) if c.type == "parameter"):
        params.append((_param_name(p.child_by_field_name("pattern"), i), p.child_by_field_name("type")))
    vis = next((node_text(c) for c in fn.children if c.type == "visibility_modifier"), "")
    f.kernels.append(ScannedKernel(f.path, name, fn, [a for a, p in zip(attrs, paths)
                                                if _is_upstream_marker(p) or p == "rustc_offload_kernel"],
                             generics, params, container_end, _is_unsafe_fn(fn), vis, module, lifetimes,
                             "inline" in paths))


def _scan_body(f: ScannedFile, fn_name: str, body: Node, module: tuple[str, ...], container_end: int) -> None:
    calls = f.calls.setdefault(fn_name, set())
    stack = [body]
    while stack:
        n = stack.pop()
        if n.type == "call_expression":
            callee = n.child_by_field_name("function")
            if callee is not None:
                last = node_text(callee).split("::")[-1]
                calls.add(last)
                if last in BARRIERS:
                    f.barrier_calls.setdefault(fn_name, []).append(n)
        elif n.type == "macro_invocation":
            _scan_macro(f, n, module, container_end)
        stack.extend(n.children)


_SNIPPET = b"fn __offload_ls() { let _ = ("


def _snippet_value(text: bytes) -> Node | None:
    """``text`` parsed as the contents of ``( .. )`` after ``let _ =``: the value node."""
    tree = parse(_SNIPPET + text + b"); }")
    stack = [tree.root_node]
    while stack:
        n = stack.pop()
        if n.type == "let_declaration":
            return n.child_by_field_name("value")
        stack.extend(reversed(n.children))
    return None


def _elements(value: Node) -> list[Node]:
    """The items of a tuple (``(a, b)``), of ``(a)``, or none for ``()``; comments skipped."""
    if value.type == "tuple_expression":
        return [c for c in value.named_children if c.type not in ("line_comment", "block_comment")]
    if value.type == "parenthesized_expression":
        return [c for c in value.named_children if c.type not in ("line_comment", "block_comment")][:1]
    return []


def _scan_macro(f: ScannedFile, node: Node, module: tuple[str, ...], container_end: int) -> None:
    """An ``offload!`` launch: its fields read by parsing ``name = value, ..`` as a tuple of
    assignments (so commas inside ``k::<A, B>`` or ``f::<T, U>(x)`` and comments between the
    fields are the parser's business), offsets mapped back to the file."""
    mac = node.child_by_field_name("macro")
    if mac is None or node_text(mac).split("::")[-1] != "offload":
        return
    tt = next((c for c in node.children if c.type == "token_tree"), None)
    if tt is None or len(tt.children) < 2:
        return
    launch = ScannedLaunch(f.path, node, {}, module=module, container_end=container_end)
    start, end = tt.children[0].end_byte, tt.children[-1].start_byte
    value = _snippet_value(f.source[start:end])
    off = start - len(_SNIPPET)
    for item in _elements(value) if value is not None else []:
        left, right = item.child_by_field_name("left"), item.child_by_field_name("right")
        if item.type != "assignment_expression" or left is None or right is None or left.type != "identifier":
            continue
        name = node_text(left)
        launch.values[name] = (right.start_byte + off, right.end_byte + off)
        if name == "args":
            launch.args_tuple = right.type in ("tuple_expression", "unit_expression")
            launch.arg_spans = [(c.start_byte + off, c.end_byte + off) for c in _elements(right)] \
                if right.type == "tuple_expression" else []
    if "kernel" in launch.values:
        _parse_kernel_ref(f.source, launch)
    f.launches.append(launch)


def _parse_kernel_ref(source: bytes, launch: ScannedLaunch) -> None:
    """Fill ``kernel_name`` / ``kernel_path`` / ``type_args`` from ``kernel = path::k::<T>``."""
    s, e = launch.values["kernel"]
    wrapped = _snippet_value(source[s:e])
    inner = _elements(wrapped) if wrapped is not None else []
    if not inner:
        return
    expr = path = inner[0]
    off = s - len(_SNIPPET)
    if expr.type == "generic_function":
        path = expr.child_by_field_name("function")
        targs = expr.child_by_field_name("type_arguments")
        launch.type_args = [node_text(a) for a in (targs.named_children if targs else [])
                            if a.type not in ("line_comment", "block_comment")]
    if path is None or path.type not in ("identifier", "scoped_identifier"):
        return
    launch.kernel_path = (path.start_byte + off, path.end_byte + off)
    launch.kernel_name = node_text(path).split("::")[-1]
    launch.kernel_segments = tuple(node_text(path).split("::"))


def scan_file(path: Path, source: bytes, module: tuple[str, ...] = ()) -> ScannedFile:
    """Scan one file whose module path from the crate root is ``module``."""
    tree = parse(source)
    f = ScannedFile(path, source, tree.root_node, module)
    _scan_items(f, tree.root_node, len(source), module)
    return f


def module_tree(files: dict[Path, ScannedFile], roots: set[Path]) -> dict[Path, tuple[Path, tuple[str, ...]]]:
    """File -> (its crate root, its module path), following ``mod x;`` declarations from each
    root the 2018+ way (``x.rs`` or ``x/mod.rs`` beside a root or a ``mod.rs``, else in the
    folder named after the declaring file); ``#[path]`` attributes are not followed."""
    out: dict[Path, tuple[Path, tuple[str, ...]]] = {}
    todo = [(r, r, ()) for r in sorted(roots) if r in files]
    while todo:
        path, root, module = todo.pop()
        if path in out:
            continue
        out[path] = (root, module)
        base = path.parent if path == root or path.name == "mod.rs" else path.parent / path.stem
        for decl in files[path].mod_decls:
            folder = base.joinpath(*decl[:-1])
            for cand in (folder / f"{decl[-1]}.rs", folder / decl[-1] / "mod.rs"):
                if cand in files:
                    todo.append((cand, root, (*module, *decl)))
                    break
    return out


def file_module(path: Path, src_root: Path, crate_roots: set[Path]) -> tuple[str, ...]:
    """``src/kernels/mod.rs`` -> ``("kernels",)``, ``src/a/b.rs`` -> ``("a", "b")``; a crate
    root (``src/main.rs``, ``src/lib.rs``, a ``[[bin]] path``) -> ``()`` (the 2018+ module layout;
    ``#[path]`` attributes are not followed)."""
    if path in crate_roots:
        return ()
    try:
        rel = path.relative_to(src_root)
    except ValueError:
        return ()
    parts = list(rel.with_suffix("").parts)
    if parts and parts[-1] == "mod":
        parts.pop()
    if parts and parts[0] == "bin":  # src/bin/<name>.rs is a crate root of its own
        return ()
    return tuple(parts)


def uses_upstream_spelling(root: Path) -> bool:
    """True if a ``.rs`` file under ``root`` has an upstream kernel or ``offload!`` launch."""
    for path in rust_files(root):
        try:
            source = read_source(path, MAX_FILE_BYTES)
        except (OSError, FileTooLarge):
            continue
        if b"offload" not in source:
            continue
        f = scan_file(path, source)
        if f.kernels or f.launches:
            return True
    return False
