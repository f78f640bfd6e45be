"""What one unit contributes to the file's facts: :class:`UnitSummary` and the records it
holds (functions, ``static mut`` items, module-level items, ``extern`` declarations), and the
offset-free projections other units' results depend on (:func:`exports`).
"""

from __future__ import annotations

from dataclasses import dataclass

from offload_ls.analysis.model import Kernel, Launch, ParamKind, Span
from offload_ls.analysis.suppress import CommentRec


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
    #: the dependence kinds of what it returns (analysis/flow/sources.py ``DependenceKind``); a call of it
    #: is a thread-index source like the intrinsics it reads
    position: frozenset[str] = frozenset()
    #: the type of the ``impl`` block it is a method of (its last path segment: ``Complex``
    #: for ``impl Complex`` and ``impl Add for Complex``), ``""`` for a free function
    owner: str = ""
    #: its calls of functions by plain name with which arguments are an unguarded position in
    #: the launch (analysis/units/call_args.py ``index_args``): a helper's callers
    index_args: tuple = ()


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


_NONE: frozenset[str] = frozenset()
_NO_ITEMS = ItemFacts()


@dataclass(frozen=True, slots=True)
class ExternParam:
    """A parameter of a function declared in an ``extern`` block: type text, kind
    (analysis/transfer.py ``type_shape``) and the type's span."""

    type_text: str
    kind: ParamKind
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
    file by adding the difference (analysis/facts/ does, only where a value is needed).

    Attributes:
        start, end: the unit's range when the summary was made.
        kernels, launches: as analysis/kernels.py and analysis/launches/ find them.
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
    analysis/facts/): kernel names, ecosystems, parameter kinds and map types, whether
    each has a body and which function item it is, CubeCL checked mode; each function's
    name, callees, device cfg and body; each launch's kernel and thread count; ``static
    mut`` names; the name sets; ``extern`` declarations' parameter types."""
    fn_index = {f.start: j for j, f in enumerate(fns)}
    cube = set(cube_launch)
    return (
        tuple((k.name, k.ecosystem, tuple((p.kind, p.transfer) for p in k.params), k.body_span is not None,
               fn_index.get(k.fn_start, -1), k.fn_start in cube) for k in kernels),
        tuple((f.name, f.callees, f.gated, f.host, f.module, f.body is not None, f.position, f.owner, f.index_args)
              for f in fns),
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
        tuple((k.name, k.ecosystem, k.marker, k.generics, k.generic_bounds, k.declared_dims, k.is_unsafe_fn,
               tuple((p.name, p.type_text) for p in k.params)) for k in kernels),
        tuple((la.form, la.kernel, la.arity, la.has_args, la.workgroup_expr, la.thread_expr, la.device_expr,
               tuple(n for n, _ in la.fields), tuple(a.text for a in la.args)) for la in launches),
        items.consts, items.aliases, items.roots, items.renames, items.mods, items.imports, items.loose_names,
        tuple((f.name, f.generics, f.is_unsafe_fn, tuple((p.name, p.type_text) for p in f.params)) for f in items.fns),
    )


#: The exports of a unit without facts (a comment, a macro call).
_NO_EXPORTS = exports((), (), (), (), _NONE, _NONE, _NONE, _NONE, (), ())
