"""host_only_api_in_kernel: device code uses an API that only exists with ``std`` / ``alloc``.

The device pass builds with ``core`` only (``-Zbuild-std=core``;
docs/offload-notes.md, "Pipeline without native support"): there is no allocator and no I/O on the GPU,
so ``std::`` / ``alloc::`` paths, printing macros (``println!``, ``print!``, ``eprintln!``,
``eprint!``, ``dbg!``), allocating macros (``format!``, ``vec!``), heap-owning types
(``Vec``, ``Box``, ``String``, ``Rc``, ``Arc``, ``HashMap`` ...) and allocating conversions
(``.to_string()``, ``.to_vec()``, ``.to_owned()``) fail to build for the GPU (the error shows
up only in the device pass).

Not reported: ``panic!``, ``assert!``, ``unreachable!``, ``write!`` into a
``core::fmt::Write`` — they are in ``core`` (a ``#![no_std]`` device crate provides the
``#[panic_handler]``). Host functions of the same file are never reported. What an ecosystem
provides on the device is not reported (its profile's ``device_macros`` / ``device_types``:
cuda_std's ``println!`` (CUDA ``vprintf``) and its prelude's ``Vec``, ``Box``, ``String``,
``format!`` with a device allocator; CubeCL's ``debug_print!``), nor what a device library
the file imports provides (a bare kernel crate using amdgpu-rs's ``amdgpu_device_libs``:
``println!`` and an allocator), nor the ``alloc`` crate's types and macros in a bare kernel
crate that declares ``extern crate alloc`` (it does not link without a device allocator),
nor anything inside a macro
whose arguments run on the host while the kernel is built (CubeCL ``comptime!``). A helper
that is not itself a kernel is judged by the file's kernels' ecosystem.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

from tree_sitter import Node

from offload_ls.analysis.context import FileContext
from offload_ls.analysis.device_code import DeviceFn
from offload_ls.analysis.flow.scopes import BindingKind
from offload_ls.analysis.flow.thread_flow import ThreadFlow
from offload_ls.analysis.model import Finding, Level, Span
from offload_ls.analysis.reads import Fact, Holds
from offload_ls.analysis.rules import Rule
from offload_ls.analysis.std_names import (
    ALLOC_CRATE_TYPES,
    ALLOC_MACROS,
    CORE_FLOAT_MATH,
    FLOAT_MATH_CRATES,
    HEAP_TYPES,
    HOST_ONLY_HINTS,
    PRINT_MACROS,
    holds_any,
)
from offload_ls.syntax.parse import node_text

NAME = "host_only_api_in_kernel"


_PATHLIKE = {"scoped_identifier", "scoped_type_identifier", "scoped_use_list", "generic_type",
             "generic_function"}



#: How a candidate was found: a ``std::`` / ``alloc::`` path, a macro, a type, an
#: allocating method, a float method of std.
How = Literal["path", "macro", "type", "method", "float"]


def check(ctx: FileContext) -> Iterator[Finding]:
    device = ctx.device_fns
    if not device:
        return
    candidates = _candidates(ctx, _captures_in_device_code(ctx, device))

    kept_end = -1
    flows: dict[int, ThreadFlow | None] = {}  # device function start -> its ThreadFlow (float receivers)
    for start, end, node, how in candidates:
        if end <= kept_end:
            continue  # inside a path already reported (`Vec` in `std::vec::Vec`)
        dfn = _device_fn_at(device, start, end)
        if dfn is None:
            continue
        # a helper is judged by the file's kernels' ecosystem
        profile = ctx.profile(dfn.kernel)
        if how == "float":
            flow = _flow_of(ctx, dfn, flows) if profile.core_only_floats else None
            if flow is not None and _primitive_float_receiver(node, flow):
                kept_end = end
                yield Finding(rule=NAME, span=Span(start, end),
                              message=float_message(node_text(node), dfn, profile.built()))
            continue
        category, name = _category(node, how)
        if _provided(profile, category, name, how, ctx.facts.roots) or \
                _in_host_macro(node, start, profile.host_macros):
            continue
        kept_end = end
        shown = f".{node_text(node)}()" if how == "method" else _text(ctx, start, end)
        if category == "alloc" and not profile.allocator_roots.isdisjoint(ctx.facts.roots):
            category = "std_only"  # `HashMap` with a device allocator: `alloc` has no such type
        yield Finding(rule=NAME, span=Span(start, end),
                      message=message(shown, category, name, dfn, profile.built()))


def _candidates(ctx: FileContext, caps: dict[str, list[Node]]) -> list[tuple[int, int, Node, How]]:
    """(start, end, node, how) of every host-only name in device code that the file does not
    define or import itself, by start (the outermost first)."""
    defined = ctx.facts.defined_host  # host-only names the file defines (grammars/rust/defined_names.scm)
    candidates: list[tuple[int, int, Node, How]] = []
    for n in caps.get("root", []):
        top = _outermost(n)
        candidates.append((*_range(top), top, "path"))
    for n in caps.get("macro", []):
        if node_text(n) not in defined:
            candidates.append((*_range(n), n, "macro"))
    shadowed = ctx.facts.shadowed_host  # host-only names a `use` brings from another crate or module
    for n in caps.get("type", []):
        name = node_text(n)
        if name in defined or name in shadowed:
            continue  # the crate's own `Vec`, or `use heapless::Vec;`
        top = _outermost(n)
        if _rooted_elsewhere(top, name):
            continue  # `heapless::Vec<f32, 4>`: another crate's type of the same name
        candidates.append((*_range(top), top, "type"))
    for n in caps.get("method", []):
        candidates.append((n.start_byte, n.end_byte, n, "method"))
    floats_from_crates = not FLOAT_MATH_CRATES.isdisjoint(ctx.facts.roots)
    for n in caps.get("float_method", []):
        if not floats_from_crates and node_text(n) not in ctx.facts.float_fns:
            candidates.append((n.start_byte, n.end_byte, n, "float"))
    candidates.sort(key=lambda c: (c[0], -c[1]))
    return candidates


def _provided(profile, category: str, name: str, how: How, roots: frozenset[str] = frozenset()) -> bool:
    """Does the kernel's ecosystem provide this on the device (cuda_std's ``println!``, its
    prelude's ``Vec`` / ``format!`` and allocation; CubeCL's ``debug_print!``), or a device
    library or allocator the file imports (``roots``: the crate's import roots; the profile's
    ``device_libraries`` / ``allocator_roots``)?"""
    if category == "std":
        return False
    allocator = bool(profile.device_types) or not profile.allocator_roots.isdisjoint(roots)
    if how in ("macro",) or name.endswith("!"):
        base = name.rstrip("!")
        if base in profile.device_macros:
            return True
        if any(base in provided for crate, provided in profile.device_libraries.items() if crate in roots):
            return True
        return allocator and base in ALLOC_MACROS
    if how == "method" or name.lstrip(":").startswith("alloc::"):
        return allocator  # an allocator exists on the device
    return name in profile.device_types or (allocator and name in ALLOC_CRATE_TYPES)


def _in_host_macro(node: Node, start: int, host_macros: frozenset[str]) -> bool:
    """Is ``node`` inside a macro whose arguments run on the host while the kernel is
    built (CubeCL ``comptime!(..)``)? Macro arguments are token trees: the macro is the
    nearest ``macro_invocation`` around them."""
    if not host_macros:
        return False
    n = node.parent
    while n is not None:
        if n.type == "macro_invocation":
            m = n.child_by_field_name("macro")
            if m is not None and node_text(m).rsplit("::", 1)[-1] in host_macros and n.start_byte < start:
                return True
        if n.type == "function_item":
            return False
        n = n.parent
    return False


def _captures_in_device_code(ctx: FileContext, device: list[DeviceFn]) -> dict[str, list[Node]]:
    """grammars/rust/host_only_api.scm's captures in the scope's device functions (the
    only ones that can be reported: a use elsewhere has no device function around it),
    taken from the per-function queries the rules share (``ctx.fn_captures``); over the
    whole scope when it is the whole file."""
    if ctx.unit is None:
        return ctx.scope_captures("host_only_api")
    spans = sorted((d.span for d in device), key=lambda s: (s.start, -s.end))
    out: dict[str, list[Node]] = {}
    end = -1
    for span in spans:
        if span.end <= end:
            continue  # nested in a device function already searched
        end = span.end
        if not holds_any(ctx.source[span.start : span.end], HOST_ONLY_HINTS):
            continue  # none of the names the query looks for
        fn = ctx.fn_node(span.start)
        if fn is None:
            continue
        for key, nodes in ctx.fn_captures(fn)["host_only_api"].items():
            out.setdefault(key, []).extend(nodes)
    return out


_FLOATS = ("f32", "f64")


def _primitive_float_receiver(method: Node, flow: ThreadFlow) -> bool:
    """Is the receiver of ``x.<method>()`` (``method``: the field identifier) visibly an
    ``f32`` / ``f64``: a float literal, an ``as f64`` cast, a parameter or ``let`` declared
    or initialised so, or an element of a parameter typed ``[f64; N]`` / ``&[f32]``
    (bindings as ``flow``, the device function's ThreadFlow, finds them)? A value of another
    type (a crate's own `Real` with a `sqrt` method) is not judged."""
    field = method.parent
    recv = field.child_by_field_name("value") if field is not None else None
    return recv is not None and _is_float(recv, flow, 0)


def _is_float(e: Node, flow: ThreadFlow, depth: int) -> bool:
    if depth > 4:
        return False
    while e.type == "parenthesized_expression" and e.named_children:
        e = e.named_children[0]  # (not `strip`: it takes the `as f64` this looks for)
    if e.type == "float_literal":
        return True
    if e.type == "type_cast_expression":
        t = e.child_by_field_name("type")
        return t is not None and node_text(t) in _FLOATS
    if e.type == "index_expression" and e.named_children:
        base = e.named_children[0]
        while base.type in ("unary_expression", "parenthesized_expression") and base.named_children:
            base = base.named_children[-1]
        b = flow.binding(base) if base.type == "identifier" else None
        ty = "".join(node_text(b.type).split()) if b is not None and b.type is not None else ""
        return any(f"[{f};" in ty or f"[{f}]" in ty for f in _FLOATS)
    if e.type == "identifier":
        b = flow.binding(e)
        if b is None:
            return False
        if b.type is not None:
            return node_text(b.type).lstrip("&").strip() in _FLOATS
        return b.kind == BindingKind.LET and b.value is not None and _is_float(b.value, flow, depth + 1)
    return False


def _flow_of(ctx: FileContext, dfn: DeviceFn, flows: dict[int, ThreadFlow | None]) -> ThreadFlow | None:
    """The ThreadFlow of device function ``dfn`` (made once per check, on the context's
    index); ``None`` when its function item is not found."""
    if dfn.span.start not in flows:
        fn = ctx.fn_node(dfn.span.start)
        flows[dfn.span.start] = ThreadFlow(fn, index=ctx.flow_index(fn)) if fn is not None else None
    return flows[dfn.span.start]


def _where(dfn: DeviceFn) -> str:
    """Where a finding is, as messages say it: ``in kernel `k``` or ``in `f`, called from ..``."""
    return f"in kernel `{dfn.name}`" if dfn.reason == "kernel" else f"in `{dfn.name}`, {dfn.reason}"


def float_message(method: str, dfn: DeviceFn, built: str) -> str:
    """The finding's text for ``x.<method>()`` on a float in device code."""
    where = _where(dfn)
    if method in CORE_FLOAT_MATH:
        fix = (f"call `core::f64::math::{method}(..)` / `core::f32::math::{method}(..)` "
               f"(`#![feature(core_float_math)]`)")
    else:
        fix = f"call a `no_std` math crate's (`libm::{method}(..)`)"
    return (f"`.{method}()` {where}: the float method `{method}` is `std`'s, and {built}, where floats have no "
            f"`{method}` (error E0599 in the device pass); {fix}")


def message(shown: str, category: str, name: str, dfn: DeviceFn,
            built: str = "the device pass builds with `core` only (`-Zbuild-std=core`)") -> str:
    """The finding's text.

    Args:
        shown: the source text reported (``println!``, ``Vec<f32>``, ``.to_string()``).
        category: ``"print"``, ``"alloc"``, ``"std"``, or ``"std_only"`` (a ``std``-only
            collection in a crate with a device allocator). name: the macro / type / method /
            path it is about (``println!``, ``Vec``, ``.to_vec()``, ``std::f32::consts::PI``).
        dfn: the device function it is in. built: how the kernel's ecosystem builds device
            code (:meth:`Profile.built`; rustc offload's device pass by default).
    """
    where = _where(dfn)
    if category == "print":
        return (f"`{shown}` {where}: there is no I/O on the GPU — {built}, which has no "
                f"`{name}`; write the values into an output buffer and print them on the host after "
                f"the launch")
    if category == "std_only":
        return (f"`{shown}` {where}: `{name}` is in `std` only, and {built}: its allocator gives it "
                f"`alloc`, which has no `{name}`; use `alloc::collections::BTreeMap` / `BTreeSet`, or a "
                f"fixed-size array")
    if category == "alloc":
        return (f"`{shown}` {where}: there is no allocator on the GPU — {built}, which has no "
                f"`{name}`; use a fixed-size array (`[T; N]`) or write into an output buffer that the "
                f"host allocates and passes to the kernel")
    core_path = "core" + name[name.index("std") + 3:] if name.lstrip(":").startswith("std") else None
    instead = f"`{core_path}` if the item exists in `core`" if core_path else "the `core` equivalent"
    return (f"`{shown}` {where}: `std` and `alloc` do not exist on the GPU — {built}; use "
            f"{instead}, and keep allocation and I/O on the host")


def _rooted_elsewhere(node: Node, name: str) -> bool:
    """Is ``node`` a path that reaches ``name`` through a first segment other
    than ``std``/``alloc``/``core`` (``heapless::Vec``, ``crate::fixed::Vec``;
    not ``Vec::new``, whose first segment is ``name`` itself)?"""
    n = node
    while n.type in ("generic_type", "generic_function"):
        inner = n.child_by_field_name("type") or n.child_by_field_name("function")
        if inner is None:
            return False
        n = inner
    if n.type not in ("scoped_type_identifier", "scoped_identifier"):
        return False
    leaves = _leaves(n)
    return bool(leaves) and leaves[0] != name and leaves[0] not in ("std", "alloc", "core")


def _outermost(node: Node) -> Node:
    """Climb from a path's first segment to the whole path / type it starts
    (``std`` -> ``std::vec::Vec::new``, ``Vec`` -> ``Vec<f32>``)."""
    while True:
        parent = node.parent
        if parent is None or parent.type not in _PATHLIKE:
            return node
        leftmost = parent.start_byte == node.start_byte
        rooted = parent.type == "scoped_identifier" and parent.child_by_field_name("path") is None
        if not (leftmost or rooted):
            return node
        node = parent


def _range(node: Node) -> tuple[int, int]:
    """Byte range to report: a macro name up to its ``!``, else the node."""
    parent = node.parent
    if parent is not None and parent.type == "macro_invocation" and parent.child_by_field_name("macro") == node:
        bang = node.next_sibling
        if bang is not None and bang.type == "!":
            return node.start_byte, bang.end_byte
    return node.start_byte, node.end_byte


def _category(node: Node, how: How) -> tuple[str, str]:
    """(category, name) of a reported node; see :func:`message`."""
    if how == "method":
        return "alloc", f".{node_text(node)}()"
    leaves = _leaves(node)
    parent = node.parent
    if parent is not None and parent.type == "macro_invocation":
        last = leaves[-1] if leaves else node_text(node)
        if last in PRINT_MACROS:
            return "print", f"{last}!"
        if last in ALLOC_MACROS:
            return "alloc", f"{last}!"
    for leaf in leaves:
        if leaf in HEAP_TYPES:
            return "alloc", leaf
    if leaves and leaves[0] == "alloc":
        return "alloc", node_text(node)  # `alloc::alloc::handle_alloc_error`: the alloc crate
    return "std", node_text(node)


def _leaves(node: Node) -> list[str]:
    """Identifier texts of a path in order (``std::vec::Vec`` -> std, vec, Vec)."""
    out = []
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type in ("identifier", "type_identifier"):
            out.append((n.start_byte, node_text(n)))
        elif n.type != "type_arguments":
            stack.extend(n.children)
    return [t for _, t in sorted(out)]


def _device_fn_at(device: list[DeviceFn], start: int, end: int) -> DeviceFn | None:
    """The innermost device function whose body contains ``[start, end)``."""
    best = None
    for d in device:
        if d.body_span.start <= start and end <= d.body_span.end:
            if best is None or d.body_span.start >= best.body_span.start:
                best = d
    return best


def _text(ctx: FileContext, start: int, end: int) -> str:
    return ctx.source[start:end].decode("utf-8", errors="replace")


RULE = Rule(
    name=NAME,
    default_level=Level.DENY,
    summary="device code uses std, allocation or printing, which do not exist on the GPU",
    check=check,
    reads=frozenset({Fact.SEMANTIC, Fact.DEVICE_CODE, Fact.HELPER_ECOSYSTEM,
                     Fact.HOST_NAMES, Fact.INDEX_HELPERS}),
    needs=Holds.DEVICE_FNS,
)
