"""unindexed_kernel_write: a kernel writes through a mutable parameter at a place that is the
same for every GPU thread (``y[0] = ..``, ``*p += ..``), a data race between all threads of
the launch.

A write is reported only when its index is provably thread-independent (analysis/indexing.py:
literals, ``SCREAMING_CASE`` constants, the kernel's own parameters, and ``let`` variables
computed from those) and nothing on the way to it singles out some threads: writes inside a
closure, or under an ``if`` / ``while`` / ``match`` / ``&&`` condition (or after an earlier
``return`` / ``break`` / ``continue`` / ``?``) that is neither provably thread-independent nor
an inequality, are skipped — ``if i == 0 { y[0] = s; }`` is the intended pattern, while
``if i < n { *total += x[i]; }`` still lets many threads race. A kernel whose every launch in
the file has literal dimensions of exactly one thread in total is skipped, and so are
parameters that give each thread its own element (krnl ``#[item] y: &mut f32``, the
ecosystem profile's ``per_thread_param_attrs``).
"""

from __future__ import annotations

from collections.abc import Iterator

from tree_sitter import Node

from offload_ls.analysis.context import FileContext
from offload_ls.analysis.indexing import MAX_DEPTH, ThreadFlow, named, strip
from offload_ls.analysis.model import Finding, Kernel, Level, Param, Span
from offload_ls.analysis.rules import Rule
from offload_ls.analysis.writes import every_thread_reaches, write_target, writable_params
from offload_ls.syntax.parse import node_text

NAME = "unindexed_kernel_write"

_MUTABLE_KINDS = ("mut_ref", "mut_ptr")
def check(ctx: FileContext) -> Iterator[Finding]:
    for kernel in ctx.kernels:
        if kernel.body_span is None or _single_thread(ctx, kernel):
            continue
        body = ctx.node(kernel.body_span)
        fn = body.parent if body is not None else None
        if fn is None or fn.type != "function_item":
            continue
        params = writable_params(ctx, kernel)
        if not params:
            continue
        flow = ThreadFlow(fn, uniform_params=True, index=ctx.flow_index(fn))
        for write in flow.writes:
            found = write_target(write, params, fn, flow)
            if found is None:
                continue
            place, param, indices = found
            if not all(flow.uniform(i) for i in indices):
                continue
            if not every_thread_reaches(write, body, flow):
                continue
            yield Finding(rule=NAME, span=Span(place.start_byte, place.end_byte),
                          message=message(node_text(place), _indexed(place, indices),
                                          write.type == "compound_assignment_expr", kernel, param))


def message(place: str, indexed: str | None, compound: bool, kernel: Kernel, param: Param) -> str:
    """The finding's text for a write to ``place`` (source text, e.g. ``y[0]``);
    ``indexed`` is the same place indexed by the thread index (``y[i]``), ``None`` for a
    place without an index (``*p``)."""
    race = ("the read-modify-write of one thread overwrites the others', so updates are lost"
            if compound else "which thread's value remains is unspecified")
    if indexed is not None:
        fix = f"index with the thread index (`{indexed}`)"
        fix += ", or accumulate with an atomic or a reduction" if compound else \
            ", or let a single thread write (`if i == 0 { .. }`)"
    else:
        fix = "let a single thread write (`if i == 0 { .. }`)"
        fix += ", or accumulate with an atomic" if compound else ""
    return (
        f"every GPU thread writes `{place}`: the place does not depend on the thread index, so all "
        f"threads of a launch of kernel `{kernel.name}` store to the same element of `{param.name}` "
        f"(a data race: {race}); {fix}"
    )


def _indexed(place: Node, indices: list[Node]) -> str | None:
    """``place``'s text with its last index (``y[0][1]`` -> ``y[0][i]``) replaced by ``i``."""
    if not indices:
        return None
    text = place.text or b""
    idx = indices[0]
    start, end = idx.start_byte - place.start_byte, idx.end_byte - place.start_byte
    return (text[:start] + b"i" + text[end:]).decode("utf-8", errors="replace")


def _single_thread(ctx: FileContext, kernel: Kernel) -> bool:
    """Every launch of ``kernel`` in the file (at least one) runs exactly one thread."""
    return ctx.facts.single_thread(kernel.name)


RULE = Rule(
    name=NAME,
    default_level=Level.WARN,
    summary="kernel writes a place that does not depend on the thread index: every GPU thread races on it",
    check=check,
    needs=frozenset({"kernels"}),
)
