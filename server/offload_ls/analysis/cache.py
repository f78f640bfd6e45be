"""The analysis cache: per-unit summaries and rule results of one document, reused across
analyses of its successive versions.

The cache is an explicit object owned by the caller (the language server keeps one per
open document) and passed to :func:`offload_ls.analysis.engine.analyze_tree`; the analysis
stays a pure function of the text: with or without a cache, and whatever the cache holds,
it returns the same result. Entries are keyed by a unit's bytes (analysis/units/) and,
for rule results, by the facts of the rest of the file that those results depend on; both
tables are LRU-bounded, so a long editing session cannot grow the cache without bound.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass, field

from offload_ls.analysis import shift
from offload_ls.analysis.model import Finding, RuleFailure
from offload_ls.analysis.units import UnitSummary

#: Default bound of each table (units): a 5,000-line file has about 1,700 units, and an
#: edit adds a few entries, so this keeps several versions of a large file.
DEFAULT_MAX_ENTRIES = 16384


class LRU:
    """A dict bounded to ``capacity`` entries that drops the least recently used one."""

    def __init__(self, capacity: int) -> None:
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self.capacity = capacity
        self._data: OrderedDict[Hashable, object] = OrderedDict()
        self._used: dict[Hashable, int] = {}
        #: The analysis generation entries touched now are marked with (see :meth:`sweep`).
        self.now = 0

    def get(self, key: Hashable) -> object | None:
        """The value of ``key`` (now the most recently used), ``None`` if absent."""
        value = self._data.get(key)
        if value is not None:
            self._data.move_to_end(key)
            self._used[key] = self.now
        return value

    def put(self, key: Hashable, value: object) -> None:
        """Store ``value`` under ``key``, dropping the least recently used entries beyond
        the capacity."""
        self._data[key] = value
        self._data.move_to_end(key)
        self._used[key] = self.now
        while len(self._data) > self.capacity:
            old, _ = self._data.popitem(last=False)
            self._used.pop(old, None)

    def sweep(self, oldest: int) -> None:
        """Drop entries last used before generation ``oldest``. Keys hold the units'
        bytes, so without this every edited version of a large item would stay cached
        until the entry bound: +40 MiB per 1,000 edits of a 50 KB item (tests/stress)."""
        for key in [k for k, g in self._used.items() if g < oldest]:
            self._data.pop(key, None)
            del self._used[key]

    def __len__(self) -> int:
        return len(self._data)

    def clear(self) -> None:
        """Drop every entry."""
        self._data.clear()
        self._used.clear()


@dataclass
class UnitResult:
    """Rule results of one unit: rule name -> its findings (or the
    :class:`~offload_ls.analysis.model.RuleFailure` when it raised), computed when the unit
    spanned ``[start, end)``."""

    start: int
    end: int
    by_rule: dict[str, object]

    @property
    def failed(self) -> list[str]:
        """Rules that raised on this unit."""
        return [name for name, v in self.by_rule.items() if isinstance(v, RuleFailure)]

    def at(self, start: int) -> UnitResult:
        """The same results for the unit now starting at ``start`` (spans inside the unit
        moved; spans elsewhere in the file, pinned by the cache key, kept)."""
        d = start - self.start
        if d == 0:
            return self
        lo, hi = self.start, self.end
        moved = {name: v if isinstance(v, RuleFailure) or not v else tuple(shift.finding(f, d, lo, hi) for f in v)  # type: ignore[union-attr]
                 for name, v in self.by_rule.items()}
        return UnitResult(start, self.end + d, moved)



@dataclass
class CacheStats:
    """What the last analysis did (for tests and benchmarks).

    Attributes:
        units: units in the file. summarized: units whose summary was computed (not
            taken from the cache). checked: ``(start, end)`` of the units whose rules ran
            (at least one rule not taken from the cache). fast_path: the file's facts were
            taken from the previous analysis (only changed units looked at).
    """

    units: int = 0
    summarized: int = 0
    checked: list[tuple[int, int]] = field(default_factory=list)
    fast_path: bool = False


@dataclass
class LastRun:
    """The previous analysis of this document, unit by unit (the engine's fast path starts
    from it when the edited units' exports did not change)."""

    active: tuple
    keys: list
    starts: list[int]
    summaries: list[UnitSummary]
    facts: object
    contexts: list
    results: list
    findings: list[list[Finding]]
    positional: list[bool]
    failed_units: set[int] = field(default_factory=set)
    #: the units and the text they were split from (the next edit re-splits only around
    #: itself: analysis/units/ ``split_units_after_edit``)
    units: list | None = None
    source: bytes | None = None


class AnalysisCache:
    """Cache for the analyses of one document.

    Args:
        max_entries: bound of each table (summaries, rule results), in units.

    Analyses that share a cache run one at a time (``analyze_tree`` holds :attr:`lock`),
    so a server may use a document's cache from its worker threads and its event loop.
    """

    def __init__(self, max_entries: int = DEFAULT_MAX_ENTRIES) -> None:
        self.summaries = LRU(max_entries)
        self.results = LRU(max_entries)
        self.last: LastRun | None = None
        self.stats = CacheStats()
        self.lock = threading.RLock()
        self.generation = 0

    #: Analyses an entry may go unused before it is dropped: the current version's units
    #: and those of the two versions before (an undo finds them still cached).
    KEEP_GENERATIONS = 3

    def begin(self) -> None:
        """Start an analysis: entries it uses are marked with a new generation."""
        self.generation += 1
        self.summaries.now = self.results.now = self.generation

    def end(self) -> None:
        """Finish an analysis: drop entries no recent analysis used."""
        oldest = self.generation - self.KEEP_GENERATIONS + 1
        self.summaries.sweep(oldest)
        self.results.sweep(oldest)

    def __len__(self) -> int:
        """Entries held (summaries and rule results together)."""
        return len(self.summaries) + len(self.results)

    def clear(self) -> None:
        """Forget everything."""
        self.summaries.clear()
        self.results.clear()
        self.last = None

    def summary(self, key: Hashable) -> UnitSummary | None:
        """The cached summary of the unit with cache key ``key`` (its offsets are those of
        when it was made: analysis/facts/ adds how far the unit has moved)."""
        return self.summaries.get(key)  # type: ignore[return-value]

    def result(self, key: Hashable, start: int) -> UnitResult | None:
        """Cached rule results of the unit (``key`` includes its context) now at ``start``."""
        r = self.results.get(key)
        if r is None:
            return None
        if r.start != start:  # type: ignore[attr-defined]
            r = r.at(start)  # type: ignore[attr-defined]
            self.results.put(key, r)
        return r  # type: ignore[return-value]
