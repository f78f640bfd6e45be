"""Names of std types and macros that rules look for, in one place: the rules and the
file facts (analysis/facts/, which must know which names a rule's findings depend on)
both import them from here. Each set lists what the named query file matches;
tests/test_incremental_analysis.py checks that they agree.
"""

from __future__ import annotations

from offload_ls.analysis.ecosystems import profiles

#: grammars/rust/heap_types.scm: types that own a heap buffer (heap_owning_kernel_arg).
BUFFERS = frozenset({"Vec", "VecDeque", "BinaryHeap", "String", "CString", "OsString", "PathBuf"})
#: ... that point to host heap memory.
POINTERS = frozenset({"Box", "Rc", "Arc"})
#: ... that keep their entries in host heap memory.
COLLECTIONS = frozenset({"HashMap", "HashSet", "BTreeMap", "BTreeSet", "LinkedList"})
#: Every name grammars/rust/heap_types.scm matches.
HEAP_NAMES = BUFFERS | POINTERS | COLLECTIONS

#: grammars/rust/host_only_api.scm: printing macros (host_only_api_in_kernel).
PRINT_MACROS = frozenset({"println", "print", "eprintln", "eprint", "dbg"})
#: ... allocating macros.
ALLOC_MACROS = frozenset({"format", "vec"})
#: ... heap-owning types, as types and as path roots.
HEAP_TYPES = frozenset({"Vec", "Box", "String", "Rc", "Arc", "HashMap", "HashSet", "BTreeMap",
                        "BTreeSet", "VecDeque"})
#: ... the heap types the `alloc` crate has (a `#![no_std]` crate with an allocator can use
#: them; `HashMap` / `HashSet` are `std`'s only).
ALLOC_CRATE_TYPES = frozenset({"Vec", "Box", "String", "Rc", "Arc", "BTreeMap", "BTreeSet", "VecDeque"})
#: Names whose local definition (``struct Vec``, ``macro_rules! println``) changes what
#: host_only_api_in_kernel reports.
HOST_ONLY_NAMES = PRINT_MACROS | ALLOC_MACROS | HEAP_TYPES

#: grammars/rust/thread_index.scm: thread / block index functions and constants, the position
#: names of every ecosystem profile (analysis/ecosystems).
THREAD_INDEX_NAMES = frozenset(n for p in profiles().values()
                               for table in (p.index_fns, p.index_path_fns, p.index_consts)
                               for n, ix in table.items() if ix.is_position)
#: Substrings of which every :data:`THREAD_INDEX_NAMES` name holds one, and ``spirv``
#: (grammars/rust/thread_index_params.scm): code whose text holds none of them computes
#: nothing from the thread index.
THREAD_INDEX_HINTS = (b"idx", b"Idx", b"index", b"item_id", b"global_", b"group_id", b"thread_id", b"workitem_id",
                      b"_POS", b"spirv", b"#[builtin]")

#: Float methods that are `std`'s (they call the C math library): without `std`, `x.sqrt()`
#: is E0599 (observed with rustc 1.96's `-Zbuild-std=core` device pass for `sin`, `sqrt`,
#: `mul_add`); `core::f64::math::sqrt(x)` (feature `core_float_math`) is the core spelling.
STD_FLOAT_METHODS = frozenset({
    "sqrt", "cbrt", "powf", "powi", "exp", "exp2", "exp_m1", "ln", "log", "log2", "log10", "ln_1p",
    "sin", "cos", "tan", "sin_cos", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh",
    "acosh", "atanh", "hypot", "mul_add"})
#: ... those `core::f64::math` / `core::f32::math` has as functions (unstable feature
#: `core_float_math`, rust-lang/rust#137578; benchmarks/rajaperf's kernels call
#: `core::f64::math::sqrt` on rustc 1.96)
CORE_FLOAT_MATH = frozenset({"sqrt", "cbrt", "powi", "mul_add"})
#: crates that give device code those methods (a `Float` trait over libm, an ecosystem's own
#: math): a file that uses one is not judged
FLOAT_MATH_CRATES = frozenset({"num_traits", "libm", "micromath", "spirv_std", "cuda_std", "cubecl", "krnl",
                               "krnl_core", "cuda_device", "burn_cubecl"})

#: Every name grammars/rust/host_only_api.scm matches: std / alloc roots, macros, types,
#: methods.
HOST_ONLY_API_NAMES = HOST_ONLY_NAMES | {"std", "alloc", "to_string", "to_vec", "to_owned"} | STD_FLOAT_METHODS
#: Substrings of which every :data:`HOST_ONLY_API_NAMES` name holds one: code whose text
#: holds none of them uses no host-only API. (A float method only as a method call: `.sqrt`,
#: the dot beside the name however the call is laid out; the bare names `sin`, `log`, `exp`
#: are parts of too many words.)
HOST_ONLY_HINTS = (b"print", b"dbg", b"format", b"vec", b"Vec", b"Box", b"String", b"Rc", b"Arc", b"Hash", b"BTree",
                   b"std", b"alloc", b"to_string", b"to_owned", *(b"." + m.encode() for m in sorted(STD_FLOAT_METHODS)))


def holds_any(text: bytes, hints: tuple[bytes, ...]) -> bool:
    """Whether ``text`` contains one of ``hints`` (plain substrings; a cheap, exact
    pre-check before running a query whose matches all contain one)."""
    return any(h in text for h in hints)
