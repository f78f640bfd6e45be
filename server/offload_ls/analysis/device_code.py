"""Which function bodies in a file are device code.

Device code is (1) each kernel's body, (2) any function of the same file that device code
calls by name, transitively, and (3) functions inside items gated by a device-only cfg:
``offload_device`` (the cfg the offload build passes to the device pass only, see
docs/offload-notes.md) or upstream's ``device`` (rustc's run-make offload tests), ``target_arch = "nvptx64"`` / ``"amdgpu"``,
``target_os = "cuda"`` / ``"amdhsa"``, unless the predicate sits inside ``not(..)``.
Host code that merely shares the file is not device code (DESIGN.md, "Known hard parts").
"""

from __future__ import annotations

from dataclasses import dataclass

from tree_sitter import Node

from offload_ls.analysis.model import Kernel, Span
from offload_ls.syntax.parse import node_text

# `offload_device`: docs/offload-notes.md; `device`: what rustc's own offload tests pass to the
# device pass (rust-lang/rust tests/run-make/offload/*/rmake.rs, `.cfg("device")`).
_DEVICE_CFG_FLAGS = {"offload_device", "device"}
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


def device_functions(root: Node, kernels: list[Kernel]) -> list[DeviceFn]:
    """Device-code function bodies of the file, kernels first, each body once.

    Args:
        root: the tree's root node. kernels: the file's kernels (analysis/kernels.py).
    """
    from offload_ls.analysis.units import split_units, summarize, unit_captures  # noqa: PLC0415 (cycle)

    source = _source_of(root)
    units = split_units(root, source)
    memo: dict[bytes, tuple[bool, bool]] = {}
    fns = [f for u, caps in zip(units, unit_captures(units, root, source)) for f in summarize(u, caps, source, memo).fns]
    return device_functions_from(fns, kernels)


def _source_of(root: Node) -> bytes:
    """The bytes ``root`` was parsed from, as far as its text goes (offsets kept)."""
    return b" " * root.start_byte + (root.text or b"")


def device_functions_from(fns, kernels: list[Kernel]) -> list[DeviceFn]:
    """Device-code function bodies, kernels first, each body once.

    Args:
        fns: every function item of the file in document order, as analysis/units.py
            ``FnRec`` records (offsets current).
        kernels: the file's kernels.
    """
    recs = [_FnView(f) for f in fns]
    ks = [_KernelView(k) for k in kernels]
    out = []
    for fn, name, reason, kernel in device_graph(recs, ks).values():
        if kernel is not None:
            out.append(DeviceFn(name, Span(fn.start, fn.end), kernel.kernel.body_span, reason, kernel.kernel))
        else:
            out.append(DeviceFn(name, Span(fn.start, fn.end), fn.fn.body, reason))
    return sorted(out, key=lambda d: (d.kernel is None, d.span.start))


#: Rust's primitive types: ``f32::new(0.0)`` (CubeCL), ``u32::max(a, b)``, ``f32::from_bits``
#: call the type's own functions (core, or the ecosystem's traits), never a same-named
#: function of the file.
PRIMITIVE_TYPES = frozenset({"f16", "f32", "f64", "f128", "i8", "i16", "i32", "i64", "i128", "isize",
                             "u8", "u16", "u32", "u64", "u128", "usize", "bool", "char", "str"})


def device_graph(fns, kernels) -> dict:
    """Which functions are device code, and why.

    Args:
        fns: every function item of the file in document order, as records with ``start``,
            ``end`` (byte offsets), ``name`` (``str`` or ``None``), ``has_body``,
            ``callees`` (names called in the body, each once, in document order;
            ``"m::f"`` for a call through a path), ``gated`` (why it is device code by itself:
            ``"under a device-only #[cfg]"``, ``"a `#[cube]` function"``; ``""`` when it is
            not), ``host`` (under a host-only ``#[cfg]``: never device code) and ``module``
            (the innermost ``mod`` it is declared in, ``""`` at the top).
        kernels: the file's kernels in document order, as records with ``name``,
            ``fn_start`` and ``has_body``.

    Returns:
        function start byte -> (function record, name, reason, kernel record or ``None``),
        for each device function: (1) kernels, (2) functions under a device-only cfg,
        (3) functions that device code calls by name, transitively: not one under a
        host-only cfg, and for ``m::f(..)`` where ``m`` is a ``mod`` of the file, only an
        ``f`` declared in a ``mod m``; for ``T::f(..)`` with ``T`` a type (capitalised,
        ``Self``, a primitive: :data:`PRIMITIVE_TYPES`, or ``<T as Trait>``), only an ``f`` of an
        ``impl`` of ``T`` (records may carry ``owner``, the
        type of their ``impl``).

    Raises:
        AttributeError: a function under a device-only cfg has no name node (tree-sitter
            always gives one, possibly empty).
    """
    by_name: dict[str, list] = {}
    modules = set()
    for fn in fns:
        modules.add(fn.module)
        if fn.name is not None and not fn.host:
            by_name.setdefault(fn.name, []).append(fn)

    result: dict[int, tuple] = {}
    queue: list[tuple[object, str]] = []
    fn_at = {fn.start: fn for fn in fns}
    for k in kernels:
        fn = fn_at.get(k.fn_start)
        if fn is not None and k.has_body:
            result[fn.start] = (fn, k.name, "kernel", k)
            queue.append((fn, f"called from kernel `{k.name}`"))

    for fn in fns:
        if fn.gated and fn.start not in result and fn.has_body:
            if fn.name is None:
                raise AttributeError("function item without a name")
            result[fn.start] = (fn, fn.name, fn.gated, None)
            queue.append((fn, f"called from device function `{fn.name}`"))

    while queue:
        fn, why = queue.pop()
        if not fn.has_body:
            continue
        # Each called name once: a body can hold thousands of calls to the same name
        # (and nested functions' bodies repeat them), each matching every same-named fn.
        for callee in fn.callees:
            qual, _, name = callee.rpartition("::")
            in_module = qual if qual and qual in modules else None
            # `Complex::new(..)`, `F::new(..)` (a generic parameter), `Self::new(..)`: only a
            # method of that type's `impl` blocks, not every `fn new` of the file
            owner = (getattr(fn, "owner", "") if qual == "Self" else qual) \
                if qual and in_module is None and (qual == "Self" or qual[:1].isupper() or qual[:1] == "<"
                                                   or qual in PRIMITIVE_TYPES) else None
            for target in by_name.get(name, ()):
                if target.start in result or not target.has_body:
                    continue
                if in_module is not None and target.module != in_module:
                    continue  # `device::weight(..)` is not `host::weight`
                if owner is not None and getattr(target, "owner", "") != owner:
                    continue  # `Complex::new` is not `impl MandelbrotSet { fn new }`
                result[target.start] = (target, name, why, None)
                queue.append((target, f"called from device function `{name}`"))
    return result


class _FnView:
    __slots__ = ("fn", "start", "end", "name", "has_body", "callees", "gated", "host", "module", "owner")

    def __init__(self, fn) -> None:
        self.fn, self.start, self.end, self.name = fn, fn.start, fn.end, fn.name
        self.has_body, self.callees, self.gated = fn.body is not None, fn.callees, fn.gated
        self.host, self.module, self.owner = fn.host, fn.module, fn.owner


class _KernelView:
    __slots__ = ("kernel", "name", "fn_start", "has_body")

    def __init__(self, k: Kernel) -> None:
        self.kernel, self.name, self.fn_start, self.has_body = k, k.name, k.fn_start, k.body_span is not None
