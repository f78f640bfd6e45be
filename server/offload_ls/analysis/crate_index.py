"""The crate as a whole: the items of every file, for rules that need more than one file.

A kernel is often defined in one file and launched from another; a constant used as an
array length or a launch dimension, a type alias, a shared-memory ``static`` and the
``use`` that tells which ecosystem a file belongs to may each live elsewhere in the crate.
Each file contributes a :class:`FileItems` (built from its analysis facts, so it costs
nothing extra and follows the file's edits); a :class:`CrateIndex` holds them per file, and
:meth:`CrateIndex.view` gives one file's analysis the rest of the crate as a
:class:`CrateView`, whose :attr:`~CrateView.fingerprint` changes only when something a rule
can read changes (never when a function body of another file does, unless it launches).

Names are resolved by their last path segment within the crate (``kernels::saxpy`` is
``saxpy``), through ``use .. as ..`` renames; modules are recorded (``mods``), not used to
disambiguate. Pure data: no I/O here; the CLI and the server decide which files form a
crate (workspace/crates.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from offload_ls.analysis.model import Kernel, Launch
from offload_ls.analysis.units.records import ExternDecl, StaticDecl


@dataclass(frozen=True)
class FileItems:
    """What one file offers the rest of its crate.

    Attributes:
        path: the file (as the caller names it; only used to exclude it from its own view).
        kernels: marked kernels (their ``ecosystem`` as the marker says; ``#[kernel]`` is
            resolved with the crate's roots by the reader).
        fns: module-level functions as unmarked :class:`Kernel` records.
        launches: every launch site. consts: (name, constant expression). aliases:
            (name, type text). statics: module-level ``static mut`` items. roots: crates
            the file's paths start with. renames: ``use .. as ..`` (alias, original).
        mods: ``mod`` names. externs: functions declared in ``extern`` blocks.
        loose_names: names that may be functions the tree does not show (macro-made, or in
            a part of the file that does not parse; analysis/units/records.py ``ItemFacts``).
        key: an offset-free projection of the above (:attr:`CrateView.fingerprint`).
    """

    path: str
    kernels: tuple[Kernel, ...] = ()
    fns: tuple[Kernel, ...] = ()
    launches: tuple[Launch, ...] = ()
    consts: tuple[tuple[str, tuple | None], ...] = ()
    aliases: tuple[tuple[str, str], ...] = ()
    statics: tuple[StaticDecl, ...] = ()
    roots: frozenset[str] = frozenset()
    renames: tuple[tuple[str, str], ...] = ()
    mods: tuple[str, ...] = ()
    externs: tuple[ExternDecl, ...] = ()
    loose_names: frozenset[str] = frozenset()
    key: int = 0


def file_items(path: str, facts) -> FileItems:
    """The :class:`FileItems` of a file from its :class:`~offload_ls.analysis.facts.FileFacts`
    (only the file's own items, whatever crate view the facts were made with)."""
    summaries = facts.summaries
    kernels = tuple(k for i, s in enumerate(summaries) if s.kernels for k in facts.unit_objects(i)[0]
                    if not k.launched)
    launches = tuple(facts.own_launches)
    fns, consts, aliases, roots, renames, mods = [], [], [], set(), [], []
    loose: set[str] = set()
    for s in summaries:
        it = s.items
        loose |= it.loose_names
        fns.extend(it.fns)
        consts.extend(it.consts)
        aliases.extend(it.aliases)
        roots |= it.roots
        renames.extend(it.renames)
        mods.extend(it.mods)
    statics = tuple(d for s in summaries for d in s.statics if d.module_level)
    externs = tuple(e for s in summaries for e in s.extern_decls)
    # what other files read of this one: its items and kernels (own_semantic_hash), its
    # launches (their kernels' dimensions and arguments), its shared statics
    key = hash((facts.own_semantic_hash, tuple(s.exports[-1][1] for s in summaries if s.launches),
                tuple((d.name, d.shared) for d in statics)))
    return FileItems(path, kernels, tuple(fns), launches, tuple(consts), tuple(aliases), statics,
                     frozenset(roots), tuple(renames), tuple(mods), externs, frozenset(loose), key)


class CrateView:
    """The items of several files of a crate, merged, for one file's analysis.

    Lookups return the first match in file order (files sorted by path)."""

    def __init__(self, files: list[FileItems]) -> None:
        self.files = sorted(files, key=lambda f: f.path)
        #: changes when an item any rule reads changes in one of the files
        self.fingerprint = hash(tuple((f.path, f.key) for f in self.files))

    def __repr__(self) -> str:
        return f"CrateView({[f.path for f in self.files]})"

    @cached_property
    def kernels(self) -> dict[str, list[Kernel]]:
        out: dict[str, list[Kernel]] = {}
        for f in self.files:
            for k in f.kernels:
                out.setdefault(k.name, []).append(k)
        return out

    @cached_property
    def fns(self) -> dict[str, Kernel]:
        out: dict[str, Kernel] = {}
        for f in self.files:
            for k in f.fns:
                out.setdefault(k.name, k)
        return out

    @cached_property
    def launches(self) -> list[Launch]:
        return [la for f in self.files for la in f.launches]

    @cached_property
    def consts(self) -> dict[str, tuple | None]:
        out: dict[str, tuple | None] = {}
        for f in self.files:
            for name, expr in f.consts:
                out.setdefault(name, expr)
        return out

    @cached_property
    def aliases(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for f in self.files:
            for name, text in f.aliases:
                out.setdefault(name, text)
        return out

    @cached_property
    def statics(self) -> dict[str, StaticDecl]:
        out: dict[str, StaticDecl] = {}
        for f in self.files:
            for d in f.statics:
                out.setdefault(d.name, d)
        return out

    @cached_property
    def roots(self) -> frozenset[str]:
        return frozenset().union(*(f.roots for f in self.files)) if self.files else frozenset()

    @cached_property
    def renames(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for f in self.files:
            for alias, original in f.renames:
                out.setdefault(alias, original)
        return out

    @cached_property
    def loose_names(self) -> frozenset[str]:
        return frozenset().union(*(f.loose_names for f in self.files)) if self.files else frozenset()

    @cached_property
    def mods(self) -> frozenset[str]:
        return frozenset(m for f in self.files for m in f.mods)

    @cached_property
    def externs(self) -> dict[str, list[ExternDecl]]:
        out: dict[str, list[ExternDecl]] = {}
        for f in self.files:
            for e in f.externs:
                out.setdefault(e.name, []).append(e)
        return out


class CrateIndex:
    """The :class:`FileItems` of every file of one crate, updated file by file."""

    def __init__(self) -> None:
        self.files: dict[str, FileItems] = {}
        self._views: dict[str, CrateView] = {}

    def set(self, items: FileItems) -> None:
        """Add or replace a file's items."""
        self.files[items.path] = items
        self._views.clear()

    def remove(self, path: str) -> None:
        if self.files.pop(path, None) is not None:
            self._views.clear()

    def view(self, path: str) -> CrateView:
        """Every file's items but ``path``'s (that file's own come from its analysis)."""
        found = self._views.get(path)
        if found is None:
            found = self._views[path] = CrateView([f for p, f in self.files.items() if p != path])
        return found
