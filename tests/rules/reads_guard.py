"""Run rules one unit at a time with their ``ctx.facts`` reads recorded, as the engine runs
them (analysis/engine.py), and map the reads to fact kinds (analysis/reads.py
``MEMBER_FACTS``): what tests/rules/test_rule_reads.py compares with each rule's declared
``reads``."""

from __future__ import annotations

from offload_ls.analysis.context import FileContext, file_facts
from offload_ls.analysis.dependencies import holds
from offload_ls.analysis.reads import MEMBER_FACTS
from offload_ls.analysis.units import resolve, split_units
from offload_ls.syntax.parse import parse


class RecordingFacts:
    """A ``FileFacts`` stand-in that records the name of every member read through it."""

    def __init__(self, facts) -> None:
        self._facts = facts
        self.members: set[str] = set()

    def __getattr__(self, name: str):
        self.members.add(name)
        return getattr(self._facts, name)


def _recorded(rules, source: bytes):
    """(rule, the facts members it read) for each rule run on each unit of ``source`` that
    holds what the rule needs, as the engine runs it."""
    tree = parse(source)
    root = tree.root_node
    facts = file_facts(source, root)
    for i, unit in enumerate(split_units(root, source)):
        s = facts.summaries[i]
        info = facts.device_info[i] if s.fns else ()
        h = holds(s, facts, info)
        for rule in rules:
            if rule.needs and not rule.needs & h:
                continue
            ctx = FileContext(source, root, facts, resolve(unit, root), i)
            recorder = RecordingFacts(facts)
            ctx._facts = recorder  # reads from here on go through the recorder
            list(rule.check(ctx))
            yield rule, recorder.members


def undeclared_reads(rules, source: bytes) -> dict[str, set[str]]:
    """Rule name -> members of ``FileFacts`` it read in some unit of ``source`` whose fact
    kinds it does not declare (or that no kind answers for: unknown members)."""
    out: dict[str, set[str]] = {}
    for rule, members in _recorded(rules, source):
        bad = {m for m in members if m not in MEMBER_FACTS or not MEMBER_FACTS[m] <= rule.reads}
        if bad:
            out.setdefault(rule.name, set()).update(bad)
    return out


def kinds_read(rules, source: bytes) -> dict[str, set]:
    """Rule name -> the fact kinds it read in ``source`` (for writing declarations)."""
    out: dict[str, set] = {}
    for rule, members in _recorded(rules, source):
        for m in members:
            out.setdefault(rule.name, set()).update(MEMBER_FACTS.get(m, {f"?{m}"}))
    return out
