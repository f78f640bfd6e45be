"""unsafe_in_kernel: an ``unsafe`` context in a kernel does something that its ecosystem's
kernels need not do unsafely.

Reported (the ``unsafe { .. }`` block, or the ``unsafe`` of an ``unsafe fn`` kernel whose
body does it outside any block):

- dereferencing a raw pointer (``*p``, ``(*p)[i]``, ``p.read()``, ``p.add(i).write(v)``,
  ``*p.add(i) = v``) where the ecosystem's kernels take references or buffers (std offload
  in both spellings, rust-gpu, CubeCL, krnl: the ecosystem profile's
  ``raw_pointer_params`` is false), ``p`` being a raw-pointer parameter or a ``let``
  derived from one (``let q = p.add(i);``, ``let q: *mut f32 = ..``, ``.. as *mut T``,
  ``x.as_mut_ptr()``), or a pointer made in place (``*x.as_mut_ptr().add(i) = v``): a
  reference parameter needs no ``unsafe``, keeps the bounds check
  and lets the compiler mark the argument ``noalias``;
- reading or writing a ``static mut`` that is not block-shared memory (resolved as in
  static_mut_in_kernel): one variable for every GPU thread, without synchronisation.

Never reported: thread-index intrinsics (``core::arch::nvptx::_thread_idx_x`` is an
``unsafe fn``), barriers, shared/workgroup memory, atomics, ``get_unchecked``, calls of
unsafe functions, inline assembly, and an ``unsafe fn`` kernel whose ecosystem requires it
(cuda_std) or whose body does nothing of the above. In Rust-CUDA and cuda-oxide raw device
pointers are the idiom, so dereferencing them is not reported there.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from tree_sitter import Node

from offload_ls.analysis.context import FileContext
from offload_ls.analysis.model import Finding, Kernel, Level, Related, Span
from offload_ls.analysis.reads import Fact, Holds
from offload_ls.analysis.rules import Rule
from offload_ls.analysis.static_muts import StaticMuts
from offload_ls.syntax.parse import node_text
from offload_ls.syntax.paths import path_segments
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

_SCOPE_STOPS = {"impl_item", "trait_item", "mod_item"}


@dataclass(frozen=True)
class Purpose:
    """One reportable thing an unsafe context does: ``text`` for the message (e.g.
    ``dereferences raw pointer `out```), ``span`` of its first occurrence."""

    text: str
    span: Span


def check(ctx: FileContext) -> Iterator[Finding]:
    kernels = [k for k in ctx.kernels if k.body_span is not None]
    if not kernels:
        return
    statics = StaticMuts.of(ctx)
    for kernel in kernels:
        if b"unsafe" not in ctx.source[kernel.span.start : kernel.span.end]:
            continue  # neither an `unsafe fn` nor an `unsafe` block: nothing to report
        body = ctx.node(kernel.body_span)
        fn = body.parent if body is not None else None
        if body is None or fn is None or fn.type != "function_item":
            continue
        profile = ctx.profile(kernel)
        yield from _check_kernel(kernel, fn, body, statics, profile)


def _check_kernel(kernel: Kernel, fn: Node, body: Node, statics: StaticMuts, profile) -> Iterator[Finding]:
    """Findings for one kernel of ``profile``'s ecosystem; raw-pointer dereferences are
    reportable unless raw pointers are its idiom (``raw_pointer_params``)."""
    derefs = not profile.raw_pointer_params
    purposes: dict[int, list[tuple[str, str, Node]]] = {}  # owner start -> (kind, text, node)
    blocks: dict[int, Node] = {}

    def add(node: Node, kind: str, what: str) -> None:
        owner = _owner(node, fn)
        if owner is not None:
            purposes.setdefault(owner.start_byte, []).append((kind, what, node))
            blocks[owner.start_byte] = owner

    if derefs:
        for node, ptr in _raw_derefs(kernel, body):
            add(node, "deref", ptr)
    for use in statics.uses_in(body):
        if use.shared:
            continue
        node = body.descendant_for_byte_range(use.span.start, use.span.end)
        if node is not None:
            add(node, "static", use.name)

    for start in sorted(purposes):
        owner = blocks[start]
        found_here = _summarise(purposes[start])
        where = _context(owner, kernel)
        if where is None:
            continue
        span, head = where
        yield _finding(head, span, found_here, purposes[start], profile)


def _raw_derefs(kernel: Kernel, body: Node) -> Iterator[tuple[Node, str]]:
    """The raw-pointer dereferences in ``body`` (``*p``, ``p.read()``): the node and the pointer's text."""
    found = matches("unsafe_ops", body)
    pointers = RawPointers(kernel, found)
    for _, caps in found:
        if "deref" in caps:
            ptr = _root_pointer(caps["deref_operand"][0], pointers)
            if ptr is not None:
                yield caps["deref"][0], ptr
        elif "method_call" in caps:
            method = node_text(caps["method"][0])
            if method in DEREF_METHODS:
                ptr = _root_pointer(caps["receiver"][0], pointers)
                if ptr is not None:
                    yield caps["method_call"][0], ptr


def _context(owner: Node, kernel: Kernel) -> tuple[Span, str] | None:
    """The span and name of unsafe context ``owner`` (an ``unsafe`` block or the ``unsafe fn``
    kernel), or ``None`` when the kernel has no ``unsafe`` keyword to point at."""
    if owner.type == "unsafe_block":
        keyword = owner.child(0)
        span = Span(owner.start_byte, keyword.end_byte if keyword is not None else owner.start_byte)
        return span, f"unsafe block in kernel `{kernel.name}`"
    if kernel.unsafe_span is None:
        return None
    return kernel.unsafe_span, f"`unsafe fn` kernel `{kernel.name}`"


def _finding(head: str, span: Span, found: list[Purpose], items, profile) -> Finding:
    """The finding for one unsafe context; the advice names ``profile``'s buffer types
    (``&[T; N]`` for rustc offload, whose device IR marks references ``noalias``)."""
    kinds = {kind for kind, _, _ in items}
    advice = []
    if "deref" in kinds:
        types = profile.buffer_params or "`&[T]` / `&mut [T]`"
        why = ("no `unsafe`, bounds checks kept, and the compiler marks it `noalias`"
               if profile.runtime_maps_arguments else "no `unsafe`, and bounds checks kept")
        made = [what for kind, what, _ in items if kind == "deref"]
        if all(w.endswith(("as_ptr()", "as_mut_ptr()")) for w in made):
            # `*out.as_mut_ptr().add(i)`: the buffer already is a reference
            advice.append(f"index the reference itself (`{made[0].rsplit('.', 1)[0]}[i]`) instead of a pointer "
                          f"made from it: {why}")
        else:
            advice.append(f"take the buffer as a reference ({types}): {why}")
    if "static" in kinds:
        advice.append("pass the value as a kernel argument: a `static mut` is one variable for every GPU "
                      "thread, without synchronisation")
    text = f"{head}: " + "; ".join(p.text for p in found) + "; " + "; ".join(advice)
    return Finding(rule=NAME, span=span, message=text, related=tuple(Related(p.span, p.text) for p in found))


def _summarise(items: list[tuple[str, str, Node]]) -> list[Purpose]:
    """Reportable purposes of one unsafe context in order of first occurrence, each once."""
    out: dict[str, Purpose] = {}
    for kind, what, node in sorted(items, key=lambda i: (i[2].start_byte, -i[2].end_byte)):
        text = f"dereferences raw pointer `{what}`" if kind == "deref" else f"accesses `static mut {what}`"
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
        #: name -> (end of the binding, raw pointer, pointer into block-shared memory)
        self._events: dict[str, list[tuple[int, bool, bool]]] = {}
        for p in kernel.params:
            if p.kind in ("const_ptr", "mut_ptr"):
                self._events[p.name.removeprefix("mut ").strip()] = [(-1, True, False)]
        lets = sorted((caps["let"][0] for _, caps in found if "let" in caps), key=lambda n: n.start_byte)
        for let in lets:
            name = let.child_by_field_name("pattern")
            if name is None:
                continue
            type_node = let.child_by_field_name("type")
            value = let.child_by_field_name("value")
            shared = value is not None and _shared_memory(value, self)
            is_ptr = not shared and ((type_node is not None and type_node.type == "pointer_type") or (
                value is not None and _makes_pointer(value, self)))
            self._events.setdefault(node_text(name), []).append((let.end_byte, is_ptr, shared))

    def _state(self, ident: Node) -> tuple[bool, bool]:
        state = (False, False)
        for pos, is_ptr, shared in self._events.get(node_text(ident), []):
            if pos <= ident.start_byte:
                state = (is_ptr, shared)
        return state

    def is_pointer(self, ident: Node) -> bool:
        """Is identifier ``ident`` (a use) a raw pointer at its position?"""
        return self._state(ident)[0]

    def is_shared(self, ident: Node) -> bool:
        """Is identifier ``ident`` (a use) a pointer into block-shared memory at its position
        (``let s = gpu_launch_sized_workgroup_mem::<..>(); let s0 = s as *mut f64;``)?"""
        return self._state(ident)[1]


#: Functions that return a pointer to block-shared (workgroup) memory: dereferencing it is
#: the only way to use that memory, as with a shared ``static``. ``gpu_launch_sized_workgroup_mem``:
#: rust-lang/rust library/core/src/intrinsics/gpu.rs (the launch's dynamic workgroup memory).
SHARED_MEMORY_FNS = frozenset({"gpu_launch_sized_workgroup_mem"})


def _shared_memory(value: Node, pointers: RawPointers | None = None) -> bool:
    """Is ``value`` (a cast of, an offset into) a call of a :data:`SHARED_MEMORY_FNS`
    function (``gpu_launch_sized_workgroup_mem::<i32>().add(256) as *mut [i32; 256]``), or
    of a variable ``pointers`` knows holds one?"""
    while value is not None:
        if value.type == "type_cast_expression":
            value = value.child_by_field_name("value")
        elif value.type in ("parenthesized_expression", "unsafe_block", "block"):
            inner = _unwrap(value)
            if inner is value:
                break
            value = inner
        elif value.type == "call_expression" and _offset_receiver(value) is not None:
            value = _offset_receiver(value)
        else:
            break
    if value is not None and value.type == "identifier":
        return pointers is not None and pointers.is_shared(value)
    if value is None or value.type != "call_expression":
        return False
    f = value.child_by_field_name("function")
    while f is not None and f.type == "generic_function":
        f = f.child_by_field_name("function")
    return f is not None and path_segments(f)[-1] in SHARED_MEMORY_FNS


def _offset_receiver(call: Node) -> Node | None:
    """The receiver of ``p.add(k)`` / ``p.offset(k)`` / ``p.cast()`` ..., else ``None``."""
    f = call.child_by_field_name("function")
    if f is None or f.type != "field_expression":
        return None
    field = f.child_by_field_name("field")
    if field is None or node_text(field) not in ("add", "offset", "byte_add", "wrapping_add", "cast"):
        return None
    return f.child_by_field_name("value")


def _makes_pointer(value: Node, pointers: RawPointers) -> bool:
    value = _unwrap(value)
    if value is None or _shared_memory(value, pointers):
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
    ``p.cast::<u8>().add(1)``), or the pointer made in place (``out.as_mut_ptr()`` of
    ``out.as_mut_ptr().add(i)``), or ``None``."""
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
            if method is not None and node_text(method) in MAKES_POINTER:
                return node_text(node)  # `*out.as_mut_ptr().add(i)`: a pointer made in place
            if method is None or node_text(method) not in POINTER_METHODS:
                return None
            node = _unwrap(f.child_by_field_name("value"))
            continue
        return None
    return None


RULE = Rule(
    name=NAME,
    default_level=Level.WARN,
    summary="unsafe context in a kernel dereferences a raw pointer where references are the idiom, "
            "or uses a non-shared `static mut`",
    check=check,
    reads=frozenset({Fact.SEMANTIC, Fact.STATICS}),
    needs=Holds.KERNELS,
)
