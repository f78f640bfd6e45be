"""A unit's :class:`~offload_ls.analysis.units.records.UnitSummary` from its captures
(:func:`summarize`): its kernels, launches, functions with their callees and why they are
device or host code, ``static mut`` items, names, ``extern`` declarations and suppression
comments.
"""

from __future__ import annotations

import bisect
from functools import cache

from tree_sitter import Node

from offload_ls.analysis.flow.sources import KINDS, index_names
from offload_ls.analysis.flow.thread_flow import ThreadFlow
from offload_ls.analysis.kernels import attributed_item, kernels_from_captures
from offload_ls.analysis.launches import launches_from_captures
from offload_ls.analysis.model import Span
from offload_ls.analysis.suppress import comment_record
from offload_ls.analysis.transfer import type_shape
from offload_ls.analysis.units.call_args import generic_calls, index_args, names_thread_index
from offload_ls.analysis.units.captures import marker_captures
from offload_ls.analysis.units.gates import attr_ranges, gated_ranges
from offload_ls.analysis.units.items import (
    enclosing_block,
    is_shared_static,
    item_facts,
    loose_names,
    macro_rules_in_macros,
    shadowed_names,
)
from offload_ls.analysis.units.records import (
    _NO_EXPORTS,
    _NO_ITEMS,
    _NONE,
    ExternDecl,
    ExternParam,
    FnRec,
    ItemFacts,
    StaticDecl,
    UnitSummary,
    exports,
)
from offload_ls.analysis.units.split import Unit
from offload_ls.syntax.parse import node_text


def summarize(unit: Unit, caps: dict[str, dict[str, list[Node]]], source: bytes,
              cfg_memo: dict[bytes, tuple[bool, bool]] | None = None) -> UnitSummary:
    """The :class:`UnitSummary` of ``unit`` from its captures (:func:`unit_captures`).

    Args:
        cfg_memo: ``cfg(..)`` predicate text -> (selects device code, selects host code
            only), shared by the units
            of one analysis (the same few predicates repeat all over a file)."""
    if not caps:  # a comment, a macro call, ..: only names that may be functions or macros
        return _bare_summary(unit)
    memo = cfg_memo if cfg_memo is not None else {}
    empty: dict[str, list[Node]] = {}
    anchors = caps.get("unit_anchors", empty)
    markers = marker_captures(anchors.get("attr", []))
    abi = caps.get("kernel_abi", empty).get("fn", [])
    kernels = tuple(kernels_from_captures(markers, abi)) if markers or abi else ()
    launch_caps = caps.get("launches", empty)
    launches = tuple(launches_from_captures(launch_caps, source)) if launch_caps else ()

    fn_nodes = anchors.get("fn", [])
    gated, host = _code_ranges(unit, caps.get("cfg_attributes", empty), anchors.get("attr", []), memo)
    callee_nodes = caps.get("calls", empty).get("callee", [])
    generic = caps.get("calls", empty).get("generic_callee", [])
    fns, callee_texts = _fn_records(unit, fn_nodes, callee_nodes, gated, host, generic)

    statics = _statics(caps.get("static_mut", empty).get("name", []))
    items = item_facts(caps.get("items", empty), anchors, fn_nodes, unit)
    shadowed = frozenset(shadowed_names(anchors.get("use", [])))
    defined = frozenset(node_text(n) for n in caps.get("defined_names", empty).get("defined", [])) \
        | macro_rules_in_macros(unit)
    ucaps = caps.get("unsafe_fns", empty)
    unsafe_names = frozenset(node_text(n) for n in ucaps.get("name", []))
    fn_names = frozenset(node_text(n) for n in ucaps.get("any_fn", [])) | unsafe_names
    callees = (frozenset(t.rpartition("::")[2] for t in callee_texts) if callee_texts is not None
               else frozenset(node_text(c) for c in callee_nodes))
    externs = tuple(_extern_decl(d) for d in caps.get("extern_decls", empty).get("decl", []))
    comments = tuple(c for c in (comment_record(n) for n in caps.get("suppressions", empty).get("comment", [])) if c)
    has_casts = bool(caps.get("shared_to_mut_casts", empty).get("cast"))
    cube = tuple(sorted(_cube_launch(markers)))
    return UnitSummary(unit.start, unit.end, kernels, launches, fns, statics, shadowed, defined,
                       unsafe_names, fn_names, callees, externs, comments, has_casts, cube,
                       exports(kernels, launches, fns, statics, shadowed, defined, unsafe_names, fn_names,
                               externs, cube, items), items)


def _bare_summary(unit: Unit) -> UnitSummary:
    """The summary of a unit without captures (a comment, a macro call, ..): only the names
    it may define as functions or macros."""
    loose = loose_names(unit)
    macros = macro_rules_in_macros(unit)
    if not loose and not macros:
        return UnitSummary(unit.start, unit.end, (), (), (), (), _NONE, _NONE, _NONE, _NONE, _NONE, (), (),
                           False, (), _NO_EXPORTS)
    items = ItemFacts(loose_names=loose) if loose else _NO_ITEMS
    return UnitSummary(unit.start, unit.end, (), (), (), (), _NONE, macros, _NONE, _NONE, _NONE, (), (), False,
                       (), exports((), (), (), (), _NONE, macros, _NONE, _NONE, (), (), items), items)


#: Why a function under a device-only ``#[cfg]`` is device code (:attr:`FnRec.gated`).
_CFG_REASON = "under a device-only #[cfg]"


def _code_ranges(unit: Unit, cfg_caps: dict[str, list[Node]], attrs: list[Node], memo: dict
                 ) -> tuple[list[tuple[int, int, str]], list[tuple[int, int]]]:
    """Byte ranges of the unit that are device code by themselves (each with why: a device-only
    ``#[cfg]``, a device-function attribute, or an enclosing device-only ``mod``), and those
    that are host code (a host-only ``#[cfg]`` or ``mod``, a host-function attribute)."""
    device_ranges, host_ranges = gated_ranges(cfg_caps, memo)
    gated = [(s, e, _CFG_REASON) for s, e in device_ranges]
    device_fns, host_fns = attr_ranges(attrs)
    gated += device_fns
    host_ranges += host_fns
    if unit.gate:
        gated.append((unit.start, unit.end, _CFG_REASON))
    if unit.host:
        host_ranges.append((unit.start, unit.end))
    return gated, host_ranges


def _fn_records(unit: Unit, fn_nodes: list[Node], callee_nodes: list[Node], gated: list[tuple[int, int, str]],
                host_ranges: list[tuple[int, int]], generic: list[Node] = ()
                ) -> tuple[tuple[FnRec, ...], list[str] | None]:
    """The unit's :class:`FnRec` records, and the callees' texts (:func:`_callee_text`) when
    a function body needed them (else ``None``)."""
    module = unit_module(unit)
    callee_starts = [c.start_byte for c in callee_nodes]
    callee_texts: list[str] | None = None
    fns = []
    for fn in fn_nodes:
        name = fn.child_by_field_name("name")
        body = fn.child_by_field_name("body")
        called: tuple[str, ...] = ()
        args: tuple = ()
        if body is not None and callee_nodes:
            if callee_texts is None:
                callee_texts = [_callee_text(c) for c in callee_nodes]
            lo = bisect.bisect_left(callee_starts, body.start_byte)
            hi = bisect.bisect_left(callee_starts, body.end_byte, lo)
            called = tuple(dict.fromkeys(callee_texts[i] for i in range(lo, hi)
                                         if callee_nodes[i].end_byte <= body.end_byte))
            args = _call_args(fn, body, callee_nodes[lo:hi], generic)
        elif body is not None and generic:
            args = _call_args(fn, body, [], generic)
        s, e = fn.start_byte, fn.end_byte
        why = next((why for gs, ge, why in gated if gs <= s and e <= ge), "")
        host = not why and any(hs <= s and e <= he for hs, he in host_ranges)
        fns.append(FnRec(s, e, node_text(name) if name is not None else None,
                         Span(body.start_byte, body.end_byte) if body is not None else None, called, why,
                         host, module, position_kinds(fn, body) if body is not None else _NONE, impl_owner(fn), args))
    return tuple(fns), callee_texts


def _call_args(fn: Node, body: Node, callees: list[Node], generic: list[Node]) -> tuple:
    """:attr:`FnRec.index_args` of ``fn`` (analysis/units/call_args.py): its calls followed
    when its text names a thread index, else only its generic calls, as not followed."""
    inside = [c for c in generic if body.start_byte <= c.start_byte and c.end_byte <= body.end_byte]
    if (callees or inside) and names_thread_index(fn):
        return index_args(fn, body, [c for c in callees if c.end_byte <= body.end_byte], inside)
    return generic_calls(inside) if inside else ()


def _statics(names: list[Node]) -> tuple[StaticDecl, ...]:
    """The ``static mut`` declarations of the captured names (grammars/rust/static_mut.scm)."""
    return tuple(StaticDecl(node_text(n), Span(n.start_byte, n.end_byte), enclosing_block(n) is None,
                            n.parent is not None and is_shared_static(n.parent))
                 for n in names)


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
    return tuple(n.encode() for n in index_names())


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



def _extern_decl(decl: Node) -> ExternDecl:
    name = decl.child_by_field_name("name")
    params_node = decl.child_by_field_name("parameters")
    params = []
    for p in params_node.named_children if params_node is not None else ():
        if p.type != "parameter":
            continue
        t = p.child_by_field_name("type")
        params.append(None if t is None
                      else ExternParam(node_text(t), type_shape(t)[0], Span(t.start_byte, t.end_byte)))
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
