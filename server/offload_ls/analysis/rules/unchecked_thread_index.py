"""unchecked_thread_index: device code indexes a buffer with a value computed from the
thread's position in the whole launch, and no guard bounds that index.

A launch usually covers a whole number of blocks, so ``grid * block`` exceeds the element
count whenever the count is not a multiple of the block size; the extra threads index past
the end. Safe indexing then panics (on the GPU: a trap that aborts the kernel); raw-pointer
arithmetic (``p.add(i)``, ``get_unchecked(i)``) reads or writes out of bounds.

An index is guarded when a guard on the way to it bounds *that* index expression
(analysis/bounds.py): by the buffer's length, a runtime bound (``i < n``), or a constant
not above the buffer's length (``lut: &mut [f32; 256]`` is not guarded by ``i < 1024``);
``x[i + 1]`` is guarded by ``i < n - 1`` but ``x[i + stride]`` is not by ``i < stride``; a
linearized ``row * w + col`` is guarded by ``row < h && col < w``; ``x[b + 1]`` and
``x[b + 2]`` are guarded by a guard on ``b = 3 * v`` (one 3-element record per thread, the
buffer holding whole records). Guards are enclosing
``if`` / ``while`` / match-arm conditions and ``&&`` / ``||`` operands, ``for`` ranges,
early exits (``if i >= n { return; }``, ``assert!(i < n)``, CubeCL ``terminate!()``), and
``if let Some(..) = x.get(i)``.

Never reported: ``.get(i)`` / ``.get_mut(i)``; indexes reduced with ``%``, ``&``,
``.min(..)`` or ``.clamp(..)``; an index computed only from the thread index within the
block, or only from the block index (one block per row: the launch has as many blocks as
rows); a thread-in-block index into a local array or block-shared memory (a tile sized by
the block); an index whose bound cannot be worked out (``i / 2``, ``i >> s``, a value
read from memory); kernels of a launch mode
that checks bounds itself (CubeCL ``#[cube(launch)]``: out-of-bounds reads give zero and
writes are dropped, cubecl-core ``checked_index_assign``) and their helpers.
"""

from __future__ import annotations

from collections.abc import Iterator

from tree_sitter import Node

from offload_ls.analysis.bounds import DIVISION_METHODS, Affine, Guard, affine, bounded, canon, guards_at
from offload_ls.analysis.consts import capture
from offload_ls.analysis.context import FileContext
from offload_ls.analysis.indexing import ThreadFlow, identifiers, method_name, named, strip
from offload_ls.analysis.model import Finding, Level, Span
from offload_ls.analysis.reads import Fact, Holds
from offload_ls.analysis.rules import Rule
from offload_ls.analysis.static_muts import StaticMuts
from offload_ls.analysis.std_names import THREAD_INDEX_HINTS, holds_any
from offload_ls.syntax.parse import identifier_nodes, node_text, parse_type

NAME = "unchecked_thread_index"

#: Methods / functions that bring an index into range.
_CLAMPS = ("min", "clamp", "rem_euclid", "rem", "wrapping_rem")


def check(ctx: FileContext) -> Iterator[Finding]:
    checked = ctx.facts.cube_checked
    helpers_checked = ctx.facts.all_cube_checked  # every kernel of the file is in checked mode
    seen: set[tuple[int, int]] = set()
    statics = None

    def fold(node: Node) -> int | None:
        expr = capture(node)
        return ctx.facts.fold(expr) if expr is not None else None

    for dfn in ctx.device_fns:
        if dfn.kernel is not None and dfn.kernel.fn_start in checked:
            continue
        if dfn.kernel is None and helpers_checked:
            continue  # a helper of CubeCL checked-mode kernels only
        if dfn.kernel is not None and _one_thread_blocks(ctx, dfn.kernel):
            continue  # `threads(1)`: each position is a block index (one block per element)
        text = ctx.source[dfn.span.start : dfn.span.end]
        if not holds_any(text, THREAD_INDEX_HINTS) and not any(n.encode() in text for n in ctx.facts.index_helpers):
            continue  # no thread index anywhere in the function: nothing derives from it
        body = ctx.node(dfn.body_span)
        fn = body.parent if body is not None else None
        if fn is None or fn.type != "function_item":
            continue
        profile = ctx.profile(dfn.kernel)
        flow = ThreadFlow(fn, index=ctx.flow_index(fn))

        def resolve(ident: Node, flow=flow) -> Node | None:
            b = flow.binding(ident)
            if b is not None and b.kind == "let" and not b.mutable and b.value is not None:
                return b.value
            if b is not None and b.kind == "let":
                return flow.reaching_value(ident, b)  # `iy = max(0, min(iy, h - 1));` before the use
            return None

        def sums(ident: Node, flow=flow) -> list[Node] | None:
            b = flow.binding(ident)
            return flow.straight_sum(ident, b) if b is not None and b.kind == "let" else None

        def definitions(ident: Node, flow=flow) -> list[Node] | None:
            """Every value identifier ``ident`` may hold: its ``let``'s, or for a ``mut`` one
            the value that decides it (:meth:`ThreadFlow.reaching_value`) or else the
            initializer and every plain assignment (``h = (h + 1) & mask`` in a probing
            loop); ``None`` when unknown (a compound assignment, another kind of binding)."""
            b = flow.binding(ident)
            if b is None or b.node.type != "let_declaration":
                return None
            reaching = flow.reaching_value(ident, b)  # `stop = min(stop, n);` after `let (start, mut stop)`
            if reaching is not None:
                return [reaching]
            if b.kind != "let" or b.value is None:
                return None
            if not b.mutable:
                return [b.value]
            values = [b.value]
            for rhs in flow.assignments(b.name):
                if rhs.parent is None or rhs.parent.type != "assignment_expression":
                    return None  # `h += 1`
                values.append(rhs)
            return values

        guard_memo: dict = {}  # the guards above each node of this function (analysis/bounds.py)
        implicit = _dispatch_guards(profile, text)
        holds = _guard_holds_at(flow)
        uses = _index_uses(flow)
        counts = _record_counts(uses, fold)
        for use, index, raw in uses:
            key = (index.start_byte, index.end_byte)
            if key in seen or _clamped(index, definitions):
                continue
            if not _launch_position(flow, index):
                continue  # within-block or block-only index: bounded by the launch's shape
            if statics is None:
                statics = StaticMuts.of(ctx)
            if _indexes_block_memory(use, flow, statics, profile):
                continue
            if fn.has_error and _in_error(flow, use, body):
                continue  # text that does not parse (an edit in progress): no reliable reading
            guards = guards_at(use, body, fold, profile.exits, ctx.source, guard_memo, flow.parent, resolve)
            guards = guards + implicit if implicit else guards
            length = _static_length(use, flow, fold, ctx.facts.resolve_type)

            def in_bounds(node: Node, guards=guards, length=length, use=use, flow=flow) -> bool:
                return bounded(node, guards, fold, resolve, length, flow.depends,
                               lambda n, flow=flow: _block_only(flow, n), _base(use), holds, counts, sums)

            end = False
            if strip(index).type == "range_expression":
                # `x[a..b]`: a slice, in bounds when `a` and `b` are at most the length
                failing = _range_outside(strip(index), guards, fold, use, in_bounds, definitions, resolve)
                if failing is None:
                    continue
                index, end = failing
            elif in_bounds(index):
                continue
            tvars = flow.thread_vars(index)
            if _built_up(flow, [b for _, b in tvars]):
                continue  # `off += pos / s % n * t` in a loop: its bound is not worked out
            seen.add(key)
            var = node_text(tvars[0][0]) if tvars else node_text(index)
            hint = _len_hint(use, index, raw, flow)
            if end:
                hint = hint.replace(" < ", " <= ", 1)  # a slice's end may equal the length
            weak = _weak_guard(index, guards, fold, holds, flow)
            yield Finding(rule=NAME, span=Span(index.start_byte, index.end_byte),
                          message=message(var, node_text(use), raw or profile.raw_indexing, hint, weak,
                                          _buffer_name(use), length,
                                          block=bool(tvars) and _block_only(flow, tvars[0][0])))


def _range_outside(rng: Node, guards, fold, use: Node, in_bounds, definitions, resolve) -> tuple[Node, bool] | None:
    """The bound of slice range ``rng`` (``a..b``, ``a..=b``, ``a..``, ``..b``) that may pass
    the buffer's length, with whether it is the range's end, or ``None`` when both are at most
    the length: below it (``in_bounds``), clamped (``b = min(a + 4, x.len())``), the length
    itself, or under a guard ``a <= x.len()`` (``if a > x.len() { return; }``)."""
    kids = [c for c in rng.children if not c.type.endswith("comment")]
    dots = next((i for i, c in enumerate(kids) if c.type in ("..", "..=")), None)
    if dots is None:
        return None
    start = next((c for c in kids[:dots] if c.is_named), None)
    stop = next((c for c in kids[dots + 1:] if c.is_named), None)
    inclusive = kids[dots].type == "..="
    keys = _length_keys(_base(use), resolve)
    for part, is_end in ((start, False), (stop, True)):
        if part is None or _clamped(part, definitions) or in_bounds(part):
            continue
        if not (is_end and inclusive) and _at_most_length(part, keys, guards, fold):
            continue
        return part, is_end
    return None


def _length_keys(base: Node | None, resolve) -> list[str]:
    """Guard keys of the sliced buffer's length: ``x.len()``, and through a ``let`` alias
    (``let data = &args.data;``) ``args.data.len()``."""
    out: list[str] = []
    node = strip(base) if base is not None else None
    for _ in range(4):
        if node is None:
            break
        out.append(f"{canon(node)}.len()")
        value = resolve(node) if node.type == "identifier" else None
        if value is None:
            break
        node = strip(value)
        if node.type == "reference_expression":
            inner = named(node)
            node = strip(inner[-1]) if inner else None
    return out


def _at_most_length(node: Node, length_keys: list[str], guards, fold) -> bool:
    """Is ``node`` the buffer's length (``x.len()``, ``length_keys``) or under a guard
    ``node <= y.len()`` (a length, trusted as a run-time bound ``i < n`` is)?"""
    e = affine(node, fold)
    if e.key in length_keys and e.off <= 0:
        return True
    return any(not g.lower and g.expr.key == e.key and g.bound.key.endswith(".len()")
               and g.bound.off - g.expr.off + e.off <= 1 for g in guards)


def _one_thread_blocks(ctx: FileContext, kernel) -> bool:
    """Does ``kernel`` declare blocks of one thread (rust-gpu ``#[spirv(compute(threads(1)))]``,
    ``threads(1, 1)``)? Then its launch-wide position is its block index (``global_invocation_id
    == workgroup_id``): no extra threads past the last element, as with one block per row."""
    dims = kernel.declared_dims
    if not dims:
        return False
    return all(ctx.facts.fold(d) == 1 for d in dims)


def _dispatch_guards(profile, text: bytes) -> list[Guard]:
    """Guards every index of a kernel is under because the runtime dispatches the index's
    range exactly: krnl's ``kernel.item_id() < kernel.items()`` (the profile's
    ``bounded_index_fns``), for a function whose text (``text``: UTF-8 bytes) calls one."""
    return [Guard(Affine(f"kernel.{name}()", 0), Affine(bound, 0), False, None, None, 0)
            for name, bound in profile.bounded_index_fns.items() if f".{name}()".encode() in text]


def _record_counts(uses: list[tuple[Node, Node, bool]], fold) -> frozenset[tuple[str, str]]:
    """(``"<buffer>.len()"``, variable) for every ``buffer[v]`` of the function indexed by a
    plain variable (analysis/bounds.py ``bounded``'s ``record_counts``)."""
    out = set()
    for use, index, _ in uses:
        if use.type != "index_expression":
            continue
        e = affine(index, fold)
        if e.key and e.off == 0 and strip(index).type in ("identifier", "field_expression"):
            out.add((f"{canon(named(use)[0])}.len()", e.key))
    return frozenset(out)


def _accumulated(flow: ThreadFlow, b) -> bool:
    """Is the variable of binding ``b`` built up with compound assignments from a start that
    is the same for every thread, or that a function computes from the position (``let mut
    off = 0; .. off += p / s % n * t``, ``let mut off = offset_of(POS, ..); off += ..``)?
    (One that starts from the position itself, ``let mut k = i; k += 100``, is followed as
    usual.)"""
    if not b.mutable or b.value is None:
        return False
    start = strip(b.value)
    if flow.depends(start) and start.type != "call_expression" and not _quotient(flow, start):
        return False
    return any(r.parent is not None and r.parent.type == "compound_assignment_expr" for r in flow.assignments(b.name))


def _quotient(flow: ThreadFlow, node: Node, depth: int = 0) -> bool:
    """Does ``node`` (immutable ``let``s followed) divide, reduce or shift the position
    (``let u = ABSOLUTE_POS / slice; let mut off = u * stride;``)? A start computed so is
    bounded by what the division leaves, which is not worked out (as ``/`` is not elsewhere)."""
    if depth > 8:
        return False
    node = strip(node)
    if node.type == "binary_expression":
        op = node.child_by_field_name("operator")
        if op is not None and op.type in ("/", "%", ">>"):
            return True
        return any(_quotient(flow, c, depth + 1) for c in named(node))
    if node.type == "call_expression":
        return method_name(node) in DIVISION_METHODS
    if node.type == "identifier":
        b = flow.binding(node)
        return b is not None and b.kind == "let" and not b.mutable and b.value is not None \
            and _quotient(flow, b.value, depth + 1)
    return False


def _built_up(flow: ThreadFlow, bindings: list, depth: int = 0) -> bool:
    """Does any of ``bindings``, or a variable their values are computed from, come from
    :func:`_accumulated` (``let index = indices[i] * s + offset_tensor;`` with
    ``offset_tensor`` built up in a loop)?"""
    if depth > 6:
        return False
    for b in bindings:
        if _accumulated(flow, b):
            return True
        if b.kind == "let" and b.value is not None and not b.mutable and \
                _built_up(flow, [bb for _, bb in flow.thread_vars(b.value)], depth + 1):
            return True
    return False


def _guard_holds_at(flow: ThreadFlow):
    """``holds(guard, node)``: does ``guard`` speak of the variables ``node`` uses? Not
    when a name in both is bound anew between them (``if i < n { let i = i + 100; x[i] }``)
    or a ``mut`` variable is assigned between the guard and the node
    (``if i < n { i += 100; x[i] }``; in ``while i < n { x[i] = ..; i += s; }`` the
    assignment comes after the use)."""

    def key(b) -> tuple | None:
        return (b.node.start_byte, b.node.end_byte, b.name) if b is not None else None

    def holds(guard, node: Node) -> bool:
        g = guard.expr_node
        if not guard.local or g is None:
            return True  # re-parsed `assert!` tokens: no bindings to compare
        in_guard = {}
        for ident in identifiers(g):
            in_guard.setdefault(node_text(ident), ident)
        if not in_guard:
            return True
        for ident in identifiers(node):
            name = node_text(ident)
            gi = in_guard.get(name)
            if gi is None or gi == ident:
                continue
            bn = flow.binding(ident)
            bg = flow.binding(gi)
            if bg is not None and bn is not None and key(bg) != key(bn):
                return False  # shadowed between the guard and the node
            if bn is not None and bn.mutable and any(g.end_byte <= r.start_byte < node.start_byte
                                                     for r in flow.assignments(name)):
                return False  # reassigned between the guard and the node
        return True

    return holds


def _in_error(flow: ThreadFlow, node: Node, body: Node) -> bool:
    """Does ``node`` lie in an ``ERROR`` node of the tree (below ``body``)?"""
    n = node
    while n is not None and n != body:
        if n.type == "ERROR" or n.is_missing:
            return True
        n = flow.parent(n)
    return False


def _weak_guard(index: Node, guards, fold, holds, flow: ThreadFlow) -> str | None:
    """The source text of a comparison that bounds ``index`` from above but not enough
    (``i < N`` for a buffer of ``M < N`` elements, ``i <= n``), else ``None``."""
    key = affine(index, fold).key
    found = _comparisons(guards, lambda g: g.expr.key == key, index, holds, flow)
    if found:
        return found[0]
    # checks on the variables the index is computed from (`x >= w || y >= h`, then `y * h + x`)
    tvars = flow.thread_vars(index)
    names = flow.roots([b for _, b in tvars])
    # and on the values they were bound to (`let idx = id.x as usize;` after `if id.x > n { return; }`)
    names |= {affine(b.value, fold).key for _, b in tvars if b.value is not None}
    found = _comparisons(guards, lambda g: g.expr.key in names, index, holds, flow)
    return "`, `".join(found[:3]) if found else None


def _comparisons(guards, wanted, index: Node, holds, flow: ThreadFlow) -> list[str]:
    """Source texts of the local upper-bound comparisons among ``guards`` that ``wanted``."""
    out: list[str] = []
    for g in guards:
        if g.lower or not g.local or g.expr_node is None or not wanted(g) or not holds(g, index):
            continue
        cond = flow.parent(g.expr_node)
        if cond is not None and cond.type == "binary_expression":
            op = cond.child_by_field_name("operator")
            text = " ".join(node_text(cond).split())
            if op is not None and op.type in ("<", "<=", ">", ">=", "==") and text not in out:
                out.append(text)
    return out


def message(var: str, use: str, raw: bool, guard: str, weak: str | None = None, buffer: str | None = None,
            length: int | None = None, block: bool = False) -> str:
    """The finding's text: ``var`` (thread-derived variable; ``block``: from the block index
    alone) used in ``use`` (source text); ``guard``: the suggested guard; ``weak``: the
    comparison that guards the index but not enough (``i < 4096``), with the indexed
    ``buffer``'s name and static ``length``."""
    source = "the block index" if block else "the thread index"
    if weak is not None:
        below = f"the length of `{buffer}`" if buffer else "the buffer's length"
        if length is not None:
            below += f" ({length} elements)"
        checks = "checks" if "`, `" in weak else "check"
        head = (f"`{var}` comes from {source} and is used in `{use}`, and the {checks} `{weak}` "
                f"{'do' if checks == 'checks' else 'does'} not keep it below {below}: when the launch covers "
                f"more threads than elements, the extra threads that pass the {checks} ")
    else:
        head = (f"`{var}` comes from {source} and is used in `{use}` without a bounds check: when "
                f"the launch covers more threads than elements (grid × block > len), the extra threads ")
    if raw:
        what = "read or write out of bounds without any check (undefined behavior)"
    else:
        what = "index past the end and the bounds check panics (on the GPU: a trap that aborts the kernel)"
    count = " (`n`: the element count, a kernel argument)" if guard.endswith(" < n { .. }") else ""
    return f"{head}{what}; guard it with `{guard}`{count} or return early when it is out of range"


def _len_hint(use: Node, index: Node, raw: bool, flow: ThreadFlow | None = None) -> str:
    """``if i < x.len() { .. }`` for an index into a named slice/array or an unchecked
    method on one (``x.get_unchecked(i)``), else ``if i < n { .. }`` (a raw pointer and a
    rust-gpu ``RuntimeArray`` have no length); a compound index is parenthesized
    (``(id.x as usize) < n``)."""
    var = node_text(index) if index.type == "identifier" else f"({node_text(index)})"
    base = None
    if not raw and use.type == "index_expression":
        base = named(use)[0]
    elif use.type == "call_expression":
        fn = use.child_by_field_name("function")
        field = fn.child_by_field_name("field") if fn is not None and fn.type == "field_expression" else None
        if field is not None and node_text(field) not in _POINTER_METHODS:
            base = fn.child_by_field_name("value")  # `s.get_unchecked(i)`, krnl `y.unsafe_index_mut(i)`
    if base is not None and base.type == "identifier" and flow is not None:
        b = flow.binding(base)
        if b is not None and b.type is not None and _has_no_len(node_text(b.type)):
            base = None  # a raw pointer, a rust-gpu `RuntimeArray`: no `.len()`
    if base is not None and base.type in ("identifier", "field_expression"):
        return f"if {var} < {node_text(base)}.len() {{ .. }}"
    return f"if {var} < n {{ .. }}"


def _has_no_len(type_text: str) -> bool:
    """A buffer type without a ``.len()``: a raw pointer, rust-gpu's ``RuntimeArray<T>``."""
    return type_text.startswith("*") or "RuntimeArray" in type_text


#: raw-pointer methods: the pointer has no length to compare with
_POINTER_METHODS = frozenset({"add", "offset", "sub", "wrapping_add", "wrapping_offset", "wrapping_sub",
                              "byte_add", "byte_offset"})


#: pointer methods that integers have too (``u32::wrapping_add``): an index use only when the
#: receiver is known to be a raw pointer
_INTEGER_TOO = frozenset({"wrapping_add", "wrapping_sub"})


def _pointer_receiver(flow: ThreadFlow, call: Node) -> bool:
    """Is the receiver of ``call`` a raw pointer: a parameter or ``let`` typed ``*const T`` /
    ``*mut T``, or a value made by ``as *mut ..``, ``.as_ptr()``, ``.as_mut_ptr()`` or
    another pointer method?"""
    fn = call.child_by_field_name("function")
    recv = strip(fn.child_by_field_name("value")) if fn is not None and fn.type == "field_expression" else None
    for _ in range(8):
        if recv is None:
            return False
        if recv.type == "call_expression":
            method = method_name(recv)
            if method in ("as_ptr", "as_mut_ptr", "cast", "cast_mut", "add", "offset", "byte_add"):
                return True
            if method not in _POINTER_METHODS:
                return False
            fn = recv.child_by_field_name("function")  # `a.wrapping_add(b).wrapping_add(c)`: look at `a`
            recv = strip(fn.child_by_field_name("value")) if fn is not None else None
            continue
        if recv.type == "type_cast_expression":
            t = recv.child_by_field_name("type")
            return t is not None and t.type == "pointer_type"
        if recv.type != "identifier":
            return False
        b = flow.binding(recv)
        if b is None:
            return False
        if b.type is not None:
            return b.type.type == "pointer_type"
        recv = strip(b.value) if b.value is not None and b.kind == "let" else None
    return False


def _index_uses(flow: ThreadFlow) -> list[tuple[Node, Node, bool]]:
    """(use, index expression, is_raw) for ``x[e]`` and ``p.add(e)`` / ``p.offset(e)`` /
    ``s.get_unchecked(e)`` / ``s.get_unchecked_mut(e)`` in the function, in document order."""
    out = []
    for n in flow.indexes:
        parts = named(n)
        if len(parts) == 2:
            out.append((n, parts[1], False))
    for n in flow.offset_calls:
        args = n.child_by_field_name("arguments")
        arg_list = named(args) if args is not None else []
        if len(arg_list) == 1 and (method_name(n) not in _INTEGER_TOO or _pointer_receiver(flow, n)):
            out.append((n, arg_list[0], True))
    out.sort(key=lambda u: u[1].start_byte)
    return out


def _launch_position(flow: ThreadFlow, index: Node) -> bool:
    """Does ``index`` depend on the thread's position in the whole launch: a launch-wide
    position (``index_1d()``, ``ABSOLUTE_POS``, ``global_invocation_id``) or a block index
    combined with a thread index (``block_idx * block_dim + thread_idx``)? An index from
    the block index alone (one block per row) or the thread index alone (bounded by the
    block size) does not grow with a rounded-up grid."""
    if flow.depends(index, "position"):
        return True
    return flow.depends(index, "global") and flow.depends(index, "local")


def _block_only(flow: ThreadFlow, node: Node) -> bool:
    """``node`` depends on the block index and on nothing else of the thread's position."""
    return flow.depends(node, "global") and not flow.depends(node, "local") and not flow.depends(node, "position")


def _base(use: Node) -> Node | None:
    """The buffer expression of an index use: ``x`` of ``x[i]``, ``p`` of ``p.add(i)``."""
    if use.type == "index_expression":
        return named(use)[0]
    fn = use.child_by_field_name("function")
    return fn.child_by_field_name("value") if fn is not None else None


def _buffer_name(use: Node) -> str | None:
    """How the message names the indexed buffer: its expression when it is a name or a
    field path (``x``, ``t.val``, ``self.out``), else the variable it starts from."""
    base = _base(use)
    node = strip(base) if base is not None else None
    while node is not None and node.type == "field_expression":
        node = node.child_by_field_name("value")
    if node is not None and node.type in ("identifier", "self"):
        return node_text(strip(base))
    ident = _base_ident(use)
    return node_text(ident) if ident is not None else None


def _base_ident(use: Node) -> Node | None:
    """The variable a buffer expression starts from (``x`` of ``(*x)[i]``, ``s.a[i]``)."""
    node = _base(use)
    depth = 0
    while node is not None and depth < 16:
        depth += 1
        node = strip(node)
        if node.type in ("identifier", "self"):
            return node
        if node.type in ("unary_expression", "reference_expression"):
            inner = named(node)
            node = inner[0] if inner else None
        elif node.type == "field_expression":
            node = node.child_by_field_name("value")
        elif node.type == "index_expression":
            node = named(node)[0]
        else:
            return None
    return None


def _indexes_block_memory(use: Node, flow: ThreadFlow, statics: StaticMuts, profile) -> bool:
    """Is the indexed buffer a local array, block-shared memory (a shared ``static mut``, a
    workgroup-memory parameter such as rust-gpu's ``#[spirv(workgroup)]``, a let bound to
    ``SharedMemory::new(..)`` / ``shared_array![..]``) rather than a global buffer?"""
    node = _base_ident(use)
    if node is None or node.type != "identifier":
        return False
    binding = flow.binding(node)
    if binding is None:
        name = node_text(node)
        for scope in statics.in_block.values():
            if name in scope and scope[name] in statics.shared_decls:
                return True
        return name in statics.shared
    if binding.kind in ("let", "pattern"):
        return _local_buffer(binding, profile)
    if binding.kind == "param":  # parameter attributes are the `attribute_item`s before it
        prev = binding.node.prev_named_sibling
        if prev is None or prev.type != "attribute_item":
            return False
        words = {node_text(n) for n in identifier_nodes(prev)}
        return bool(words & profile.shared_param_attrs)
    return False


def _local_buffer(binding, profile) -> bool:
    """A ``let`` that makes a local array (``[0.0; 256]``, ``let t: [f32; 16]``) or block
    memory (``SharedMemory::<F>::new(n)``, ``shared_array![f32; 256]``), not one that
    names a global buffer again (``let shared = tile as *mut [i32; 256];``)."""
    if binding.type is not None and binding.type.type == "array_type":
        return True
    value = strip(binding.value) if binding.value is not None else None
    if value is None:
        return False
    if value.type == "array_expression":
        return True
    if value.type == "macro_invocation":
        m = value.child_by_field_name("macro")
        return m is not None and node_text(m).rsplit("::", 1)[-1] in profile.shared_macros | {"shared_array"}
    if value.type == "call_expression":
        fn = value.child_by_field_name("function")
        if fn is not None and fn.type == "generic_function":
            fn = fn.child_by_field_name("function")
        text = node_text(fn) if fn is not None else ""
        return any(t in text for t in profile.shared_types)
    return False


def _static_length(use: Node, flow: ThreadFlow, fold, resolve_type=None) -> int | None:
    """The length of the indexed buffer when its type says (a parameter or ``let`` of type
    ``[T; N]`` / ``&[T; N]`` / ``&mut [T; N]``, ``N`` folded with the crate's constants; an
    alias of one followed with ``resolve_type``: ``&mut crate::Buf``)."""
    node = _base_ident(use)
    if node is None or node.type != "identifier":
        return None
    b = flow.binding(node)
    t = b.type if b is not None else None
    for _ in range(8):
        while t is not None and t.type in ("reference_type", "pointer_type"):
            t = t.child_by_field_name("type")
        if t is None or t.type not in ("type_identifier", "scoped_type_identifier") or resolve_type is None:
            break
        name = node_text(t).rsplit("::", 1)[-1].strip()
        target = resolve_type(name)
        if target == name:
            break
        t = parse_type(target)
    if t is None or t.type != "array_type":
        return None
    length = t.child_by_field_name("length")
    return fold(length) if length is not None else None


def _clamped(index: Node, definitions=None, depth: int = 0) -> bool:
    """``i % n``, ``i & mask``, ``i.min(n - 1)``, ``min(i, n)``, ``i.clamp(..)``, ``i.rem(n)``
    (``core::ops::Rem``, also on glam vectors: rust-gpu shaders), also through variables
    (``definitions``: an identifier -> every value it may hold, or ``None``) whose every
    value is so reduced or a literal: ``let idx = flat.min(len - 1); x[idx]``,
    ``let mut h = x & mask; loop { .. x[h] .. h = (h + 1) & mask; }``."""
    e = strip(index)
    if e.type == "integer_literal":
        return depth > 0  # `h = 0;` among a variable's values
    if e.type == "identifier" and definitions is not None and depth < 4:
        values = definitions(e)
        return bool(values) and all(_clamped(v, definitions, depth + 1) for v in values)
    if e.type == "binary_expression":
        op = e.child_by_field_name("operator")
        return op is not None and op.type in ("%", "&")
    if e.type == "call_expression":
        fn = e.child_by_field_name("function")
        if fn is None:
            return False
        if fn.type == "field_expression":
            field = fn.child_by_field_name("field")
            return field is not None and node_text(field) in _CLAMPS
        last = fn.child_by_field_name("name") if fn.type == "scoped_identifier" else fn
        return last is not None and node_text(last) == "min"
    return False


RULE = Rule(
    name=NAME,
    default_level=Level.WARN,
    summary="index computed from the thread index is used without a bounds check",
    check=check,
    reads=frozenset({Fact.SEMANTIC, Fact.CUBECL, Fact.DEVICE_CODE, Fact.HELPER_ECOSYSTEM,
                     Fact.INDEX_HELPERS, Fact.STATICS}),
    needs=Holds.DEVICE_FNS,
)
