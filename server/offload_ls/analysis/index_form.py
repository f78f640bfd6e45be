"""An index expression as a polynomial over thread-index atoms and uniform symbols.

Atoms (analysis/ecosystems ``Index``): ``tid.x`` (thread within its block along x),
``bid.x`` (block), ``bdim.x`` (threads per block), ``gdim.x`` (blocks), ``gid.x``
(``bid.x * bdim.x + tid.x``, a position in the whole launch), and the linear ones
``lid`` (within the block), ``glin`` (the whole launch) and ``blin`` (the block). Values
the same for every thread (parameters, constants) are symbols named by their text.

``block_idx_x() * block_dim_x() + thread_idx_x()`` is ``{bid.x*bdim.x: 1, tid.x: 1}``;
``id.x`` of a rust-gpu ``#[spirv(global_invocation_id)] id: UVec3`` is ``{gid.x: 1}``.
Through immutable ``let``s, casts, parentheses and ``+ - *``; anything else is not a
form (``None``). Pure syntax; no I/O.
"""

from __future__ import annotations

from collections.abc import Callable

from tree_sitter import Node

from offload_ls.analysis.bounds.expressions import strip
from offload_ls.analysis.bounds.poly import add, mul, sub
from offload_ls.analysis.consts import int_literal
from offload_ls.analysis.ecosystems import Index, Profile, profiles
from offload_ls.analysis.flow.scopes import BindingKind
from offload_ls.analysis.flow.thread_flow import ThreadFlow
from offload_ls.syntax.parse import node_text

MAX_DEPTH = 48
_FIELDS = {"x": "x", "y": "y", "z": "z", "0": "x", "1": "y", "2": "z"}

Poly = dict


def atom(ix: Index, dim: str | None = None) -> str:
    """The atom name of an index meaning (``tid.x``, ``glin``)."""
    d = dim if dim is not None else ix.dim
    return f"{ix.kind}.{d}" if d else ix.kind


def _lookup(profile: Profile, name: str) -> Index | None:
    found = profile.index_of(name)
    if found is not None:
        return found
    for p in profiles().values():  # a name of another ecosystem used in this one
        found = p.index_of(name)
        if found is not None:
            return found
    return None


class IndexForms:
    """Index forms of the expressions of one function.

    Args:
        flow: the function's :class:`~offload_ls.analysis.flow.thread_flow.ThreadFlow`.
        profile: the kernel's ecosystem profile (what each thread-index name means).
        fold: value of a constant expression node, or ``None``.
        param_index: parameter name -> meaning, for thread-index parameters
            (rust-gpu ``#[spirv(global_invocation_id)] id``).
    """

    def __init__(self, flow: ThreadFlow, profile: Profile, fold: Callable[[Node], int | None],
                 param_index: dict[str, Index]) -> None:
        self.flow, self.profile, self.fold, self.param_index = flow, profile, fold, param_index

    def of(self, node: Node, depth: int = 0) -> Poly | None:
        """The polynomial form of index expression ``node`` (thread-index atoms, names and
        constants), or ``None`` when it has none."""
        if depth > MAX_DEPTH:
            return None
        node = strip(node)
        t = node.type
        if t == "integer_literal":
            v = int_literal(node_text(node))
            return None if v is None else ({(): v} if v else {})
        if t == "binary_expression":
            return self._binary(node, depth)
        vector = self.vector(node, depth)
        if vector is not None:
            return None  # a whole vector is not an index
        if t == "field_expression":
            form = self._vector_field(node, depth)
            if form is not None:
                return form
        ix = self.source(node)
        if ix is not None:
            return {(atom(ix),): 1} if ix.dim != "*" else None
        if t == "identifier":
            done, form = self._identifier(node, depth)
            if done:
                return form
        if self.fold is not None:
            v = self.fold(node)
            if v is not None:
                return {(): v} if v else {}
        if self.flow.depends(node):
            return None
        return {("".join(node_text(node).split()),): 1}

    def _binary(self, node: Node, depth: int) -> Poly | None:
        """The form of ``a + b``, ``a - b`` or ``a * b``, or ``None``."""
        op = node.child_by_field_name("operator")
        left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
        if op is None or left is None or right is None or op.type not in ("+", "-", "*"):
            return None
        a, b = self.of(left, depth + 1), self.of(right, depth + 1)
        if a is None or b is None:
            return None
        return {"+": add, "-": sub, "*": mul}[op.type](a, b)

    def _vector_field(self, node: Node, depth: int) -> Poly | None:
        """The form of one component of a vector thread index (``id.x``), or ``None``."""
        field = node.child_by_field_name("field")
        value = node.child_by_field_name("value")
        d = _FIELDS.get(node_text(field)) if field is not None else None
        if d is not None and value is not None:
            ix = self.vector(strip(value), depth + 1)
            if ix is not None:
                return {(atom(ix, d),): 1}
        return None

    def _identifier(self, node: Node, depth: int) -> tuple[bool, Poly | None]:
        """``(True, form)`` for a thread-index parameter or a ``let`` whose value gives the
        form, else ``(False, None)`` (the name is read as a constant or a name)."""
        name = node_text(node)
        b = self.flow.binding(node)
        if b is not None and b.kind == BindingKind.PARAM and name in self.param_index:
            pix = self.param_index[name]
            return True, ({(atom(pix),): 1} if pix.dim != "*" else None)
        if b is not None and b.kind == BindingKind.LET and b.value is not None and not b.mutable:
            return True, self.of(b.value, depth + 1)
        if b is not None and b.kind == BindingKind.LET and b.mutable:
            return self._mutable_let(node, b, depth)
        return False, None

    def _mutable_let(self, node: Node, b, depth: int) -> tuple[bool, Poly | None]:
        """``_identifier`` for a ``let mut``: ``(True, form)`` from its straight-line sum or
        its first value, else ``(False, None)``."""
        terms = self.flow.straight_sum(node, b)
        if terms is not None:  # `let mut at = m * w + n; at += batch * plane;`
            forms = [self.of(t, depth + 1) for t in terms]
            if any(f is None for f in forms):
                return True, None
            total: Poly = {}
            for f in forms:
                total = add(total, f)
            return True, total
        if self.flow.depends(node):
            if b.value is None or not self.flow.depends(b.value):
                return True, None  # `let mut idx = base; idx += POS;`: the position comes later
            return True, self.of(b.value, depth + 1)  # its first value (a grid-stride loop's start)
        return False, None

    def source(self, node: Node) -> Index | None:
        """The meaning of a thread-index call or constant (``_thread_idx_x()``,
        ``thread::index_1d()``, ``kernel.global_id()``, ``ABSOLUTE_POS``)."""
        if node.type == "call_expression":
            fn = node.child_by_field_name("function")
            if fn is None:
                return None
            if fn.type == "generic_function":
                fn = fn.child_by_field_name("function")
            if fn is not None and fn.type == "scoped_identifier":
                fn = fn.child_by_field_name("name")
            elif fn is not None and fn.type == "field_expression":
                fn = fn.child_by_field_name("field")
            return _lookup(self.profile, node_text(fn)) if fn is not None else None
        if node.type == "identifier" and node_text(node) in _const_names():
            return _lookup(self.profile, node_text(node))
        return None

    def vector(self, node: Node, depth: int = 0) -> Index | None:
        """The meaning of a vector-valued thread index (``dim == "*"``): a call
        (``thread::index_2d()``), a builtin parameter (``id: UVec3``), or a ``let`` of one."""
        if depth > MAX_DEPTH:
            return None
        ix = self.source(node)
        if ix is not None:
            return ix if ix.dim == "*" else None
        if node.type == "identifier":
            b = self.flow.binding(node)
            if b is None:
                return None
            if b.kind == BindingKind.PARAM:
                pix = self.param_index.get(node_text(node))
                return pix if pix is not None and pix.dim == "*" else None
            if b.kind == BindingKind.LET and b.value is not None and not b.mutable:
                return self.vector(strip(b.value), depth + 1)
        return None


def _const_names() -> frozenset[str]:
    return frozenset(n for p in profiles().values() for n in p.index_consts)


def uses(form: Poly, name: str) -> bool:
    """Does an atom (``tid.x``) or kind prefix occur in any monomial of ``form``?"""
    return any(name in m for m in form)
