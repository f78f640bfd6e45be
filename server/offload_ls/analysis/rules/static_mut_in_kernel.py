"""static_mut_in_kernel: device code reads or writes a ``static mut`` that is not
block-shared memory.

Device code is every :class:`~offload_ls.analysis.device_code.DeviceFn`: kernel bodies, the
functions they call and functions under a device-only ``#[cfg]``. A ``static mut`` used
there is one variable shared by every GPU thread without synchronisation (concurrent
writes are a data race), and it lives in the device image: the host's ``static mut`` of
the same name is a different variable (the device pass compiles the crate separately,
docs/offload-notes.md "Pipeline"), so values never flow between them.

Block-shared memory is the idiom, not a race: a ``static mut`` that an ecosystem profile
marks as shared/workgroup memory (``#[address_space(shared)]`` in Rust-CUDA and rustc
offload, cuda-oxide's ``SharedArray<T, N>`` and ``Barrier`` types), or one declared in an
``extern`` block (defined outside Rust: a bare nvptx crate's ``addrspace(3)`` global;
analysis/units/ ``is_shared_static``) is indexed per thread between barriers, and is
never reported.

Name resolution is syntactic (tree-sitter): an identifier refers to the ``static mut``
declared in the nearest enclosing block, else to one declared at module level anywhere in
the file (by its last path segment). A ``let`` or parameter of the same name in the same
function shadows it there.
"""

from __future__ import annotations

from collections.abc import Iterator

from offload_ls.analysis.context import FileContext
from offload_ls.analysis.device_code import DeviceFn
from offload_ls.analysis.model import Finding, Level, Related, Span
from offload_ls.analysis.reads import Fact, Holds
from offload_ls.analysis.rules import Rule
from offload_ls.analysis.static_muts import ELSEWHERE, StaticMuts, StaticUse, owner_fn
from offload_ls.syntax.parse import node_text

NAME = "static_mut_in_kernel"

def where(fn: DeviceFn) -> str:
    """How a device function is named in messages: ``kernel `k``` or
    ``device function `f` (called from kernel `k`)``."""
    if fn.kernel is not None:
        return f"kernel `{fn.name}`"
    return f"device function `{fn.name}` ({fn.reason})"


def message(fn: DeviceFn, use: StaticUse) -> str:
    """The finding's text for one use of a ``static mut`` in device function ``fn``."""
    head = f"{where(fn)} {use.access} `static mut {use.name}`"
    if use.access == "writes":
        return (
            f"{head}: every GPU thread writes this one variable without synchronisation (a data race), "
            f"and it is the device's copy, not the host's, so the host never sees the writes; "
            f"return results through a `&mut` kernel argument instead"
        )
    if use.access == "reads":
        return (
            f"{head}: it is the device's copy, not the host's, so host writes to it are not seen here, "
            f"and a write by another GPU thread would be a data race; pass the value as a kernel argument instead"
        )
    return (
        f"{head}: every GPU thread shares this one variable without synchronisation (writes are a data race), "
        f"and it is the device's copy, not the host's, so values never flow between them; "
        f"pass the data as a kernel argument instead"
    )


def check(ctx: FileContext) -> Iterator[Finding]:
    if not ctx.device_fns:
        return
    statics = StaticMuts.of(ctx)
    if not statics:
        return
    seen: set[Span] = set()
    used_decls: set[Span] = set()
    for fn in ctx.device_fns:
        body = ctx.node(fn.body_span)
        if body is None:
            continue
        for use in statics.uses_in(body):
            used_decls.add(use.decl)
            if use.span in seen or use.shared:
                continue
            seen.add(use.span)
            related = () if use.decl == ELSEWHERE else \
                (Related(use.decl, f"`static mut {use.name}` is declared here"),)
            yield Finding(rule=NAME, span=use.span, message=message(fn, use) + _shared_hint(ctx, fn, use.decl),
                          related=related)
    for decl in statics.declarations:
        span = Span(decl.start_byte, decl.end_byte)
        if span in used_decls or span in statics.shared_decls:
            continue
        for fn in ctx.device_fns:
            if fn.body_span.contains(span) and owner_fn(decl) == fn.span.start:
                yield Finding(
                    rule=NAME,
                    span=span,
                    message=(
                        f"{where(fn)} declares `static mut {node_text(decl)}`: one variable shared by "
                        f"every GPU thread without synchronisation; use a local variable instead"
                    ),
                )
                break


def _shared_hint(ctx: FileContext, fn: DeviceFn, decl: Span) -> str:
    """When the static carries an attribute that names ``shared`` but is not the
    ecosystem's block-shared spelling (``#[shared]`` in a cuda_std kernel, whose spelling
    is ``#[address_space(shared)]``): a sentence that says so, else ``""``."""
    name = ctx.node(decl) if decl != ELSEWHERE else None
    item = name.parent if name is not None else None
    wanted = ctx.profile(fn.kernel).shared_static_attrs
    if item is None or item.type != "static_item" or not wanted:
        return ""
    sib = item.prev_sibling
    while sib is not None and sib.type in ("attribute_item", "line_comment", "block_comment"):
        text = node_text(sib)
        if sib.type == "attribute_item" and "shared" in text:
            spelled = " or ".join(f"`#[{a}({w})]`" for a, w in sorted(wanted))
            return (f"; if it is meant as block-shared memory, `{text}` does not make it so here: "
                    f"the attribute is {spelled}")
        sib = sib.prev_sibling
    return ""


RULE = Rule(
    name=NAME,
    default_level=Level.DENY,
    summary="`static mut` (not block-shared memory) in device code: one variable for all GPU threads, not the host's",
    check=check,
    reads=frozenset({Fact.SEMANTIC, Fact.DEVICE_CODE, Fact.STATICS}),
    needs=Holds.DEVICE_FNS,
)
