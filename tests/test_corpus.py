"""The labelled corpus (tests/corpus/README.md): offload-ls reports exactly the annotated
findings on every entry, correct cases stay quiet, and the corpus keeps its shape (enough
cases, about half correct, every ecosystem present)."""

from __future__ import annotations

import pytest
from corpus_support import CORPUS, annotations, case_of, compare, load, reported

ENTRIES = load()
ECOSYSTEMS = ("offload", "offload-1.96", "rust-cuda", "rust-gpu", "cubecl", "krnl", "cuda-oxide", "ptx-kernel")


#: Entries with a finding offload-ls is known to miss, and why (docs/rules/<rule>.md, "Limits").
KNOWN_MISSES = {
    # the shader's 2-workgroup dispatch is a wgpu `dispatch_workgroups` in another function of
    # host.rs, tied to the shader only through the pipeline's entry-point string: not modelled
    "rust-gpu/particles": "wgpu dispatch dimensions are not linked to the shader",
}


def _params():
    for e in ENTRIES:
        marks = [pytest.mark.xfail(strict=True, reason=KNOWN_MISSES[e.name])] if e.name in KNOWN_MISSES else []
        yield pytest.param(e, id=e.name, marks=marks)


@pytest.mark.parametrize("entry", list(_params()))
def test_entry_reports_exactly_the_annotations(entry):
    cmp = compare(entry.expected, reported(entry))
    lines = [f"missed  {x.file}:{x.line}: {x.level}[{x.rule}]" for x in cmp.fn]
    lines += [f"extra   {x.file}:{x.line}: {x.level}[{x.rule}]" for x in cmp.fp]
    assert not lines, f"{entry.name}:\n" + "\n".join(lines)


def test_corpus_shape():
    cases = [c for e in ENTRIES for c in e.cases]
    correct = sum(c.label == "correct" for c in cases)
    assert len(cases) >= 120, len(cases)
    assert 0.4 <= correct / len(cases) <= 0.6, (correct, len(cases))
    assert {e.ecosystem for e in ENTRIES} >= set(ECOSYSTEMS)
    for e in ENTRIES:
        crate = e.path.is_dir()
        for x in e.expected:  # every expected finding lies in a hazard case (in a crate, a
            c = case_of(e, x)  # launch file may hold findings of cases labelled elsewhere)
            assert c is not None or crate, f"{e.name}: {x} is outside every labelled case"
            assert c is None or c.label == "hazard", f"{e.name}: {x} is annotated inside a correct case"
        for c in e.cases:  # every hazard case expects its own rule
            if c.label == "hazard":
                assert any(x.rule == c.rule and (crate or case_of(e, x) == c) for x in e.expected), \
                    f"{e.name}:{c.line}: hazard case labelled {c.rule} has no {c.rule} annotation"


def test_annotation_syntax():
    src = (b"fn f() {\n    y[0] = 1; //~ WARN unindexed_kernel_write //~ ERROR static_mut_in_kernel\n"
           b"    //~^^ WARN a_rule\n}\n")
    exp, cases = annotations(src, "x.rs")
    assert [(e.line, e.rule, e.level) for e in exp] == [
        (2, "unindexed_kernel_write", "warn"), (2, "static_mut_in_kernel", "deny"), (1, "a_rule", "warn")]
    assert cases == []
    with pytest.raises(ValueError):
        annotations(b"//~ WRN rule\n", "x.rs")
    with pytest.raises(ValueError):
        annotations(b"//@ case: hazard\n", "x.rs")


def test_corpus_exists():
    assert CORPUS.is_dir()
