"""Name resolution inside one function: which ``let``, parameter, closure parameter, loop
variable or pattern binds a name used at some point, searching outwards through block
scopes, closures, loops, match arms and ``if let`` / ``while let`` conditions.

Resolution is lexical and by name only (no macro expansion, no type information). All nodes
are tree-sitter nodes of one tree; nothing here reads or writes files.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from tree_sitter import Node

from offload_ls.syntax.nodes import ParentMap, first_named, strip
from offload_ls.syntax.parse import node_text


class BindingKind(enum.StrEnum):
    """How a name was bound (:attr:`Binding.kind`); compares equal to its value (``"let"``)."""

    LET = "let"
    PARAM = "param"
    CLOSURE_PARAM = "closure_param"
    LOOP = "loop"
    PATTERN = "pattern"


# the members as module constants (an enum class's attribute lookup is slow in Python 3.11)
_LET, _PARAM, _CLOSURE_PARAM, _LOOP, _PATTERN = (BindingKind.LET, BindingKind.PARAM, BindingKind.CLOSURE_PARAM,
                                                 BindingKind.LOOP, BindingKind.PATTERN)


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
    kind: BindingKind
    node: Node
    value: Node | None = None
    type: Node | None = None
    mutable: bool = False



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



def _let_binding(let: Node, name: str) -> Binding | None:
    pattern = let.child_by_field_name("pattern")
    if pattern is None or not pattern_binds(pattern, name):
        return None
    mutable = any(c.type == "mutable_specifier" for c in let.children)
    plain = pattern
    if plain.type == "mut_pattern":
        mutable = True
        plain = first_named(plain) or plain
    kind = _LET if plain.type == "identifier" else _PATTERN
    value = let.child_by_field_name("value")
    if plain.type == "tuple_pattern" and value is not None and strip(value).type == "tuple_expression":
        # `let (row, col) = (p / w, p % w);`: each name is bound to its own element
        elements = [c for c in strip(value).named_children if not c.type.endswith("comment")]
        parts = [c for c in plain.named_children if not c.type.endswith("comment")]
        if len(elements) == len(parts):
            for part, element in zip(parts, elements):
                inner = first_named(part) if part.type == "mut_pattern" else part
                if inner is not None and inner.type == "identifier" and node_text(inner) == name:
                    return Binding(name, _LET, let, element, None, mutable or part.type == "mut_pattern")
    if plain.type == "tuple_pattern" and value is not None and strip(value).type == "call_expression":
        # `let (q, r) = divisor.div_mod(p);` (CubeCL FastDivmod), `let (next, cell) = step(i, p);`:
        # each comes from that call (what it returns for the position is not worked out)
        return Binding(name, _LET, let, value, None, mutable or _binds_mut(plain, name))
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
        return _block_binds(node, child, name, nearest_let, lets)
    elif t == "closure_expression" and child == node.child_by_field_name("body"):
        params = node.child_by_field_name("parameters")
        if params is not None and pattern_binds(params, name):
            return True, Binding(name, _CLOSURE_PARAM, node)
    elif t == "for_expression" and child == node.child_by_field_name("body"):
        pattern = node.child_by_field_name("pattern")
        if pattern is not None and pattern_binds(pattern, name):
            return True, Binding(name, _LOOP, node)
    elif t == "match_arm":
        pattern = node.child_by_field_name("pattern")
        if pattern is not None and child != pattern and _match_pattern_binds(pattern, name):
            return True, Binding(name, _PATTERN, node)
    elif t in ("if_expression", "while_expression") and child != node.child_by_field_name("condition"):
        cond = node.child_by_field_name("condition")
        if cond is not None and _let_condition_binds(cond, name):
            return True, Binding(name, _PATTERN, cond)
    elif t == "function_item":
        return True, _param_binding(node, name)
    return False, None


def _block_binds(node: Node, child: Node, name: str, nearest_let, lets) -> tuple[bool, Binding | None]:
    """``_binds_here`` for a block: (True, the ``let`` binding ``name`` before ``child``), else
    (False, None)."""
    if lets is None:
        for stmt in reversed(_preceding(node, child)):
            if stmt.type == "let_declaration":
                b = _let_binding(stmt, name)
                if b is not None:
                    return True, b
    elif nearest_let is not None and nearest_let[1] == node:
        return True, _let_binding(nearest_let[0], name)
    return False, None


def _param_binding(fn: Node, name: str) -> Binding | None:
    """The binding of function ``fn``'s parameter ``name``, or ``None``."""
    params = fn.child_by_field_name("parameters")
    if params is not None:
        for p in params.named_children:
            if p.type != "parameter":
                continue
            pattern = p.child_by_field_name("pattern")
            if pattern is not None and pattern_binds(pattern, name):
                mutable = pattern.type == "mut_pattern" or any(
                    c.type == "mutable_specifier" for c in p.children)
                return Binding(name, _PARAM, p, None, p.child_by_field_name("type"), mutable)
    return None


LOOPS = ("for_expression", "while_expression", "loop_expression")

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


