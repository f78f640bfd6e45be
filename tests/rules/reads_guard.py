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


def _blank(source: bytes, spans) -> bytes:
    """``source`` with the bytes of ``spans`` replaced by spaces (newlines kept): the same
    length and lines, so every offset and position outside them is unchanged."""
    out = bytearray(source)
    for start, end in spans:
        out[start:end] = bytes(b if b == 0x0A else 0x20 for b in source[start:end])
    return bytes(out)


def outside_reads(rules, source: bytes) -> list[tuple[str, int, list, list]]:
    """(rule name, unit index, findings, findings with the other units blanked) for each
    rule and unit of ``source`` whose findings change when every OTHER unit's bytes are
    blanked in the text and tree the rule walks, while ``ctx.facts`` stays that of the whole
    file: a rule whose result depends on other units' text other than through the facts it
    declares (a walk of ``ctx.root``, of a node's parents or siblings out of the unit, a
    slice of ``ctx.source`` out of it) — which the unit's cache key would not see."""
    tree = parse(source)
    root = tree.root_node
    facts = file_facts(source, root)
    units = split_units(root, source)
    out = []
    for i, unit in enumerate(units):
        s = facts.summaries[i]
        info = facts.device_info[i] if s.fns else ()
        h = holds(s, facts, info)
        wanted = [r for r in rules if not r.needs or r.needs & h]
        if not wanted:
            continue
        blanked = _blank(source, [(u.start, u.end) for j, u in enumerate(units) if j != i])
        broot = parse(blanked).root_node
        alone = split_units(broot, blanked)
        mine = next((u for u in alone if (u.start, u.end) == (unit.start, unit.end)), None)
        if mine is None:
            continue  # blanking changed how the unit parses (an item split across units)
        for rule in wanted:
            whole = list(rule.check(FileContext(source, root, facts, unit, i)))
            lone = list(rule.check(FileContext(blanked, broot, facts, mine, i)))
            if whole != lone:
                out.append((rule.name, i, whole, lone))
    return out
