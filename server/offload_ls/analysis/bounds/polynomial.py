"""Upper / lower bounds of expressions as polynomials (bounds/poly.py) over the symbols
(values the same for every thread) under a list of guards: guarded variables at their
largest value, immutable ``let``s followed, clamps (``min`` / ``clamp`` / ``saturating_sub``)
and ``if`` values worked out, quotients and remainders not (:data:`UNKNOWN`). Pure syntax;
no I/O.
"""

from __future__ import annotations

from tree_sitter import Node

from offload_ls.analysis.bounds.conditions import Guard, checked_axis_key, conditions
from offload_ls.analysis.bounds.expressions import (
    MAX_DEPTH,
    canon,
    constant,
    method_call,
    named,
    strip,
    sum_key,
    sum_terms,
)
from offload_ls.analysis.bounds.poly import UNKNOWN, Poly, add, combine, divide, is_const, mul, sub
from offload_ls.syntax.parse import node_text

#: Methods whose value is a quotient or a remainder of their receiver or argument (its bound,
#: like that of ``i / w`` and ``i % w``, is not worked out): CubeCL's ``FastDivmod::div_mod``
#: / ``div`` (burn-cubecl's index kernels), the integer ``div_euclid`` / ``checked_div`` /
#: ``wrapping_div``, and ``i.rem(n)`` (``core::ops::Rem``, also on glam vectors in rust-gpu shaders).
DIVISION_METHODS = frozenset({"div_mod", "div", "div_euclid", "checked_div", "wrapping_div", "div_ceil",
                              "rem", "rem_euclid", "wrapping_rem", "checked_rem"})



class Bounds:
    """Upper / lower bounds of expressions as polynomials over the symbols (values the
    same for every thread) under a list of guards."""

    def __init__(self, guards: list[Guard], fold, resolve, is_thread, holds_at=lambda g, n: True,
                 sums=None) -> None:
        self.guards, self.fold, self.resolve, self.is_thread = guards, fold, resolve, is_thread
        self.holds_at = holds_at
        #: the terms a ``mut`` variable built up with ``+=`` holds at a use, or ``None``
        #: (analysis/flow/thread_flow.py ``ThreadFlow.straight_sum``)
        self.sums = sums
        self.upper: dict[str, list[Guard]] = {}
        self.lower: dict[str, list[Guard]] = {}
        for g in guards:
            if g.expr.key:  # `i + TAPS <= LEN` bounds `i` too (its offset is taken off the bound)
                (self.lower if g.lower else self.upper).setdefault(g.expr.key, []).append(g)
        self._busy: set[str] = set()

    def extents(self) -> list[Poly]:
        """What an index may be proved below: each upper guard's bound (without its
        constant term when it has symbols: ``y < h - 1`` guards an interior row of an
        ``h``-row grid), and products of two or three of them (a linearized 2-D / 3-D
        index)."""
        bounds = []
        for g in self.guards:
            if g.lower:
                continue
            p = self.exact(g.bound_node) if g.bound_node is not None else {(g.bound.key,): 1} if g.bound.key else {}
            if not isinstance(p, dict):
                continue
            p = add(p, {(): g.adj}) if g.bound_node is not None else add(p, {(): g.bound.off})
            if not is_const(p):
                p = {m: c for m, c in p.items() if m != ()}  # `y < h - 1`: the extent is h rows
            bounds.append(p)
        out = list(bounds)
        for i in range(len(bounds)):
            for j in range(i + 1, len(bounds)):
                out.append(mul(bounds[i], bounds[j]))
                for k in range(j + 1, len(bounds)):
                    out.append(mul(mul(bounds[i], bounds[j]), bounds[k]))
        return out

    def exact(self, node: Node) -> Poly | None:
        """A uniform expression as a polynomial (symbols for what is not a constant)."""
        return self.of(node, 0)

    def of(self, node: Node, sign: int, depth: int = 0) -> Poly | None:
        """Largest (``sign`` 1), smallest (-1) or exact (0) value of ``node``; ``None``
        when not known (a thread-dependent value without a guard)."""
        if depth > MAX_DEPTH:
            return None
        node = strip(node)
        v = constant(node, self.fold)
        if v is not None:
            return {(): v} if v else {}
        t = node.type
        if t == "binary_expression":
            return self._of_operation(node, sign, depth)
        if t == "call_expression":
            found = self._of_call(node, sign, depth)
            if found is not False:
                return found
        if t == "field_expression" and self._field_of_call(node):
            return UNKNOWN
        key = checked_axis_key(node) or canon(node)
        if sign != 0:
            guarded = self._of_guarded(node, key, sign, depth)
            if guarded is not None:
                return guarded
        if t == "if_expression" and sign > 0:
            return self._if_value(node, depth)
        return self._of_value(node, key, sign, depth)

    def _of_operation(self, node: Node, sign: int, depth: int) -> Poly | None:
        """:meth:`of` a binary expression: sums and differences (or a guard on the sum as a
        whole), products (a constant factor flips the sign), anything else not worked out."""
        op = node.child_by_field_name("operator")
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if op is None or left is None or right is None:
            return None
        if op.type in ("+", "-"):
            found = combine(self.of(left, sign, depth + 1),
                            self.of(right, sign if op.type == "+" else -sign, depth + 1),
                            add if op.type == "+" else sub)
            if isinstance(found, dict) or sign == 0:
                return found
            whole = self.guarded(node, canon(node), sign, depth)  # `(kk + tx) < k` guards `kk + tx`
            if whole is None and sign > 0 and op.type == "+":
                whole = self._guarded_tail(node, depth)
            return whole if whole is not None else found
        if op.type == "*":
            lc, rc = constant(strip(left), self.fold), constant(strip(right), self.fold)
            if lc is not None or rc is not None:
                c, other = (lc, right) if lc is not None else (rc, left)
                p = self.of(other, sign if c >= 0 else -sign, depth + 1)
                return combine({(): c}, p, mul)
            if sign < 0:
                return {}  # both factors are non-negative indexes / sizes
            return combine(self.of(left, sign, depth + 1), self.of(right, sign, depth + 1), mul)
        return UNKNOWN

    def _of_call(self, node: Node, sign: int, depth: int):
        """:meth:`of` a call: a clamp (:meth:`_clamp_call`), ``wrapping_add`` /
        ``wrapping_mul``; :data:`UNKNOWN` for a quotient or remainder or a function of the
        position; ``False`` for any other call (a symbol, or a guarded value: :meth:`of`
        goes on)."""
        found = self._clamp_call(node, sign, depth)
        if found is not False:
            return found
        m = method_call(node)
        if m is not None and m[0] in DIVISION_METHODS:
            return UNKNOWN  # a quotient or remainder (CubeCL `FastDivmod::div_mod`): not worked out
        if m is not None and m[0] in ("wrapping_add", "wrapping_mul") and len(m[2]) == 1:
            # integer arithmetic spelled as methods (`_block_dim_x().wrapping_mul(_block_idx_x())
            # .wrapping_add(_thread_idx_x())`); an index never reaches the wrap
            a, b = self.of(m[1], sign, depth + 1), self.of(m[2][0], sign, depth + 1)
            if m[0] == "wrapping_add":
                return combine(a, b, add)
            return {} if sign < 0 else combine(a, b, mul)
        args = node.child_by_field_name("arguments")
        if args is not None and any(self.is_thread(a) for a in named(args)):
            # a function of the position (`layout.to_source_pos(ABSOLUTE_POS)`, a helper that
            # maps it into range): what it returns is not worked out
            return UNKNOWN
        return False

    def _of_guarded(self, node: Node, key: str, sign: int, depth: int) -> Poly | None:
        """The bound a guard on ``node`` (canonical text ``key``) gives; for a variable, its
        own value's bound when that is tighter. ``None`` when no guard holds."""
        guarded = self.guarded(node, key, sign, depth)
        if guarded is not None and sign > 0 and node.type == "identifier":
            # `c = row * w + col` under `c < w * h` AND `row < h - 1 && col < w - 1`:
            # the tighter of the guard's bound and the value's own (a stencil's
            # `c + w + 1` needs the per-axis one)
            value = self.resolve(node)
            own = self.of(value, sign, depth + 1) if value is not None else None
            if isinstance(own, dict) and all(c >= 0 for c in sub(guarded, own).values()):
                return own
        return guarded

    def _of_value(self, node: Node, key: str, sign: int, depth: int) -> Poly | None:
        """:meth:`of` an unguarded value: a variable's ``let`` value, a thread coordinate only a
        flat guard bounds (:meth:`_from_flat`), else a symbol for what is the same for every
        thread (:data:`UNKNOWN` for an expression the model does not cover)."""
        t = node.type
        thread = self.is_thread(node)
        if t == "identifier":
            value = self.resolve(node)
            found = self.of(value, sign, depth + 1) if value is not None else self._of_sum(node, sign, depth)
            if value is not None or found is not False:
                if thread or isinstance(found, dict):
                    return found
                # a uniform value the model cannot express (`(len + 1) / 2`): a symbol
        if thread:
            if sign > 0:
                return self._from_flat(node, key, depth)
            return {} if sign < 0 else None
        if t == "index_expression" and len(node.named_children) == 2 and \
                constant(strip(node.named_children[1]), self.fold) is not None:
            return {(key,): 1}  # `dims[0]`: an element of a uniform array, a symbol
        if t not in ("identifier", "field_expression", "self", "scoped_identifier", "call_expression"):
            return UNKNOWN
        return {(key,): 1}

    def _of_sum(self, node: Node, sign: int, depth: int):
        """:meth:`of` a ``mut`` variable built up with ``+=`` (``let mut c = i; c += f(i);``):
        the sum of its terms' bounds, as if written ``i + f(i)``; ``False`` when it is not
        such a variable."""
        terms = self.sums(node) if self.sums is not None else None
        if not terms:
            return False
        total = self.of(terms[0], sign, depth + 1)
        for term in terms[1:]:
            total = combine(total, self.of(term, sign, depth + 1), add)
        return total

    def _field_of_call(self, node: Node) -> bool:
        """A field of a value a call made from the position: ``p.y`` with ``let p =
        gid.xy().rem(size)`` (a glam vector reduced with a quotient or remainder method, rust-gpu
        shaders), ``s.cell`` with ``let s = grow(i)``: not worked out."""
        value = strip(node.child_by_field_name("value") or node)
        bound = self.resolve(value) if value.type == "identifier" else None
        call = strip(bound) if bound is not None else None
        if call is None or call.type != "call_expression":
            return False
        m = method_call(call)
        if m is not None and m[0] in DIVISION_METHODS | {"min", "clamp"}:
            return True  # (a component of a clamped vector: `(v + i).min(splat(len - 1)).x`)
        args = call.child_by_field_name("arguments")
        return args is not None and any(self.is_thread(a) for a in named(args))

    def _from_flat(self, node: Node, key: str, depth: int) -> Poly | None:
        """An upper bound of a thread coordinate that only a flat guard bounds: under
        ``y * w + x < w * h`` (``if index >= w * h { return; }`` with ``index = y * w + x``),
        ``y * w <= w * h - 1``, so ``y <= h - 1`` (every term is non-negative). ``None`` when
        no guard says so. (Rust-GPU's VulkanShaderExamples cloth shader: neighbours of a
        flat-guarded particle under per-axis guards.)"""
        for g in self.guards:
            if g.lower or g.expr_node is None or g.bound_node is None or not self.holds_at(g, node):
                continue
            whole = self._follow(g.expr_node, depth)
            for term in sum_terms(whole):
                if term.type != "binary_expression" or term.child_by_field_name("operator").type != "*":
                    continue
                a, b = strip(term.child_by_field_name("left")), strip(term.child_by_field_name("right"))
                other = b if canon(a) == key else a if canon(b) == key else None
                if other is None or self.is_thread(other):
                    continue
                stride = self.exact(other)
                bound = self.exact(g.bound_node)
                if not isinstance(stride, dict) or not isinstance(bound, dict) or len(stride) != 1:
                    continue
                (mono, coef), = stride.items()
                if coef != 1 or not mono:
                    continue
                top = add(bound, {(): g.adj})  # expr < bound + adj
                quotient = divide(top, mono)
                if quotient is not None:
                    return add(quotient, {(): -1})
        return None

    def _follow(self, node: Node, depth: int) -> Node:
        """``node`` with immutable ``let``s followed to their value (at most a few)."""
        for _ in range(4):
            node = strip(node)
            if node.type != "identifier":
                break
            value = self.resolve(node)
            if value is None:
                break
            node = value
        return strip(node)

    def _guarded_tail(self, node: Node, depth: int) -> Poly | None:
        """Largest value of a sum whose last terms a guard bounds as a group, written
        without their parentheses: ``row * k + kk + tx`` (parsed ``(row * k + kk) + tx``)
        under ``(kk + tx) < k``; ``None`` when no such guard holds."""
        terms = sum_terms(node)
        for j in range(1, len(terms) - 1):
            tail = self.guarded(node, sum_key(terms[j:]), 1, depth)
            if tail is None:
                continue
            head: Poly | None = {}
            for t in terms[:j]:
                head = combine(head, self.of(t, 1, depth + 1), add)
            if isinstance(head, dict):
                return add(head, tail)
        return None

    def guarded(self, node: Node, key, sign: int, depth: int) -> Poly | None:
        """The bound a guard on ``node`` itself gives (``(kk + tx) < k`` bounds ``kk + tx``),
        else ``None``."""
        found = self.lower.get(key) if sign < 0 else self.upper.get(key)
        if not found or key in self._busy:
            return None
        self._busy.add(key)
        try:
            for g in found:
                if not self.holds_at(g, node):
                    continue
                p = self.of(g.bound_node, sign, depth + 1) if g.bound_node is not None else \
                    ({(g.bound.key,): 1} if g.bound.key else {})
                if isinstance(p, dict):
                    adj = (g.adj if g.bound_node is not None else g.bound.off) - g.expr.off
                    return add(p, {(): adj - 1} if sign > 0 else {(): adj})
        finally:
            self._busy.discard(key)
        return None

    def _if_value(self, node: Node, depth: int):
        """Largest value of ``if c { a } else { b }``: each branch's value under the
        condition (or its negation), the larger one when they differ by a constant."""
        cond = node.child_by_field_name("condition")
        cons, alt = node.child_by_field_name("consequence"), node.child_by_field_name("alternative")
        if cond is None or cons is None or alt is None:
            return UNKNOWN
        values = []
        for branch, holds in ((cons, True), (alt, False)):
            block = branch if branch.type == "block" else next((c for c in named(branch) if c.type == "block"), None)
            tail = named(block)[-1] if block is not None and named(block) else None
            if tail is None or tail.type.endswith("_statement") or tail.type == "let_declaration":
                return UNKNOWN
            extra: list[Guard] = []
            conditions(cond, holds, self.fold, extra)
            branch = Bounds(self.guards + [g for g in extra if not g.ne], self.fold, self.resolve, self.is_thread,
                            sums=self.sums)
            values.append(branch.of(tail, 1, depth + 1))
        a, b = values
        if a is UNKNOWN or b is UNKNOWN:
            return UNKNOWN
        if a is None or b is None:
            return None
        d = sub(a, b)
        if is_const(d):
            return a if d.get((), 0) >= 0 else b
        return UNKNOWN

    def product(self, node: Node, depth: int) -> tuple[Node, Node] | None:
        node = strip(node)
        if node.type == "identifier":
            value = self.resolve(node)
            return self.product(value, depth + 1) if value is not None and depth < 8 else None
        if node.type != "binary_expression":
            return None
        op = node.child_by_field_name("operator")
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if op is None or op.type != "*" or left is None or right is None:
            return None
        return (right, left) if self.is_thread(right) and not self.is_thread(left) else (left, right)

    def _clamp_call(self, node: Node, sign: int, depth: int):
        """Bounds of ``a.min(b)`` / ``min(a, b)``, ``a.clamp(lo, hi)``,
        ``a.saturating_sub(b)``; ``False`` for any other call."""
        fn, args = node.child_by_field_name("function"), node.child_by_field_name("arguments")
        if fn is None or args is None:
            return False
        a = named(args)
        if fn.type == "field_expression":
            field, recv = fn.child_by_field_name("field"), fn.child_by_field_name("value")
            name = node_text(field) if field is not None else ""
            operands = [recv, *a] if recv is not None else a
        else:
            last = fn.child_by_field_name("name") if fn.type == "scoped_identifier" else fn
            name = node_text(last) if last is not None else ""
            operands = a
        if name == "min" and len(operands) == 2:
            if sign <= 0:
                return {} if sign < 0 else UNKNOWN
            for x in reversed(operands):  # the bound is usually the argument
                p = self.of(x, 1, depth + 1)
                if isinstance(p, dict):
                    return p
            return None
        if name == "clamp" and len(operands) == 3:
            return self.of(operands[2], sign, depth + 1) if sign > 0 else self.of(operands[1], sign, depth + 1)
        if name == "saturating_sub" and len(operands) == 2:
            return self.of(operands[0], 1, depth + 1) if sign > 0 else {}
        return False


