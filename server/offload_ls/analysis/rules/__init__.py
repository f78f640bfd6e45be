"""The rule registry: the one place that maps a rule name to its rule.

Each rule lives in its own module in this package and exports ``RULE``; adding a rule
means adding its module name to ``_MODULES`` and its page to ``docs/rules/<name>.md``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache

from offload_ls.analysis.context import FileContext
from offload_ls.analysis.model import Finding, Level
from offload_ls.analysis.reads import Fact, Holds


@dataclass(frozen=True)
class Rule:
    """A lint rule.

    Attributes:
        name: snake_case name, as in ``// offload-ls: allow(<name>)`` and Cargo.toml.
        default_level: level when not configured.
        summary: one line for docs and ``offload-ls rules``.
        check: ``FileContext -> Iterable[Finding]``; the engine sets each finding's level
            and drops suppressed ones. Must not raise on broken code. It reports what it
            finds in the context's scope (the whole file, or one unit: analysis/context.py)
            and reads the rest of the file only through ``ctx.facts``.
        reads: the kinds of the file's facts the rule reads through ``ctx.facts``
            (analysis/reads.py, which says which kinds each ``FileFacts`` member answers
            from): the engine caches a unit's findings under those parts of the facts
            (analysis/dependencies.py), and tests/rules/test_rule_reads.py fails on a read of a
            kind not declared here.
        needs: what a unit must hold for the rule to report anything in it (a
            :class:`~offload_ls.analysis.reads.Holds`); empty: every unit is checked.
    """

    name: str
    default_level: Level
    summary: str
    check: Callable[[FileContext], Iterable[Finding]]
    reads: frozenset[Fact] = frozenset()
    needs: Holds = Holds.NOTHING


_MODULES = (
    "raw_pointer_kernel_param",
    "unsafe_in_kernel",
    "aliased_launch_args",
    "unindexed_kernel_write",
    "unchecked_thread_index",
    "thread_index_collision",
    "host_only_api_in_kernel",
    "heap_owning_kernel_arg",
    "interior_mutability_kernel_arg",
    "static_mut_in_kernel",
    "unknown_launch_kernel",
    "launch_arg_mismatch",
    "kernel_decl_mismatch",
    "malformed_offload_launch",
)


@cache
def all_rules() -> dict[str, Rule]:
    """Rule name -> rule, in registry order."""
    rules = {}
    for mod in _MODULES:
        rule = importlib.import_module(f"{__name__}.{mod}").RULE
        assert rule.name == mod, f"rule module {mod} exports RULE named {rule.name}"
        rules[rule.name] = rule
    return rules
