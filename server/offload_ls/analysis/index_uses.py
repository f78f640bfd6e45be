"""Where device code indexes a buffer with a value, and what the index and the buffer are:
the index uses of a function (``x[e]``, ``p.add(e)``, ``s.get_unchecked(e)``), which part
of the thread's position an index depends on, whether it is reduced into range, built up in
a loop, and what the indexed buffer is (a local or block-shared array, a buffer of a static
length, its name for a message). Used by unchecked_thread_index; every function reads a
function's :class:`~offload_ls.analysis.flow.thread_flow.ThreadFlow` and the syntax tree only.
"""

from __future__ import annotations

from tree_sitter import Node

from offload_ls.analysis.bounds import DIVISION_METHODS
from offload_ls.analysis.flow.scopes import BindingKind
from offload_ls.analysis.flow.sources import DependenceKind
from offload_ls.analysis.flow.thread_flow import ThreadFlow
from offload_ls.analysis.static_muts import StaticMuts
from offload_ls.syntax.nodes import method_name, named, strip
from offload_ls.syntax.parse import identifier_nodes, node_text, parse_type

_GLOBAL, _LOCAL, _POSITION = DependenceKind.GLOBAL, DependenceKind.LOCAL, DependenceKind.POSITION


def accumulated(flow: ThreadFlow, b) -> bool:
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
        return b is not None and b.kind == BindingKind.LET and not b.mutable and b.value is not None \
            and _quotient(flow, b.value, depth + 1)
    return False


def built_up(flow: ThreadFlow, bindings: list, depth: int = 0) -> bool:
    """Does any of ``bindings``, or a variable their values are computed from, come from
    :func:`accumulated` (``let index = indices[i] * s + offset_tensor;`` with
    ``offset_tensor`` built up in a loop)?"""
    if depth > 6:
        return False
    for b in bindings:
        if accumulated(flow, b):
            return True
        if b.kind == BindingKind.LET and b.value is not None and not b.mutable and \
                built_up(flow, [bb for _, bb in flow.thread_vars(b.value)], depth + 1):
            return True
    return False


def len_hint(use: Node, index: Node, raw: bool, flow: ThreadFlow | None = None) -> str:
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
        recv = strip(b.value) if b.value is not None and b.kind == BindingKind.LET else None
    return False


def index_uses(flow: ThreadFlow) -> list[tuple[Node, Node, bool]]:
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


def launch_position(flow: ThreadFlow, index: Node) -> bool:
    """Does ``index`` depend on the thread's position in the whole launch: a launch-wide
    position (``index_1d()``, ``ABSOLUTE_POS``, ``global_invocation_id``) or a block index
    combined with a thread index (``block_idx * block_dim + thread_idx``)? An index from
    the block index alone (one block per row) or the thread index alone (bounded by the
    block size) does not grow with a rounded-up grid."""
    if flow.depends(index, _POSITION):
        return True
    return flow.depends(index, _GLOBAL) and flow.depends(index, _LOCAL)


def block_only(flow: ThreadFlow, node: Node) -> bool:
    """``node`` depends on the block index and on nothing else of the thread's position."""
    return flow.depends(node, _GLOBAL) and not flow.depends(node, _LOCAL) and not flow.depends(node, _POSITION)


def buffer_base(use: Node) -> Node | None:
    """The buffer expression of an index use: ``x`` of ``x[i]``, ``p`` of ``p.add(i)``."""
    if use.type == "index_expression":
        return named(use)[0]
    fn = use.child_by_field_name("function")
    return fn.child_by_field_name("value") if fn is not None else None


def buffer_name(use: Node) -> str | None:
    """How the message names the indexed buffer: its expression when it is a name or a
    field path (``x``, ``t.val``, ``self.out``), else the variable it starts from."""
    base = buffer_base(use)
    node = strip(base) if base is not None else None
    while node is not None and node.type == "field_expression":
        node = node.child_by_field_name("value")
    if node is not None and node.type in ("identifier", "self"):
        return node_text(strip(base))
    ident = _base_ident(use)
    return node_text(ident) if ident is not None else None


def _base_ident(use: Node) -> Node | None:
    """The variable a buffer expression starts from (``x`` of ``(*x)[i]``, ``s.a[i]``)."""
    node = buffer_base(use)
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


def indexes_block_memory(use: Node, flow: ThreadFlow, statics: StaticMuts, profile) -> bool:
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
    if binding.kind in (BindingKind.LET, BindingKind.PATTERN):
        return _local_buffer(binding, profile)
    if binding.kind == BindingKind.PARAM:  # parameter attributes are the `attribute_item`s before it
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


def static_length(use: Node, flow: ThreadFlow, fold, resolve_type=None) -> int | None:
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


#: Methods / functions that bring an index into range.
_CLAMPS = ("min", "clamp", "rem_euclid", "rem", "wrapping_rem")


def clamped(index: Node, definitions=None, depth: int = 0) -> bool:
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
        return bool(values) and all(clamped(v, definitions, depth + 1) for v in values)
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
