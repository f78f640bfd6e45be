"""unindexed_kernel_write: a kernel writes through a mutable parameter at a place that is the
same for every GPU thread (``y[0] = ..``, ``*p += ..``), a data race between all threads of
the launch.

A write is reported only when its index is provably thread-independent (analysis/flow/:
literals, ``SCREAMING_CASE`` constants, the kernel's own parameters, and ``let`` variables
computed from those) and nothing on the way to it singles out some threads: writes inside a
closure, or under an ``if`` / ``while`` / ``match`` / ``&&`` condition (or after an earlier
``return`` / ``break`` / ``continue`` / ``?``) that is neither provably thread-independent nor
an inequality, are skipped — ``if i == 0 { y[0] = s; }`` is the intended pattern, while
``if i < n { *total += x[i]; }`` still lets many threads race. A kernel whose every launch in
the file has literal dimensions of exactly one thread in total is skipped, and so is one
that declares one thread per block and reads no thread index at all (rust-gpu
``#[spirv(compute(threads(1)))]`` with no invocation id: it cannot tell its invocations
apart, so it is written to be dispatched once); skipped too are
parameters that give each thread its own element (krnl ``#[item] y: &mut f32``, the
ecosystem profile's ``per_thread_param_attrs``). A write that one thread of every block
makes (``if t == 0 { *out += s; }`` with ``t`` the index within the block) is reported when
the kernel is written for many blocks (analysis/writes.py ``reach``, :func:`_blocks_race`).
"""

from __future__ import annotations

from collections.abc import Iterator

from tree_sitter import Node

from offload_ls.analysis.context import FileContext
from offload_ls.analysis.flow.thread_flow import ThreadFlow
from offload_ls.analysis.model import Finding, Kernel, Level, Param, Span
from offload_ls.analysis.reads import Fact, Holds
from offload_ls.analysis.rules import Rule
from offload_ls.analysis.writes import ALL, PER_BLOCK, reach, writable_params, write_target
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
        if not flow.uses_index() and _declares_one_thread(ctx, kernel):
            continue  # rust-gpu `threads(1)` without an invocation id: a single-invocation kernel
        for write in flow.writes:
            found = write_target(write, params, fn, flow)
            if found is None:
                continue
            place, param, indices = found
            if not all(flow.uniform(i) for i in indices):
                continue
            compound = write.type == "compound_assignment_expr"
            who = reach(write, body, flow)
            if who == ALL:
                yield Finding(rule=NAME, span=Span(place.start_byte, place.end_byte),
                              message=message(node_text(place), _indexed(place, indices), compound, kernel, param,
                                              flow.uses_index()))
            elif who == PER_BLOCK and _blocks_race(ctx, kernel, flow, write, compound):
                launched = any(b is None or b > 1 for b in _launch_blocks(ctx, kernel))
                yield Finding(rule=NAME, span=Span(place.start_byte, place.end_byte),
                              message=per_block_message(node_text(place), compound, kernel, param, launched))


def message(place: str, indexed: str | None, compound: bool, kernel: Kernel, param: Param,
            reads_index: bool = True) -> str:
    """The finding's text for a write to ``place`` (source text, e.g. ``y[0]``);
    ``indexed`` is the same place indexed by the thread index (``y[i]``), ``None`` for a
    place without an index (``*p``); ``reads_index``: the kernel reads a thread index
    somewhere (else it cannot single a thread out, and the fix says so)."""
    race = ("the read-modify-write of one thread overwrites the others', so updates are lost"
            if compound else "which thread's value remains is unspecified")
    if not reads_index:
        fix = "the kernel reads no thread index at all, so its threads cannot be told apart: launch it with " \
              "one thread, or read the thread index and "
        fix += f"index with it (`{indexed}`)" if indexed is not None else "let a single thread write"
    elif indexed is not None:
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


def per_block_message(place: str, compound: bool, kernel: Kernel, param: Param, launched: bool = True) -> str:
    """The finding's text for a write to ``place`` that one thread of every block makes;
    ``launched``: a launch of the kernel with many blocks is known (else the kernel's own
    reading of a block index is the evidence)."""
    if compound:
        race = "the read-modify-write of one block overwrites the others', so updates are lost"
        fix = ("accumulate with an atomic, or write one element per block (indexed by the block index) "
               "and combine them afterwards")
    else:
        race = "which block's value remains is unspecified"
        fix = "write one element per block (indexed by the block index), or let one thread of one block write"
    many = (f"a launch of kernel `{kernel.name}` has many blocks" if launched else
            f"kernel `{kernel.name}` reads its block's position (it is written for a launch of many blocks)")
    return (f"one thread of every block writes `{place}`: the condition picks a thread by its index within "
            f"the block, and {many}, so they all store to the same "
            f"element of `{param.name}` (a data race: {race}); {fix}")


def _blocks_race(ctx: FileContext, kernel: Kernel, flow: ThreadFlow, write: Node, compound: bool) -> bool:
    """Do the blocks of a launch race on a write one thread per block makes? When the
    kernel is written for many blocks (it reads a block index) or a launch in the crate
    has more than one block, and no launch is known to have one block only; a plain write
    of a value the same for every thread (``*done = 1``) stores the same value from every
    block and is not reported."""
    if not compound:
        value = write.child_by_field_name("right")
        if value is None or flow.uniform(value):
            return False
    blocks = _launch_blocks(ctx, kernel)
    if blocks and all(b == 1 for b in blocks):
        return False
    return flow.uses_block_index() or any(b is not None and b > 1 for b in blocks)


def _launch_blocks(ctx: FileContext, kernel: Kernel) -> list[int | None]:
    """Blocks of each known launch of ``kernel`` (``None``: not a constant)."""
    blocks: list[int | None] = []
    for la in ctx.facts.all_launches_of(kernel.name):
        wg, _ = ctx.facts.full_dims(la)
        n: int | None = 1
        for d in wg or (None,):
            n = None if d is None or n is None else n * d
        blocks.append(n)
    return blocks


def _indexed(place: Node, indices: list[Node]) -> str | None:
    """``place``'s text with its last index (``y[0][1]`` -> ``y[0][i]``) replaced by ``i``."""
    if not indices:
        return None
    text = place.text or b""
    idx = indices[0]
    start, end = idx.start_byte - place.start_byte, idx.end_byte - place.start_byte
    return (text[:start] + b"i" + text[end:]).decode("utf-8", errors="replace")


def _declares_one_thread(ctx: FileContext, kernel: Kernel) -> bool:
    """The kernel's attribute declares one thread per block (``#[spirv(compute(threads(1)))]``)."""
    dims = kernel.declared_dims
    return bool(dims) and all(ctx.facts.fold(d) == 1 for d in dims)


def _single_thread(ctx: FileContext, kernel: Kernel) -> bool:
    """Every launch of ``kernel`` in the file (at least one) runs exactly one thread."""
    return ctx.facts.single_thread(kernel.name)


RULE = Rule(
    name=NAME,
    default_level=Level.WARN,
    summary="kernel writes a place that does not depend on the thread index: every GPU thread races on it",
    check=check,
    reads=frozenset({Fact.SEMANTIC, Fact.LAUNCHED, Fact.SINGLE_THREAD, Fact.INDEX_HELPERS}),
    needs=Holds.KERNELS,
)
