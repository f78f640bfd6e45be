"""A file as a sequence of items ("units"), and the facts each item contributes to the file.

A *unit* is one top-level item of the file (or of an inline ``mod { .. }`` body) together
with the attributes and comments directly before it: ``#[kernel]`` and a ``// offload-ls:
allow(..)`` comment belong to the function they precede. A ``mod name { .. }`` with a body is
split into a header unit (its attributes and ``mod name``) and the units of its body, so a
file whose code sits in one ``mod`` still has item-sized units.

Everything the rules need to know about *other* items of the file (which functions are
kernels, which are device code, launch dimensions, ``static mut`` names, ..) is read from
each unit's :class:`UnitSummary`, which depends only on the unit's bytes and on whether an
enclosing ``mod`` is under a device-only ``#[cfg]``. That is what makes summaries (and the
rules' per-unit results, analysis/engine.py) cacheable by the unit's bytes.

Facts are found with one pass of several queries at once (grammars/rust/*.scm, see
:data:`UNIT_QUERIES`); nothing here walks the whole tree in Python.
"""

from __future__ import annotations

import bisect
from functools import cache
from dataclasses import dataclass

from tree_sitter import Node

from offload_ls.analysis.consts import capture as capture_const
from offload_ls.analysis.cfg import host_cfg_value, is_device_cfg, is_host_cfg
from offload_ls.analysis.ecosystems import profiles
from offload_ls.analysis.kernels import attributed_item, function_record, kernels_from_captures
from offload_ls.analysis.launches import launches_from_captures
from offload_ls.analysis.model import Kernel, Launch, Span
from offload_ls.analysis.suppress import CommentRec, comment_record
from offload_ls.analysis.transfer import type_shape
from offload_ls.syntax.parse import identifier_nodes, node_text
from offload_ls.syntax.queries import captures, captures_many, matches

#: Query files read for every unit, in one pass (syntax/queries.py ``captures_many``).
UNIT_QUERIES = (
    "unit_anchors", "kernel_abi", "launches", "calls", "cfg_attributes",
    "static_mut", "unsafe_fns", "extern_decls", "shared_to_mut_casts",
    "defined_names", "items",
)
#: Query files run only on the units whose bytes hold the given text (a suppression comment
#: names ``offload-ls``): every comment of a file is a capture of grammars/rust/suppressions.scm,
#: and capturing and bucketing them all cost more than the rest of a host file's summary.
SCREENED_QUERIES = (("suppressions", b"offload-ls"),)
# Every pattern of grammars/rust/kernel_markers.scm matches one ``attribute_item`` whose text
# holds "kernel" (offload_kernel, rustc_offload_kernel, kernel), "spirv" or "cube": the query
# runs on those attributes only (_marker_captures), its text predicates being costly on all.

_SKIPPABLE = frozenset({"attribute_item", "line_comment", "block_comment"})
_STD_ROOTS = frozenset({"std", "alloc", "core"})


class Unit:
    """One unit of the current tree.

    Attributes:
        start, end: UTF-8 byte range the unit's facts are read from: from its first
            attribute or comment to the end of its item; for a ``mod`` header, to the
            start of the ``mod``'s body.
        parent: the node whose children the unit's nodes are (``source_file`` or a
            ``mod``'s ``declaration_list``).
        nodes: those children, in order (attributes, comments, then the item, if any).
        gate: an enclosing ``mod`` is under a device-only ``#[cfg]``; host: under a
            host-only one (``#[cfg(not(offload_device))] mod host { .. }``).
        key: the cache key: the unit's bytes, ``gate``, ``host``, the node types, and for a ``mod``
            header the length of the whole ``mod``; ``None`` when the unit holds a syntax
            error (never cached: an ERROR node's shape may depend on the text around it).
        mod_body: for a ``mod`` header, its body (``declaration_list``), else ``None``.
    """

    __slots__ = ("start", "end", "parent", "nodes", "gate", "key", "mod_body", "host", "stale")

    def __init__(self, start: int, end: int, parent: Node, nodes: tuple[Node, ...], gate: bool,
                 key: tuple | None, mod_body: Node | None = None, host: bool = False) -> None:
        self.start, self.end, self.parent, self.nodes = start, end, parent, nodes
        self.gate, self.key, self.mod_body, self.host = gate, key, mod_body, host
        #: taken over from the previous tree by :func:`split_units_after_edit`: ``parent``,
        #: ``nodes`` and ``mod_body`` belong to that tree until :func:`resolve` replaces them
        self.stale = False

    def __repr__(self) -> str:
        return f"Unit({self.start}, {self.end}, {[n.type for n in self.nodes]})"


def split_units(root: Node, source: bytes) -> list[Unit]:
    """The units of the file, in document order (ranges do not overlap).

    Args:
        root: the tree's root node; source: the bytes it was parsed from."""
    out: list[Unit] = []
    _split(root, root.children, False, source, out, root.has_error, 0, False)
    return out


def split_units_after_edit(root: Node, source: bytes, old_source: bytes, old_units: list[Unit]
                           ) -> list[Unit] | None:
    """:func:`split_units` of an edited file, re-splitting only around the edit.

    The bytes before the first changed byte and after the last are unchanged; so are the
    units that lie wholly inside them with one unit of margin on each side, and their keys
    (their bytes, gate and node types). Only the top-level items between are split again,
    from ``root``'s children. The units taken over are marked :attr:`Unit.stale` (their
    nodes are the previous tree's; :func:`resolve` finds them in ``root`` when needed),
    those after the edit shifted by the change in length.

    An edit inside a ``mod`` body splits that whole top-level ``mod`` again. Returns
    ``None`` (split the whole file instead) when the new tree's top-level items do not
    begin and end where the kept units say — an edit whose effect reaches past its bytes
    (an unclosed brace or comment that swallows what follows).

    Args:
        root: the new tree's root; source: its bytes; old_source / old_units: the previous
            text and its units (:func:`split_units` or this function)."""
    if not old_units or root.type != "source_file":
        return None
    n_old, n_new = len(old_source), len(source)
    prefix = _common_prefix(old_source, source)
    suffix = _common_suffix(old_source, source, min(n_old, n_new) - prefix)
    delta = n_new - n_old
    # units before the edit, one unit of margin: they end before its first changed byte
    # (0 <= a < len(old_units))
    a = max(0, bisect.bisect_left(old_units, prefix, key=_end) - 1)
    # units after the edit, one unit of margin: they start after its last changed byte
    b = max(a, bisect.bisect_right(old_units, n_old - suffix, key=_start))
    b = min(len(old_units), b + 1)
    # the window is whole top-level items: an edit inside a `mod` body splits the whole
    # `mod` again (its header unit is the top-level unit before its items)
    while a > 0 and not _top_level(old_units[a]):
        a -= 1
    while b < len(old_units) and not _top_level(old_units[b]):
        b += 1
    if not _top_level(old_units[a]):
        return None
    win_start = old_units[a].start
    win_end = old_units[b].start + delta if b < len(old_units) else n_new
    if a > 0 and old_units[a - 1].end > win_start or win_end < win_start:
        return None
    # the new tree's top-level children from win_start up to win_end
    children = []
    child = root.first_child_for_byte(win_start) if win_start < n_new else None
    if child is not None and child.start_byte < win_start:
        return None  # an item that began before the window now reaches into it
    while child is not None and child.start_byte < win_end:
        children.append(child)
        child = child.next_sibling
    if children and children[-1].end_byte > win_end:
        return None  # an item of the window now reaches into the kept units after it
    if b < len(old_units) and (child is None or child.start_byte != win_end):
        return None  # the kept units after the window do not begin where the tree's items do
    if b < len(old_units) and children and children[-1].type in _SKIPPABLE:
        # a comment / attribute now ends the window (an edit closed a block comment): a
        # whole split joins it to the item after it, which is a kept unit
        return None
    middle: list[Unit] = []
    _split(root, children, False, source, middle, root.has_error, 0, False)
    before = old_units[:a]
    after = old_units[b:] if not delta else [
        Unit(u.start + delta, u.end + delta, u.parent, u.nodes, u.gate, u.key, u.mod_body, u.host)
        for u in old_units[b:]]
    for u in (*before, *after):
        u.stale = True
    return [*before, *middle, *after]


def _start(unit: Unit) -> int:
    return unit.start


def _end(unit: Unit) -> int:
    return unit.end


def resolve(unit: Unit, root: Node) -> Unit:
    """``unit`` with ``parent``, ``nodes`` and ``mod_body`` of the tree ``root`` (a unit
    taken over from the previous tree by :func:`split_units_after_edit`); unchanged when
    it is not stale.

    Raises:
        LookupError: the tree has no nodes where the unit says (never for a unit that
            :func:`split_units_after_edit` kept)."""
    if not unit.stale:
        return unit
    node = root.descendant_for_byte_range(unit.start, unit.start)
    while node is not None and not (node.start_byte == unit.start and node.parent is not None
                                    and node.parent.type in ("source_file", "declaration_list")):
        node = node.parent
    if node is None:
        raise LookupError(f"no item at byte {unit.start}")
    parent = node.parent
    nodes = []
    while node is not None and node.start_byte < unit.end:
        nodes.append(node)
        node = node.next_sibling
    mod_body = None
    if nodes and nodes[-1].type == "mod_item" and nodes[-1].end_byte > unit.end:
        mod_body = nodes[-1].child_by_field_name("body")
    unit.parent, unit.nodes, unit.mod_body, unit.stale = parent, tuple(nodes), mod_body, False
    return unit


def _top_level(unit: Unit) -> bool:
    return unit.parent is not None and unit.parent.type == "source_file"


def _common_prefix(a: bytes, b: bytes) -> int:
    """Length of the longest common prefix of ``a`` and ``b`` (slices compared in C)."""
    lo, hi = 0, min(len(a), len(b))
    if a[:hi] == b[:hi]:
        return hi
    while lo < hi:  # a[:lo] == b[:lo] and a[:hi + 1] != b[:hi + 1]
        mid = (lo + hi + 1) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _common_suffix(a: bytes, b: bytes, limit: int) -> int:
    """Length of the longest common suffix of ``a`` and ``b``, at most ``limit``."""
    lo, hi = 0, max(0, limit)
    la, lb = len(a), len(b)
    if a[la - hi:] == b[lb - hi:] if hi else True:
        return hi
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[la - mid:la - lo] == b[lb - mid:lb - lo]:
            lo = mid
        else:
            hi = mid - 1
    return lo


#: ``mod`` bodies nested deeper than this stay inside their ``mod``'s unit (no recursion
#: limit for pathological nesting; the unit is analysed all the same, only less finely).
MAX_MOD_DEPTH = 32


def _split(parent: Node, children: list[Node], gate: bool, source: bytes, out: list[Unit],
           errors: bool, depth: int, host: bool) -> None:
    """Append the units of ``parent``'s ``children``; ``errors``: the tree has syntax
    errors somewhere (else no node needs checking); ``depth``: ``mod`` nesting; ``gate`` /
    ``host``: an enclosing ``mod`` is device-only / host-only. (Run on every edit for
    every top-level item: node types are read once per child.)"""
    pending: list[Node] = []
    types: list[str] = []  # pending's node types
    in_mod = parent.type == "declaration_list"
    for child in children:
        t = child.type
        if t in _SKIPPABLE:
            pending.append(child)
            types.append(t)
            continue
        if in_mod and (t == "{" or t == "}"):
            if pending:
                out.append(_unit(parent, pending, types, gate, source, errors, host=host))
                pending, types = [], []
            continue
        if t == "mod_item" and depth < MAX_MOD_DEPTH:
            body = child.child_by_field_name("body")
            if body is not None and body.type == "declaration_list":
                pending.append(child)
                types.append(t)
                out.append(_unit(parent, pending, types, gate, source, errors, mod_body=body, host=host))
                attrs = [n for n, nt in zip(pending, types) if nt == "attribute_item"]
                inner_gate, inner_host = gate, host
                if attrs:
                    inner_gate = gate or any(_cfg_attr(n, is_device_cfg) for n in attrs)
                    inner_host = not inner_gate and (host or any(_cfg_attr(n, is_host_cfg) for n in attrs))
                _split(body, body.children, inner_gate, source, out, errors, depth + 1, inner_host)
                pending, types = [], []
                continue
        if pending:
            pending.append(child)
            types.append(t)
            out.append(_unit(parent, pending, types, gate, source, errors, host=host))
            pending, types = [], []
        else:  # the common case: an item alone
            start, end = child.start_byte, child.end_byte
            key = None if errors and child.has_error else (source[start:end], gate, (t,), 0, host)
            out.append(Unit(start, end, parent, (child,), gate, key, None, host))
    if pending:
        out.append(_unit(parent, pending, types, gate, source, errors, host=host))


def _unit(parent: Node, nodes: list[Node], types: list[str], gate: bool, source: bytes, errors: bool,
          mod_body: Node | None = None, host: bool = False) -> Unit:
    start = nodes[0].start_byte
    last = nodes[-1]
    end = mod_body.start_byte if mod_body is not None else last.end_byte
    if not errors:
        broken = False
    elif mod_body is None:
        broken = any(n.has_error for n in nodes)
    else:
        broken = any(n.has_error for n in nodes[:-1]) or _header_has_error(last, mod_body)
    if broken:
        key = None
    else:
        # a header's suppression comment covers the whole `mod`: its length is a fact too
        extra = last.end_byte - start if mod_body is not None else 0
        key = (source[start:end], gate, tuple(types), extra, host)
    return Unit(start, end, parent, tuple(nodes), gate, key, mod_body, host)


def _header_has_error(mod: Node, body: Node) -> bool:
    return any(c.has_error for c in mod.children if c.start_byte < body.start_byte)


def _cfg_attr(attr: Node, test) -> bool:
    """Is ``attr`` a ``#[cfg(..)]`` whose predicate passes ``test`` (:func:`is_device_cfg`,
    :func:`is_host_cfg`)?"""
    return any(test(p) for p in captures_many(("cfg_attributes",), attr)["cfg_attributes"].get("predicate", []))


# ---------------------------------------------------------------------------- summaries


@dataclass(frozen=True, slots=True)
class FnRec:
    """A ``function_item`` of the unit (any depth). ``callees``: the names it calls in its
    body (grammars/rust/calls.scm), each once, in document order; ``gated``: why it is
    device code by itself, ``""`` when it is not: it is, or lies inside, an item under a
    device-only ``#[cfg]`` (analysis/cfg.py), or it carries an ecosystem's
    device-function attribute (``#[cube]``); ``host``: it is, or lies inside, an item under
    a host-only ``#[cfg(not(offload_device))]`` (never device code, whatever calls it);
    ``module``: the name of the innermost ``mod`` it is declared in (``""`` at the top of
    the file). A callee called through a path is ``"module::name"`` (the path's last
    segment before the name), else ``"name"``."""

    start: int
    end: int
    name: str | None
    body: Span | None
    callees: tuple[str, ...]
    gated: str
    host: bool = False
    module: str = ""
    #: for a function without parameters that returns the thread's position
    #: (``fn global_x() -> usize { (_block_idx_x() * _block_dim_x() + _thread_idx_x()) as usize }``):
    #: the dependence kinds of what it returns (analysis/indexing.py ``_KINDS``); a call of it
    #: is a thread-index source like the intrinsics it reads
    position: frozenset[str] = frozenset()
    #: the type of the ``impl`` block it is a method of (its last path segment: ``Complex``
    #: for ``impl Complex`` and ``impl Add for Complex``), ``""`` for a free function
    owner: str = ""


@dataclass(frozen=True, slots=True)
class StaticDecl:
    """A ``static mut`` item: the declared name, its span, whether it is declared at
    module level (else inside a block), and whether an attribute makes it block-shared
    memory (an ecosystem profile's ``shared_static_attrs``: ``#[address_space(shared)]``)."""

    name: str
    span: Span
    module_level: bool
    shared: bool = False


@dataclass(frozen=True, slots=True)
class ItemFacts:
    """Module-level items of a unit that the crate index reads (analysis/crate_index.py).

    Attributes:
        consts: ``const`` and immutable ``static`` items: (name, value as a constant
            expression, analysis/consts.py; ``None`` when not an integer expression).
        aliases: ``type Name = T;``: (name, the type's text).
        roots: first path segments of ``use`` declarations, attribute paths and ``extern
            crate`` (which ecosystem's crates the file uses).
        renames: ``use a::b as c;``: (c, b).
        mods: names of ``mod`` items.
        fns: module-level functions (not nested, not in ``impl`` blocks) as
            :class:`Kernel` records with no marker (analysis/kernels.py
            ``function_record``): what a launch that names an unmarked function launches.
        imports: ``use`` declarations: (name brought into scope, first segment of its path).
        loose_names: names that may be functions the syntax tree does not show as items:
            identifiers in item-position macro invocations (``mk!(gen_k);`` may define
            ``gen_k``), and ``fn name`` inside a part of the unit that does not parse (an
            edit in progress).
    """

    consts: tuple[tuple[str, tuple | None], ...] = ()
    aliases: tuple[tuple[str, str], ...] = ()
    roots: frozenset[str] = frozenset()
    renames: tuple[tuple[str, str], ...] = ()
    mods: tuple[str, ...] = ()
    fns: tuple[Kernel, ...] = ()
    imports: tuple[tuple[str, str], ...] = ()
    loose_names: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class ExternParam:
    """A parameter of a function declared in an ``extern`` block: type text, kind
    (analysis/transfer.py ``type_shape``) and the type's span."""

    type_text: str
    kind: str
    type_span: Span


@dataclass(frozen=True, slots=True)
class ExternDecl:
    """``fn name(..);`` in an ``extern`` block: its ``parameter`` children (``None`` for
    one without a type), and the span of its name."""

    name: str
    params: tuple[ExternParam | None, ...]
    name_span: Span | None = None


@dataclass(frozen=True)
class UnitSummary:
    """What one unit contributes to the file's facts.

    Offsets are absolute UTF-8 byte offsets as of when the summary was made, when the unit
    started at ``start``; a cached summary is reused for the same bytes elsewhere in the
    file by adding the difference (analysis/facts.py does, only where a value is needed).

    Attributes:
        start, end: the unit's range when the summary was made.
        kernels, launches: as analysis/kernels.py and analysis/launches.py find them.
        fns: every function item, in document order.
        statics: ``static mut`` declarations. shadowed: names ``use``-imported from a crate
            other than std/alloc/core. defined: struct/enum/type/macro names
            (grammars/rust/defined_names.scm). unsafe_names / fn_names: names of unsafe
            functions (``unsafe fn``, ``extern`` declarations) / of all functions
            (grammars/rust/unsafe_fns.scm). callees: every called name.
        extern_decls: functions declared in ``extern`` blocks. comments: suppression
            comments. has_casts: holds a shared-to-mutable pointer cast
            (grammars/rust/shared_to_mut_casts.scm). cube_launch: ``fn_start`` of the
            functions marked ``#[cube(launch)]``.
        exports: everything about the unit that other units' results can depend on,
            without offsets (:func:`exports`): two versions of a unit with equal exports
            leave the rest of the file's results as they were, except for where things are.
    """

    start: int
    end: int
    kernels: tuple[Kernel, ...]
    launches: tuple[Launch, ...]
    fns: tuple[FnRec, ...]
    statics: tuple[StaticDecl, ...]
    shadowed: frozenset[str]
    defined: frozenset[str]
    unsafe_names: frozenset[str]
    fn_names: frozenset[str]
    callees: frozenset[str]
    extern_decls: tuple[ExternDecl, ...]
    comments: tuple[CommentRec, ...]
    has_casts: bool
    cube_launch: tuple[int, ...]
    exports: tuple = ()
    items: ItemFacts = ItemFacts()


def exports(kernels, launches, fns, statics, shadowed, defined, unsafe_names, fn_names, externs,
            cube_launch, items: ItemFacts | None = None) -> tuple:
    """The offset-free projection of a unit's facts that other units read (through
    analysis/facts.py): kernel names, ecosystems, parameter kinds and map types, whether
    each has a body and which function item it is, CubeCL checked mode; each function's
    name, callees, device cfg and body; each launch's kernel and thread count; ``static
    mut`` names; the name sets; ``extern`` declarations' parameter types."""
    fn_index = {f.start: j for j, f in enumerate(fns)}
    cube = set(cube_launch)
    return (
        tuple((k.name, k.ecosystem, tuple((p.kind, p.transfer) for p in k.params), k.body_span is not None,
               fn_index.get(k.fn_start, -1), k.fn_start in cube) for k in kernels),
        tuple((f.name, f.callees, f.gated, f.host, f.module, f.body is not None, f.position, f.owner) for f in fns),
        tuple((la.kernel, la.total_threads) for la in launches),
        tuple((s.name, s.module_level, s.shared) for s in statics),
        shadowed, defined, unsafe_names, fn_names,
        tuple((e.name, tuple(None if p is None else (p.type_text, p.kind) for p in e.params)) for e in externs),
        semantic_exports(kernels, launches, items),
    )


def semantic_exports(kernels, launches, items: ItemFacts | None) -> tuple:
    """What the crate-wide rules read of a unit (kernel signatures and declared dimensions,
    launches with their fields, dimensions and argument texts, the unit's items), without
    offsets: it changes only when an edit changes one of those."""
    items = items or _NO_ITEMS
    return (
        tuple((k.name, k.ecosystem, k.marker, k.generics, k.declared_dims, k.is_unsafe_fn,
               tuple((p.name, p.type_text) for p in k.params)) for k in kernels),
        tuple((la.form, la.kernel, la.arity, la.has_args, la.workgroup_expr, la.thread_expr, la.device_expr,
               tuple(n for n, _ in la.fields), tuple(a.text for a in la.args)) for la in launches),
        items.consts, items.aliases, items.roots, items.renames, items.mods, items.imports, items.loose_names,
        tuple((f.name, f.generics, f.is_unsafe_fn, tuple((p.name, p.type_text) for p in f.params)) for f in items.fns),
    )


def unit_captures(units: list[Unit], root: Node, source: bytes) -> list[dict[str, dict[str, list[Node]]]]:
    """The :data:`UNIT_QUERIES` captures of each unit (same order as ``units``), and those
    of :data:`SCREENED_QUERIES` in the units whose bytes (of ``source``) hold their text.

    One pass over ``root`` when most of the file is asked for (the captures are split by
    unit), otherwise one pass over each unit's byte range."""
    if not units:
        return []
    total = sum(u.end - u.start for u in units)
    if len(units) > 8 and total * 2 > root.end_byte - root.start_byte:
        out = _bucket(units, captures_many(UNIT_QUERIES, root))
    else:
        out = [_bucket([u], captures_many(UNIT_QUERIES, u.parent, (u.start, u.end)))[0] for u in units]
    for name, needle in SCREENED_QUERIES:
        for u, caps in zip(units, out):
            if source.find(needle, u.start, u.end) >= 0:
                found = _bucket([u], captures_many((name,), u.parent, (u.start, u.end)))[0]
                if found:
                    caps.update(found)
    return out


def _bucket(units: list[Unit], found: dict[str, dict[str, list[Node]]]) -> list[dict[str, dict[str, list[Node]]]]:
    """Split captures by the unit whose range holds each node's start (others dropped)."""
    starts = [u.start for u in units]
    out: list[dict[str, dict[str, list[Node]]]] = [{} for _ in units]
    for file, caps in found.items():
        for cap, nodes in caps.items():
            for n in nodes:
                s = n.start_byte
                i = bisect.bisect_right(starts, s) - 1
                if i >= 0 and s < units[i].end:
                    out[i].setdefault(file, {}).setdefault(cap, []).append(n)
    return out


def summarize(unit: Unit, caps: dict[str, dict[str, list[Node]]], source: bytes,
              cfg_memo: dict[bytes, tuple[bool, bool]] | None = None) -> UnitSummary:
    """The :class:`UnitSummary` of ``unit`` from its captures (:func:`unit_captures`).

    Args:
        cfg_memo: ``cfg(..)`` predicate text -> (selects device code, selects host code
            only), shared by the units
            of one analysis (the same few predicates repeat all over a file)."""
    if not caps:  # a comment, a macro call, ..: only names that may be functions or macros
        loose = _loose_names(unit)
        macros = _macro_rules_in_macros(unit)
        if not loose and not macros:
            return UnitSummary(unit.start, unit.end, (), (), (), (), _NONE, _NONE, _NONE, _NONE, _NONE, (), (),
                               False, (), _NO_EXPORTS)
        items = ItemFacts(loose_names=loose) if loose else _NO_ITEMS
        return UnitSummary(unit.start, unit.end, (), (), (), (), _NONE, macros, _NONE, _NONE, _NONE, (), (), False,
                           (), exports((), (), (), (), _NONE, macros, _NONE, _NONE, (), (), items), items)
    memo = cfg_memo if cfg_memo is not None else {}
    empty: dict[str, list[Node]] = {}
    anchors = caps.get("unit_anchors", empty)
    markers = _marker_captures(anchors.get("attr", []))
    abi = caps.get("kernel_abi", empty).get("fn", [])
    kernels = tuple(kernels_from_captures(markers, abi)) if markers or abi else ()
    launch_caps = caps.get("launches", empty)
    launches = tuple(launches_from_captures(launch_caps, source)) if launch_caps else ()

    fn_nodes = anchors.get("fn", [])
    cfg_reason = "under a device-only #[cfg]"
    device_ranges, host_ranges = _gated_ranges(caps.get("cfg_attributes", empty), memo)
    gated_ranges = [(s, e, cfg_reason) for s, e in device_ranges]
    device_fns, host_fns = _attr_ranges(anchors.get("attr", []))
    gated_ranges += device_fns
    host_ranges += host_fns
    if unit.gate:
        gated_ranges.append((unit.start, unit.end, cfg_reason))
    if unit.host:
        host_ranges.append((unit.start, unit.end))
    module = unit_module(unit)
    callee_nodes = caps.get("calls", empty).get("callee", [])
    callee_starts = [c.start_byte for c in callee_nodes]
    callee_texts: list[str] | None = None
    fns = []
    for fn in fn_nodes:
        name = fn.child_by_field_name("name")
        body = fn.child_by_field_name("body")
        called: tuple[str, ...] = ()
        if body is not None and callee_nodes:
            if callee_texts is None:
                callee_texts = [_callee_text(c) for c in callee_nodes]
            lo = bisect.bisect_left(callee_starts, body.start_byte)
            hi = bisect.bisect_left(callee_starts, body.end_byte, lo)
            called = tuple(dict.fromkeys(callee_texts[i] for i in range(lo, hi)
                                         if callee_nodes[i].end_byte <= body.end_byte))
        s, e = fn.start_byte, fn.end_byte
        gated = next((why for gs, ge, why in gated_ranges if gs <= s and e <= ge), "")
        host = not gated and any(hs <= s and e <= he for hs, he in host_ranges)
        fns.append(FnRec(s, e, node_text(name) if name is not None else None,
                         Span(body.start_byte, body.end_byte) if body is not None else None, called, gated,
                         host, module, position_kinds(fn, body) if body is not None else _NONE, impl_owner(fn)))

    statics = tuple(StaticDecl(node_text(n), Span(n.start_byte, n.end_byte), enclosing_block(n) is None,
                               n.parent is not None and is_shared_static(n.parent))
                    for n in caps.get("static_mut", empty).get("name", []))
    items = _items(caps.get("items", empty), anchors, fn_nodes, unit)
    shadowed = frozenset(_shadowed(anchors.get("use", [])))
    defined = frozenset(node_text(n) for n in caps.get("defined_names", empty).get("defined", [])) \
        | _macro_rules_in_macros(unit)
    ucaps = caps.get("unsafe_fns", empty)
    unsafe_names = frozenset(node_text(n) for n in ucaps.get("name", []))
    fn_names = frozenset(node_text(n) for n in ucaps.get("any_fn", [])) | unsafe_names
    callees = (frozenset(t.rpartition("::")[2] for t in callee_texts) if callee_texts is not None
               else frozenset(node_text(c) for c in callee_nodes))
    externs = tuple(_extern_decl(d) for d in caps.get("extern_decls", empty).get("decl", []))
    comments = tuple(c for c in (comment_record(n) for n in caps.get("suppressions", empty).get("comment", [])) if c)
    has_casts = bool(caps.get("shared_to_mut_casts", empty).get("cast"))
    cube = tuple(sorted(_cube_launch(markers)))
    fns_t = tuple(fns)
    return UnitSummary(unit.start, unit.end, kernels, launches, fns_t, statics, shadowed, defined,
                       unsafe_names, fn_names, callees, externs, comments, has_casts, cube,
                       exports(kernels, launches, fns_t, statics, shadowed, defined, unsafe_names, fn_names,
                               externs, cube, items), items)


_NONE: frozenset[str] = frozenset()
_NO_ITEMS = ItemFacts()


def position_kinds(fn: Node, body: Node) -> frozenset[str]:
    """The dependence kinds (``all`` / ``global`` / ``local`` / ``position``) of what
    function ``fn`` returns when it takes no parameters and returns a value computed from
    the thread index (its tail expression or a ``return``); empty otherwise. Only functions
    whose body names a thread-index intrinsic are followed (the rest cost nothing)."""
    params = fn.child_by_field_name("parameters")
    if params is not None and any(c.type in ("parameter", "self_parameter") for c in params.named_children):
        return _NONE
    text = body.text or b""
    if not any(n in text for n in _index_names()):
        return _NONE
    from offload_ls.analysis.flow.sources import KINDS
    from offload_ls.analysis.flow.thread_flow import ThreadFlow

    flow = ThreadFlow(fn)
    kids = [c for c in body.named_children if not c.type.endswith("comment")]
    tail = kids[-1] if kids else None
    if tail is not None and tail.type == "expression_statement" and tail.child_count \
            and tail.children[-1].type != ";":
        tail = tail.named_children[0] if tail.named_children else None  # `unsafe { .. }` as the value
    values = [tail] if tail is not None and not tail.type.endswith(("_statement", "_declaration", "_item")) else []
    values += [v for x in flow.exits if x.type == "return_expression" for v in x.named_children[:1]]
    return frozenset(k for k in KINDS if any(flow.depends(v, k) for v in values))


@cache
def _index_names() -> tuple[bytes, ...]:
    """Names of every thread-index intrinsic, function or constant of the profiles."""
    from offload_ls.analysis.flow.sources import index_names

    return tuple(n.encode() for n in index_names())
_NO_EXPORTS = exports((), (), (), (), _NONE, _NONE, _NONE, _NONE, (), ())


def _shared_static_attrs() -> frozenset[tuple[str, str]]:
    return frozenset(a for p in profiles().values() for a in p.shared_static_attrs)


def _shared_types() -> frozenset[str]:
    return frozenset(t for p in profiles().values() for t in p.shared_types)


def is_shared_static(item: Node) -> bool:
    """Is ``static`` item ``item`` block-shared memory: an attribute from an ecosystem
    profile's ``shared_static_attrs`` (``#[address_space(shared)]``), a type from its
    ``shared_types`` (cuda-oxide ``SharedArray<f32, 256>``, ``Barrier``), or a static of an
    ``extern`` block, whose memory is defined outside Rust (a bare nvptx crate gets shared
    memory from a linked ``.ll`` / PTX ``addrspace(3)`` global: Rust has no attribute for it)?"""
    body = item.parent
    if body is not None and body.type == "declaration_list" and body.parent is not None \
            and body.parent.type == "foreign_mod_item":
        return True
    t = item.child_by_field_name("type")
    if t is not None:
        base = t.child_by_field_name("type") if t.type == "generic_type" else t
        if base is not None and node_text(base).rsplit("::", 1)[-1] in _shared_types():
            return True
    wanted = _shared_static_attrs()
    sib = item.prev_sibling
    while sib is not None and sib.type in _SKIPPABLE:
        if sib.type == "attribute_item":
            attr = next((c for c in sib.named_children if c.type == "attribute"), None)
            if attr is not None:
                head = attr.named_children[0] if attr.named_children else None
                name = node_text(head).rsplit("::", 1)[-1] if head is not None else ""
                words = {node_text(t) for t in identifier_nodes(attr)}
                if any(a == name and w in words for a, w in wanted):
                    return True
        sib = sib.prev_sibling
    return False


def _module_level(node: Node, unit: Unit) -> bool:
    """``node`` is one of the unit's own items (an item of the file or of a ``mod`` body,
    not one inside a function or ``impl``): a fact of the unit's bytes alone, whatever
    node the unit's items hang from (a broken file's ERROR node included)."""
    return any(n.start_byte == node.start_byte and n.end_byte == node.end_byte for n in unit.nodes)


def _items(icaps: dict[str, list[Node]], anchors: dict[str, list[Node]], fn_nodes: list[Node],
           unit: Unit) -> ItemFacts:
    """The unit's :class:`ItemFacts` from the captures of grammars/rust/items.scm."""
    consts = []
    for item in icaps.get("const", []) + icaps.get("static_item", []):
        if not _module_level(item, unit) or any(c.type == "mutable_specifier" for c in item.children):
            continue
        name = item.child_by_field_name("name")
        if name is not None:
            consts.append((node_text(name), capture_const(item.child_by_field_name("value"))))
    aliases = tuple((node_text(n), node_text(t)) for n, t in zip(icaps.get("alias_name", []), icaps.get("alias_type", []))
                    if n.parent is not None and n.parent.child_by_field_name("type_parameters") is None)
    roots: set[str] = set()
    renames = []
    imports = []
    for use in anchors.get("use", []):
        for _, m in matches("use_imports", use):
            if "use_path" in m:
                roots.add(_first_segment(m["use_path"][0]))
                if "use_name" in m:
                    imports.append((node_text(m["use_name"][0]), _first_segment(m["use_path"][0])))
            if "use_name" in m and m["use_name"][0].parent is not None and m["use_name"][0].parent.type == "use_as_clause":
                clause = m["use_name"][0].parent
                path = clause.child_by_field_name("path")
                if path is not None:
                    last = path.child_by_field_name("name") if path.type == "scoped_identifier" else path
                    if last is not None:
                        renames.append((node_text(m["use_name"][0]), node_text(last)))
        root = _use_root(use.child_by_field_name("argument"))
        if root:
            roots.add(root)
    for p in icaps.get("attr_path", []):
        roots.add(_first_segment(p))
    for n in icaps.get("extern_crate", []):
        roots.add(node_text(n))
    mods = tuple(node_text(n) for n in icaps.get("mod_name", []))
    fns = tuple(function_record(fn) for fn in fn_nodes
                if _module_level(fn, unit) and fn.child_by_field_name("name") is not None)
    loose = _loose_names(unit)
    if not (consts or aliases or roots or renames or mods or fns or loose):
        return _NO_ITEMS
    return ItemFacts(tuple(consts), aliases, frozenset(roots), tuple(dict.fromkeys(renames)), mods, fns,
                     tuple(dict.fromkeys(imports)), loose)


def _loose_names(unit: Unit) -> frozenset[str]:
    """:attr:`ItemFacts.loose_names` of a unit: identifiers in its item-position macro
    invocations, and ``fn <name>`` in its nodes that hold a syntax error where the tree
    shows no function item (a function item whose body holds the error is an item all
    the same: typing inside a kernel must not change what the crate defines)."""
    out: set[str] = set()
    for mac in _item_macro_calls(unit):
        for t in mac.children:
            if t.type == "token_tree":
                out |= {node_text(i) for i in identifier_nodes(t)}
    for node in unit.nodes:
        if node.has_error:
            stack = [node]
            while stack:
                n = stack.pop()
                kids = n.children
                if n.type not in ("function_item", "function_signature_item"):
                    for a, b in zip(kids, kids[1:]):
                        if a.type == "fn" and b.type == "identifier":
                            out.add(node_text(b))
                stack.extend(kids)
    return frozenset(out)


def _item_macro_calls(unit: Unit) -> list[Node]:
    """The unit's item-position macro invocations (``mk!(gen_k);`` parses as a statement of
    one macro call)."""
    out = []
    for node in unit.nodes:
        mac = node.named_children[0] if node.type == "expression_statement" and node.named_children else node
        if mac.type == "macro_invocation":
            out.append(mac)
    return out


def _macro_rules_in_macros(unit: Unit) -> frozenset[str]:
    """Names of the ``macro_rules!`` definitions inside the unit's item-position macro calls
    (``cfg_if::cfg_if! { if #[cfg(target_os = "cuda")] { macro_rules! print { .. } } }``):
    macros the file defines, which the syntax tree shows only as tokens."""
    out: set[str] = set()
    for mac in _item_macro_calls(unit):
        stack = [c for c in mac.children if c.type == "token_tree"]
        while stack:
            tt = stack.pop()
            kids = tt.children
            for a, b, c in zip(kids, kids[1:], kids[2:]):
                if a.type == "identifier" and node_text(a) == "macro_rules" and b.type == "!" \
                        and c.type == "identifier":
                    out.add(node_text(c))
            stack.extend(k for k in kids if k.type == "token_tree")
    return frozenset(out)


def _marker_captures(attrs: list[Node]) -> dict[str, list[Node]]:
    """grammars/rust/kernel_markers.scm's captures among ``attrs`` (attribute items in
    document order), as one run of the query over their parent would give them."""
    out: dict[str, list[Node]] = {}
    for attr in attrs:
        text = attr.text or b""
        if b"kernel" in text or b"spirv" in text or b"cube" in text:
            for key, nodes in captures("kernel_markers", attr).items():
                out.setdefault(key, []).extend(nodes)
    return out


def host_excluded_ranges(root: Node) -> list[tuple[int, int]]:
    """UTF-8 byte ranges of the items of the tree ``root`` whose ``#[cfg]`` is false in the
    host pass (``#[cfg(offload_device)] mod device { .. }``, ``#[cfg(target_arch =
    "nvptx64")] fn ..``; not ``#[cfg(any(offload_device, unix))]``, which the host compiles):
    code the host pass never compiles (toolchain/relink.py; analysis/cfg.py
    ``host_cfg_value``)."""
    out = []
    for attr, preds in _cfg_predicates(captures("cfg_attributes", root)):
        if any(host_cfg_value(p) is False for p in preds):
            target = attributed_item(attr)
            if target is not None:
                out.append((target.start_byte, target.end_byte))
    return out


def _cfg_predicates(cfg_caps: dict[str, list[Node]]) -> list[tuple[Node, list[Node]]]:
    """grammars/rust/cfg_attributes.scm's captures as (``#[cfg]`` attribute, its predicate
    token trees), for the attributes that have one."""
    preds = cfg_caps.get("predicate", [])
    starts = [p.start_byte for p in preds]
    out = []
    for attr in cfg_caps.get("attr", []) if preds else ():
        lo = bisect.bisect_left(starts, attr.start_byte)
        hi = bisect.bisect_left(starts, attr.end_byte, lo)
        if hi > lo:
            out.append((attr, preds[lo:hi]))
    return out


def _gated_ranges(cfg_caps: dict[str, list[Node]], memo: dict[bytes, tuple[bool, bool]]
                  ) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Byte ranges of the items that a device-only ``#[cfg]`` applies to, and of those a
    host-only one (``#[cfg(not(offload_device))]``) applies to: the item after the
    attribute (past other attributes and comments), everything inside it included."""
    device_out: list[tuple[int, int]] = []
    host_out: list[tuple[int, int]] = []
    for attr, preds in _cfg_predicates(cfg_caps):
        device = host = False
        for p in preds:
            text = p.text or b""
            value = memo.get(text)
            if value is None:
                value = memo[text] = (is_device_cfg(p), is_host_cfg(p))
            device, host = device or value[0], host or value[1]
        if device or host:
            target = attributed_item(attr)
            if target is not None:
                (device_out if device else host_out).append((target.start_byte, target.end_byte))
    return device_out, host_out


def _callee_text(name: Node) -> str:
    """A callee name (grammars/rust/calls.scm) as :class:`FnRec` keeps it: ``"f"``, or
    ``"m::f"`` for a call through a path ``a::m::f(..)`` / ``m::<T>::f``."""
    parent = name.parent
    if parent is None or parent.type != "scoped_identifier":
        return node_text(name)
    path = parent.child_by_field_name("path")
    if path is not None and path.type == "generic_type":
        # `SharedMemory::<f32>::new(n)`, `Vec::<u8>::with_capacity(n)`: through the type's name
        path = path.child_by_field_name("type")
        if path is not None and path.type == "scoped_type_identifier":
            path = path.child_by_field_name("name")
    elif path is not None and path.type == "bracketed_type":
        # `<f32 as Float>::new(1.0)`: a trait's function for that type, never the file's own
        return f"{node_text(path)}::{node_text(name)}"
    while path is not None and path.type == "scoped_identifier":
        last = path.child_by_field_name("name")
        if last is not None:
            path = last
            break
        path = None
    if path is None or path.type not in ("identifier", "type_identifier"):
        return node_text(name)
    return f"{node_text(path)}::{node_text(name)}"


def impl_owner(fn: Node) -> str:
    """The last path segment of the type of the ``impl`` block ``fn`` is a method of
    (``impl<T> Complex<T>`` -> ``Complex``), ``""`` for a function outside one."""
    parent = fn.parent
    impl = parent.parent if parent is not None and parent.type == "declaration_list" else None
    if impl is None or impl.type != "impl_item":
        return ""
    ty = impl.child_by_field_name("type")
    if ty is not None and ty.type == "generic_type":
        ty = ty.child_by_field_name("type")
    return node_text(ty).rsplit("::", 1)[-1] if ty is not None else ""


def unit_module(unit: Unit) -> str:
    """The name of the ``mod`` whose body holds ``unit`` (``""`` at the top of the file)."""
    mod = unit.parent.parent if unit.parent.type == "declaration_list" else None
    name = mod.child_by_field_name("name") if mod is not None and mod.type == "mod_item" else None
    return node_text(name) if name is not None else ""


@cache
def _device_fn_attrs() -> frozenset[str]:
    return frozenset(a for p in profiles().values() for a in p.device_fn_attrs)


#: Attributes that mark a function as host code, never followed from a kernel: cudars's
#: ``#[host] fn sum(..)``, the host twin of its ``#[device] fn sum(..)`` of the same name.
HOST_FN_ATTRS = frozenset({"host"})


def _attr_ranges(attrs: list[Node]) -> tuple[list[tuple[int, int, str]], list[tuple[int, int]]]:
    """Byte ranges of the functions an ecosystem's device-function attribute applies to
    (CubeCL ``#[cube]``, cuda-oxide ``#[device]``: the profiles' ``device_fn_attrs``), each
    with the reason it is device code (``"a `#[cube]` function"``), and of those marked host
    code (:data:`HOST_FN_ATTRS`)."""
    wanted = _device_fn_attrs()
    device: list[tuple[int, int, str]] = []
    host: list[tuple[int, int]] = []
    for attr in attrs:
        a = next((c for c in attr.named_children if c.type == "attribute"), None)
        head = a.named_children[0] if a is not None and a.named_children else None
        name = node_text(head).rsplit("::", 1)[-1] if head is not None else ""
        if name not in wanted and name not in HOST_FN_ATTRS:
            continue
        target = attributed_item(attr)
        if target is not None and target.type == "function_item":
            if name in HOST_FN_ATTRS:
                host.append((target.start_byte, target.end_byte))
            else:
                device.append((target.start_byte, target.end_byte, f"a `#[{node_text(head)}]` function"))
    return device, host


def enclosing_block(node: Node) -> Node | None:
    """The block a nested item is declared in, ``None`` at module level."""
    n = node.parent
    while n is not None:
        if n.type == "block":
            return n
        if n.type in ("mod_item", "source_file"):
            return None
        n = n.parent
    return None


def _shadowed(uses: list[Node]) -> set[str]:
    """Names imported by ``use`` from a root other than std/alloc/core
    (grammars/rust/use_imports.scm)."""
    names: set[str] = set()
    for use in uses:
        for _, caps in matches("use_imports", use):
            if "use_name" in caps and "use_path" in caps:
                root = _first_segment(caps["use_path"][0])
                if root not in _STD_ROOTS:
                    names.add(node_text(caps["use_name"][0]))
    return names


def _use_root(arg: Node | None) -> str:
    """First path segment of a ``use`` declaration's argument (``cuda_std`` for
    ``use cuda_std::prelude::*;``, ``use cuda_std::{a, b};``, ``use cuda_std as cs;``)."""
    depth = 0
    while arg is not None and depth < 16:
        depth += 1
        if arg.type in ("identifier", "scoped_identifier", "crate", "super", "self"):
            return _first_segment(arg)
        if arg.type in ("use_wildcard", "scoped_use_list", "use_as_clause"):
            arg = arg.child_by_field_name("path") or (arg.named_children[0] if arg.named_children else None)
            continue
        return ""
    return ""


def _first_segment(node: Node) -> str:
    """First segment of a path (``std::vec::Vec`` -> ``std``; ``crate::x`` -> ``crate``)."""
    while node.type in ("scoped_identifier", "scoped_type_identifier"):
        path = node.child_by_field_name("path")
        if path is None:
            name = node.child_by_field_name("name")
            return node_text(name) if name is not None else ""
        node = path
    return node_text(node)


def _extern_decl(decl: Node) -> ExternDecl:
    name = decl.child_by_field_name("name")
    params_node = decl.child_by_field_name("parameters")
    params = []
    for p in params_node.named_children if params_node is not None else ():
        if p.type != "parameter":
            continue
        t = p.child_by_field_name("type")
        params.append(None if t is None else ExternParam(node_text(t), type_shape(t)[0], Span(t.start_byte, t.end_byte)))
    return ExternDecl(node_text(name) if name is not None else "", tuple(params),
                      Span(name.start_byte, name.end_byte) if name is not None else None)


def _cube_launch(markers: dict[str, list[Node]]) -> set[int]:
    """``fn_start`` of functions under ``#[cube(launch)]`` (CubeCL's bounds-checked mode)."""
    out: set[int] = set()
    modes = markers.get("mode", [])
    if not modes:
        return out
    attrs = markers.get("attr", [])
    for mode in modes:
        if node_text(mode) != "launch":
            continue
        for attr in attrs:
            if attr.start_byte <= mode.start_byte < attr.end_byte:
                item = attributed_item(attr)
                if item is not None and item.type == "function_item":
                    out.add(item.start_byte)
                break
    return out
