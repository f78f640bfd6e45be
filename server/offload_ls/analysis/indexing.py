"""Thread-index dataflow inside one function: which expressions depend on the GPU thread /
block index, which are provably the same for every thread, and which comparisons bound a
variable.

Sources of thread dependence (queries, not Python patterns):

- grammars/rust/thread_index.scm: index intrinsics (``core::arch::nvptx::_thread_idx_x``,
  ``_block_idx_x``, amdgpu ``workitem_id_x``, Rust-CUDA ``thread::index_1d``, krnl
  ``global_id``, CubeCL ``ABSOLUTE_POS`` ...);
- grammars/rust/thread_index_params.scm: rust-gpu parameters marked
  ``#[spirv(global_invocation_id)]`` and the other per-invocation builtins;
- grammars/rust/global_index.scm: the subset that differs between workgroups (block index,
  whole-grid position), as opposed to the thread index within a block.

Values flow through ``let`` bindings (also ``let`` inside ``unsafe { }``), arithmetic and
casts, and through plain assignments to a ``let mut`` variable anywhere in the function.
Closure parameters, loop variables and ``match`` / ``if let`` bindings have unknown
provenance: they are neither thread-dependent nor thread-independent here. Name
resolution is lexical and by name only (no macro expansion, no type information).

All nodes are tree-sitter nodes of one tree; nothing here reads or writes files.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from functools import cache

from tree_sitter import Node

from offload_ls.analysis.ecosystems import profiles
from offload_ls.syntax.parse import node_text
from offload_ls.syntax.queries import captures, captures_many, matches

#: Expression nodes that hold no binding of their own and pass their operands through.
_TRANSPARENT = {"parenthesized_expression", "type_cast_expression"}

_LITERALS = {"integer_literal", "float_literal", "boolean_literal", "char_literal"}

#: Deepest expression / binding chain followed before giving up (an answer of "not known"),
#: so that pathological code cannot exhaust Python's recursion limit.
MAX_DEPTH = 120


@dataclass(frozen=True)
class Binding:
    """Where a name used at some point of a function was bound.

    Attributes:
        name: the bound name.
        kind: ``"let"``, ``"param"`` (a parameter of the enclosing ``fn``),
            ``"closure_param"``, ``"loop"`` (a ``for`` pattern) or ``"pattern"`` (``match``
            arm, ``if let`` / ``while let``, or a ``let`` whose pattern is not a plain name).
        node: the ``let_declaration`` / ``parameter`` / ``closure_expression`` /
            ``for_expression`` / arm or condition that binds it.
        value: the ``let`` initializer (``None`` for other kinds or ``let x;``).
        type: the declared type node (``let x: T`` or ``x: T`` parameter), else ``None``.
        mutable: declared ``mut``.
    """

    name: str
    kind: str
    node: Node
    value: Node | None = None
    type: Node | None = None
    mutable: bool = False


def strip(expr: Node) -> Node:
    """``expr`` without surrounding parentheses and ``as`` casts (``((i as usize))`` -> ``i``)."""
    while expr.type in _TRANSPARENT:
        inner = expr.child_by_field_name("value") if expr.type == "type_cast_expression" else _first_named(expr)
        if inner is None:
            break
        expr = inner
    return expr


def _first_named(node: Node) -> Node | None:
    for c in node.named_children:
        if not c.type.endswith("comment"):
            return c
    return None


def named(node: Node) -> list[Node]:
    """Named children of ``node`` except comments."""
    return [c for c in node.named_children if not c.type.endswith("comment")]


def pattern_binds(pattern: Node, name: str) -> bool:
    """Does ``pattern`` (a let/param/closure/for/match pattern) bind ``name``?

    Identifiers naming a path, an enum variant (``Some`` in ``Some(v)``) or a struct field
    are not bindings."""
    stack = [pattern]
    while stack:
        n = stack.pop()
        if n.type == "identifier":
            parent = n.parent
            if parent is not None and (parent.type == "scoped_identifier"
                                       or n == parent.child_by_field_name("type")):
                continue  # a path or an enum variant (`Some` in `Some(v)`), not a binding
            if node_text(n) == name:
                return True
        elif n.type == "field_pattern":
            # `Point { x, y: z }`: shorthand `x` binds x; `y: z` binds z
            pat = n.child_by_field_name("pattern")
            if pat is not None:
                stack.append(pat)
            else:
                nm = n.child_by_field_name("name")
                if nm is not None and node_text(nm) == name:
                    return True
        else:
            stack.extend(n.named_children)
    return False


def method_name(call: Node | None) -> str:
    """``recv.name(..)`` -> ``name``, else "" (also for ``None`` or a node that is no call)."""
    fn = call.child_by_field_name("function") if call is not None and call.type == "call_expression" else None
    field = fn.child_by_field_name("field") if fn is not None and fn.type == "field_expression" else None
    return node_text(field) if field is not None else ""


def _let_binding(let: Node, name: str) -> Binding | None:
    pattern = let.child_by_field_name("pattern")
    if pattern is None or not pattern_binds(pattern, name):
        return None
    mutable = any(c.type == "mutable_specifier" for c in let.children)
    plain = pattern
    if plain.type == "mut_pattern":
        mutable = True
        plain = _first_named(plain) or plain
    kind = "let" if plain.type == "identifier" else "pattern"
    value = let.child_by_field_name("value")
    if plain.type == "tuple_pattern" and value is not None and strip(value).type == "tuple_expression":
        # `let (row, col) = (p / w, p % w);`: each name is bound to its own element
        elements = [c for c in strip(value).named_children if not c.type.endswith("comment")]
        parts = [c for c in plain.named_children if not c.type.endswith("comment")]
        if len(elements) == len(parts):
            for part, element in zip(parts, elements):
                inner = _first_named(part) if part.type == "mut_pattern" else part
                if inner is not None and inner.type == "identifier" and node_text(inner) == name:
                    return Binding(name, "let", let, element, None, mutable or part.type == "mut_pattern")
    if plain.type == "tuple_pattern" and value is not None and strip(value).type == "call_expression":
        # `let (q, r) = divisor.div_mod(p);` (CubeCL FastDivmod), `let (next, cell) = step(i, p);`:
        # each comes from that call (what it returns for the position is not worked out)
        return Binding(name, "let", let, value, None, mutable or _binds_mut(plain, name))
    return Binding(name, kind, let, value, let.child_by_field_name("type"), mutable or _binds_mut(plain, name))


def _binds_mut(pattern: Node, name: str) -> bool:
    """Does ``pattern`` bind ``name`` as ``mut`` inside it (``let (start, mut stop) = ..``)?"""
    stack = [pattern]
    while stack:
        n = stack.pop()
        if n.type == "mut_pattern" and pattern_binds(n, name):
            return True
        stack.extend(c for c in n.named_children if c.type in ("tuple_pattern", "mut_pattern", "slice_pattern",
                                                               "tuple_struct_pattern", "struct_pattern",
                                                               "field_pattern"))
    return False


class LetIndex:
    """The ``let`` declarations of one function by bound name, for fast lookups.

    Args:
        lets: ``let_declaration`` nodes of the function (not of nested functions; a
            closure body sees the function's lets, so closures' lets are included).
    """

    def __init__(self, lets: list[Node], parent: ParentMap | None = None) -> None:
        self._binders: dict = {}
        #: (binder's child key, name) -> the binding found from there outwards (find_binding)
        self.found: dict = {}
        self.parent = parent
        self._by_name: dict[str, list[tuple[Node, Node]]] = {}
        for n in lets:
            if n.parent is None or n.parent.type != "block":
                continue
            pattern = n.child_by_field_name("pattern")
            for name in pattern_names(pattern) if pattern is not None else ():
                self._by_name.setdefault(name, []).append((n, n.parent))

    def binders_above(self, at: Node) -> tuple:
        """:func:`binders_above` with this function's memo and parent map."""
        return binders_above(at, self._binders, self.parent)

    def nearest(self, name: str, at: Node) -> tuple[Node, Node] | None:
        """(let, its block) of the innermost, latest ``let`` binding ``name`` that is
        visible at ``at``: it ends before ``at`` and its block contains ``at``."""
        best = None
        for let, block in self._by_name.get(name, ()):
            if let.end_byte <= at.start_byte and block.start_byte <= at.start_byte and at.end_byte <= block.end_byte:
                if best is None or (block.start_byte, let.start_byte) > (best[1].start_byte, best[0].start_byte):
                    best = (let, block)
        return best


def pattern_names(pattern: Node) -> set[str]:
    """Every name a pattern binds (see :func:`pattern_binds`)."""
    names = set()
    stack = [pattern]
    while stack:
        n = stack.pop()
        if n.type in ("identifier", "shorthand_field_identifier"):
            text = node_text(n)
            if pattern_binds(pattern, text):
                names.add(text)
        stack.extend(n.children)
    return names


def find_binding(name: str, at: Node, lets: LetIndex | None = None) -> Binding | None:
    """The binding of ``name`` visible at ``at``, searching outwards to the enclosing ``fn``.

    Args:
        name: an identifier. at: any node of the tree (the use, or a launch site).
        lets: the :class:`LetIndex` of the enclosing function, to avoid scanning the
            statements before ``at`` in every enclosing block (same result, faster), and
            to remember, per (binder's child on the way, name), what was found above it:
            the lookups of one function then walk each binder once per name, however
            deeply the code nests.

    Returns ``None`` when the name is not bound inside the function (a constant, a static,
    an item, or a name the macro-free lexical search cannot see)."""
    nearest_let = lets.nearest(name, at) if lets is not None else None
    pairs = lets.binders_above(at) if lets is not None else _walk_up(at)
    memo = lets.found if lets is not None else None
    visited = []
    result = None
    for node, child in pairs:
        if memo is not None:
            key = (child.start_byte, child.end_byte, child.type, name)
            if key in memo:
                result = memo[key]
                break
            visited.append(key)
        done, b = _binds_here(node, child, name, nearest_let, lets)
        if done:
            result = b
            break
    if memo is not None:
        for key in visited:
            memo[key] = result
    return result


def _binds_here(node: Node, child: Node, name: str, nearest_let, lets) -> tuple[bool, Binding | None]:
    """Does binder ``node`` bind ``name`` for what lies below it through ``child``:
    (True, the binding), (True, None) at the function's boundary without a binding, or
    (False, None) to keep looking outwards."""
    t = node.type
    if t == "block":
        if lets is None:
            for stmt in reversed(_preceding(node, child)):
                if stmt.type == "let_declaration":
                    b = _let_binding(stmt, name)
                    if b is not None:
                        return True, b
        elif nearest_let is not None and nearest_let[1] == node:
            return True, _let_binding(nearest_let[0], name)
    elif t == "closure_expression" and child == node.child_by_field_name("body"):
        params = node.child_by_field_name("parameters")
        if params is not None and pattern_binds(params, name):
            return True, Binding(name, "closure_param", node)
    elif t == "for_expression" and child == node.child_by_field_name("body"):
        pattern = node.child_by_field_name("pattern")
        if pattern is not None and pattern_binds(pattern, name):
            return True, Binding(name, "loop", node)
    elif t == "match_arm":
        pattern = node.child_by_field_name("pattern")
        if pattern is not None and child != pattern and _match_pattern_binds(pattern, name):
            return True, Binding(name, "pattern", node)
    elif t in ("if_expression", "while_expression") and child != node.child_by_field_name("condition"):
        cond = node.child_by_field_name("condition")
        if cond is not None and _let_condition_binds(cond, name):
            return True, Binding(name, "pattern", cond)
    elif t == "function_item":
        params = node.child_by_field_name("parameters")
        if params is not None:
            for p in params.named_children:
                if p.type != "parameter":
                    continue
                pattern = p.child_by_field_name("pattern")
                if pattern is not None and pattern_binds(pattern, name):
                    mutable = pattern.type == "mut_pattern" or any(
                        c.type == "mutable_specifier" for c in p.children)
                    return True, Binding(name, "param", p, None, p.child_by_field_name("type"), mutable)
        return True, None
    return False, None


_LOOPS = ("for_expression", "while_expression", "loop_expression")

#: Iterator adapters that keep a range's first value first (``(a..b).step_by(s)``).
_RANGE_ADAPTERS = frozenset({"step_by", "into_iter", "take"})


def loop_start(loop: Node, name: str) -> Node | None:
    """The first value of the ``for`` loop ``loop``'s variable ``name`` when the loop walks a
    range upwards: ``a`` in ``for v in a..b``, ``for v in (a..=b).step_by(s)`` (the
    CUDA SDK's tile loops, grid-stride loops); ``None`` for other patterns and iterators
    (``.rev()``, ``0..n`` has the literal ``0``, which is returned). A loop variable
    that starts at a thread-derived value is itself thread-derived: every value it takes
    is that start plus a uniform step."""
    pattern, value = loop.child_by_field_name("pattern"), loop.child_by_field_name("value")
    if pattern is None or value is None or pattern.type != "identifier" or node_text(pattern) != name:
        return None
    v = strip(value)
    for _ in range(4):
        if v.type != "call_expression":
            break
        fn = v.child_by_field_name("function")
        field = fn.child_by_field_name("field") if fn is not None and fn.type == "field_expression" else None
        if field is None or node_text(field) not in _RANGE_ADAPTERS:
            return None
        v = strip(fn.child_by_field_name("value"))
    if v.type != "range_expression":
        return None
    first = v.child(0)
    return first if first is not None and first.is_named else None


class ParentMap:
    """Parents of the nodes of one function, found top-down once.

    tree-sitter keeps no parent pointers: ``Node.parent`` searches down from the root, so
    walking up from a node ``d`` levels deep costs O(d) per step and O(d**2) in all — a
    long expression chain (``a + b + .. + z``, as deep as it is long) made every walk up
    quadratic. Nodes outside the function fall back to ``Node.parent``."""

    def __init__(self, root: Node) -> None:
        self.root = root
        self._map: dict[int, Node] | None = None

    def __call__(self, node: Node) -> Node | None:
        if self._map is None:
            self._map = {}
            stack = [self.root]
            while stack:
                n = stack.pop()
                for c in n.children:
                    self._map[c.id] = n
                    stack.append(c)
        found = self._map.get(node.id)
        return found if found is not None else node.parent


#: Node types that can bind a name for what lies below them (find_binding).
_BINDERS = frozenset({"block", "closure_expression", "for_expression", "match_arm", "if_expression",
                      "while_expression", "function_item"})


def _walk_up(at: Node):
    """(ancestor, its child on the way) from ``at``'s parent up to the root."""
    child, node = at, at.parent
    while node is not None:
        yield node, child
        child, node = node, node.parent


def _key(node: Node) -> tuple[int, int, str]:
    return node.start_byte, node.end_byte, node.type


def binders_above(at: Node, memo: dict, parent=None):
    """The (binder, its child on the way) pairs from ``at``'s parent up to the enclosing
    ``function_item`` (inclusive), binders only (:data:`_BINDERS`), innermost first, as an
    iterable.

    ``memo`` (node key -> its pairs) is shared by the lookups of one function: a node's
    pairs are its parent's contribution plus its parent's pairs, so each node of the
    function is walked once however deep an expression nests (``a + b + .. + z`` is a
    chain as deep as it is long). The pairs are kept as a linked list (``(pair, rest)``
    cells, ``None`` at the end) that nodes share: memory stays linear in the nesting depth.
    ``parent``: how to go up (a :class:`ParentMap`)."""
    up = parent if parent is not None else (lambda n: n.parent)
    path = []
    node = at
    above = None
    while node is not None:
        k = _key(node)
        if k in memo:
            above = memo[k]
            break
        path.append(node)
        if node.type == "function_item":
            above = None
            memo[k] = above
            path.pop()
            break
        node = up(node)
    # path[-1]'s parent is `node` (memoized, a function item, or None)
    parent_node = node
    for n in reversed(path):
        if parent_node is not None and parent_node.type in _BINDERS:
            above = ((parent_node, n), above)
        memo[_key(n)] = above
        parent_node = n
    return _cells(memo.get(_key(at), above))


def _cells(cell):
    """The items of a linked list of ``(item, rest)`` cells."""
    while cell is not None:
        item, cell = cell
        yield item


def _preceding(block: Node, child: Node) -> list[Node]:
    """Statements of ``block`` that come before ``child`` (its ancestor in the block)."""
    out = []
    for c in block.named_children:
        if c.start_byte >= child.start_byte:
            break
        out.append(c)
    return out


def _match_pattern_binds(match_pattern: Node, name: str) -> bool:
    cond = match_pattern.child_by_field_name("condition")
    for c in match_pattern.named_children:
        if c == cond:
            continue
        if pattern_binds(c, name):
            return True
    return False


def _let_condition_binds(cond: Node, name: str) -> bool:
    stack = [cond]
    while stack:
        n = stack.pop()
        if n.type == "let_condition":
            pattern = n.child_by_field_name("pattern")
            if pattern is not None and pattern_binds(pattern, name):
                return True
        elif n.type in ("let_chain", "binary_expression", "parenthesized_expression"):
            stack.extend(n.named_children)
    return False


def _names_a_value(n: Node, parent: Node | None) -> bool:
    """Is identifier node ``n`` (whose parent is ``parent``) a use of a value: not a path
    segment after ``::``, not a macro name, not a closure parameter, not inside generic
    arguments?"""
    if parent is None:
        return True
    if parent.type in ("scoped_identifier", "macro_invocation", "closure_parameters", "type_arguments"):
        return False
    if parent.type == "parameter" and parent.parent is not None and parent.parent.type == "closure_parameters":
        return False
    return True


def identifiers(expr: Node) -> list[Node]:
    """Identifier nodes in ``expr`` that name a value (see :func:`_names_a_value`), in
    document order."""
    out = []
    stack: list[tuple[Node, Node | None]] = [(expr, None)]
    while stack:
        n, parent = stack.pop()
        if n.type == "identifier":
            if _names_a_value(n, parent if parent is not None else n.parent):
                out.append(n)
            continue
        if n.type in ("closure_parameters", "function_item", "type_arguments"):
            continue
        stack.extend((c, n) for c in n.named_children)
    out.sort(key=lambda n: n.start_byte)
    return out


def is_constant_name(name: str) -> bool:
    """``SCREAMING_CASE`` names (``N``, ``BLOCK_SIZE``, ``K2``): Rust constants and
    const generics by convention."""
    return any(ch.isalpha() for ch in name) and name == name.upper()


#: Which source kinds (analysis/ecosystems ``Index.kind``) each dependence kind follows:
#: ``all`` any thread index, ``global`` what differs between blocks, ``position`` a
#: position in the whole launch, ``local`` a position within the block.
_KINDS = {
    "all": frozenset({"tid", "bid", "gid", "lid", "glin", "blin"}),
    "global": frozenset({"bid", "gid", "glin", "blin"}),
    "position": frozenset({"gid", "glin"}),
    "local": frozenset({"tid", "lid"}),
}
#: the dependence kinds :meth:`ThreadFlow.depends` answers for
KINDS = tuple(_KINDS)


def index_names() -> frozenset[str]:
    """Every thread-index function / path function / constant name of the profiles."""
    return frozenset(_name_kinds())


def _kind(global_only: bool | str) -> str:
    """``global_only`` as a dependence kind: False -> "all", True -> "global", or a kind."""
    if global_only is True:
        return "global"
    if global_only is False:
        return "all"
    return global_only


@cache
def _name_kinds() -> dict[str, frozenset[str]]:
    """Thread-index name (function, path function or constant) -> the kinds it has in any
    ecosystem profile."""
    out: dict[str, set[str]] = {}
    for p in profiles().values():
        for table in (p.index_fns, p.index_path_fns, p.index_consts):
            for name, ix in table.items():
                out.setdefault(name, set()).add(ix.kind)
    return {k: frozenset(v) for k, v in out.items()}


@cache
def _param_kinds() -> dict[str, frozenset[str]]:
    """Parameter attribute word (rust-gpu ``global_invocation_id``) -> kinds."""
    out: dict[str, set[str]] = {}
    for p in profiles().values():
        for word, ix in p.index_params.items():
            out.setdefault(word, set()).add(ix.kind)
    return {k: frozenset(v) for k, v in out.items()}


def _source_name(node: Node) -> str:
    """The name of a thread-index source node (a call's function name, or a constant)."""
    if node.type == "call_expression":
        fn = node.child_by_field_name("function")
        if fn is not None and fn.type == "scoped_identifier":
            fn = fn.child_by_field_name("name")
        elif fn is not None and fn.type == "field_expression":
            fn = fn.child_by_field_name("field")
        return node_text(fn) if fn is not None else ""
    return node_text(node)


def _source_in_load(expr: Node, start: int, parent=None) -> bool:
    """Is the source starting at byte ``start`` inside the brackets of a load nested in
    ``expr`` (``zones[_thread_idx_x()]`` is data read at a thread-dependent place)?"""
    n = expr.descendant_for_byte_range(start, start)
    return n is not None and _inside_load(n, expr, parent)


def _inside_load(ident: Node, expr: Node, parent=None) -> bool:
    """Is ``ident`` inside the brackets of an ``index_expression`` nested in ``expr`` (the
    value read, ``zones[i]``, is data: it does not carry ``i``'s thread dependence)?"""
    up = parent if parent is not None else (lambda n: n.parent)
    child, n = ident, up(ident)
    while n is not None and child != expr:
        if n.type == "index_expression" and n.named_child_count == 2 and n.named_children[1] == child:
            return True
        if n.type == "arguments" and n.named_child_count and n.named_children[0] == child and \
                (_is_load_call(up(n)) or _is_pointer_read(up(n), expr, up)):
            return True  # `offsets.read(i)` (CubeCL), `x.get_unchecked(i)`, `*keys.add(i)`: data read at `i`
        if n.start_byte < expr.start_byte or n.end_byte > expr.end_byte:
            return False
        child, n = n, up(n)
    return False


#: Methods that read a buffer's element at their first argument (the value is data, as
#: ``x[i]``'s is): CubeCL ``Array::read``, slices' ``get`` / ``get_unchecked``, krnl
#: ``unsafe_index``.
LOAD_METHODS = frozenset({"read", "get", "get_unchecked", "unsafe_index"})


def _is_load_call(call: Node | None) -> bool:
    return method_name(call) in LOAD_METHODS


#: Pointer arithmetic to an element (core::ptr: ``p.add(k)`` is the place ``p[k]``).
POINTER_OFFSETS = frozenset({"add", "offset", "wrapping_add", "wrapping_offset"})
#: Methods that read the place a pointer points to (core::ptr).
_POINTER_READS = frozenset({"read", "read_volatile", "read_unaligned"})


def _is_pointer_read(call: Node | None, expr: Node, up) -> bool:
    """Is ``call`` pointer arithmetic whose place is read inside ``expr``: ``*keys.add(i)``,
    ``keys.add(i).read()`` (the value read is data, as ``keys[i]``'s is)? A write's place
    (``*p.add(i) = v``) is not a value: callers never ask about it."""
    if method_name(call) not in POINTER_OFFSETS:
        return False
    n = up(call)
    while n is not None and n.type == "parenthesized_expression":
        n = up(n)
    if n is None or n.start_byte < expr.start_byte or n.end_byte > expr.end_byte:
        return False
    if n.type == "unary_expression":
        return n.child(0) is not None and n.child(0).type == "*"
    if n.type == "field_expression":
        return method_name(up(n)) in _POINTER_READS
    return False


class FlowIndex:
    """The nodes of one function that :class:`ThreadFlow` reads, found once and shared by
    the flows built on the function (a kernel gets one per rule that follows its thread
    index).

    Args:
        fn: a ``function_item`` node.
        caps: the captures of dataflow.scm, thread_index.scm and global_index.scm on ``fn``
            (query file -> capture name -> nodes, syntax/queries.py ``captures_many``)
            when the caller already has them; run here otherwise.
    """

    def __init__(self, fn: Node, caps: dict[str, dict[str, list[Node]]] | None = None,
                 helpers: dict[str, frozenset[str]] | None = None) -> None:
        self.fn = fn
        if caps is None:
            caps = captures_many(("dataflow", "thread_index", "global_index"), fn)
        flow = caps["dataflow"]
        nested = [(n.start_byte, n.end_byte) for n in flow.get("fn", []) if n != fn]

        def own(key: str) -> list[Node]:
            nodes = flow.get(key, [])
            if not nested:
                return nodes
            return [n for n in nodes if not any(s <= n.start_byte and n.end_byte <= e for s, e in nested)]

        #: ``let`` declarations, assignments, exits (return / break / continue / ``?``),
        #: index expressions and ``p.add(i)``-style calls of this function, in document order.
        self.lets, self.writes, self.exits = own("let"), own("write"), own("exit")
        self.indexes, self.offset_calls = own("index"), own("offset_call")
        not_value = {n.id for n in flow.get("not_value", [])}
        self.idents = [n for n in own("ident") if n.id not in not_value]
        self.ident_starts = [n.start_byte for n in self.idents]
        kinds = _name_kinds()
        #: dependence kind -> (start, end) of the thread-index sources of that kind
        self.sources_by_kind: dict[str, list[tuple[int, int]]] = {k: [] for k in _KINDS}
        for n in caps["thread_index"].get("thread_index", []):
            nk = kinds.get(_source_name(n), frozenset())
            for k, wanted in _KINDS.items():
                if nk & wanted:
                    self.sources_by_kind[k].append((n.start_byte, n.end_byte))
        if helpers:
            self._helper_sources(fn, helpers)
        self.sources = self.sources_by_kind["all"]
        self.global_sources = self.sources_by_kind["global"]
        params = fn.child_by_field_name("parameters")
        #: dependence kind -> names of parameters that are thread-index builtins of that kind
        self.params_by_kind: dict[str, set[str]] = {k: set() for k in _KINDS}
        #: parameter name -> the attribute word that makes it a thread index
        self.param_words: dict[str, str] = {}
        if params is not None and b"spirv" in (params.text or b""):  # every pattern needs #[spirv(..)]
            pk = _param_kinds()
            for _, m in matches("thread_index_params", params):
                if "builtin" in m and "thread_index_param" in m:
                    self.param_words[node_text(m["thread_index_param"][0])] = node_text(m["builtin"][0])
                    nk = pk.get(node_text(m["builtin"][0]), frozenset())
                    for k, wanted in _KINDS.items():
                        if nk & wanted:
                            self.params_by_kind[k].add(node_text(m["thread_index_param"][0]))
        self.thread_params = self.params_by_kind["all"]
        self.global_params = self.params_by_kind["global"]
        self.assigned: dict[str, list[Node]] = {}
        for w in self.writes:
            left, right = w.child_by_field_name("left"), w.child_by_field_name("right")
            if left is not None and left.type == "identifier" and right is not None:
                self.assigned.setdefault(node_text(left), []).append(right)
        #: parents of the function's nodes (walking up without tree-sitter's O(depth) search)
        self.parent = ParentMap(fn)
        self.let_index = LetIndex(self.lets, self.parent)
        #: (start, end) of an identifier -> its binding (a pure function of the tree)
        self.binding_memo: dict[tuple[int, int], Binding | None] = {}


    def _helper_sources(self, fn: Node, helpers: dict[str, frozenset[str]]) -> None:
        """Calls of the file's position helpers (units.py ``position_kinds``: ``global_x()``)
        without arguments, as thread-index sources of the helper's kinds."""
        text = fn.text or b""
        names = [n for n in helpers if n.encode() in text]
        if not names:
            return
        for callee in captures("calls", fn).get("callee", []):
            name = node_text(callee)
            call = callee.parent if callee.parent is not None and callee.parent.type == "call_expression" \
                else callee.parent.parent if callee.parent is not None else None
            if name not in names or call is None or call.type != "call_expression":
                continue
            args = call.child_by_field_name("arguments")
            if args is not None and args.named_child_count:
                continue
            for k in helpers[name]:
                self.sources_by_kind[k].append((call.start_byte, call.end_byte))
        for k in self.sources_by_kind:
            self.sources_by_kind[k].sort()


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

    def is_source(self, node: Node, global_only: bool | str = False) -> bool:
        """Does ``node`` contain a thread-index intrinsic or constant (thread_index.scm),
        not inside the brackets of a load? ``global_only``: True for one that differs
        between blocks (block index, position in the launch), or a kind of
        :data:`_KINDS` (``"position"``: a position in the whole launch; ``"local"``: within
        the block)."""
        sources = self._sources_by_kind[_kind(global_only)]
        return any(node.start_byte <= s and e <= node.end_byte and not _source_in_load(node, s, self.parent)
                   for s, e in sources)

    def uses_block_index(self) -> bool:
        """Does the function read an index that differs between blocks anywhere (a block
        index, a position in the whole launch)? A kernel that does is written for a launch
        of many blocks."""
        return bool(self._sources_by_kind["global"] or self._params_by_kind["global"])

    def uses_index(self) -> bool:
        """Does the function read any thread index (an intrinsic, a builtin parameter it
        uses: a declared `#[spirv(global_invocation_id)] _id` never read does not count)?
        One that does not cannot tell its threads apart."""
        if self._sources_by_kind["all"]:
            return True
        params = self._params_by_kind["all"]
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
        loops = [n for n in ancestors.values() if n.type in _LOOPS
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
                if up.type in _LOOPS:
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

    def binding_depends(self, b: Binding, global_only: bool = False) -> bool:
        """Is the value bound by ``b`` derived from the thread index (with ``global_only``:
        from a block index or grid position, see :meth:`is_source`)?"""
        global_only = _kind(global_only)
        key = (b.node.start_byte, b.node.end_byte, b.name, global_only)
        if key in self._dep_memo:
            return self._dep_memo[key]
        self._dep_memo[key] = False  # cycle guard (`let i = i + 1;` refers to an outer i)
        result = False
        if b.kind == "param":
            names = self._params_by_kind[global_only]
            result = b.name in names and b.node.parent is not None and b.node.parent.parent == self.fn
        elif b.kind in ("let", "pattern") and b.node.type == "let_declaration":
            if b.value is not None and self.depends(b.value, global_only):
                result = True
            elif b.mutable and any(self.depends(r, global_only) for r in self._assigned.get(b.name, [])):
                result = True
        elif b.kind == "loop":
            start = loop_start(b.node, b.name)
            result = start is not None and self.depends(start, global_only)
        self._dep_memo[key] = result
        return result

    def depends(self, expr: Node, global_only: bool = False) -> bool:
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

    def thread_vars(self, expr: Node, global_only: bool = False) -> list[tuple[Node, Binding]]:
        """Identifiers in ``expr`` bound to thread-derived values, with their bindings.
        ``global_only``: see :meth:`is_source`."""
        out = []
        for ident in self.identifiers(expr):
            if _inside_load(ident, expr, self.parent):
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
            start = loop_start(b.node, b.name) if b.kind == "loop" else None
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
        if t in _LITERALS:
            return True
        if t in _TRANSPARENT:
            inner = strip(expr)
            return inner is not expr and self.uniform(inner)
        if t == "unary_expression":
            op = expr.child(0)
            operand = _first_named(expr)
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
            if b.kind == "param":
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
        if b is None or b.kind != "param" or b.name in self._params_by_kind["all"]:
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
        if b.kind == "let" and b.value is not None:
            reassigned = b.mutable and b.name in self._assigned
            result = not reassigned and self.uniform(b.value)
        elif b.kind == "param":
            own = b.node.parent is not None and b.node.parent.parent == self.fn
            result = self.uniform_params and own and b.name not in self._params_by_kind["all"]
        self._uni_memo[key] = result
        return result


# --------------------------------------------------------------------- bounds guards


def mentions(expr: Node, names: set[str]) -> bool:
    """Does ``expr`` use any identifier in ``names``?"""
    return any(node_text(i) in names for i in identifiers(expr))


def bounds(cond: Node, names: set[str], holds: bool, depth: int = 0) -> bool:
    """Does knowing that ``cond`` is ``holds`` (true in the ``if`` branch, false in the
    ``else`` branch or after ``if cond { return; }``) bound one of ``names`` from above?

    ``i < n``, ``i <= n``, ``n > i``, ``n >= i``, ``i == k`` and ``(a..b).contains(&i)``
    bound ``i`` when true; ``i >= n``, ``i > n``, ``n <= i``, ``n < i`` and ``i != k``
    when false. ``&&``, ``||``, ``!`` and parentheses combine as in logic. A condition
    nested deeper than :data:`MAX_DEPTH` bounds nothing."""
    if depth > MAX_DEPTH:
        return False
    depth += 1
    cond = strip(cond) if cond.type == "parenthesized_expression" else cond
    t = cond.type
    if t == "let_chain":
        parts = [c for c in named(cond)]
        if holds:
            return any(bounds(p, names, True, depth) for p in parts)
        return False
    if t == "unary_expression":
        op = cond.child(0)
        operand = _first_named(cond)
        if op is not None and op.type == "!" and operand is not None:
            return bounds(operand, names, not holds, depth)
        return False
    if t == "binary_expression":
        op_node = cond.child_by_field_name("operator")
        op = op_node.type if op_node is not None else ""
        left, right = cond.child_by_field_name("left"), cond.child_by_field_name("right")
        if left is None or right is None:
            return False
        if op == "&&":
            if holds:
                return bounds(left, names, True, depth) or bounds(right, names, True, depth)
            return bounds(left, names, False, depth) and bounds(right, names, False, depth)
        if op == "||":
            if holds:
                return bounds(left, names, True, depth) and bounds(right, names, True, depth)
            return bounds(left, names, False, depth) or bounds(right, names, False, depth)
        lm, rm = mentions(left, names), mentions(right, names)
        if holds:
            return (op in ("<", "<=") and lm) or (op in (">", ">=") and rm) or (op == "==" and (lm or rm))
        return (op in (">=", ">") and lm) or (op in ("<=", "<") and rm) or (op == "!=" and (lm or rm))
    if t == "call_expression" and holds:
        fn = cond.child_by_field_name("function")
        args = cond.child_by_field_name("arguments")
        if fn is not None and fn.type == "field_expression" and args is not None:
            field = fn.child_by_field_name("field")
            if field is not None and node_text(field) == "contains":
                return any(mentions(a, names) for a in named(args))
    return False


def diverges(block: Node | None) -> bool:
    """Does ``block`` always leave the enclosing code: a top-level ``return``, ``break``,
    ``continue``, or ``panic!`` / ``unreachable!`` statement?"""
    if block is None:
        return False
    if block.type in ("return_expression", "break_expression", "continue_expression"):
        return True
    if block.type == "else_clause":
        return any(diverges(c) for c in named(block))
    if block.type != "block":
        return False
    for stmt in named(block):
        inner = _first_named(stmt) if stmt.type == "expression_statement" else stmt
        if inner is None:
            continue
        if inner.type in ("return_expression", "break_expression", "continue_expression"):
            return True
        if inner.type == "macro_invocation":
            m = inner.child_by_field_name("macro")
            if m is not None and node_text(m) in ("panic", "unreachable", "core::panic", "core::unreachable"):
                return True
    return False
