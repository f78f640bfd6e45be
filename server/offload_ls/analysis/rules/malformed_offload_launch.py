"""malformed_offload_launch: an ``offload!`` launch that rustc rejects.

``core::offload::offload! { kernel, workgroup_dim, thread_dim, dyn_cache, device, args }``
(rust-lang/rust library/core/src/offload/mod.rs; tests/ui/offload/offload_macro.rs):
``kernel`` and ``args`` are required, each field may be given once, no other field exists
(``grid_dim`` / ``block_dim`` are older spellings the macro no longer accepts), and
``device`` goes through ``const { assert!(device >= 0) }``
(tests/ui/offload/offload_negative_device.rs). Reported: a missing field (at the macro),
each repeated or unknown field (at its name), a negative ``device`` (at its value).

Only core's macro is checked: a bare ``offload!`` that the file imports from another crate
(``use rustc_offload_frontend::offload;``, whose own macro takes ``grid_dim`` / ``block_dim``)
or a path into another crate (``my_frontend::offload!``) has that crate's fields, and a file
that defines its own ``macro_rules! offload`` calls that one.
"""

from __future__ import annotations

from collections.abc import Iterator

from offload_ls.analysis.context import FileContext
from offload_ls.analysis.model import Finding, LaunchForm, Level, Span
from offload_ls.analysis.reads import Fact, Holds
from offload_ls.analysis.rules import Rule

NAME = "malformed_offload_launch"

#: The fields of ``offload!`` (library/core/src/offload/mod.rs).
FIELDS = ("kernel", "workgroup_dim", "thread_dim", "dyn_cache", "device", "args")
_RENAMED = {"grid_dim": "workgroup_dim", "block_dim": "thread_dim"}


def check(ctx: FileContext) -> Iterator[Finding]:
    for launch in ctx.launches:
        if launch.form is not LaunchForm.OFFLOAD_MACRO or not _is_core_macro(ctx, launch):
            continue
        head = Span(launch.span.start, launch.span.start + 1)
        names = [n for n, _ in launch.fields]
        for required in ("kernel", "args"):
            if required not in names:
                yield Finding(rule=NAME, span=head,
                              message=f"`offload!` needs {'an' if required[0] in 'aeiou' else 'a'} `{required}` field: "
                                      f"`offload! {{ kernel = k, args = (..), .. }}` (rustc: missing `{required}`)")
        seen: set[str] = set()
        for name, span in launch.fields:
            if name not in FIELDS:
                hint = f"; did you mean `{_RENAMED[name]}`?" if name in _RENAMED else ""
                yield Finding(rule=NAME, span=span,
                              message=f"`offload!` has no field `{name}` (its fields: "
                                      + ", ".join(f"`{f}`" for f in FIELDS) + f"){hint}")
            elif name in seen:
                yield Finding(rule=NAME, span=span, message=f"`offload!` field `{name}` is given twice")
            seen.add(name)
        if launch.device_span is not None:
            value = ctx.facts.fold(launch.device_expr)
            if value is not None and value < 0:
                text = ctx.source[launch.device_span.start:launch.device_span.end].decode("utf-8", "replace")
                shown = f"`device = {text}`" + ("" if text.strip() == str(value) else f" (= {value})")
                yield Finding(rule=NAME, span=launch.device_span,
                              message=f"{shown}: the device number must be 0 or more (rustc checks it at compile "
                                      f"time); leave `device` out for the default device")


def _is_core_macro(ctx: FileContext, launch) -> bool:
    """Is the launch's macro core's ``offload!`` (or possibly so), not another crate's?"""
    path = ctx.source[launch.span.start:launch.span.end].split(b"!", 1)[0].decode("utf-8", "replace")
    segments = [p.strip() for p in path.split("::") if p.strip()]
    if len(segments) > 1:
        return segments[0] in _STD_ROOTS
    if "offload" in ctx.facts.defined:
        return False  # the file's own `macro_rules! offload` (a front end's: ZuseZ4 frontend.rs)
    roots = ctx.facts.import_roots.get("offload")
    return not roots or bool(roots & _STD_ROOTS)


_STD_ROOTS = frozenset({"core", "std"})


RULE = Rule(
    name=NAME,
    default_level=Level.DENY,
    summary="`offload!` without `kernel` or `args`, with a field twice, an unknown field, or a negative `device`",
    check=check,
    reads=frozenset({Fact.SEMANTIC, Fact.DEFINED_NAMES}),
    needs=Holds.LAUNCHES,
)
