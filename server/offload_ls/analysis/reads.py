"""What a rule reads: the typed declarations the engine derives its cache dependencies from.

A rule checks one unit (analysis/units/) at a time; what it reads of the rest of the file
and of its crate goes through ``ctx.facts`` (analysis/facts/ ``FileFacts``), grouped here
into :class:`Fact` kinds. Each rule declares the kinds it reads (``Rule.reads``,
analysis/rules/__init__.py) and the units it can report in (``Rule.needs``, a
:class:`Holds`); the engine keys a unit's cached findings by the parts of the file's facts
that the unit's rules declare (analysis/dependencies.py), so that two analyses of the same
unit bytes with equal parts give equal findings. :data:`MEMBER_FACTS` says which kinds each
member of ``FileFacts`` answers from: tests/rules/test_rule_reads.py reads every rule's accesses
through it and fails on a kind the rule did not declare.
"""

from __future__ import annotations

from enum import Enum, Flag, auto


class Fact(Enum):
    """A part of the file's (and its crate's) facts that a unit's findings may depend on.

    Each kind is one part of a unit's cache key (analysis/dependencies.py): what the part
    holds, and for which units, is written there beside how it is computed."""

    #: What the file and its crate say beyond positions (kernel signatures and ecosystems,
    #: launches' forms, constants, aliases, renames, imports, modules, the crate view):
    #: ``FileFacts.semantic_core``; the unit's own kernels are resolved with it.
    SEMANTIC = auto()
    #: What the launches of the unit's kernels say (file and crate), without positions.
    LAUNCHED = auto()
    #: Whether every launch of each of the unit's kernels runs one thread.
    SINGLE_THREAD = auto()
    #: Which names the unit calls are the file's unsafe functions / functions at all.
    CALLED_NAMES = auto()
    #: Heap type names ``use``-imported from another crate.
    HEAP_NAMES = auto()
    #: Host-side ``extern`` declarations of the unit's kernels (with their spans).
    EXTERNS = auto()
    #: Whether the file has a CubeCL kernel (``#[cube(launch)]`` counts only then).
    CUBECL = auto()
    #: The file's functions that return the thread's position, among those the unit calls.
    INDEX_HELPERS = auto()
    #: Which of the unit's functions are device code, and why.
    DEVICE_CODE = auto()
    #: The ecosystem a helper that is no kernel is judged by, and CubeCL checked mode of all
    #: the file's kernels.
    HELPER_ECOSYSTEM = auto()
    #: std names the file defines or imports itself (host-only API names only), and the
    #: float math names it defines as functions.
    HOST_NAMES = auto()
    #: Struct / enum / type / macro names the file defines (all of them).
    DEFINED_NAMES = auto()
    #: Module-level ``static mut`` items the unit names, where they are declared, which are
    #: block-shared memory.
    STATICS = auto()
    #: The parameters (kind, map type) of the kernel each launch of the unit names.
    KERNEL_PARAMS = auto()
    #: Where the file's last launch ends (casts after it are not reported).
    LAST_LAUNCH = auto()
    #: What every call of the unit's helpers (device functions that are no kernel) passes
    #: them: which arguments are an unguarded position in the launch, the calls' texts.
    HELPER_CALLS = auto()


class Holds(Flag):
    """What a unit holds, for ``Rule.needs``: a rule is run on a unit only when the unit
    holds one of the things it needs (an empty ``needs``: every unit)."""

    NOTHING = 0
    KERNELS = auto()
    DEVICE_FNS = auto()
    LAUNCHES = auto()
    #: shared-to-mutable pointer casts
    CASTS = auto()
    #: host-side ``extern`` declarations
    EXTERNS = auto()


_S = frozenset({Fact.SEMANTIC})

#: Member of ``FileFacts`` -> the fact kinds its answer depends on, for a rule checking one
#: unit. A member missing here must not be read by a rule (it holds positions of other
#: units, or is the engine's own): tests/rules/test_rule_reads.py fails on such a read.
MEMBER_FACTS: dict[str, frozenset[Fact]] = {
    # the unit's own kernels and device functions (ctx.kernels, ctx.device_fns): resolved
    # with the crate's names and ecosystems
    "unit_kernels": _S,
    "unit_launches": frozenset(),
    "device_fns_of": frozenset({Fact.DEVICE_CODE, Fact.SEMANTIC}),
    # crate-wide, position-free
    "crate": _S, "items": _S, "kernels": _S, "kernel_anywhere": _S, "kernel_is_ambiguous": _S,
    "function_anywhere": _S, "fold": _S, "const_value": _S, "const_expr": _S, "resolve_type": _S,
    "original_name": _S, "renames": _S, "import_roots": _S, "roots": _S, "launched_names": _S,
    "offload_evidence": _S, "kernel_attr_ecosystem": _S, "profile_of": _S, "primary_ecosystem": _S,
    "launch_dims": _S,
    "defined": frozenset({Fact.DEFINED_NAMES}),
    # the launches of the unit's kernels
    "all_launches_of": frozenset({Fact.LAUNCHED}),
    "full_dims": frozenset({Fact.LAUNCHED, Fact.SEMANTIC}),
    "single_thread": frozenset({Fact.SINGLE_THREAD}),
    "unsafe_names": frozenset({Fact.CALLED_NAMES}), "fn_names": frozenset({Fact.CALLED_NAMES}),
    "shadowed_heap": frozenset({Fact.HEAP_NAMES}),
    "defined_host": frozenset({Fact.HOST_NAMES}), "shadowed_host": frozenset({Fact.HOST_NAMES}),
    "float_fns": frozenset({Fact.HOST_NAMES}),
    "has_externs": frozenset({Fact.EXTERNS}), "extern_decls_named": frozenset({Fact.EXTERNS}),
    "extern_names": frozenset({Fact.EXTERNS}), "extern_types": frozenset({Fact.EXTERNS}),
    "any_cubecl": frozenset({Fact.CUBECL}), "cube_checked": frozenset({Fact.CUBECL}),
    "all_cube_checked": frozenset({Fact.HELPER_ECOSYSTEM}),
    "index_helpers": frozenset({Fact.INDEX_HELPERS}),
    "has_statics": frozenset({Fact.STATICS}), "module_statics": frozenset({Fact.STATICS}),
    "shared_statics": frozenset({Fact.STATICS}), "module_static_decls": frozenset({Fact.STATICS}),
    "kernel_params_sig": frozenset({Fact.KERNEL_PARAMS}),
    "last_launch_end": frozenset({Fact.LAST_LAUNCH}),
    "helper_calls": frozenset({Fact.HELPER_CALLS}),
}
