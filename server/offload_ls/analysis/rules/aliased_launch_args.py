"""aliased_launch_args: one launch passes the same buffer twice and at least one of the two
uses is mutable (``&mut x`` with ``&x``, ``&mut x`` twice, ``x.as_mut_ptr()`` with
``x.as_ptr()``, one raw pointer twice where a kernel parameter is ``*mut``), and host code
casts a shared reference into a mutable pointer (``&x as *const _ as *mut _``).

Consequences: the kernel receives two pointers to one buffer, while the compiler marks
``&mut`` kernel parameters ``noalias`` (undefined behavior when they alias); and rustc's
offload runtime maps the buffer once per argument, "to" for ``&T`` and "tofrom" for
``&mut T`` / ``*mut T`` (docs/offload-notes.md, "What the host pass copies"), so
which mapping decides the copy back to the host is not specified.

Places: ``&mut x[..]``, ``&mut *x``, ``x.as_mut_ptr()`` are place ``x``; ``s.a`` and ``s.b``
are different places, ``s`` overlaps ``s.a``. A variable bound by ``let p = x.as_mut_ptr();``
(or ``&mut x as *mut _``, ``&raw mut x``) stands for that pointer to ``x``. A plain variable
with no such binding is a pointer of unknown mutability: passed twice, it is reported only
when the kernel (found by name in the same file) takes ``*mut`` / ``&mut`` at one of the two
positions, or its binding's type says ``*mut``.

Macro launch arguments are token trees: each argument's text is re-parsed as an expression
(the same way as analysis/launches/) and offsets are mapped back into the file.
"""

from __future__ import annotations

from collections.abc import Iterator

from tree_sitter import Node

from offload_ls.analysis.arg_places import PlaceUse, classify, snippet_argument
from offload_ls.analysis.context import FileContext
from offload_ls.analysis.model import (
    Finding,
    Kernel,
    Launch,
    LaunchArg,
    LaunchForm,
    Level,
    Param,
    Related,
    Span,
    Transfer,
)
from offload_ls.analysis.reads import Fact, Holds
from offload_ls.analysis.rules import Rule
from offload_ls.analysis.transfer import is_slice_type
from offload_ls.syntax.parse import SNIPPET_PREFIX, SNIPPET_SUFFIX, node_text, parse
from offload_ls.syntax.queries import matches

NAME = "aliased_launch_args"

_POINTER_KINDS = ("ref", "mut_ref", "const_ptr", "mut_ptr")
_MUTABLE_KINDS = ("mut_ref", "mut_ptr")


def check(ctx: FileContext) -> Iterator[Finding]:
    for launch in ctx.launches:
        kernel = (ctx.facts.kernel_anywhere(launch.kernel)
                  if launch.kernel and not ctx.facts.kernel_is_ambiguous(launch.kernel) else None)
        parsed = [_reparse(ctx, arg) for arg in launch.args]  # each argument parsed once
        yield from _aliasing(ctx, launch, kernel, parsed)
        if launch.form is not LaunchForm.OFFLOAD_CALL:
            for _tree, node, base in parsed:  # casts inside macro token trees
                if node is not None:
                    for cast, ref in _casts(node):
                        yield _cast_finding(cast, ref, base)
        del parsed
    if ctx.summary is not None and not ctx.summary.has_casts:
        return  # the unit holds no shared-to-mutable cast
    last_launch_end = ctx.facts.last_launch_end  # of the whole file
    device_bodies = [d.body_span for d in ctx.device_fns]  # a cast in the scope is only in these
    for _, caps in ctx.scope_matches("shared_to_mut_casts"):
        cast, ref = _cast_pair(caps)
        if cast is None:
            continue
        if cast.start_byte >= last_launch_end:
            continue
        if any(s.start <= cast.start_byte and cast.end_byte <= s.end for s in device_bodies):
            continue
        yield _cast_finding(cast, ref, 0)


# ------------------------------------------------------------------ aliasing arguments


def _aliasing(ctx: FileContext, launch: Launch, kernel: Kernel | None, parsed: list) -> Iterator[Finding]:
    """``parsed``: (tree, argument node, offset) of each argument (:func:`_reparse`)."""
    uses: list[PlaceUse | None] = []
    at = ctx.root.named_descendant_for_byte_range(launch.span.start, launch.span.end)
    lets = ctx.lets_at(launch.span.start)
    for _tree, node, _ in parsed:
        uses.append(classify(node, at, lets=lets) if node is not None and at is not None else None)
    params = _arg_params(ctx, kernel, len(uses))
    for j, b in enumerate(uses):
        if b is None:
            continue
        for i in range(j):
            a = uses[i]
            if a is None or not _overlap(a.place, b.place):
                continue
            pa, pb = params[i], params[j]
            if not _conflict(a, pa, b, pb):
                continue
            first, second = launch.args[i], launch.args[j]
            yield Finding(
                rule=NAME,
                span=second.span,
                message=message(launch, i, first, a, pa, j, second, b, pb),
                related=(Related(first.span, f"argument {i + 1}: `{first.text}`"),),
            )
            break


def _arg_params(ctx: FileContext, kernel: Kernel | None, n: int) -> list[Param | None]:
    """The kernel parameter each of ``n`` launch arguments is for: one argument per
    parameter, but a slice parameter takes the ecosystem profile's ``args_per_slice``
    (cust's ``launch!``: the device pointer, then the length, which is for no buffer)."""
    if kernel is None:
        return [None] * n
    per_slice = ctx.profile(kernel).args_per_slice
    out: list[Param | None] = []
    for p in kernel.params:
        out.append(p)
        if per_slice > 1 and p.kind in ("ref", "mut_ref") and p.pointee is not None and is_slice_type(p.pointee):
            out.extend([None] * (per_slice - 1))
    return (out + [None] * n)[:n]


def message(launch: Launch, i: int, first: LaunchArg, a: PlaceUse, pa: Param | None,
            j: int, second: LaunchArg, b: PlaceUse, pb: Param | None) -> str:
    """The finding's text for arguments ``i`` and ``j`` (0-based) of ``launch``."""
    of = f"this launch of `{launch.kernel}`" if launch.kernel else "this launch"
    place_a, place_b = ".".join(a.place), ".".join(b.place)
    if place_a == place_b:
        what = f"are the same buffer `{place_a}`"
    else:
        outer, inner = (place_a, place_b) if len(a.place) < len(b.place) else (place_b, place_a)
        what = f"overlap (`{outer}` contains `{inner}`)"
    head = f"argument {i + 1} (`{first.text}`) and argument {j + 1} (`{second.text}`) of {of} {what}"
    noalias = a.mut_ref or b.mut_ref or any(p is not None and p.kind == "mut_ref" for p in (pa, pb))
    if noalias:
        why = ("the kernel gets two pointers to one buffer while the compiler marks `&mut` parameters "
               "`noalias` (undefined behavior)")
    else:
        why = ("the kernel gets two pointers to one buffer and writes through one of them, so what the "
               "other reads depends on the order the GPU threads run in")
    if launch.form.offload:
        ta, tb = _map_type(a, pa), _map_type(b, pb)
        copies = f'two "{ta}" copies' if ta == tb else f'the "{ta}" copy and the "{tb}" copy'
        outer = place_a if len(a.place) <= len(b.place) else place_b
        why += (f", and the offload runtime maps `{outer}` twice ({copies}): which one wins on the way "
                f"back to the host is unspecified")
    return f"{head}: {why}; pass the buffer once and let the kernel read and write it through that parameter"


def _map_type(use: PlaceUse, param: Param | None) -> str:
    if param is not None and param.transfer in (Transfer.TO, Transfer.TOFROM):
        return param.transfer.value
    return "tofrom" if use.mode in ("mut", "unknown") else "to"


def _overlap(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    n = min(len(a), len(b))
    return a[:n] == b[:n]


def _conflict(a: PlaceUse, pa: Param | None, b: PlaceUse, pb: Param | None) -> bool:
    """Both are pointers to the place and at least one is known to be mutable."""

    def pointer(u: PlaceUse, p: Param | None) -> bool:
        return u.mode in ("mut", "shared") or (p is not None and p.kind in _POINTER_KINDS)

    def mutable(u: PlaceUse, p: Param | None) -> bool:
        return u.mode == "mut" or (u.mode == "unknown" and p is not None and p.kind in _MUTABLE_KINDS)

    return pointer(a, pa) and pointer(b, pb) and (mutable(a, pa) or mutable(b, pb))


# ------------------------------------------------------------------ re-parsing arguments


def _reparse(ctx: FileContext, arg: LaunchArg):
    """(tree, argument node, offset to add to the node's bytes to get file offsets).
    The tree is returned so that it outlives the node."""
    tree = parse(SNIPPET_PREFIX + ctx.source[arg.span.start : arg.span.end] + SNIPPET_SUFFIX)
    return tree, snippet_argument(tree), arg.span.start - len(SNIPPET_PREFIX)


# ------------------------------------------------------------------ shared -> mutable casts


def _casts(node: Node) -> list[tuple[Node, Node]]:
    """(cast, reference) for each ``&x as *const T as *mut T`` / ``(&x as *const T).cast_mut()``
    under ``node`` whose reference is shared and whose intermediate pointer is ``*const``."""
    out = []
    for _, caps in matches("shared_to_mut_casts", node):
        cast, ref = _cast_pair(caps)
        if cast is not None:
            out.append((cast, ref))
    return out


def _cast_pair(caps: dict[str, list[Node]]) -> tuple[Node | None, Node | None]:
    """(cast, reference) of one shared_to_mut_casts match, or (None, None) when the
    reference is ``&mut`` or the intermediate pointer ``*mut``."""
    cast, ref, ptr = caps["cast"][0], caps["ref"][0], caps["const_ptr"][0]
    if any(c.type == "mutable_specifier" for c in ref.children):
        return None, None
    if any(c.type == "mutable_specifier" for c in ptr.children):
        return None, None
    return cast, ref


def _cast_finding(cast: Node, ref: Node, base: int) -> Finding:
    value = ref.child_by_field_name("value")
    place = node_text(value) if value is not None else node_text(ref)
    return Finding(rule=NAME, span=Span(cast.start_byte + base, cast.end_byte + base),
                   message=cast_message(node_text(cast), place))


def cast_message(cast: str, place: str) -> str:
    """The finding's text for a shared-to-mutable cast ``cast`` of ``&place``."""
    return (
        f"`{cast}` casts a shared reference to `{place}` into a mutable pointer: writing through it "
        f"(as a kernel does through a `*mut` parameter) is undefined behavior, because `{place}` is "
        f"only borrowed for reading (with offload, a `&{place}` argument is mapped \"to\" only, never "
        f"copied back); take the pointer from a mutable borrow instead (`&mut {place} as *mut _` or "
        f"`{place}.as_mut_ptr()`)"
    )


RULE = Rule(
    name=NAME,
    default_level=Level.DENY,
    summary="launch passes one buffer twice with a mutable use, or casts a shared reference to a mutable pointer",
    check=check,
    reads=frozenset({Fact.SEMANTIC, Fact.DEVICE_CODE, Fact.INDEX_HELPERS,
                     Fact.KERNEL_PARAMS, Fact.LAST_LAUNCH}),
    needs=Holds.LAUNCHES | Holds.CASTS,
)
