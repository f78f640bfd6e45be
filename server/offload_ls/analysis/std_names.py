"""Names of std types and macros that rules look for, in one place: the rules and the
file facts (analysis/facts.py, which must know which names a rule's findings depend on)
both import them from here. Each set lists what the named query file matches;
tests/test_incremental_analysis.py checks that they agree.
"""

from __future__ import annotations

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
#: Names whose local definition (``struct Vec``, ``macro_rules! println``) changes what
#: host_only_api_in_kernel reports.
HOST_ONLY_NAMES = PRINT_MACROS | ALLOC_MACROS | HEAP_TYPES
