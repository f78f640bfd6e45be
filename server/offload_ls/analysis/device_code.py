"""Which function bodies in a file are device code.

Device code is (1) each kernel's body, (2) any function of the same file that device code
calls by name, transitively, and (3) functions inside items gated by a device-only cfg
(analysis/cfg.py: ``offload_device``, ``target_arch = "nvptx64"``, ..) or carrying an
ecosystem's device-function attribute (``#[cube]``).
Host code that merely shares the file is not device code (DESIGN.md, "Known hard parts").
"""

from __future__ import annotations

from dataclasses import dataclass

from tree_sitter import Node

from offload_ls.analysis.model import Kernel, Span


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


def _source_of(root: Node) -> bytes:
    """The bytes ``root`` was parsed from, as far as its text goes (offsets kept)."""
    return b" " * root.start_byte + (root.text or b"")


def device_functions_from(fns, kernels: list[Kernel]) -> list[DeviceFn]:
    """Device-code function bodies, kernels first, each body once.

    Args:
        fns: every function item of the file in document order, as analysis/units/records.py
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
    result, queue = _device_roots(fns, kernels)
    by_name, modules = _callable_by_name(fns)
    while queue:
        fn, why = queue.pop()
        if not fn.has_body:
            continue
        # Each called name once: a body can hold thousands of calls to the same name
        # (and nested functions' bodies repeat them), each matching every same-named fn.
        for callee in fn.callees:
            name, targets = _call_targets(callee, fn, by_name, modules)
            for target in targets:
                if target.start in result or not target.has_body:
                    continue
                result[target.start] = (target, name, why, None)
                queue.append((target, f"called from device function `{name}`"))
    return result


def _device_roots(fns, kernels) -> tuple[dict[int, tuple], list[tuple[object, str]]]:
    """The device functions by themselves (:func:`device_graph`'s result so far: kernels,
    then functions under a device-only cfg or with a device attribute), and the queue of
    those whose callees are device code, each with the reason its callees get."""
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
    return result, queue


def _callable_by_name(fns) -> tuple[dict[str, list], set[str]]:
    """The functions device code may call, by name (not those under a host-only cfg), and
    the names of the file's modules."""
    by_name: dict[str, list] = {}
    modules = set()
    for fn in fns:
        modules.add(fn.module)
        if fn.name is not None and not fn.host:
            by_name.setdefault(fn.name, []).append(fn)
    return by_name, modules


def _call_targets(callee: str, caller, by_name: dict[str, list], modules: set[str]) -> tuple[str, list]:
    """The called name of ``callee`` (``"m::f"`` or ``"f"``) and the functions it may be:
    for ``m::f`` with ``m`` a module of the file, an ``f`` of a ``mod m``; for ``T::f`` with
    ``T`` a type, an ``f`` of an ``impl`` of ``T`` (``Self``: the caller's own type)."""
    qual, _, name = callee.rpartition("::")
    in_module = qual if qual and qual in modules else None
    # `Complex::new(..)`, `F::new(..)` (a generic parameter), `Self::new(..)`: only a
    # method of that type's `impl` blocks, not every `fn new` of the file
    owner = (getattr(caller, "owner", "") if qual == "Self" else qual) \
        if qual and in_module is None and (qual == "Self" or qual[:1].isupper() or qual[:1] == "<"
                                           or qual in PRIMITIVE_TYPES) else None
    targets = by_name.get(name, ())
    if in_module is not None:
        targets = [t for t in targets if t.module == in_module]  # `device::weight(..)` is not `host::weight`
    if owner is not None:
        # `Complex::new` is not `impl MandelbrotSet { fn new }`
        targets = [t for t in targets if getattr(t, "owner", "") == owner]
    return name, targets



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
