"""unknown_launch_kernel: a launch names a kernel that the crate does not define.

The name is looked up (its last path segment, through ``use .. as ..`` renames) among the
kernels and functions of the file and of the rest of its crate (analysis/crate_index.py);
a similar name is suggested. A launch of rustc offload must name a function of the crate
(the kernel is compiled from the same source) or one an ``extern`` block declares (the host
side of a kernel compiled in the device pass, as rustc's codegen tests write it). Other
ecosystems compile kernels in their own crate and load them at run time, so a name is reported there only when the crate
defines kernels of that ecosystem at all (the kernel crate and the host crate are one),
and a wgpu pipeline's ``entry_point: Some("name")`` only when the crate has rust-gpu
entry points. Not reported (precision first): a name from another crate (a path whose first
segment is no module of this crate, ``otherk::remote``: a dependency is in scope without a
``use``; or a name a ``use`` brings from another crate), a name an item-position macro
invocation mentions (``mk!(gen_k);`` may define ``gen_k``), a ``fn name`` in a part of a file
that does not parse (an edit in progress), and a Rust-CUDA ``launch!(f<<<..>>>(..))``
through a function handle variable.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator

from offload_ls.analysis.context import FileContext
from offload_ls.analysis.ecosystems import for_form
from offload_ls.analysis.model import Ecosystem, Finding, Launch, LaunchForm, Level
from offload_ls.analysis.reads import Fact, Holds
from offload_ls.analysis.rules import Rule

NAME = "unknown_launch_kernel"


def check(ctx: FileContext) -> Iterator[Finding]:
    for launch in ctx.launches:
        if not launch.kernel or launch.kernel_span is None:
            continue
        name = ctx.facts.original_name(launch.kernel)
        if ctx.facts.kernel_anywhere(name) is not None:
            continue
        offload = launch.form.offload
        if offload and (ctx.facts.function_anywhere(name) is not None or ctx.facts.extern_decls_named(name)):
            # an `extern` declaration is what rustc's own offload tests launch (tests/codegen-llvm/gpu_offload)
            continue
        owner = for_form(launch.form)  # the ecosystem whose launch form this is
        if not offload and (owner is None or not _crate_has_kernels(ctx, {owner.ecosystem})):
            continue
        path = _path_before(ctx.source, launch)
        if path is None or _external(ctx, path) or _maybe_defined(ctx, name, launch.kernel):
            continue
        yield Finding(rule=NAME, span=launch.kernel_span, message=message(ctx, launch, name, offload))


def message(ctx: FileContext, launch: Launch, name: str, offload: bool) -> str:
    """The finding's text, with the closest kernel names of the crate."""
    names = _kernel_names(ctx, offload)
    close = difflib.get_close_matches(name, sorted(names), n=3, cutoff=0.6)
    what = "function" if offload else "kernel"
    text = f"this launch names `{name}`, but no {what} of that name is defined in the crate"
    if close:
        text += "; did you mean " + " or ".join(f"`{c}`" for c in close) + "?"
    return text


def _kernel_names(ctx: FileContext, offload: bool) -> set[str]:
    facts = ctx.facts
    names = {k.name for k in facts.kernels}
    if facts.crate is not None:
        names |= set(facts.crate.kernels)
        if offload:
            names |= set(facts.crate.fns)
    if offload:
        names |= {f.name for items in facts.items for f in items.fns}
    return names


def _crate_has_kernels(ctx: FileContext, ecosystems: set[Ecosystem]) -> bool:
    facts = ctx.facts
    if any(facts.profile_of(k).ecosystem in ecosystems for k in facts.kernels):
        return True
    if facts.crate is not None:
        return any(facts.profile_of(k).ecosystem in ecosystems for ks in facts.crate.kernels.values() for k in ks)
    return False


def _path_before(source: bytes, launch: Launch) -> list[str] | None:
    """The path segments up to the kernel's name (``kernels::apply`` -> [kernels, apply]);
    ``None`` for a Rust-CUDA launch through a function handle (``launch!(f<<<..>>>)``)."""
    assert launch.kernel_span is not None
    end = launch.kernel_span.end
    i = launch.kernel_span.start
    segs = [source[i:end].decode("utf-8", "replace")]
    while True:
        j = i
        while j > 0 and source[j - 1:j] in (b" ", b"\t", b"\n"):
            j -= 1
        if source[j - 2:j] == b"::":
            k = j - 2
            while k > 0 and source[k - 1:k] in (b" ", b"\t", b"\n"):
                k -= 1
            m = k
            while m > 0 and (source[m - 1:m].isalnum() or source[m - 1:m] == b"_"):
                m -= 1
            if m == k:
                break
            segs.insert(0, source[m:k].decode("utf-8", "replace"))
            i = m
            continue
        if launch.form is LaunchForm.RUST_CUDA and source[j - 1:j] != b".":  # cust: `module.kernel` or a handle
            return None  # a function handle variable, not `module.kernel`
        break
    return segs


def _external(ctx: FileContext, path: list[str]) -> bool:
    """Does the name come from another crate: a path whose first segment is no module of
    this crate (a dependency is in scope without a `use`: ``otherk::remote``), or a name a
    `use` brings from another crate (``use otherk::remote2;``)?"""
    mods = {m for items in ctx.facts.items for m in items.mods}
    if ctx.facts.crate is not None:
        mods |= ctx.facts.crate.mods
    local = {"crate", "self", "super"} | mods
    if len(path) >= 2:
        return path[0] not in local
    for items in ctx.facts.items:
        for name, root in items.imports:
            if name == path[0] and root not in local:
                return True
    return False


def _maybe_defined(ctx: FileContext, *names: str) -> bool:
    """May the crate define the name in a way its syntax trees do not show: made by an
    item-position macro (``mk!(gen_k);``), or in a part of a file that does not parse
    while it is being edited?"""
    loose = {n for items in ctx.facts.items for n in items.loose_names}
    if ctx.facts.crate is not None:
        loose |= ctx.facts.crate.loose_names
    return any(n in loose for n in names)


RULE = Rule(
    name=NAME,
    default_level=Level.DENY,
    summary="a launch names a kernel the crate does not define (with a did-you-mean)",
    check=check,
    reads=frozenset({Fact.SEMANTIC, Fact.EXTERNS}),
    needs=Holds.LAUNCHES,
)
