"""Rules declare what they read (analysis/reads.py), and the declarations are complete:

- every read of ``ctx.facts`` a rule makes on the corpus and the examples is of a kind it
  declares, and lies inside what the unit's cache key holds of that kind (the guard: a
  recording ``FileFacts`` stand-in, tests/rules/reads_guard.py, that records the arguments
  of each call too: the launches of the unit's own kernels, not of another unit's); the
  guard does catch an undeclared read and a read outside the key;
- no rule points at another unit's place through a fact kind that holds no positions: each
  rule's findings on each unit, moved as the cache moves them, equal a fresh analysis after
  a line is added before or after the unit (reads_guard.moved_reads);
- no rule reads other units' text past the facts: each rule's findings on each unit are the
  same when every other unit's bytes are blanked in the text and tree it walks, the facts
  kept (reads_guard.outside_reads; it catches a walk of ``ctx.root`` out of the unit);
- results never depend on the cache: after edits of other units (moving them, changing what
  they export, removing them) an analysis through a warm cache equals a cold analysis of
  the same text;
- no rule imports another rule.
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace
from pathlib import Path

import pytest
from reads_guard import moved_reads, outside_reads, undeclared_reads

from offload_ls.analysis.cache import AnalysisCache
from offload_ls.analysis.engine import analyze_source, analyze_tree
from offload_ls.analysis.facts import FileFacts
from offload_ls.analysis.model import Finding, Level, Related
from offload_ls.analysis.reads import MEMBER_FACTS, Fact, Holds
from offload_ls.analysis.rules import all_rules
from offload_ls.analysis.units import split_units
from offload_ls.syntax.parse import parse

REPO = Path(__file__).resolve().parents[2]
RULES_DIR = REPO / "server" / "offload_ls" / "analysis" / "rules"
FILES = sorted([*REPO.glob("tests/corpus/**/*.rs"), *REPO.glob("examples/**/*.rs")])


def _id(p: Path) -> str:
    return str(p.relative_to(REPO))


@pytest.mark.parametrize("path", FILES, ids=_id)
def test_rules_read_only_declared_facts(path):
    assert undeclared_reads(list(all_rules().values()), path.read_bytes()) == {}


@pytest.mark.parametrize("path", FILES, ids=_id)
def test_rules_read_no_other_unit_past_the_facts(path):
    changed = outside_reads(list(all_rules().values()), path.read_bytes())
    assert [(rule, unit) for rule, unit, _, _ in changed] == []


def test_the_guard_catches_a_walk_out_of_the_unit():
    """A rule that finds the kernel by walking ``ctx.root`` (not through ``ctx.facts``)
    reads the kernel's unit from the launch's: the guard reports it; the same rule reading
    the kernel's name through the facts is not reported."""
    rule = all_rules()["unindexed_kernel_write"]

    def walks(ctx):
        if ctx.launches and b"fn k(" not in ctx.root.text:
            yield rule.check  # anything: the result differs when the kernel's text is gone
        return

    def through_facts(ctx):
        if ctx.launches and not any(k.name == "k" for k in ctx.facts.kernels):
            yield rule.check
        return

    changed = outside_reads([replace(rule, check=walks, needs=frozenset())], KERNEL_WITH_ONE_THREAD)
    assert [(name, unit) for name, unit, _, _ in changed] == [("unindexed_kernel_write", 0)]
    assert outside_reads([replace(rule, check=through_facts, needs=frozenset())], KERNEL_WITH_ONE_THREAD) == []


@pytest.mark.parametrize("path", FILES, ids=_id)
def test_no_rule_points_at_another_units_place_past_its_key(path):
    changed = moved_reads(list(all_rules().values()), path.read_bytes())
    assert [(rule, unit) for rule, unit, _, _ in changed] == []


def test_the_guard_catches_a_place_of_another_unit_read_through_a_non_positional_fact():
    """A rule that relates a launch to its kernel's name through ``kernel_anywhere`` (a
    SEMANTIC read, which holds no positions) would keep a stale place in the cache once a
    line is added between the two (a reviewer's repro): the guard reports it; the same rule
    without the related place is not reported."""
    rule = all_rules()["unindexed_kernel_write"]

    def points_at_kernel(ctx, related=True):
        for la in ctx.launches:
            k = ctx.facts.kernel_anywhere(la.kernel)
            if k is not None:
                yield Finding(rule=rule.name, span=la.span, message="launch of k", level=Level.WARN,
                              related=(Related(k.name_span, "the kernel"),) if related else ())

    probe = replace(rule, check=points_at_kernel, needs=Holds.LAUNCHES, reads=frozenset({Fact.SEMANTIC}))
    assert undeclared_reads([probe], KERNEL_WITH_ONE_THREAD) == {}  # the kind is declared
    assert [(name, unit) for name, unit, _, _ in moved_reads([probe], KERNEL_WITH_ONE_THREAD)] == [
        ("unindexed_kernel_write", 0)]
    plain = replace(probe, check=lambda ctx: points_at_kernel(ctx, related=False))
    assert moved_reads([plain], KERNEL_WITH_ONE_THREAD) == []


KERNEL_WITH_ONE_THREAD = b"""
fn launch(y: &mut [f32]) {
    core::offload::offload! { kernel = k, workgroup_dim = [1, 1, 1], thread_dim = [1, 1, 1], args = (&mut y) };
}
#[rustc_offload_kernel]
fn k(y: &mut [f32]) { y[0] = 1.0; }
"""


def test_the_guard_catches_an_undeclared_read():
    def check(ctx):
        for k in ctx.kernels:
            ctx.facts.single_thread(k.name)
        return ()

    rule = all_rules()["unindexed_kernel_write"]
    sloppy = replace(rule, check=check, reads=frozenset({Fact.SEMANTIC}))
    assert undeclared_reads([sloppy], KERNEL_WITH_ONE_THREAD) == {"unindexed_kernel_write": {"single_thread"}}
    declared = replace(sloppy, reads=frozenset({Fact.SEMANTIC, Fact.SINGLE_THREAD}))
    assert undeclared_reads([declared], KERNEL_WITH_ONE_THREAD) == {}

    def private(ctx):
        _ = ctx.facts._all_launches  # a member no kind answers for
        return ()

    assert undeclared_reads([replace(rule, check=private)], KERNEL_WITH_ONE_THREAD) == {
        "unindexed_kernel_write": {"_all_launches"}}


HELPER_OF_A_LAUNCHED_KERNEL = b"""
fn launch(y: &mut [f32]) {
    core::offload::offload! { kernel = k, workgroup_dim = [1, 1, 1], thread_dim = [32, 1, 1], args = (&mut y) };
}
#[rustc_offload_kernel]
fn k(y: &mut [f32]) { helper(y); }
fn helper(y: &mut [f32]) { y[0] = 1.0; }
"""


def test_the_guard_catches_a_read_outside_the_units_key():
    """A rule declaring the launches it reads, which in a helper's unit reads the launches of
    the kernel that calls it (another unit's: the helper's key holds no launches, so the
    cached findings stay after the launch changed): the guard reports the calls; the same
    read from the kernel's own unit is not reported."""
    rule = all_rules()["unindexed_kernel_write"]
    reads = frozenset({Fact.SEMANTIC, Fact.LAUNCHED, Fact.DEVICE_CODE})

    def from_the_helper(ctx):
        for dfn in ctx.device_fns:
            if dfn.kernel is None:
                for la in ctx.facts.all_launches_of("k"):
                    ctx.facts.full_dims(la)
        return ()

    def from_the_kernel(ctx):
        for k in ctx.kernels:
            for la in ctx.facts.all_launches_of(k.name):
                ctx.facts.full_dims(la)
        return ()

    probe = replace(rule, check=from_the_helper, needs=Holds.DEVICE_FNS, reads=reads)
    assert undeclared_reads([probe], HELPER_OF_A_LAUNCHED_KERNEL) == {"unindexed_kernel_write": {
        "all_launches_of('k') outside unit 2's key", "full_dims(k) outside unit 2's key"}}
    own = replace(rule, check=from_the_kernel, needs=Holds.KERNELS, reads=reads)
    assert undeclared_reads([own], HELPER_OF_A_LAUNCHED_KERNEL) == {}
    # what the guard prevents: the helper's cached findings outlive the launch
    cache = AnalysisCache()
    one = HELPER_OF_A_LAUNCHED_KERNEL.replace(b"thread_dim = [32, 1, 1]", b"thread_dim = [1, 1, 1]")

    def reports(ctx):
        for dfn in ctx.device_fns:
            if dfn.kernel is None and any(ctx.facts.full_dims(la)[1] != (1, 1, 1)
                                          for la in ctx.facts.all_launches_of("k")):
                yield Finding(rule=rule.name, span=dfn.body_span, message="many threads", level=Level.WARN)

    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(all_rules(), rule.name, replace(probe, check=reports))
        results = [(_warm(cache, text), analyze_source(text)) for text in (one, HELPER_OF_A_LAUNCHED_KERNEL)]
    assert any(warm != cold for warm, cold in results)


def test_rules_declare_needs_and_reads_typed():
    for rule in all_rules().values():
        assert isinstance(rule.needs, Holds) and rule.needs, rule.name
        assert rule.reads and all(isinstance(k, Fact) for k in rule.reads), rule.name


def test_every_member_kind_is_a_file_facts_member():
    facts = FileFacts([], [])
    for member in MEMBER_FACTS:
        assert hasattr(facts, member), member


# ------------------------------------------------------------------ results never depend on the cache

def _edits(text: bytes) -> list[bytes]:
    """Versions of ``text`` with one unit edited: a line inserted before it (the units after
    move), removed, a function renamed, a number changed (what other units read of it changes)."""
    units = split_units(parse(text).root_node, text)
    picked = units if len(units) <= 4 else [units[j * (len(units) - 1) // 3] for j in range(4)]
    out = []
    for u in picked:
        before, body, after = text[:u.start], text[u.start:u.end], text[u.end:]
        out.append(before + b"// moved\n" + body + after)
        out.append(before + after)
        renamed = re.sub(rb"\bfn (\w+)", rb"fn \1_renamed", body, count=1)
        if renamed != body:
            out.append(before + renamed + after)
        bumped = re.sub(rb"\b([1-9][0-9]*)\b", lambda m: str(int(m.group(1)) + 1).encode(), body, count=1)
        if bumped != body:
            out.append(before + bumped + after)
    return out


def _warm(cache: AnalysisCache, text: bytes):
    return analyze_tree(text, parse(text).root_node, cache=cache)


@pytest.mark.parametrize("path", FILES, ids=_id)
def test_results_never_depend_on_the_cache(path):
    text = path.read_bytes()
    cold = analyze_source(text)
    cache = AnalysisCache()
    assert _warm(cache, text) == cold
    for edited in _edits(text):
        assert _warm(cache, edited) == analyze_source(edited), edited.decode("utf-8", "replace")
        assert _warm(cache, text) == cold  # and back (undo)


def _launch_edits(text: bytes) -> list[bytes]:
    """The launch runs 32 threads, then one again: what unindexed_kernel_write says of the
    kernel (another unit) changes, the kernel's bytes do not."""
    many = text.replace(b"thread_dim = [1, 1, 1]", b"thread_dim = [32, 1, 1]")
    return [text, many, text, many]


def test_a_fact_other_units_read_changes():
    cache = AnalysisCache()
    versions = _launch_edits(KERNEL_WITH_ONE_THREAD)
    assert [f.rule for f in analyze_source(versions[1]).findings] == ["unindexed_kernel_write"]
    for text in versions:
        assert _warm(cache, text) == analyze_source(text)


CUBE_HELPER_KERNEL = b"""use cubecl::prelude::*;

#[cube(launch_unchecked)]
fn scale<F: Float>(x: &mut Array<F>, i: u32) {
    x[i] = x[i] * F::new(2.0);
}

#[cube(launch_unchecked)]
fn caller<F: Float>(x: &mut Array<F>) {
    scale::<F>(x, ABSOLUTE_POS);
}
"""


def test_a_call_of_an_unlaunched_cube_kernel_changes():
    """A CubeCL kernel nothing launches is checked as a helper of the kernels that call it
    (unchecked_thread_index): when the call gets guarded, the kernel's unit (bytes unchanged)
    loses its finding. The guard found this read (``helper_calls`` of a kernel), which the
    unit's key once left out."""
    guarded = CUBE_HELPER_KERNEL.replace(b"    scale::<F>(x, ABSOLUTE_POS);",
                                         b"    if ABSOLUTE_POS < x.len() { scale::<F>(x, ABSOLUTE_POS); }")
    rules = [[f.rule for f in analyze_source(t).findings] for t in (CUBE_HELPER_KERNEL, guarded)]
    assert rules[0].count("unchecked_thread_index") > rules[1].count("unchecked_thread_index")
    cache = AnalysisCache()
    for text in (CUBE_HELPER_KERNEL, guarded, CUBE_HELPER_KERNEL, guarded):
        assert _warm(cache, text) == analyze_source(text)


def test_the_cache_test_fails_without_the_declaration(monkeypatch):
    """With the launches of a unit's kernels left out of the declarations (of every rule: a
    unit's cache key joins what all its rules read), the kernel's cached findings are reused
    after the launch changed: the warm analysis differs from the cold one (what
    test_a_fact_other_units_read_changes would catch)."""
    for rule in list(all_rules().values()):
        monkeypatch.setitem(all_rules(), rule.name,
                            replace(rule, reads=rule.reads - {Fact.LAUNCHED, Fact.SINGLE_THREAD}))
    cache = AnalysisCache()
    results = [(_warm(cache, text), analyze_source(text)) for text in _launch_edits(KERNEL_WITH_ONE_THREAD)]
    assert any(warm != cold for warm, cold in results)


# ------------------------------------------------------------------ no rule imports another rule

def _imported_modules(tree: ast.AST) -> set[str]:
    out = set()
    for node in ast.walk(tree):  # imports inside functions too
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
    return out


def test_no_rule_imports_another_rule():
    rule_modules = {f"offload_ls.analysis.rules.{p.stem}" for p in RULES_DIR.glob("*.py") if p.stem != "__init__"}
    assert len(rule_modules) == len(all_rules())
    for path in RULES_DIR.glob("*.py"):
        if path.stem == "__init__":
            continue
        imported = _imported_modules(ast.parse(path.read_text()))
        assert not (imported & (rule_modules - {f"offload_ls.analysis.rules.{path.stem}"})), path.name
