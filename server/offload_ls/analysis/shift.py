"""Moving analysis results by a byte offset.

Per-unit results are cached by the unit's bytes (analysis/cache.py); when text before a
unit grows or shrinks, the cached results are reused with every span moved by the same
number of bytes. All offsets are UTF-8 byte offsets.

The model's classes are frozen dataclasses, whose ``__init__`` sets each field through
``object.__setattr__``; a moved copy is made here by copying the instance's ``__dict__``
instead, which gives an equal object in half the time (this runs for every kernel, launch
and finding after the edited line on each keystroke).
"""

from __future__ import annotations

from offload_ls.analysis.model import Edit, Finding, Fix, Kernel, Launch, Param, Related, Span

_new = object.__new__
_set = object.__setattr__


def _copy(obj, changes: dict):
    o = _new(type(obj))
    d = obj.__dict__.copy()
    d.update(changes)
    _set(o, "__dict__", d)
    return o


def replace(obj, **changes):
    """A copy of frozen dataclass instance ``obj`` with ``changes`` (as
    ``dataclasses.replace``, without running ``__init__``)."""
    return _copy(obj, changes)


def span(s: Span, d: int) -> Span:
    """``s`` moved by ``d`` bytes."""
    o = _new(Span)
    _set(o, "__dict__", {"start": s.start + d, "end": s.end + d})
    return o


def opt_span(s: Span | None, d: int) -> Span | None:
    """``s`` moved by ``d`` bytes; ``None`` stays ``None``."""
    return None if s is None else span(s, d)


def param(p: Param, d: int) -> Param:
    """Kernel parameter ``p`` with its spans moved by ``d`` bytes."""
    return _copy(p, {"span": span(p.span, d), "type_span": span(p.type_span, d)})


def kernel(k: Kernel, d: int) -> Kernel:
    """Kernel ``k`` with every span (and ``fn_start``) moved by ``d`` bytes."""
    return _copy(k, {"span": span(k.span, d), "name_span": span(k.name_span, d),
                     "body_span": opt_span(k.body_span, d), "params": tuple(param(p, d) for p in k.params),
                     "unsafe_span": opt_span(k.unsafe_span, d), "fn_start": k.fn_start + d})


def launch(la: Launch, d: int) -> Launch:
    """Launch site ``la`` with every span (its arguments' too) moved by ``d`` bytes."""
    return _copy(la, {"kernel_span": opt_span(la.kernel_span, d), "span": span(la.span, d),
                      "args": tuple(_copy(a, {"span": span(a.span, d)}) for a in la.args),
                      "workgroup_dim_span": opt_span(la.workgroup_dim_span, d),
                      "thread_dim_span": opt_span(la.thread_dim_span, d),
                      "fields": tuple((n, span(sp, d)) for n, sp in la.fields),
                      "device_span": opt_span(la.device_span, d)})


def finding(f: Finding, d: int, lo: int, hi: int) -> Finding:
    """``f`` with the spans that lie inside ``[lo, hi]`` (the unit it was computed for)
    moved by ``d``; spans outside (a declaration elsewhere in the file, which the cache key
    pins to its place) stay as they are."""

    def mv(s: Span) -> Span:
        return span(s, d) if lo <= s.start and s.end <= hi else s

    changes: dict = {"span": mv(f.span)}
    if f.fixes:
        changes["fixes"] = tuple(Fix(x.title, tuple(Edit(mv(e.span), e.new_text) for e in x.edits)) for x in f.fixes)
    if f.related:
        changes["related"] = tuple(Related(mv(r.span), r.message) for r in f.related)
    return _copy(f, changes)
