"""kernel_decl_mismatch: a host-side declaration of a kernel disagrees with the device
kernel's signature.

With rustc 1.96's offload the host pass sees a kernel only through a declaration in an
``extern`` block (``unsafe extern "C" { fn k(x: &mut [f32; 4]); }``, as rustc's older
offload tests write it), while the device pass compiles the kernel itself. The host pass
computes the transfer plan from the declaration's types, so a declaration that says
``&mut [f32]`` for a ``&mut [f32; 4]`` parameter (a slice: the length is dropped), or
``&f32`` for ``&f64``, copies the wrong bytes, and nothing checks the two agree
(docs/offload-notes.md). Compared: the number of parameters and each type, with type
aliases followed and array lengths folded with the crate's constants; a declaration that
takes ``*const [T; N]`` for a kernel's ``*const T`` (the host maps the whole array through
one thin pointer) agrees.
"""

from __future__ import annotations

from collections.abc import Iterator

from tree_sitter import Node

from offload_ls.analysis.consts import capture
from offload_ls.analysis.context import FileContext
from offload_ls.analysis.model import Finding, Kernel, Level
from offload_ls.analysis.reads import Fact, Holds
from offload_ls.analysis.rules import Rule
from offload_ls.syntax.parse import node_text, parse_type

NAME = "kernel_decl_mismatch"


def check(ctx: FileContext) -> Iterator[Finding]:
    facts = ctx.facts
    if not facts.has_externs or ctx.summary is not None and not ctx.summary.extern_decls:
        return
    names = {e.name for e in ctx.summary.extern_decls} if ctx.summary is not None else facts.extern_names
    for name in names:
        kernel = facts.kernel_anywhere(name)
        if kernel is None or kernel.launched or kernel.body_span is None or facts.kernel_is_ambiguous(name):
            continue
        for decl in facts.extern_decls_named(name):
            if ctx.unit is not None and decl.name_span is not None and \
                    not (ctx.unit.start <= decl.name_span.start < ctx.unit.end):
                continue
            yield from _compare(ctx, kernel, decl)


def _count(n: int) -> str:
    return f"{n} parameter" if n == 1 else f"{n} parameters"


def _compare(ctx: FileContext, kernel: Kernel, decl) -> Iterator[Finding]:
    if len(decl.params) != len(kernel.params):
        if decl.name_span is not None:
            yield Finding(rule=NAME, span=decl.name_span,
                          message=f"this host declaration of kernel `{kernel.name}` has "
                                  f"{_count(len(decl.params))}; the device kernel has {_count(len(kernel.params))}")
        return
    for i, (dp, kp) in enumerate(zip(decl.params, kernel.params)):
        if dp is None:
            continue
        host, device = _canon(ctx, dp.type_text), _canon(ctx, kp.type_text)
        if host != device and not _maps_whole_array(host, device):
            yield Finding(rule=NAME, span=dp.type_span,
                          message=f"the host declaration of kernel `{kernel.name}` says parameter {i + 1} is "
                                  f"`{dp.type_text}`, the device kernel takes `{kp.name}: {kp.type_text}`: the host "
                                  f"pass copies what the declaration says; make them the same")


def _maps_whole_array(host: str, device: str) -> bool:
    """The declaration takes a raw pointer to an array (``*const [f32; N]``) where the kernel
    takes a raw pointer to its element (``*const f32``): one thin pointer in the kernel ABI
    either way, and the declaration makes the host map the whole array, which the kernel
    then indexes. A deliberate idiom of rustc 1.96 offload code, not a mismatch (the reverse
    maps one element where the kernel reads N, and is reported)."""
    for sigil in ("*const ", "*mut "):
        if host.startswith(sigil) and device.startswith(sigil):
            h, d = host[len(sigil):], device[len(sigil):]
            return h.startswith(f"[{d};") and h.endswith("]")
    return False


def _canon(ctx: FileContext, text: str, depth: int = 0) -> str:
    """A type's text with whitespace removed, paths cut to their last segment
    (``core::sync::atomic::AtomicU32`` is ``AtomicU32``), aliases followed (``crate::Buf`` ->
    ``[f32; N]``) and array lengths folded."""
    t = parse_type(text)
    return _type(ctx, t, depth) if t is not None else "".join(text.split())


def _type(ctx: FileContext, t: Node, depth: int = 0) -> str:
    if depth > 16:
        return node_text(t)
    if t.type == "array_type":
        elem = t.child_by_field_name("element")
        length = t.child_by_field_name("length")
        e = _type(ctx, elem, depth + 1) if elem is not None else "?"
        if length is None:
            return f"[{e}]"
        v = ctx.facts.fold(capture(length))
        return f"[{e};{v if v is not None else ''.join(node_text(length).split())}]"
    if t.type in ("reference_type", "pointer_type"):
        inner = t.child_by_field_name("type")
        mut = ("mut " if any(c.type == "mutable_specifier" for c in t.children)
               else "const " if t.type == "pointer_type" else "")
        sigil = "&" if t.type == "reference_type" else "*"
        return f"{sigil}{mut}{_type(ctx, inner, depth + 1) if inner is not None else '?'}"
    if t.type in ("type_identifier", "primitive_type", "scoped_type_identifier"):
        name = node_text(t).rsplit("::", 1)[-1].strip()
        resolved = ctx.facts.resolve_type(name)
        if resolved != name:
            return _canon(ctx, resolved, depth + 1)  # an alias: its target, canonical too
        return name
    return "".join(node_text(t).split())


RULE = Rule(
    name=NAME,
    default_level=Level.DENY,
    summary="a host-side `extern` declaration of a kernel disagrees with the device kernel's signature",
    check=check,
    reads=frozenset({Fact.SEMANTIC, Fact.EXTERNS}),
    needs=Holds.EXTERNS,
)
