"""Run rules one unit at a time with their ``ctx.facts`` reads recorded, as the engine runs
them (analysis/engine.py), and map the reads to fact kinds (analysis/reads.py
``MEMBER_FACTS``): what tests/rules/test_rule_reads.py compares with each rule's declared
``reads``, and with what the unit's cache key holds of each kind (analysis/dependencies.py
``PARTS``): a read is *covered* when every kind it answers from has a part in the unit's
key (not ``None``) and what it asks about lies inside that part (the launches of the unit's
own kernels, not of another unit's; the unit's own index)."""

from __future__ import annotations

from offload_ls.analysis import shift
from offload_ls.analysis.context import FileContext, file_facts
from offload_ls.analysis.dependencies import PARTS, UnitView, _extern_decl_names, helper_names, holds, unit_context
from offload_ls.analysis.reads import MEMBER_FACTS, Fact
from offload_ls.analysis.units import resolve, split_units
from offload_ls.syntax.parse import parse


class RecordingFacts:
    """A ``FileFacts`` stand-in that records the name of every member read through it, and
    the arguments of every call of a method member."""

    def __init__(self, facts) -> None:
        self._facts = facts
        self.members: set[str] = set()
        self.values: set[str] = set()  # members read as values (not called)
        self.calls: list[tuple[str, tuple]] = []

    def __getattr__(self, name: str):
        self.members.add(name)
        value = getattr(self._facts, name)
        if not callable(value):
            self.values.add(name)
            return value

        def recorded(*args):
            self.calls.append((name, args))
            return value(*args)

        return recorded


class _Analyzed:
    """One text parsed with its facts, to run rules unit by unit as the engine does."""

    def __init__(self, source: bytes) -> None:
        self.source = source
        self.root = parse(source).root_node
        self.facts = file_facts(source, self.root)
        self.units = split_units(self.root, source)

    def runs(self, rule, index: int) -> bool:
        """Does the engine run ``rule`` on the ``index``-th unit (it holds what the rule needs)?"""
        s = self.facts.summaries[index]
        info = self.facts.device_info[index] if s.fns else ()
        return not rule.needs or bool(rule.needs & holds(s, self.facts, info))

    def context(self, index: int) -> FileContext:
        """The context the engine checks the ``index``-th unit in."""
        return FileContext(self.source, self.root, self.facts, resolve(self.units[index], self.root), index)

    def result(self, rule, index: int):
        """(the unit's cache-key parts for ``rule``'s reads, whether they are positional, the
        rule's findings on the unit), or ``None`` when the rule does not run on it."""
        if not self.runs(rule, index):
            return None
        facts, unit = self.facts, self.units[index]
        s = facts.summaries[index]
        info = facts.device_info[index] if s.fns else ()
        reads = tuple(k for k in Fact if k in rule.reads)
        parts, positional = unit_context(unit, s, facts, info, index, reads)
        return parts, positional, list(rule.check(self.context(index)))


def _recorded(rules, source: bytes):
    """(rule, the recorder of its facts reads, the unit's view) for each rule run on each
    unit of ``source`` that holds what the rule needs, as the engine runs it."""
    text = _Analyzed(source)
    facts = text.facts
    for i, unit in enumerate(text.units):
        s = facts.summaries[i]
        info = facts.device_info[i] if s.fns else ()
        for rule in rules:
            if not text.runs(rule, i):
                continue
            ctx = text.context(i)
            recorder = RecordingFacts(facts)
            ctx._facts = recorder  # reads from here on go through the recorder
            list(rule.check(ctx))
            kernels = facts.unit_kernels(i) if (s.kernels or s.items.fns) else ()
            yield rule, recorder, UnitView(unit, s, facts, info, i, kernels)


def _asked_kinds(member: str, args: tuple, v: UnitView):
    """The kinds whose parts in unit ``v``'s key must be present (not ``None``) for the key to
    hold the answer of ``member(*args)``, or ``None`` when what it asks about lies outside
    every part of the unit (another unit's objects: a kernel that is not the unit's, a launch
    that is neither the unit's nor of its kernels, another unit's index)."""
    kinds = MEMBER_FACTS[member]
    if member in ("unit_kernels", "unit_launches", "device_fns_of"):
        # the unit's own objects: resolved with SEMANTIC where there are any
        return frozenset() if args == (v.i,) else None
    kernels = {k.name for k in v.kernels}
    launched = {la.kernel for la in v.s.launches if la.kernel}
    if member in ("all_launches_of", "single_thread"):
        return kinds if args[0] in kernels else None
    if member == "full_dims":
        if args[0].kernel in kernels:
            return kinds
        # a launch of the unit's own: its text and the constants it names
        return kinds - {Fact.LAUNCHED} if args[0] in v.facts.unit_launches(v.i) else None
    if member == "kernel_params_sig":
        return kinds if args[0] in launched else None
    if member == "extern_types":
        return kinds if args[0] in launched else None
    if member == "extern_decls_named":
        # placed (the unit's kernels' and own declarations) or the types of those of the
        # kernels its launches name
        return kinds if args[0] in _extern_decl_names(v) or args[0] in launched else None
    if member == "helper_calls":
        return kinds if args[0] in helper_names(v) else None
    return kinds


#: Kinds whose part is absent from a unit's key when the answer the unit reads is empty or
#: follows from the unit's own text (no ``extern`` declaration, no helper call, no called
#: index helper, no module-level ``static mut`` the unit names, no CubeCL launch mode in the
#: unit): a read of them where the part is absent is covered. The other kinds' parts are
#: absent only where the unit holds nothing they matter to (no kernel, launch, device
#: function, cast): a read of them there is outside the key.
_ABSENT_IS_EMPTY = frozenset({Fact.EXTERNS, Fact.HELPER_CALLS, Fact.INDEX_HELPERS, Fact.STATICS, Fact.CUBECL})


def _uncovered(recorder: RecordingFacts, v: UnitView) -> set[str]:
    """The reads of ``recorder`` that the key of unit ``v`` does not cover."""
    asked = [(m, (), MEMBER_FACTS[m]) for m in recorder.values if m in MEMBER_FACTS]
    asked += [(m, args, _asked_kinds(m, args, v)) for m, args in recorder.calls if m in MEMBER_FACTS]
    out = set()
    for member, args, kinds in asked:
        if kinds is None or any(PARTS[k].value(v) is None for k in kinds - _ABSENT_IS_EMPTY):
            shown = ", ".join(getattr(a, "kernel", None) or repr(a) for a in args)
            out.add(f"{member}({shown}) outside unit {v.i}'s key" if args or kinds is None
                    else f"{member} outside unit {v.i}'s key")
    return out


def undeclared_reads(rules, source: bytes) -> dict[str, set[str]]:
    """Rule name -> members of ``FileFacts`` it read in some unit of ``source`` whose fact
    kinds it does not declare (or that no kind answers for: unknown members), and reads the
    unit's cache key does not cover (``"member(args) outside unit i's key"``: a kind whose
    part the unit's key lacks, or an argument outside the part)."""
    out: dict[str, set[str]] = {}
    for rule, recorder, view in _recorded(rules, source):
        members = recorder.members
        bad = {m for m in members if m not in MEMBER_FACTS or not MEMBER_FACTS[m] <= rule.reads}
        bad |= _uncovered(recorder, view)
        if bad:
            out.setdefault(rule.name, set()).update(bad)
    return out


def kinds_read(rules, source: bytes) -> dict[str, set]:
    """Rule name -> the fact kinds it read in ``source`` (for writing declarations)."""
    out: dict[str, set] = {}
    for rule, recorder, _ in _recorded(rules, source):
        for m in recorder.members:
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
    text = _Analyzed(source)
    out = []
    for i, unit in enumerate(text.units):
        wanted = [r for r in rules if text.runs(r, i)]
        if not wanted:
            continue
        blanked = _blank(source, [(u.start, u.end) for j, u in enumerate(text.units) if j != i])
        broot = parse(blanked).root_node
        alone = split_units(broot, blanked)
        mine = next((u for u in alone if (u.start, u.end) == (unit.start, unit.end)), None)
        if mine is None:
            continue  # blanking changed how the unit parses (an item split across units)
        for rule in wanted:
            whole = list(rule.check(FileContext(source, text.root, text.facts, unit, i)))
            lone = list(rule.check(FileContext(blanked, broot, text.facts, mine, i)))
            if whole != lone:
                out.append((rule.name, i, whole, lone))
    return out


def moved_reads(rules, source: bytes) -> list[tuple[str, int, list, list]]:
    """(rule name, unit index, the cache's findings, a cold analysis's findings) for each rule
    and unit of ``source`` whose findings a warm cache would get wrong when OTHER units move:
    a blank line is inserted right before the unit (it moves, the units before it do not)
    and right after it (the units after it move); where the unit's cache key for the rule
    is unchanged and not positional (analysis/dependencies.py ``unit_context``), the engine
    reuses the unit's findings moved by the unit's own offset (analysis/shift.py) — which
    must equal the findings computed afresh. A rule that points at another unit's place
    through a fact kind that is not positional (``kernel_anywhere(..).name_span`` under
    ``SEMANTIC``) fails here."""
    text = _Analyzed(source)
    out = []
    for i, unit in enumerate(text.units):
        before = [(rule, text.result(rule, i)) for rule in rules]
        before = [(rule, r) for rule, r in before if r is not None and not r[1]]
        if not before:
            continue  # no rule runs here, or each is recomputed whenever anything moves
        for at, delta in ((unit.start, 1), (unit.end, 0)):
            moved = _Analyzed(source[:at] + b"\n" + source[at:])
            for rule, (parts, _, found) in before:
                if any(name == rule.name and unit_index == i for name, unit_index, _, _ in out):
                    continue  # reported once per rule and unit
                after = moved.result(rule, i)
                if after is None or after[0] != parts or after[1]:
                    continue  # the key changed: the engine checks the unit again
                cached = [shift.finding(f, delta, unit.start, unit.end) for f in found]
                if cached != after[2]:
                    out.append((rule.name, i, cached, after[2]))
    return out
