"""Thread-index dataflow inside one function: which expressions depend on the GPU thread /
block index (and on which kind of thread position), which are provably the same for every
thread, and which value a variable holds at a use.

Values flow through ``let`` bindings (also ``let`` inside ``unsafe { }``), arithmetic and
casts, and through plain assignments to a ``let mut`` variable anywhere in the function.
Closure parameters, loop variables and ``match`` / ``if let`` bindings have unknown
provenance: they are neither thread-dependent nor thread-independent here (a ``for`` loop
over a range that starts at a thread-derived value excepted: flow/scopes.py
``loop_start``). Names are resolved by flow/scopes.py; sources are found by flow/sources.py.

All nodes are tree-sitter nodes of one tree; nothing here reads or writes files.
"""

from __future__ import annotations

import bisect

from tree_sitter import Node

from offload_ls.analysis.flow.scopes import LOOPS, Binding, BindingKind, find_binding, loop_start
from offload_ls.analysis.flow.sources import DependenceKind, FlowIndex, inside_load, kind_of, source_in_load
from offload_ls.syntax.nodes import LITERALS, MAX_DEPTH, TRANSPARENT, first_named, is_constant_name, strip
from offload_ls.syntax.parse import node_text

# the members as module constants (an enum class's attribute lookup is slow in Python 3.11)
_ALL, _GLOBAL = DependenceKind.ALL, DependenceKind.GLOBAL


class ThreadFlow:
    """Thread-index facts for one function.

    Args:
        fn: a ``function_item`` node.
        uniform_params: treat the function's own parameters as the same for every GPU
            thread (true for a kernel: the host passes one value to the whole launch),
            except parameters that are themselves thread-index builtins.
        caps: see :class:`FlowIndex` (used when ``index`` is not given).
        index: the function's :class:`FlowIndex`, when the caller already has it.
    """

    def __init__(self, fn: Node, uniform_params: bool = False,
                 caps: dict[str, dict[str, list[Node]]] | None = None, index: FlowIndex | None = None) -> None:
        ix = index if index is not None else FlowIndex(fn, caps)
        self.fn = fn
        self.uniform_params = uniform_params
        self.lets, self.writes, self.exits = ix.lets, ix.writes, ix.exits
        self.indexes, self.offset_calls = ix.indexes, ix.offset_calls
        self._idents, self._ident_starts = ix.idents, ix.ident_starts
        self._sources_by_kind, self._params_by_kind = ix.sources_by_kind, ix.params_by_kind
        #: parameter name -> the attribute word that makes it a thread index
        self.param_words = ix.param_words
        self._assigned = ix.assigned
        self._let_index = ix.let_index
        #: parents of the function's nodes (:class:`ParentMap`)
        self.parent = ix.parent
        self._binding_memo = ix.binding_memo
        # answers that depend on the depth limit (MAX_DEPTH) are memoised per flow only
        self._dep_memo: dict[tuple[int, int, str, bool], bool] = {}
        self._uni_memo: dict[tuple[int, int, str], bool] = {}
        self._depth = 0

    def identifiers(self, expr: Node) -> list[Node]:
        """Value identifiers of this function inside ``expr`` (see :func:`identifiers`)."""
        lo = bisect.bisect_left(self._ident_starts, expr.start_byte)
        hi = bisect.bisect_left(self._ident_starts, expr.end_byte, lo)
        return [n for n in self._idents[lo:hi] if n.end_byte <= expr.end_byte]

    # ----------------------------------------------------------------- dependence

    def is_source(self, node: Node, global_only: bool | DependenceKind = False) -> bool:
        """Does ``node`` contain a thread-index intrinsic or constant (thread_index.scm),
        not inside the brackets of a load? ``global_only``: True for one that differs
        between blocks (block index, position in the launch), or a kind of
        :class:`DependenceKind` (``POSITION``: a position in the whole launch; ``LOCAL``:
        within the block)."""
        sources = self._sources_by_kind[kind_of(global_only)]
        return any(node.start_byte <= s and e <= node.end_byte and not source_in_load(node, s, self.parent)
                   for s, e in sources)

    def uses_block_index(self) -> bool:
        """Does the function read an index that differs between blocks anywhere (a block
        index, a position in the whole launch)? A kernel that does is written for a launch
        of many blocks."""
        return bool(self._sources_by_kind[_GLOBAL] or self._params_by_kind[_GLOBAL])

    def uses_index(self) -> bool:
        """Does the function read any thread index (an intrinsic, a builtin parameter it
        uses: a declared `#[spirv(global_invocation_id)] _id` never read does not count)?
        One that does not cannot tell its threads apart."""
        if self._sources_by_kind[_ALL]:
            return True
        params = self._params_by_kind[_ALL]
        return bool(params) and any(node_text(n) in params and (n.parent is None or n.parent.type != "parameter")
                                    for n in self._idents)

    def assignments(self, name: str) -> list[Node]:
        """Right-hand sides of the assignments (``=``, ``+=``, ..) to the plain variable
        ``name`` in this function, in document order."""
        return self._assigned.get(name, [])

    def reaching_value(self, ident: Node, b: Binding) -> Node | None:
        """The value the ``mut`` variable of binding ``b`` holds at identifier ``ident`` when
        one plain assignment decides it on every path: the last ``name = value;`` before
        ``ident`` that is a statement of a block enclosing ``ident``, with no other
        assignment to the name between the two, nor after ``ident`` inside a loop that
        encloses ``ident`` but not the assignment (that one would reach ``ident`` on the
        next iteration). ``let mut iy = y + ky; iy = max(0, min(iy, h - 1)); x[iy * w]``
        -> the clamp. ``None`` when no such assignment exists."""
        if not b.mutable:
            return None
        writes = self._writes_after(b)
        ancestors = self._ancestors(ident)
        chosen = None
        for w in writes:
            if w.type == "assignment_expression" and w.end_byte <= ident.start_byte and \
                    self._statement_block(w, ancestors) is not None and \
                    (chosen is None or w.start_byte > chosen.start_byte):
                chosen = w
        if chosen is None:
            return None
        loops = [n for n in ancestors.values() if n.type in LOOPS
                 and not (n.start_byte <= chosen.start_byte and chosen.end_byte <= n.end_byte)]
        for w in writes:
            if w.start_byte <= chosen.start_byte:
                continue
            if w.start_byte < ident.start_byte:
                return None  # assigned again between the two
            if any(lp.start_byte <= w.start_byte and w.end_byte <= lp.end_byte for lp in loops):
                return None
        return chosen.child_by_field_name("right")

    def straight_sum(self, ident: Node, b: Binding) -> list[Node] | None:
        """The terms whose sum the ``mut`` variable of ``let`` binding ``b`` holds at
        identifier ``ident`` when its only assignments are ``+=`` statements between the
        ``let`` and ``ident``, each run once on the way (a statement of a block enclosing
        ``ident``, in no loop that leaves the ``let`` out): ``let mut at = m * n_cols + n;
        at += batch * plane;`` -> ``[m * n_cols + n, batch * plane]``; ``None`` otherwise
        (a grid-stride loop's ``i += stride``, a plain ``=``, an assignment after ``ident``)."""
        if not b.mutable or b.value is None or b.node.type != "let_declaration":
            return None
        writes = self._writes_after(b)
        if not writes:
            return None
        ancestors = self._ancestors(ident)
        for w in writes:
            op = w.child_by_field_name("operator") if w.type == "compound_assignment_expr" else None
            block = self._statement_block(w, ancestors)
            if op is None or op.type != "+=" or w.end_byte > ident.start_byte or block is None:
                return None
            up = self.parent(block)
            while up is not None and up != self.fn and not (up.start_byte <= b.node.start_byte <= up.end_byte):
                if up.type in LOOPS:
                    return None
                up = self.parent(up)
        return [b.value, *(w.child_by_field_name("right") for w in writes)]

    def _writes_after(self, b: Binding) -> list[Node]:
        """The assignments (``=``, ``+=``, ..) to ``b``'s name after its ``let``."""
        return [r.parent for r in self._assigned.get(b.name, [])
                if r.parent is not None and r.parent.start_byte > b.node.start_byte]

    def _ancestors(self, node: Node) -> dict[tuple[int, int, str], Node]:
        """The nodes enclosing ``node`` inside this function, innermost first, by (start,
        end, type)."""
        out: dict[tuple[int, int, str], Node] = {}
        up = self.parent(node)
        while up is not None and up != self.fn:
            out[(up.start_byte, up.end_byte, up.type)] = up
            up = self.parent(up)
        return out

    def _statement_block(self, write: Node, ancestors: dict) -> Node | None:
        """The block of which assignment ``write`` is a statement, when that block is one of
        ``ancestors`` (:meth:`_ancestors`): the assignment runs on every way to the node
        they enclose. ``None`` otherwise (a branch, a closure, an expression's part)."""
        stmt = self.parent(write)
        block = self.parent(stmt) if stmt is not None and stmt.type == "expression_statement" else None
        return block if block is not None and (block.start_byte, block.end_byte, block.type) in ancestors else None

    def binding(self, ident: Node) -> Binding | None:
        """Binding of identifier node ``ident`` of this function (see :func:`find_binding`)."""
        key = (ident.start_byte, ident.end_byte)
        if key not in self._binding_memo:
            self._binding_memo[key] = find_binding(node_text(ident), ident, self._let_index)
        return self._binding_memo[key]

    def binding_depends(self, b: Binding, global_only: bool | DependenceKind = False) -> bool:
        """Is the value bound by ``b`` derived from the thread index (with ``global_only``:
        from a block index or grid position, see :meth:`is_source`)?"""
        global_only = kind_of(global_only)
        key = (b.node.start_byte, b.node.end_byte, b.name, global_only)
        if key in self._dep_memo:
            return self._dep_memo[key]
        self._dep_memo[key] = False  # cycle guard (`let i = i + 1;` refers to an outer i)
        result = False
        if b.kind == BindingKind.PARAM:
            names = self._params_by_kind[global_only]
            result = b.name in names and b.node.parent is not None and b.node.parent.parent == self.fn
        elif b.kind in (BindingKind.LET, BindingKind.PATTERN) and b.node.type == "let_declaration":
            if b.value is not None and self.depends(b.value, global_only):
                result = True
            elif b.mutable and any(self.depends(r, global_only) for r in self._assigned.get(b.name, [])):
                result = True
        elif b.kind == BindingKind.LOOP:
            start = loop_start(b.node, b.name)
            result = start is not None and self.depends(start, global_only)
        self._dep_memo[key] = result
        return result

    def depends(self, expr: Node, global_only: bool | DependenceKind = False) -> bool:
        """Does ``expr``'s value depend on the thread / block index (directly, or through
        variables bound in this function)? ``global_only``: see :meth:`is_source`.
        Past :data:`MAX_DEPTH` nested bindings the answer is ``False`` (not known)."""
        if self.is_source(expr, global_only):
            return True
        if self._depth > MAX_DEPTH:
            return False
        self._depth += 1
        try:
            return bool(self.thread_vars(expr, global_only))
        finally:
            self._depth -= 1

    def thread_vars(self, expr: Node, global_only: bool | DependenceKind = False) -> list[tuple[Node, Binding]]:
        """Identifiers in ``expr`` bound to thread-derived values, with their bindings.
        ``global_only``: see :meth:`is_source`."""
        out = []
        for ident in self.identifiers(expr):
            if inside_load(ident, expr, self.parent):
                continue  # `table[i]` is data read at a thread-dependent place, not an index
            b = self.binding(ident)
            if b is not None and self.binding_depends(b, global_only):
                out.append((ident, b))
        return out

    def roots(self, bindings: list[Binding]) -> set[str]:
        """Names of ``bindings`` and of every thread-derived variable their values are
        computed from (``let j = i * 2`` -> ``{"j", "i"}``), for guard checks."""
        names: set[str] = set()
        todo = list(bindings)
        seen: set[tuple[int, int, str]] = set()
        while todo:
            b = todo.pop()
            key = (b.node.start_byte, b.node.end_byte, b.name)
            if key in seen:
                continue
            seen.add(key)
            names.add(b.name)
            values = [b.value] if b.value is not None else []
            values += self._assigned.get(b.name, []) if b.mutable else []
            start = loop_start(b.node, b.name) if b.kind == BindingKind.LOOP else None
            values += [start] if start is not None else []
            for v in values:
                todo.extend(bb for _, bb in self.thread_vars(v))
        return names

    # ----------------------------------------------------------------- uniformity

    def uniform(self, expr: Node) -> bool:
        """Is ``expr`` provably the same for every GPU thread? True for literals,
        ``SCREAMING_CASE`` constants (``N``, ``Self::LEN``, ``u32::MAX``), immutable (or
        never reassigned) ``let`` variables initialised with such values, the kernel's own
        parameters when ``uniform_params`` (and the fields of those passed as ``&T``:
        ``push.n`` of rust-gpu push constants), and arithmetic / casts / parentheses of these.
        Anything else (calls, memory reads, closure/loop variables) is not provable, nor is
        an expression nested deeper than :data:`MAX_DEPTH`."""
        if self._depth > MAX_DEPTH or self.is_source(expr):
            return False
        self._depth += 1
        try:
            return self._uniform(expr)
        finally:
            self._depth -= 1

    def _uniform(self, expr: Node) -> bool:
        t = expr.type
        if t in LITERALS:
            return True
        if t in TRANSPARENT:
            inner = strip(expr)
            return inner is not expr and self.uniform(inner)
        if t == "unary_expression":
            op = expr.child(0)
            operand = first_named(expr)
            if op is not None and op.type == "*" and operand is not None:
                return self._shared_ref_param(operand)
            return op is not None and op.type in ("-", "!") and operand is not None and self.uniform(operand)
        if t == "binary_expression":
            left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
            return left is not None and right is not None and self.uniform(left) and self.uniform(right)
        if t == "scoped_identifier":
            name = expr.child_by_field_name("name")
            return name is not None and is_constant_name(node_text(name))
        if t == "identifier":
            b = self.binding(expr)
            if b is None:
                return is_constant_name(node_text(expr))
            return self._binding_uniform(b)
        if t == "field_expression":
            # `push.accumulate` of a `&Params` (rust-gpu push constants) or by-value parameter,
            # or of a uniform `let`: one value for every thread
            value = strip(expr.child_by_field_name("value") or expr)
            if value.type == "field_expression":
                return self.uniform(value)
            if value.type != "identifier":
                return False
            b = self.binding(value)
            if b is None:
                return False
            if b.kind == BindingKind.PARAM:
                # only through `&T`: a by-value parameter may be a builtin position an ecosystem
                # passes (krnl `#[builtin] global_id: UVec3`), and `&mut T` fields other threads write
                return self._shared_ref_param(value)
            return self._binding_uniform(b)
        return False

    def _shared_ref_param(self, operand: Node) -> bool:
        """``*n`` with ``n: &usize`` one of the kernel's own parameters (``uniform_params``):
        every thread reads the one value the host passed (``&T`` is read-only and
        ``noalias``)."""
        if operand.type != "identifier" or not self.uniform_params:
            return False
        b = self.binding(operand)
        if b is None or b.kind != BindingKind.PARAM or b.name in self._params_by_kind[_ALL]:
            return False
        param = b.node
        if param.parent is None or param.parent.parent != self.fn:
            return False
        ty = param.child_by_field_name("type")
        return (ty is not None and ty.type == "reference_type"
                and not any(c.type == "mutable_specifier" for c in ty.children))

    def _binding_uniform(self, b: Binding) -> bool:
        key = (b.node.start_byte, b.node.end_byte, b.name)
        if key in self._uni_memo:
            return self._uni_memo[key]
        self._uni_memo[key] = False  # cycle guard
        result = False
        if b.kind == BindingKind.LET and b.value is not None:
            reassigned = b.mutable and b.name in self._assigned
            result = not reassigned and self.uniform(b.value)
        elif b.kind == BindingKind.PARAM:
            own = b.node.parent is not None and b.node.parent.parent == self.fn
            result = self.uniform_params and own and b.name not in self._params_by_kind[_ALL]
        self._uni_memo[key] = result
        return result
