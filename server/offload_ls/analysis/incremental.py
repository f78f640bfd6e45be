"""What an analysis takes over from the previous analysis of the same document
(analysis/cache.py ``LastRun``): the units whose bytes did not change, their summaries, and
their findings unless a fact their rules read changed (analysis/dependencies.py).

Used by analysis/engine.py; the result never depends on what is taken over.
"""

from __future__ import annotations

from dataclasses import dataclass

from offload_ls.analysis import shift
from offload_ls.analysis.cache import CacheStats, LastRun
from offload_ls.analysis.dependencies import ActiveRules, changed_facts, holds, unit_context
from offload_ls.analysis.facts import FileFacts
from offload_ls.analysis.model import Finding
from offload_ls.analysis.units import Unit, UnitSummary


@dataclass
class Reuse:
    """Which units of the previous analysis this one takes over: the common prefix (first
    ``p``) and suffix (last ``q``) of the two unit lists (an edit changes, adds or removes
    units in one place); unit ``i`` of the suffix was unit ``i - shift`` (``n`` units now,
    ``m`` before)."""

    p: int
    q: int
    n: int
    m: int

    @property
    def shift(self) -> int:
        return self.n - self.m

    @property
    def fresh(self) -> list[int]:
        """Indices of the units not taken over."""
        return list(range(self.p, self.n - self.q))

    @property
    def kept(self) -> list[int]:
        return [*range(self.p), *range(self.n - self.q, self.n)]

    def was(self, i: int) -> int:
        """Kept unit ``i``'s index in the previous analysis."""
        return i if i < self.p else i - self.shift

    def now(self, o: int) -> int | None:
        """Previous unit ``o``'s index now, ``None`` if it was replaced."""
        return o if o < self.p else o + self.shift if o >= self.m - self.q else None

    def splice(self, old: list, fill) -> list:
        """``old`` (per previous unit) with the kept entries in place, ``fill()`` elsewhere."""
        return old[:self.p] + [fill() for _ in range(self.n - self.p - self.q)] + old[self.m - self.q:]


def reuse(keys: list, last: LastRun | None) -> Reuse:
    n = len(keys)
    if last is None:
        return Reuse(0, 0, n, 0)
    old_keys = last.keys
    m = len(old_keys)
    p = q = 0
    while p < n and p < m and keys[p] is not None and keys[p] == old_keys[p]:
        p += 1
    while q < n - p and q < m - p and keys[n - 1 - q] is not None and keys[n - 1 - q] == old_keys[m - 1 - q]:
        q += 1
    return Reuse(p, q, n, m)


@dataclass
class UnitStates:
    """Per unit: the context key, the cached results, the findings with levels; and the
    units where a rule raised."""

    contexts: list
    results: list
    found: list[list[Finding]]
    failed_units: set[int]


def carry_over(last: LastRun, units: list[Unit], starts: list[int], r: Reuse, affected) -> tuple[UnitStates, list[int]]:
    """What the kept units keep of the previous analysis (their findings moved to where the
    units are now), and the units to check: the changed ones, and kept ones whose context
    held positions or read a fact that changed (never on plan's fast path)."""
    state = UnitStates(r.splice(last.contexts, lambda: None), r.splice(last.results, lambda: None),
                   r.splice(last.findings, list), set())
    if affected is never:
        again = [i for o, v in enumerate(last.positional) if v and (i := r.now(o)) is not None]
    else:
        again = [i for i in r.kept if last.positional[r.was(i)] or affected(i, r.was(i))]
    for i in again:
        state.contexts[i] = state.results[i] = None
        state.found[i] = []
    again_set = set(again)
    for o in last.failed_units:
        i = r.now(o)
        if i is not None and i not in again_set:
            state.failed_units.add(i)
    # move the findings of kept units that moved (their cached results stay where they
    # were computed: they are moved from there when used)
    for i in r.kept:
        f = state.found[i]
        if f and starts[i] != last.starts[r.was(i)] and i not in again_set:
            lo = last.starts[r.was(i)]
            hi = lo + units[i].end - units[i].start
            state.found[i] = [shift.finding(x, starts[i] - lo, lo, hi) for x in f]
    return state, sorted([*r.fresh, *again])


def plan(last: LastRun, units: list[Unit], starts: list[int], summaries: list[UnitSummary], r: Reuse, stats: CacheStats,
         crate, active: ActiveRules):
    """The file's facts, and which units that kept their bytes must be checked again
    because a fact their rules read changed: ``(facts, affected(i, o))`` for unit ``i``
    that was unit ``o`` of the previous analysis. (Units whose context holds positions of
    other units, and changed units, are always checked.)

    When the changed units' exports (analysis/units/) are those of the units they
    replace, one for one, the facts are the previous ones except for where things are:
    nothing is affected (the fast path). Otherwise a kept unit is affected when its device
    functions or what it holds changed, or when a kind of fact its rules read changed for
    the file and the unit's context (analysis/dependencies.py) is not the one its cached
    findings were made with."""
    old: FileFacts = last.facts  # type: ignore[assignment]
    n, m, p, q = r.n, r.m, r.p, r.q
    if n == m and all(summaries[i].exports == last.summaries[i].exports for i in range(p, n - q)):
        stats.fast_path = True
        # one for one, in order: unit i is unit i of the previous analysis (n == m)
        seed = old.placed_objects(lambda i: (i < p or i >= n - q) and starts[i] == last.starts[i])
        return FileFacts(starts, summaries, device_info=old.device_info, abs_seed=seed, crate=crate,
                         carried=old.carried()), never
    facts = FileFacts(starts, summaries, crate=crate)
    new_info, old_info = facts.device_info, old.device_info
    changed = changed_facts(old, facts, active.reads)

    def affected(i: int, o: int) -> bool:
        info, s = new_info[i], summaries[i]
        if info != old_info[o]:
            return True
        h = holds(s, facts, info)
        if h != holds(last.summaries[o], old, old_info[o]):
            return True
        _, reads = active.for_unit(h)
        if changed.isdisjoint(reads):
            return False
        return unit_context(units[i], s, facts, info, i, reads)[0] != last.contexts[o]

    return facts, affected


def never(i: int, o: int) -> bool:
    """plan's fast path: no kept unit is affected."""
    return False
