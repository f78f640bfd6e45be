"""thread_index_collision: a kernel writes through a mutable parameter at a thread-dependent
index that several threads of the launch share.

The index written is put in a symbolic form over the thread-index atoms of the kernel's
ecosystem (analysis/index_form.py: ``tid.x``, ``bid.x``, ``bdim.x``, ``gid.x``, ``lid``,
``glin``, ``blin``) and checked against each launch of the kernel in the crate (its
dimensions folded with the crate's constants, the form's defaults filled in:
``offload!`` runs ``[1, 1, 1] x [1, 1, 1]``, CubeCL's ``CubeDim::default()`` is
16 x 16 x 1), or, without a launch, against the threads per block the kernel declares
(rust-gpu ``threads(8, 8)``, krnl ``threads(256)``). Reported:

- the block index added without the block size: ``block_idx_x() + thread_idx_x()``, or
  ``bid * 16 + tid`` under blocks of 32 threads (``CUBE_POS + UNIT_POS`` likewise):
  block ``b`` thread ``t`` and block ``b + 1`` thread ``t - 1`` write the same element;
- an index that ignores a dimension the launch uses: a 1-D index (``index_1d()``,
  ``ABSOLUTE_POS_X``, ``id.x``) under a 2-D block or grid; a thread-in-block index
  (``_thread_idx_x()``, ``UNIT_POS``) under a launch of several blocks. A grid
  dimension computed at run time (``n.div_ceil(128)``, krnl ``with_global_threads(n)``)
  counts as several blocks; a block dimension must be known.

Not reported: writes that only some threads reach (under ``if ty == 0``, see
analysis/writes.py), an index whose form is not known (a division, a value read from
memory), dimensions that are not known, a place the same for every thread (that is
unindexed_kernel_write), parameters that give each thread its own element.
"""

from __future__ import annotations

from collections.abc import Iterator

from tree_sitter import Node

from offload_ls.analysis.consts import capture
from offload_ls.analysis.context import FileContext
from offload_ls.analysis.flow.thread_flow import ThreadFlow
from offload_ls.analysis.index_form import IndexForms, uses
from offload_ls.analysis.model import Finding, Kernel, Launch, Level, Span
from offload_ls.analysis.reads import Fact, Holds
from offload_ls.analysis.rules import Rule
from offload_ls.analysis.writes import PER_BLOCK, SOME, reach, writable_params, write_target
from offload_ls.syntax.nodes import strip
from offload_ls.syntax.parse import node_text

NAME = "thread_index_collision"

_DIMS = "xyz"
#: Atoms that cover a thread dimension / a block dimension of the launch.
_THREAD_COVER = {d: (f"tid.{d}", f"gid.{d}", "lid", "glin") for d in _DIMS}
_BLOCK_COVER = {d: (f"bid.{d}", f"gid.{d}", "glin", "blin") for d in _DIMS}

Dims = tuple[int | None, int | None, int | None]


def check(ctx: FileContext) -> Iterator[Finding]:
    for kernel in ctx.kernels:
        if kernel.body_span is None:
            continue
        params = writable_params(ctx, kernel)
        if not params:
            continue
        body = ctx.node(kernel.body_span)
        fn = body.parent if body is not None else None
        if fn is None or fn.type != "function_item":
            continue
        flow = ThreadFlow(fn, uniform_params=True, index=ctx.flow_index(fn))
        if not flow.writes:
            continue
        profile = ctx.profile(kernel)
        param_index = {name: ix for name, word in flow.param_words.items()
                       if (ix := profile.index_params.get(word)) is not None}
        forms = IndexForms(flow, profile, lambda n: ctx.facts.fold(capture(n)), param_index)
        configs = _configs(ctx, kernel)
        for write in flow.writes:
            found = write_target(write, params, fn, flow)
            if found is None:
                continue
            place, param, indices = found
            if not indices or not flow.depends(indices[0]):
                continue
            # `out[y][x]`: each index is one dimension of the place; together they must cover
            # the launch's dimensions (`indices` is innermost first)
            each = [forms.of(ix) for ix in indices]
            if any(f is None for f in each):
                continue
            form = {k: 1 for f in each for k in f} if len(each) > 1 else each[0]
            if not any(k for k in form):
                continue
            gates: list = []
            who = reach(write, body, flow, gates)
            if who == SOME:
                continue
            for wg, th, launch in configs:
                if who == PER_BLOCK and not all(_admits_whole_block(g, forms, th) for g in gates):
                    continue  # one thread (or a few) of each block writes
                reason = _collision(form, wg, th, each)
                if reason is None:
                    continue
                # the launch is named by its dimensions, not its position: a kernel's findings
                # must not depend on where other items of the file are (analysis/engine.py)
                yield Finding(rule=NAME, span=Span(place.start_byte, place.end_byte),
                              message=message(kernel, node_text(place), reason, wg, th, launch))
                break


def _admits_whole_block(cond: Node, forms: IndexForms, th: Dims | None) -> bool:
    """Does ``cond``, a test that picks threads by their index within the block
    (``lid == 0``), let every thread of a block through under ``th`` threads per block? It
    does when it compares with 0 only thread indexes along dimensions of one thread
    (``local_invocation_id.x == 0`` under ``threads(1, 128)``: all 128 threads pass)."""
    cond = strip(cond)
    if th is None or cond.type != "binary_expression":
        return False
    op = cond.child_by_field_name("operator")
    left, right = cond.child_by_field_name("left"), cond.child_by_field_name("right")
    if op is None or op.type != "==" or left is None or right is None:
        return False
    var = left if node_text(strip(right)) == "0" else right if node_text(strip(left)) == "0" else None
    form = forms.of(var) if var is not None else None
    if not form:
        return False
    for monomial in form:
        if len(monomial) != 1 or not monomial[0].startswith("tid."):
            return False
        if th[_DIMS.index(monomial[0].split(".", 1)[1])] != 1:
            return False
    return True


def _pad(dims) -> Dims | None:
    if dims is None:
        return None
    d = list(dims)[:3]
    return tuple(d + [1] * (3 - len(d)))  # type: ignore[return-value]


def _configs(ctx: FileContext, kernel: Kernel) -> list[tuple[Dims | None, Dims | None, Launch | None]]:
    """(grid dims, block dims, launch) of each launch of ``kernel`` in the crate; without
    launches, the block dims the kernel declares; else one unknown configuration."""
    profile = ctx.profile(kernel)
    declared = tuple(ctx.facts.fold(e) for e in kernel.declared_dims) if kernel.declared_dims else None
    out = []
    for la in ctx.facts.all_launches_of(kernel.name):
        wg, th = ctx.facts.full_dims(la)
        if th is None:
            th = declared if declared is not None else profile.default_block
        out.append((_pad(wg), _pad(th), la))
    if not out:
        out.append((None, _pad(declared), None))
    return out


def _collision(form: dict, wg: Dims | None, th: Dims | None, each: list[dict] | None = None) -> str | None:
    """Why ``form`` (an index's symbolic form; for a place with several indices, the union
    of theirs, ``each`` being their own forms) is not one-to-one over a launch of ``wg``
    blocks of ``th`` threads (``None`` entries unknown), or ``None``."""
    for f in each or [form]:
        for d_i, d in enumerate(_DIMS):
            cb, ct = f.get((f"bid.{d}",)), f.get((f"tid.{d}",))
            block = th[d_i] if th is not None else None
            if cb and ct == 1 and 0 < cb and ((block is None and cb == 1) or (block is not None and block > cb)):
                return f"unscaled:{d}:{cb}"
        cb, ct = f.get(("blin",)), f.get(("lid",))
        if cb and ct == 1 and cb == 1:
            return "unscaled:linear:1"
    if th is not None:
        for d_i, d in enumerate(_DIMS):
            n = th[d_i]
            if n is not None and n > 1 and not any(uses(form, a) for a in _THREAD_COVER[d]):
                return f"thread:{d}:{n}"
    if wg is not None:
        for d_i, d in enumerate(_DIMS):
            n = wg[d_i]
            # a grid dimension computed at run time (`n.div_ceil(128)`) is taken to be several
            if (n is None or n > 1) and not any(uses(form, a) for a in _BLOCK_COVER[d]):
                return f"block:{d}:{'several' if n is None else n}"
    return None


def _dims_text(wg: Dims | None, th: Dims | None) -> str:
    parts = []
    if wg is not None:
        parts.append("grid [" + ", ".join("?" if x is None else str(x) for x in wg) + "]")
    if th is not None:
        parts.append("block [" + ", ".join("?" if x is None else str(x) for x in th) + "]")
    return f" ({', '.join(parts)})" if parts else ""


def message(kernel: Kernel, place: str, reason: str, wg: Dims | None, th: Dims | None,
            launch: Launch | None) -> str:
    """The finding's text for a write to ``place`` with collision ``reason``."""
    kind, dim, n = reason.split(":")
    where = (f"a launch{_dims_text(wg, th)}" if launch is not None
             else f"kernel `{kernel.name}`'s blocks{_dims_text(None, th)}")
    head = f"several threads of {where} write the same element `{place}`"
    if kind == "unscaled":
        if dim == "linear":
            why = ("the block index is added to the thread index without the block size, so block b's thread "
                   "t + 1 and block b + 1's thread t write one element; multiply the block index by the "
                   "threads per block (or use the launch-wide position)")
        else:
            why = (f"the block index along {dim} is multiplied by {n}, fewer than the threads per block, so block "
                   f"b + 1's first threads write block b's elements; use `block_idx * block_dim + thread_idx`")
    elif kind == "thread":
        why = (f"the launch has {n} threads per block along {dim} but the index does not depend on the "
               f"thread index along {dim}: threads that differ only along {dim} write the same element; "
               f"include it in the index (e.g. `row * width + col`)")
    else:
        why = (f"the launch has {n} blocks along {dim} but the index does not depend on the block index "
               f"along {dim}: every block writes the same elements; use the launch-wide position "
               f"(`block_idx * block_dim + thread_idx`)")
    return f"{head}: {why} (a data race)"


RULE = Rule(
    name=NAME,
    default_level=Level.WARN,
    summary="a thread-dependent index written by several threads of the launch (missing block size or dimension)",
    check=check,
    reads=frozenset({Fact.SEMANTIC, Fact.LAUNCHED, Fact.INDEX_HELPERS}),
    needs=Holds.KERNELS,
)
