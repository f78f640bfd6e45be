"""``static mut`` items of a file and the identifiers that refer to them, for the rules
that look at device code's use of them (static_mut_in_kernel, unsafe_in_kernel,
unchecked_thread_index).

Name resolution is syntactic (tree-sitter): an identifier refers to the ``static mut``
declared in the nearest enclosing block, else to one declared at module level anywhere in
the file (by its last path segment). A ``let`` or parameter of the same name in the same
function shadows it there.
"""

from __future__ import annotations

from dataclasses import dataclass

from tree_sitter import Node

from offload_ls.analysis.context import FileContext
from offload_ls.analysis.model import Span
from offload_ls.analysis.units import enclosing_block, is_shared_static
from offload_ls.syntax.parse import node_text
from offload_ls.syntax.queries import captures

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
        for name in elsewhere or {}:
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
        ids = [i for i in captures("identifiers", body).get("id", []) if owner_fn(i) == owner_fn(body)]
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


def owner_fn(node: Node) -> int | None:
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
    if (parent.type != "token_tree" and parent.child_by_field_name("name") == ident
            and parent.type != "scoped_identifier"):
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
