"""Moving analysis results by a byte offset.

Per-item results are cached by the item's bytes (analysis/cache.py); when text before an
item grows or shrinks, the cached results are reused with every span moved by the same
number of bytes. All offsets are UTF-8 byte offsets.
"""

from __future__ import annotations

from offload_ls.analysis.device_code import DeviceFn
from offload_ls.analysis.model import Edit, Finding, Fix, Kernel, Launch, LaunchArg, Param, Related, Span


def span(s: Span, d: int) -> Span:
    """``s`` moved by ``d`` bytes."""
    return Span(s.start + d, s.end + d)


def opt_span(s: Span | None, d: int) -> Span | None:
    return None if s is None else Span(s.start + d, s.end + d)


def param(p: Param, d: int) -> Param:
    return Param(p.name, p.type_text, Span(p.span.start + d, p.span.end + d),
                 Span(p.type_span.start + d, p.type_span.end + d), p.transfer, p.kind, p.pointee, p.elem_bytes)


def kernel(k: Kernel, d: int) -> Kernel:
    return Kernel(k.name, k.ecosystem, k.marker, span(k.span, d), span(k.name_span, d), opt_span(k.body_span, d),
                  tuple(param(p, d) for p in k.params), k.is_unsafe_fn, opt_span(k.unsafe_span, d), k.fn_start + d)


def launch(la: Launch, d: int) -> Launch:
    return Launch(la.form, la.kernel, opt_span(la.kernel_span, d), span(la.span, d),
                  tuple(LaunchArg(a.text, span(a.span, d)) for a in la.args),
                  la.workgroup_dim, la.thread_dim, opt_span(la.workgroup_dim_span, d),
                  opt_span(la.thread_dim_span, d), la.arity)


def device_fn(f: DeviceFn, d: int, kernel_shifted: Kernel | None = None) -> DeviceFn:
    k = kernel_shifted if kernel_shifted is not None else (kernel(f.kernel, d) if f.kernel is not None else None)
    return DeviceFn(f.name, span(f.span, d), span(f.body_span, d), f.reason, k)


def finding(f: Finding, d: int, lo: int, hi: int) -> Finding:
    """``f`` with the spans that lie inside ``[lo, hi]`` (the item it was computed for)
    moved by ``d``; spans outside (a declaration elsewhere in the file, which the cache key
    pins to its place) stay as they are."""

    def mv(s: Span) -> Span:
        return Span(s.start + d, s.end + d) if lo <= s.start and s.end <= hi else s

    fixes = tuple(Fix(x.title, tuple(Edit(mv(e.span), e.new_text) for e in x.edits)) for x in f.fixes)
    related = tuple(Related(mv(r.span), r.message) for r in f.related)
    return Finding(f.rule, mv(f.span), f.message, f.level, fixes, related)
