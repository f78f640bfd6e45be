"""Which upper bounds hold for an index expression at a point of a function: the guards
on the way to it, and whether they bound *that* expression.

An index is bounded when a guard compares the same expression (up to casts, parentheses
and a constant offset) with a bound that is at most the buffer's length: ``x[i]`` under
``if i < n``; ``x[i + 1]`` under ``if i < n - 1``; a linearized index ``row * w + col`` under
``row < h && col < w`` (the stride is the bound of the inner index). ``x[i + stride]`` is
not bounded by ``i < stride``, nor ``lut[i]`` (256 entries) by ``i < 1024``.

Guards (:func:`guards_at`): the conditions of enclosing ``if`` / ``while`` / match-arm
guards / ``&&`` and ``||`` operands (or their negation on the ``else`` side), ``for v in
a..b`` loops (``v < b``), and earlier statements of enclosing blocks that leave unless a
condition holds (``if i >= n { return; }``, ``assert!(i < n)``, ``let Some(..) = x.get(i)
else { return }``, an ecosystem's exit macro such as CubeCL's ``terminate!()``).
``if let Some(v) = x.get(i)`` / ``x.get_mut(i)`` bounds ``i`` by ``x.len()``;
``(0..n).contains(&i)`` bounds ``i`` by ``n``.

Expressions are compared by a canonical text (:func:`canon`): identifiers, fields, calls,
literals and operators, without casts, parentheses and ``.get()`` / ``.into()``
conversions. Pure syntax; no I/O.

The package, by concept:

- bounds/expressions.py: canonical text and ``key + offset`` forms of expressions;
- bounds/conditions.py: the bounds a condition implies (:class:`Guard`);
- bounds/guards.py: the guards on the way to a use (:func:`guards_at`);
- bounds/poly.py and bounds/polynomial.py: polynomial upper / lower bounds of expressions;
- bounds/row_major.py: linearized row-major indexes;
- bounds/layouts.py: records, block tiles and host ranges;
- bounds/check.py: whether an index is bounded (:func:`bounded`);
- bounds/index_guards.py: the guards of an index beyond whether they bound it (a slice
  range's bounds, a guard that still holds at a use, too weak a comparison, dispatch guards).
"""

from offload_ls.analysis.bounds.check import bounded
from offload_ls.analysis.bounds.conditions import Guard
from offload_ls.analysis.bounds.expressions import Affine, affine, canon, strip
from offload_ls.analysis.bounds.guards import guards_at
from offload_ls.analysis.bounds.polynomial import DIVISION_METHODS

__all__ = ["DIVISION_METHODS", "Affine", "Guard", "affine", "bounded", "canon", "guards_at", "strip"]
