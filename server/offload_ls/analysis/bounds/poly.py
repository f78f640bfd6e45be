"""Polynomials over symbols (values the same for every thread: sizes, counts, strides)
with integer coefficients, the arithmetic the bounds of index expressions are worked out in.
A :data:`Poly` maps a monomial (a sorted tuple of symbol keys, ``()`` for the constant term)
to its coefficient; :data:`UNKNOWN` is an expression the model does not cover.
"""

from __future__ import annotations

Poly = dict  # monomial (sorted tuple of symbol keys) -> integer coefficient


class _Unknown:
    """An expression outside what :class:`Bounds` models (``/``, ``%``, ``>>``, calls
    other than ``min`` / ``clamp`` / ``saturating_sub``)."""

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN = _Unknown()


def counts_elements(p: Poly) -> bool:
    """Is a row number's bound ``p`` a buffer's ``.len()`` (an element count, not a row
    count: ``x[nc * i + 2]`` under ``i < x.len()`` reads past the end for any ``nc``)?"""
    return any(sym.endswith(".len()") for m in p for sym in m)


def is_const(p: Poly) -> bool:
    return all(m == () for m, c in p.items() if c)


def add(a: Poly, b: Poly, k: int = 1) -> Poly:
    out = dict(a)
    for m, c in b.items():
        out[m] = out.get(m, 0) + k * c
    return {m: c for m, c in out.items() if c}


def sub(a: Poly, b: Poly) -> Poly:
    return add(a, b, -1)


def mul(a: Poly, b: Poly) -> Poly:
    out: Poly = {}
    for ma, ca in a.items():
        for mb, cb in b.items():
            m = tuple(sorted(ma + mb))
            out[m] = out.get(m, 0) + ca * cb
    return {m: c for m, c in out.items() if c}


def le_minus_one(p: Poly) -> bool:
    """``p <= -1`` for every value of its symbols that is at least 1 (they are sizes, counts
    and strides: ``row * n`` under ``row < rows`` is below ``rows * n`` for any ``n >= 1``)."""
    if not all(c <= 0 for m, c in p.items() if m != ()):
        return False
    return p.get((), 0) + sum(c for m, c in p.items() if m != ()) <= -1


def divide(p: Poly, mono: tuple) -> Poly | None:
    """``p / mono`` when every monomial of ``p`` holds ``mono``'s symbols, else ``None``."""
    out: Poly = {}
    for m, c in p.items():
        rest = list(m)
        for sym in mono:
            if sym not in rest:
                return None
            rest.remove(sym)
        out[tuple(rest)] = c
    return out



def combine(a, b, op):
    """``op(a, b)`` for polynomials; UNKNOWN wins over ``None`` (no bound), then ``None``."""
    if a is UNKNOWN or b is UNKNOWN:
        return UNKNOWN
    if a is None or b is None:
        return None
    return op(a, b)
