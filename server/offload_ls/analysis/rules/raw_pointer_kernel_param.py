"""raw_pointer_kernel_param: a kernel parameter is ``*const T`` / ``*mut T`` in an ecosystem
whose kernels take references or buffers (std offload in both spellings, rust-gpu, CubeCL,
krnl). In Rust-CUDA and cuda-oxide the host allocates device buffers explicitly and passes
their addresses: raw-pointer parameters are the idiom there (the ecosystem profile's
``raw_pointer_params``), and nothing is reported.

Consequences (docs/offload-notes.md, "What the host pass copies"): the kernel needs
``unsafe`` to dereference it; the compiler cannot mark it ``noalias`` (a ``&T`` / ``&mut T``
parameter is ``noalias [readonly]`` in the device IR); with rustc offload, ``*mut T`` is
mapped to the device and back, ``*const T`` to the device. A pointer to ONE scalar
(``*mut f32``) maps ``size_of::<f32>()`` bytes: the runtime copies a single element, not
the buffer the pointer points into. The pointee's type aliases are followed through the
crate (``type Real = f64;`` makes ``*mut Real`` a pointer to one ``f64``).
"""

from __future__ import annotations

from collections.abc import Iterator

from offload_ls.analysis import shift
from offload_ls.analysis.context import FileContext
from offload_ls.analysis.model import Edit, Finding, Fix, Kernel, Level, Param
from offload_ls.analysis.reads import Fact, Holds
from offload_ls.analysis.rules import Rule
from offload_ls.analysis.transfer import SCALAR_BYTES
from offload_ls.syntax.nodes import identifiers, method_name
from offload_ls.syntax.parse import node_text

NAME = "raw_pointer_kernel_param"


def check(ctx: FileContext) -> Iterator[Finding]:
    for kernel in ctx.kernels:
        if ctx.profile(kernel).raw_pointer_params:
            continue
        for index, param in enumerate(kernel.params):
            if param.kind not in ("const_ptr", "mut_ptr"):
                continue
            param = _resolved(ctx, param)
            shared = _also_passed_mutably(ctx, kernel, index)
            pointee = (param.pointee or "").strip()
            declared = _declared_array(ctx, kernel, index) if pointee and not pointee.startswith("[") else None
            use = _pointer_use(ctx, kernel, param.name) if param.elem_bytes is not None else "other"
            yield Finding(
                rule=NAME,
                span=param.type_span,
                message=(message(kernel, param, suggest=not shared, use=use) if declared is None
                         else _declared_message(kernel, param, declared)),
                fixes=() if shared else _fixes(ctx, kernel, index, param),
            )


#: Launch-argument wrappers that name a buffer: ``&mut x``, ``x.as_mut_ptr()``,
#: ``preload_mut(&mut x)`` (core::offload), .. -> ``x``.
_WRAPPERS = ("as_mut_ptr", "as_ptr", "preload_mut", "preload", "cast_mut", "cast_const", "cast")


def _place(text: str) -> str:
    """The buffer a launch argument's text names (``&mut x`` / ``x.as_mut_ptr()`` /
    ``preload_mut(&mut x)`` -> ``x``), by its spelling only."""
    t = "".join(text.split())
    changed = True
    while changed:
        changed = False
        for prefix in ("&mut", "&raw mut", "&rawconst", "&", "*"):
            if t.startswith(prefix):
                t, changed = t[len(prefix):], True
        for w in _WRAPPERS:
            if t.endswith(f".{w}()"):
                t, changed = t[: -len(w) - 3], True
            if t.startswith(f"{w}(") and t.endswith(")"):
                t, changed = t[len(w) + 1 : -1], True
        if t.startswith("(") and t.endswith(")"):
            t, changed = t[1:-1], True
    return t


def _also_passed_mutably(ctx: FileContext, kernel: Kernel, index: int) -> bool:
    """Some launch of ``kernel`` passes the buffer of argument ``index`` again, mutably
    (``&mut x``, ``x.as_mut_ptr()``, ``preload_mut(..)``): a shared reference there would
    alias a mutable one, so ``&T`` is no fix."""
    for la in ctx.facts.all_launches_of(kernel.name):
        if index >= len(la.args):
            continue
        mine = _place(la.args[index].text)
        for j, other in enumerate(la.args):
            text = "".join(other.text.split())
            if j != index and _place(other.text) == mine and ("mut" in text):
                return True
    return False


def _declared_array(ctx: FileContext, kernel: Kernel, index: int) -> str | None:
    """The array type a host ``extern`` declaration of ``kernel`` points to at parameter
    ``index`` (``*const [f32; N]`` -> ``[f32; N]``): the host then maps the whole array
    through the kernel's element pointer; ``None`` otherwise."""
    for decl in ctx.facts.extern_decls_named(kernel.name):
        p = decl.params[index] if index < len(decl.params) else None
        text = p.type_text.strip() if p is not None else ""
        compact = "".join(text.split())
        if compact.startswith(("*const[", "*mut[")) and compact.endswith("]"):
            return text[text.index("["):]
    return None


def _declared_message(kernel: Kernel, param: Param, array: str) -> str:
    """The finding's text when the host declaration maps ``array`` through the pointer."""
    ref = "&mut " if param.kind == "mut_ptr" else "&"
    return (f"kernel `{kernel.name}` takes `{param.name}: {param.type_text}`, a raw pointer (its host declaration "
            f"maps `{array}` through it): the kernel needs `unsafe` to use it and the compiler cannot mark it "
            f"`noalias`; take `{ref}{array}` in both the declaration and the kernel")


def _resolved(ctx: FileContext, param: Param) -> Param:
    """``param`` with its pointee's type alias followed: a pointer to one scalar through an
    alias gets ``elem_bytes`` (``*mut Real`` with ``type Real = f64``: 8 bytes)."""
    if param.elem_bytes is not None or param.pointee is None:
        return param
    size = SCALAR_BYTES.get(ctx.facts.resolve_type(param.pointee))
    return param if size is None else shift.replace(param, elem_bytes=size)


#: pointer methods that move a pointer within its buffer (core::ptr)
_OFFSET_METHODS = frozenset({"add", "sub", "offset", "wrapping_add", "wrapping_sub", "wrapping_offset", "byte_add",
                             "byte_offset"})


def _pointer_use(ctx: FileContext, kernel: Kernel, name: str) -> str:
    """How the kernel's body uses the pointer parameter ``name``: ``"deref"`` when only
    as ``*name`` (it points to one value), ``"offset"`` when it moves it (``name.add(i)``,
    ``name.offset(i)``) or is not used (what the parameter is for is not known: the
    array reference is the usual fix), ``"other"`` otherwise (passed on to a function)."""
    body = ctx.node(kernel.body_span) if kernel.body_span is not None else None
    uses = [i for i in identifiers(body) if node_text(i) == name] if body is not None else []
    if not uses:
        return "offset"
    kinds = set()
    for ident in uses:
        parent = ident.parent
        while parent is not None and parent.type == "parenthesized_expression":
            parent = parent.parent
        if parent is not None and parent.type == "unary_expression" and node_text(parent).startswith("*"):
            kinds.add("deref")
        elif parent is not None and parent.type == "field_expression" and \
                method_name(parent.parent) in _OFFSET_METHODS:
            kinds.add("offset")
        else:
            kinds.add("other")
    return kinds.pop() if len(kinds) == 1 else ("offset" if "offset" in kinds else "other")


def message(kernel: Kernel, param: Param, suggest: bool = True, use: str = "other") -> str:
    """The finding's text for one raw-pointer parameter of ``kernel``; ``suggest``: name
    what to take instead (not when a launch also passes the buffer mutably); ``use``: how
    the body uses it (:func:`_pointer_use`): a pointer only dereferenced points to one
    value, which is passed by value (``*const``) or ``&mut`` (``*mut``); one moved with
    ``.add(i)`` points into a buffer, passed as an array reference; else both are named."""
    head = f"kernel `{kernel.name}` takes `{param.name}: {param.type_text}`, a raw pointer"
    if not kernel.ecosystem.runtime_maps_arguments:
        return f"{head}: the kernel needs `unsafe` to use it and the compiler cannot mark it `noalias`"
    direction = "to the device and back" if param.kind == "mut_ptr" else "to the device"
    if param.elem_bytes is not None:
        ref = "&mut " if param.kind == "mut_ptr" else "&"
        one = f"&mut {param.pointee}" if param.kind == "mut_ptr" else param.pointee
        buffer = f"{ref}[{param.pointee}; N]"
        instead = {"deref": f"; it is only dereferenced: take the value as `{param.name}: {one}` instead",
                   "offset": f"; pass `{buffer}` instead"}.get(
            use, f"; for a buffer pass `{buffer}`, for one value take `{param.name}: {one}`")
        return (
            f"{head} to ONE `{param.pointee}`: the offload runtime copies {param.elem_bytes} "
            f"byte{'s' if param.elem_bytes != 1 else ''} "
            f"(a single element) {direction}, not the buffer it points into"
            + (instead if suggest else "")
        )
    return (
        f"{head}: the kernel needs `unsafe` to use it, the compiler cannot mark it `noalias`, "
        f"and the offload runtime copies it {direction}"
    )


def _fixes(ctx: FileContext, kernel: Kernel, index: int, param: Param) -> tuple[Fix, ...]:
    """Pointer to an array type -> reference, in the kernel and in a matching host-side
    ``extern`` declaration of the same file. Nothing for pointers to scalars or slices
    (tree-sitter parses ``[f32]`` as an ``array_type`` without ``length``), where the length
    is not known, and nothing outside rustc offload: there the host passes a device pointer,
    and a ``&mut`` held by every GPU thread would alias."""
    if not kernel.ecosystem.runtime_maps_arguments:
        return ()
    node = ctx.node(param.type_span)
    if node is None:
        return ()
    inner = node.child_by_field_name("type")
    if inner is None or inner.type != "array_type" or inner.child_by_field_name("length") is None:
        return ()
    ref = "&mut " if param.kind == "mut_ptr" else "&"
    new_text = ref + node_text(inner)
    edits = [Edit(param.type_span, new_text)]
    for decl in ctx.facts.extern_decls_named(kernel.name):  # anywhere in the file
        if index < len(decl.params):
            t = decl.params[index]
            if t is not None and t.type_text == param.type_text and t.kind == param.kind:
                edits.append(Edit(t.type_span, new_text))
    where = " (kernel and host declaration)" if len(edits) > 1 else ""
    return (Fix(f"Change `{param.type_text}` to `{new_text}`{where}", tuple(edits)),)


RULE = Rule(
    name=NAME,
    default_level=Level.WARN,
    summary="kernel parameter is a raw pointer: unsafe to use, no noalias, and often the wrong copy size",
    check=check,
    reads=frozenset({Fact.SEMANTIC, Fact.LAUNCHED, Fact.EXTERNS}),
    needs=Holds.KERNELS,
)
