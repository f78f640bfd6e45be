"""static_mut_in_kernel: device code reads or writes a ``static mut`` that is not
block-shared memory.

Device code is every :class:`~offload_ls.analysis.device_code.DeviceFn`: kernel bodies, the
functions they call and functions under a device-only ``#[cfg]``. A ``static mut`` used
there is one variable shared by every GPU thread without synchronisation (concurrent
writes are a data race), and it lives in the device image: the host's ``static mut`` of
the same name is a different variable (the device pass compiles the crate separately,
docs/offload-notes.md "Pipeline"), so values never flow between them.

Block-shared memory is the idiom, not a race: a ``static mut`` that an ecosystem profile
marks as shared/workgroup memory (``#[address_space(shared)]`` in Rust-CUDA and rustc
offload, cuda-oxide's ``SharedArray<T, N>`` and ``Barrier`` types), or one declared in an
``extern`` block (defined outside Rust: a bare nvptx crate's ``addrspace(3)`` global;
analysis/units.py ``is_shared_static``) is indexed per thread between barriers, and is
never reported.

Name resolution is syntactic (tree-sitter): an identifier refers to the ``static mut``
declared in the nearest enclosing block, else to one declared at module level anywhere in
the file (by its last path segment). A ``let`` or parameter of the same name in the same
function shadows it there.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from tree_sitter import Node

from offload_ls.analysis.context import FileContext
from offload_ls.analysis.device_code import DeviceFn
from offload_ls.analysis.model import Finding, Level, Related, Span
from offload_ls.analysis.rules import Rule
from offload_ls.analysis.units import enclosing_block, is_shared_static
from offload_ls.syntax.parse import node_text
from offload_ls.syntax.queries import captures

NAME = "static_mut_in_kernel"

_SCOPE_STOPS = {"function_item", "impl_item", "trait_item", "mod_item"}


@dataclass(frozen=True)
class StaticUse:
    """One identifier in a function body that refers to a ``static mut``.

    Attributes:
        name: the static's name. span: the identifier (UTF-8 byte range).
        decl: the declared name's span. access: ``"writes"`` (left of ``=`` / ``+=``, also
            through ``[i]`` / ``.field``), ``"reads"`` (any other expression) or ``"uses"``
            (macro arguments, method receivers, ``&mut``: may read or write).
        shared: the static is block-shared memory (an ecosystem's idiom).
    """

    name: str
    span: Span
    decl: Span
    access: str
    shared: bool = False


#: The declaration span of a ``static mut`` declared in another file of the crate.
ELSEWHERE = Span(-1, -1)


class StaticMuts:
    """The ``static mut`` items of one file, and resolution of identifiers against them.

    Args:
        root: the file's tree-sitter root node (every ``static mut`` of the tree is read).

    :meth:`of` gives the same for a rule's scope: the module-level items of the whole file
    (from the file's facts) and the block-level items inside the scope, which are the only
    ones an identifier of the scope can refer to.
    """

    def __init__(self, root: Node) -> None:
        names = captures("static_mut", root).get("name", [])
        module_level: dict[str, Span] = {}
        shared: set[str] = set()
        for name in names:
            if enclosing_block(name) is None:
                module_level.setdefault(node_text(name), Span(name.start_byte, name.end_byte))
                if name.parent is not None and is_shared_static(name.parent):
                    shared.add(node_text(name))
        self._setup(names, module_level, bool(names), frozenset(shared))

    @classmethod
    def of(cls, ctx: FileContext) -> StaticMuts:
        """The ``static mut`` items visible from ``ctx``'s scope (computed once per context)."""
        found = ctx.memo.get("static_muts")
        if found is None:
            facts = ctx.facts
            found = cls.__new__(cls)
            names = ctx.scope_captures("static_mut").get("name", []) if facts.has_statics else []
            elsewhere = {n: d for n, d in (facts.crate.statics.items() if facts.crate is not None else ())
                         if n not in facts.module_statics}
            found._setup(names, facts.module_statics, facts.has_statics or bool(elsewhere), facts.shared_statics,
                         elsewhere)
            ctx.memo["static_muts"] = found
        return found

    def _setup(self, names: list[Node], module_level: dict[str, Span], any_in_file: bool,
               shared: frozenset[str] = frozenset(), elsewhere: dict | None = None) -> None:
        #: module-level name -> its (first) declaration's name span, anywhere in the file
        self.module_level = dict(module_level)
        #: module-level ``static mut`` items of the crate's other files, by name: a use is
        #: resolved to them (``use state::COUNTER;``, ``crate::state::COUNTER``) and its
        #: declaration has no span in this file (:data:`ELSEWHERE`)
        for name, decl in (elsewhere or {}).items():
            self.module_level.setdefault(name, ELSEWHERE)
        shared = shared | {n for n, d in (elsewhere or {}).items() if d.shared}
        #: module-level names that are block-shared memory
        self.shared = shared
        #: declaration name spans (block-level) that are block-shared memory
        self.shared_decls = {Span(n.start_byte, n.end_byte) for n in names
                             if n.parent is not None and is_shared_static(n.parent)}
        #: block start byte -> name -> declaration's name span
        self.in_block: dict[int, dict[str, Span]] = {}
        #: the declared-name nodes this object was built from (all of the file's for
        #: ``StaticMuts(root)``, those inside the scope for :meth:`of`)
        self.declarations: list[Node] = list(names)
        self._any = any_in_file
        for name in names:
            block = enclosing_block(name)
            if block is not None:
                self.in_block.setdefault(block.start_byte, {})[node_text(name)] = Span(name.start_byte, name.end_byte)

    def __bool__(self) -> bool:
        """The file has at least one ``static mut``."""
        return self._any

    def uses_in(self, body: Node) -> list[StaticUse]:
        """References to a ``static mut`` inside ``body`` (a function's block), in document
        order, not descending into nested function items."""
        if not self._any:
            return []
        decl_starts = {d.start_byte for d in self.declarations}
        ids = [i for i in captures("identifiers", body).get("id", []) if _owner_fn(i) == _owner_fn(body)]
        shadowed = {node_text(i) for i in ids if _is_binding(i)}
        out = []
        for ident in ids:
            text = node_text(ident)
            if ident.start_byte in decl_starts or text in shadowed or not _is_reference(ident):
                continue
            decl = self._resolve(ident, text)
            if decl is not None:
                shared = decl in self.shared_decls or (text in self.shared and self.module_level.get(text) == decl)
                out.append(StaticUse(text, Span(ident.start_byte, ident.end_byte), decl, _access(ident), shared))
        return out

    def _resolve(self, ident: Node, text: str) -> Span | None:
        node = ident.parent
        while node is not None:
            if node.type == "block" and text in self.in_block.get(node.start_byte, {}):
                return self.in_block[node.start_byte][text]
            node = node.parent
        return self.module_level.get(text)


def _owner_fn(node: Node) -> int | None:
    """Start byte of the innermost function item enclosing ``node`` (identity for scoping)."""
    n = node.parent
    while n is not None:
        if n.type in _SCOPE_STOPS:
            return n.start_byte
        n = n.parent
    return None


def _is_binding(ident: Node) -> bool:
    parent = ident.parent
    return parent is not None and parent.child_by_field_name("pattern") == ident


def _is_reference(ident: Node) -> bool:
    """True where ``ident`` can name a value: not a binding, not a path prefix
    (``COUNTER::x``), not an item's own name."""
    parent = ident.parent
    if parent is None or _is_binding(ident):
        return False
    if parent.type == "scoped_identifier" and parent.child_by_field_name("path") == ident:
        return False
    if parent.type != "token_tree" and parent.child_by_field_name("name") == ident and parent.type != "scoped_identifier":
        return False
    return True


def _access(ident: Node) -> str:
    node = ident
    if node.parent is not None and node.parent.type == "scoped_identifier":
        node = node.parent
    if node.parent is not None and node.parent.type == "token_tree":
        return "uses"
    while node.parent is not None and (
        node.parent.type == "parenthesized_expression"
        or (node.parent.type == "index_expression" and node.parent.named_child(0) == node)
        or (node.parent.type == "field_expression" and node.parent.child_by_field_name("value") == node
            and not (node.parent.parent is not None and node.parent.parent.type == "call_expression"))
    ):
        node = node.parent
    parent = node.parent
    if parent is None:
        return "reads"
    if parent.type in ("assignment_expression", "compound_assignment_expr"):
        return "writes" if parent.child_by_field_name("left") == node else "reads"
    if parent.type == "reference_expression" and any(c.type == "mutable_specifier" for c in parent.children):
        return "uses"
    if parent.type == "field_expression":  # method receiver: `COUNTER.push(..)`
        return "uses"
    return "reads"


def where(fn: DeviceFn) -> str:
    """How a device function is named in messages: ``kernel `k``` or
    ``device function `f` (called from kernel `k`)``."""
    if fn.kernel is not None:
        return f"kernel `{fn.name}`"
    return f"device function `{fn.name}` ({fn.reason})"


def message(fn: DeviceFn, use: StaticUse) -> str:
    """The finding's text for one use of a ``static mut`` in device function ``fn``."""
    head = f"{where(fn)} {use.access} `static mut {use.name}`"
    if use.access == "writes":
        return (
            f"{head}: every GPU thread writes this one variable without synchronisation (a data race), "
            f"and it is the device's copy, not the host's, so the host never sees the writes; "
            f"return results through a `&mut` kernel argument instead"
        )
    if use.access == "reads":
        return (
            f"{head}: it is the device's copy, not the host's, so host writes to it are not seen here, "
            f"and a write by another GPU thread would be a data race; pass the value as a kernel argument instead"
        )
    return (
        f"{head}: every GPU thread shares this one variable without synchronisation (writes are a data race), "
        f"and it is the device's copy, not the host's, so values never flow between them; "
        f"pass the data as a kernel argument instead"
    )


def check(ctx: FileContext) -> Iterator[Finding]:
    if not ctx.device_fns:
        return
    statics = StaticMuts.of(ctx)
    if not statics:
        return
    seen: set[Span] = set()
    used_decls: set[Span] = set()
    for fn in ctx.device_fns:
        body = ctx.node(fn.body_span)
        if body is None:
            continue
        for use in statics.uses_in(body):
            used_decls.add(use.decl)
            if use.span in seen or use.shared:
                continue
            seen.add(use.span)
            related = () if use.decl == ELSEWHERE else \
                (Related(use.decl, f"`static mut {use.name}` is declared here"),)
            yield Finding(rule=NAME, span=use.span, message=message(fn, use) + _shared_hint(ctx, fn, use.decl),
                          related=related)
    for decl in statics.declarations:
        span = Span(decl.start_byte, decl.end_byte)
        if span in used_decls or span in statics.shared_decls:
            continue
        for fn in ctx.device_fns:
            if fn.body_span.contains(span) and _owner_fn(decl) == fn.span.start:
                yield Finding(
                    rule=NAME,
                    span=span,
                    message=(
                        f"{where(fn)} declares `static mut {node_text(decl)}`: one variable shared by "
                        f"every GPU thread without synchronisation; use a local variable instead"
                    ),
                )
                break


def _shared_hint(ctx: FileContext, fn: DeviceFn, decl: Span) -> str:
    """When the static carries an attribute that names ``shared`` but is not the
    ecosystem's block-shared spelling (``#[shared]`` in a cuda_std kernel, whose spelling
    is ``#[address_space(shared)]``): a sentence that says so, else ``""``."""
    name = ctx.node(decl) if decl != ELSEWHERE else None
    item = name.parent if name is not None else None
    wanted = ctx.profile(fn.kernel).shared_static_attrs
    if item is None or item.type != "static_item" or not wanted:
        return ""
    sib = item.prev_sibling
    while sib is not None and sib.type in ("attribute_item", "line_comment", "block_comment"):
        text = node_text(sib)
        if sib.type == "attribute_item" and "shared" in text:
            spelled = " or ".join(f"`#[{a}({w})]`" for a, w in sorted(wanted))
            return (f"; if it is meant as block-shared memory, `{text}` does not make it so here: "
                    f"the attribute is {spelled}")
        sib = sib.prev_sibling
    return ""


RULE = Rule(
    name=NAME,
    default_level=Level.DENY,
    summary="`static mut` (not block-shared memory) in device code: one variable for all GPU threads, not the host's",
    check=check,
    needs=frozenset({"device_fns"}),
)
