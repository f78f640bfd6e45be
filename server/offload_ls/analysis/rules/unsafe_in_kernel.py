"""unsafe_in_kernel: each ``unsafe { .. }`` block in a kernel body, and the ``unsafe`` of an
``unsafe fn`` kernel, with what the unsafe context is used for.

Recognised purposes (syntactic, in the kernel body only, not in host code):

- dereferencing a raw pointer: ``*p``, ``(*p)[i]``, ``p.read()``, ``p.add(i).write(v)``,
  where ``p`` is a raw-pointer parameter (``*mut T`` / ``*const T``) or a ``let`` derived
  from one (``let q = p.add(i);``, ``let q: *mut f32 = ..``, ``.. as *mut T``,
  ``x.as_mut_ptr()``); pointer arithmetic alone (``p.add(i)``) is "offsets";
- calling a thread-index intrinsic (grammars/rust/thread_index.scm): ``core::arch::nvptx``'s
  ``_thread_idx_x``, ``_block_idx_x``, .. are ``unsafe fn`` (stdarch), and so are the same
  intrinsics declared in an ``extern`` block of the file (``workitem_id_x``, rustc's amdgpu
  offload tests); the other ``core::arch::nvptx`` functions (``_block_dim_x``,
  ``_syncthreads``, ..) are "GPU intrinsics";
- calling an unsafe function: an ``unsafe fn`` or ``extern`` function of the file, a
  well-known unsafe std function (``ptr::write``, ``mem::transmute``,
  ``slice::from_raw_parts``, ..), or an unsafe method (``get_unchecked``, ..);
- accessing a ``static mut`` (resolved as in static_mut_in_kernel);
- inline assembly (``asm!``).

A block whose purpose is not recognised says so, naming the functions it calls that are
defined outside the file.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from tree_sitter import Node

from offload_ls.analysis.context import FileContext
from offload_ls.analysis.model import Finding, Kernel, Level, Related, Span
from offload_ls.analysis.rules import Rule
from offload_ls.analysis.rules.heap_owning_kernel_arg import path_segments
from offload_ls.analysis.rules.static_mut_in_kernel import StaticMuts
from offload_ls.syntax.parse import node_text
from offload_ls.syntax.queries import matches

NAME = "unsafe_in_kernel"

#: Raw-pointer methods that read or write the pointee (core::ptr, ``impl<T> *mut T``).
DEREF_METHODS = frozenset({
    "read", "write", "read_volatile", "write_volatile", "read_unaligned", "write_unaligned",
    "as_ref", "as_mut", "as_uninit_ref", "as_uninit_mut", "replace", "swap",
    "copy_from", "copy_to", "copy_from_nonoverlapping", "copy_to_nonoverlapping",
    "write_bytes", "drop_in_place",
})
#: Unsafe raw-pointer arithmetic (the ``wrapping_*`` forms are safe).
OFFSET_METHODS = frozenset({"add", "sub", "offset", "byte_add", "byte_sub", "byte_offset",
                            "offset_from", "byte_offset_from", "sub_ptr", "offset_from_unsigned"})
#: Methods that return a raw pointer derived from their receiver, or make one.
POINTER_METHODS = OFFSET_METHODS | {"wrapping_add", "wrapping_sub", "wrapping_offset",
                                     "cast", "cast_mut", "cast_const"}
MAKES_POINTER = frozenset({"as_ptr", "as_mut_ptr"})
#: Unsafe methods of slices, Option/Result and MaybeUninit.
UNSAFE_METHODS = frozenset({"get_unchecked", "get_unchecked_mut", "unwrap_unchecked",
                            "assume_init", "assume_init_read", "assume_init_ref",
                            "assume_init_mut", "assume_init_drop"})
#: Unsafe std/core functions by module (the path segment before the name).
STD_UNSAFE = {
    "ptr": frozenset({"read", "write", "read_volatile", "write_volatile", "read_unaligned",
                      "write_unaligned", "copy", "copy_nonoverlapping", "write_bytes",
                      "drop_in_place", "swap", "swap_nonoverlapping", "replace"}),
    "mem": frozenset({"transmute", "transmute_copy", "zeroed", "uninitialized"}),
    "slice": frozenset({"from_raw_parts", "from_raw_parts_mut"}),
    "hint": frozenset({"unreachable_unchecked", "assert_unchecked"}),
    "str": frozenset({"from_utf8_unchecked", "from_utf8_unchecked_mut"}),
}
#: Unsafe std functions whose bare name (after ``use``) is unambiguous.
STD_UNSAFE_BARE = frozenset({"transmute", "transmute_copy", "from_raw_parts", "from_raw_parts_mut",
                             "unreachable_unchecked", "copy_nonoverlapping", "read_volatile",
                             "write_volatile", "from_utf8_unchecked"})
#: core::arch::nvptx ``unsafe fn``s that are thread / block indices (stdarch crates/core_arch/src/nvptx).
NVPTX_THREAD_INDEX = frozenset({f"_{w}_idx_{d}" for w in ("thread", "block") for d in "xyz"})
#: Other core::arch::nvptx ``unsafe fn``s.
NVPTX_INTRINSICS = frozenset({f"_{w}_dim_{d}" for w in ("block", "grid") for d in "xyz"}
                             | {"_syncthreads", "__assert_fail"})

_SCOPE_STOPS = {"impl_item", "trait_item", "mod_item"}


@dataclass(frozen=True)
class Purpose:
    """One thing an unsafe context is used for: ``text`` for the message (e.g.
    ``dereferences raw pointer `out```), ``span`` of its first occurrence."""

    text: str
    span: Span


def check(ctx: FileContext) -> Iterator[Finding]:
    kernels = [k for k in ctx.kernels if k.body_span is not None]
    if not kernels:
        return
    unsafe_fns, file_fns = ctx.facts.unsafe_names, ctx.facts.fn_names  # of the whole file
    statics = StaticMuts.of(ctx)
    for kernel in kernels:
        if b"unsafe" not in ctx.source[kernel.span.start : kernel.span.end]:
            continue  # neither an `unsafe fn` nor an `unsafe` block: nothing to report
        body = ctx.node(kernel.body_span)
        fn = body.parent if body is not None else None
        if body is None or fn is None or fn.type != "function_item":
            continue
        calls = ctx.fn_captures(fn)["thread_index"].get("fn", [])
        thread_index_calls = {n.start_byte for n in calls if body.start_byte <= n.start_byte and n.end_byte <= body.end_byte}
        yield from _check_kernel(kernel, fn, body, unsafe_fns, file_fns, statics, thread_index_calls)


def _check_kernel(kernel: Kernel, fn: Node, body: Node, unsafe_fns: frozenset[str], file_fns: frozenset[str],
                  statics: StaticMuts, thread_index_calls: set[int]) -> Iterator[Finding]:
    """Findings for one kernel; ``thread_index_calls``: start bytes of the callee names of
    thread-index calls in ``body`` (grammars/rust/thread_index.scm ``@fn``)."""
    found = matches("unsafe_ops", body)
    pointers = RawPointers(kernel, found)
    blocks: list[Node] = []
    purposes: dict[int, list[tuple[str, str, Node]]] = {}  # owner start -> (kind, name/text, node)
    unknown_calls: dict[int, list[str]] = {}

    def add(node: Node, kind: str, what: str) -> None:
        owner = _owner(node, fn)
        if owner is not None:
            purposes.setdefault(owner.start_byte, []).append((kind, what, node))

    for _, caps in found:
        if "block" in caps:
            block = caps["block"][0]
            if _enclosing_fn(block) == fn:  # not in a function nested in the kernel body
                blocks.append(block)
        elif "deref" in caps:
            ptr = _root_pointer(caps["deref_operand"][0], pointers)
            if ptr is not None:
                add(caps["deref"][0], "deref", ptr)
        elif "method_call" in caps:
            method = node_text(caps["method"][0])
            call = caps["method_call"][0]
            ptr = _root_pointer(caps["receiver"][0], pointers)
            if ptr is not None and method in DEREF_METHODS:
                add(call, "deref", ptr)
            elif ptr is not None and method in OFFSET_METHODS:
                add(call, "offset", ptr)
            elif method in UNSAFE_METHODS:
                add(call, "text", f"calls unsafe method `{method}`")
        elif "call" in caps:
            callee = caps["callee"][0]
            name = node_text(callee)
            call = caps["call"][0]
            segments = path_segments(caps["callee_path"][0])
            if callee.start_byte in thread_index_calls and (name in NVPTX_THREAD_INDEX or name in unsafe_fns):
                add(call, "text", f"calls thread-index intrinsic `{name}`")
            elif name in NVPTX_INTRINSICS:
                add(call, "text", f"calls GPU intrinsic `{name}`")
            elif name in unsafe_fns and len(segments) == 1:
                add(call, "text", f"calls unsafe function `{name}`")
            elif len(segments) > 1 and name in STD_UNSAFE.get(segments[-2], ()):
                add(call, "text", f"calls unsafe function `{segments[-2]}::{name}`")
            elif len(segments) == 1 and name in STD_UNSAFE_BARE:
                add(call, "text", f"calls unsafe function `{name}`")
            elif name not in file_fns and not name[:1].isupper():
                owner = _owner(call, fn)
                if owner is not None:
                    unknown_calls.setdefault(owner.start_byte, []).append("::".join(segments))
        elif "asm" in caps:
            add(caps["asm"][0], "text", "contains inline assembly (`asm!`)")

    for use in statics.uses_in(body):
        node = body.descendant_for_byte_range(use.span.start, use.span.end)
        if node is not None:
            add(node, "text", f"accesses `static mut {use.name}`")

    for block in sorted(blocks, key=lambda b: b.start_byte):
        keyword = block.child(0)
        span = Span(block.start_byte, keyword.end_byte if keyword is not None else block.start_byte)
        found_here = _summarise(purposes.get(block.start_byte, []))
        yield _finding(f"unsafe block in kernel `{kernel.name}`", span, found_here,
                       unknown_calls.get(block.start_byte, []), "")
    if kernel.is_unsafe_fn and kernel.unsafe_span is not None:
        found_here = _summarise(purposes.get(fn.start_byte, []))
        yield _finding(f"`unsafe fn` kernel `{kernel.name}`", kernel.unsafe_span, found_here,
                       unknown_calls.get(fn.start_byte, []), " outside its `unsafe` blocks" if blocks else "")


def _finding(head: str, span: Span, found: list[Purpose], unknown: list[str], where: str) -> Finding:
    if found:
        text = f"{head}: " + "; ".join(p.text for p in found)
    else:
        text = f"{head}: no unsafe operation recognised{where}"
        names = list(dict.fromkeys(unknown))
        if names:
            listed = ", ".join(f"`{n}`" for n in names)
            text += f"; it calls {listed}, defined outside this file"
    return Finding(rule=NAME, span=span, message=text,
                   related=tuple(Related(p.span, p.text) for p in found))


def _summarise(items: list[tuple[str, str, Node]]) -> list[Purpose]:
    """Purposes of one unsafe context in order of first occurrence, each once; a pointer
    that is dereferenced is not also listed as offset."""
    derefed = {what for kind, what, _ in items if kind == "deref"}
    out: dict[str, Purpose] = {}
    for kind, what, node in sorted(items, key=lambda i: (i[2].start_byte, -i[2].end_byte)):
        if kind == "offset" and what in derefed:
            continue
        text = {"deref": f"dereferences raw pointer `{what}`",
                "offset": f"offsets raw pointer `{what}`"}.get(kind, what)
        out.setdefault(text, Purpose(text, Span(node.start_byte, node.end_byte)))
    return list(out.values())


def _enclosing_fn(node: Node) -> Node | None:
    n = node.parent
    while n is not None and n.type != "function_item":
        n = n.parent
    return n


def _owner(node: Node | None, fn: Node) -> Node | None:
    """The unsafe context ``node`` is in: the innermost ``unsafe_block`` around it, or the
    kernel's ``function_item`` ``fn`` if it is an ``unsafe fn`` (``None`` otherwise, and
    inside nested items). Closures inherit the enclosing context."""
    n = node
    while n is not None:
        if n.type == "unsafe_block" and n != node:
            return n
        if n.type == "function_item":
            if n != fn:
                return None
            return fn if _is_unsafe_fn(fn) else None
        if n.type in _SCOPE_STOPS:
            return None
        n = n.parent
    return None


def _is_unsafe_fn(fn: Node) -> bool:
    return any(c.type == "function_modifiers" and any(m.type == "unsafe" for m in c.children)
               for c in fn.children)


class RawPointers:
    """Which names are raw pointers where, in one kernel body: the raw-pointer parameters,
    and ``let`` bindings derived from one (a later ``let`` of the same name that is not a
    pointer ends it). Flow-insensitive within a position: the binding in force at a byte
    offset is the last ``let`` of that name before it (block scopes are not modelled)."""

    def __init__(self, kernel: Kernel, found) -> None:
        self._events: dict[str, list[tuple[int, bool]]] = {}
        for p in kernel.params:
            if p.kind in ("const_ptr", "mut_ptr"):
                self._events[p.name.removeprefix("mut ").strip()] = [(-1, True)]
        lets = sorted((caps["let"][0] for _, caps in found if "let" in caps), key=lambda n: n.start_byte)
        for let in lets:
            name = let.child_by_field_name("pattern")
            if name is None:
                continue
            type_node = let.child_by_field_name("type")
            value = let.child_by_field_name("value")
            is_ptr = (type_node is not None and type_node.type == "pointer_type") or (
                value is not None and _makes_pointer(value, self)
            )
            self._events.setdefault(node_text(name), []).append((let.end_byte, is_ptr))

    def is_pointer(self, ident: Node) -> bool:
        """Is identifier ``ident`` (a use) a raw pointer at its position?"""
        state = False
        for pos, is_ptr in self._events.get(node_text(ident), []):
            if pos <= ident.start_byte:
                state = is_ptr
        return state


def _makes_pointer(value: Node, pointers: RawPointers) -> bool:
    value = _unwrap(value)
    if value is None:
        return False
    if value.type == "type_cast_expression":
        t = value.child_by_field_name("type")
        return t is not None and t.type == "pointer_type"
    if value.type == "call_expression":
        f = value.child_by_field_name("function")
        if f is not None and f.type == "field_expression":
            method = f.child_by_field_name("field")
            if method is not None and node_text(method) in MAKES_POINTER:
                return True
    if value.type == "macro_invocation":
        m = value.child_by_field_name("macro")
        return m is not None and path_segments(m)[-1] in ("addr_of", "addr_of_mut")
    return _root_pointer(value, pointers) is not None


def _unwrap(node: Node | None) -> Node | None:
    """Look through parentheses and ``unsafe { .. }`` / ``{ .. }`` to the value expression."""
    while node is not None:
        if node.type == "parenthesized_expression":
            node = node.named_child(0)
        elif node.type in ("unsafe_block", "block"):
            inner = node.named_children[-1] if node.named_children else None
            if node.type == "unsafe_block":
                node = inner
                continue
            if inner is None or inner.type.endswith("_statement") or inner.type == "let_declaration":
                return None
            node = inner
        else:
            return node
    return None


def _root_pointer(expr: Node, pointers: RawPointers) -> str | None:
    """The raw-pointer variable ``expr`` evaluates from (``p``, ``(p)``, ``p.add(i)``,
    ``p.cast::<u8>().add(1)``), or ``None``."""
    node = _unwrap(expr)
    while node is not None:
        if node.type == "identifier":
            return node_text(node) if pointers.is_pointer(node) else None
        if node.type == "call_expression":
            f = node.child_by_field_name("function")
            if f is None and node.named_child_count:
                f = node.named_child(0)
            if f is not None and f.type == "generic_function":
                f = f.child_by_field_name("function")
            if f is None or f.type != "field_expression":
                return None
            method = f.child_by_field_name("field")
            if method is None or node_text(method) not in POINTER_METHODS:
                return None
            node = _unwrap(f.child_by_field_name("value"))
            continue
        return None
    return None


RULE = Rule(
    name=NAME,
    default_level=Level.WARN,
    summary="unsafe block or unsafe fn in a kernel, with what it is for (raw pointers, intrinsics, unsafe calls, static mut)",
    check=check,
    needs=frozenset({"kernels"}),
)
