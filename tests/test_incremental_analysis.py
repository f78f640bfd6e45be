"""Incremental analysis (analysis/engine.py with analysis/cache.py AnalysisCache): after an
edit, only the units whose findings can change are checked again, and the result is
always exactly that of a from-scratch analysis of the new text."""

from __future__ import annotations

import dataclasses
import random
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from helpers import dedent

from offload_ls.analysis.cache import AnalysisCache
from offload_ls.analysis.context import FN_QUERIES
from offload_ls.analysis.engine import analyze_source, analyze_tree
from offload_ls.analysis.model import Finding, Span
from offload_ls.analysis.rules import all_rules
from offload_ls.analysis.std_names import (
    ALLOC_MACROS,
    HEAP_NAMES,
    HEAP_TYPES,
    HOST_ONLY_API_NAMES,
    HOST_ONLY_HINTS,
    PRINT_MACROS,
    STD_FLOAT_METHODS,
    THREAD_INDEX_HINTS,
    THREAD_INDEX_NAMES,
    holds_any,
)
from offload_ls.analysis.suppress import Suppression, SuppressionIndex
from offload_ls.analysis.units import UNIT_QUERIES, split_units
from offload_ls.syntax import queries
from offload_ls.syntax.parse import ParsedFile, TextEdit, parse
from offload_ls.syntax.queries import captures, captures_many
from offload_ls.syntax.text import LineIndex

REPO = Path(__file__).resolve().parents[1]


def located(src: bytes, findings) -> list[tuple[str, int, int, str]]:
    """(rule, 1-based line, 1-based column, text of the span) per finding."""
    index = LineIndex(src)
    out = []
    for f in findings:
        line, col = index.position(f.span.start, "utf-32")
        out.append((f.rule, line + 1, col + 1, src[f.span.start:f.span.end].decode()))
    return out


def unit_range(src: bytes, first: str, last: str) -> tuple[int, int]:
    """Byte range from the first occurrence of ``first`` to the end of the first
    occurrence of ``last`` after it."""
    start = src.index(first.encode())
    return start, src.index(last.encode(), start) + len(last)


class Doc:
    """An open document: its text, incremental tree and analysis cache."""

    def __init__(self, text: str, **cache_args) -> None:
        self.pf = ParsedFile(text.encode())
        self.cache = AnalysisCache(**cache_args)
        self.result = analyze_tree(self.pf.source, self.pf.root, cache=self.cache)

    def edit(self, old: str, new: str, nth: int = 0):
        """Replace the ``nth`` occurrence of ``old``; analyse; check against a fresh analysis."""
        src = self.pf.source
        at = -1
        for _ in range(nth + 1):
            at = src.index(old.encode(), at + 1)
        self.pf.apply([TextEdit(at, at + len(old.encode()), new.encode())])
        self.result = analyze_tree(self.pf.source, self.pf.root, cache=self.cache)
        assert self.result == analyze_source(self.pf.source)
        return self.result

    @property
    def source(self) -> bytes:
        return self.pf.source


TWO_KERNELS = dedent(
    """
    #[rustc_offload_kernel]
    extern "gpu-kernel" fn a(y: &mut [f32; 4]) {
        y[0] = 1.0;
    }

    #[rustc_offload_kernel]
    extern "gpu-kernel" fn b(y: &mut [f32; 4]) {
        y[1] = 2.0;
    }

    fn main() {
        let mut y = [0.0f32; 4];
        core::intrinsics::offload(a, [4, 1, 1], [64, 1, 1], (&mut y,));
        core::intrinsics::offload(b, [4, 1, 1], [64, 1, 1], (&mut y,));
    }
    """
)


def unindexed(place: str, kernel: str, compound: bool = False) -> str:
    """The finding's text for a kernel that reads no thread index (those of this file)."""
    indexed = place.split("[")[0] + "[i]"
    fix = ("the kernel reads no thread index at all, so its threads cannot be told apart: launch it with one "
           f"thread, or read the thread index and index with it (`{indexed}`)")
    if compound:
        race = f"the read-modify-write of one thread overwrites the others', so updates are lost); {fix}"
    else:
        race = f"which thread's value remains is unspecified); {fix}"
    return (f"every GPU thread writes `{place}`: the place does not depend on the thread index, so all "
            f"threads of a launch of kernel `{kernel}` store to the same element of `y` (a data race: {race}")


def test_edit_inside_one_kernel_checks_that_kernel_only():
    doc = Doc(TWO_KERNELS)
    before = doc.result.findings
    assert [(f.rule, f.message) for f in before] == [
        ("unindexed_kernel_write", unindexed("y[0]", "a")),
        ("unindexed_kernel_write", unindexed("y[1]", "b")),
    ]
    after = doc.edit("y[0] = 1.0;", "y[0] += 1.;").findings  # same length
    assert located(doc.source, after) == [
        ("unindexed_kernel_write", 3, 5, "y[0]"),
        ("unindexed_kernel_write", 8, 5, "y[1]"),
    ]
    assert after[0].message == unindexed("y[0]", "a", compound=True)
    assert after[1] == before[1]  # b's finding, unchanged and not moved (same length)
    # only the unit of `a` was summarised and checked again
    assert doc.cache.stats.summarized == 1
    assert doc.cache.stats.checked == [unit_range(doc.source, "#[rustc_offload_kernel]", "y[0] += 1.;\n}")]
    assert doc.cache.stats.fast_path


def test_typing_a_syntax_error_into_a_kernel_body_checks_that_kernel_only():
    """Half-typed code inside a function body (an ERROR node) does not change what the
    crate defines: the edit stays on the fast path, and `b`'s finding is untouched."""
    doc = Doc(TWO_KERNELS)
    before = doc.result.findings
    after = doc.edit("y[0] = 1.0;", "y[0] = 1.@;").findings
    assert doc.pf.root.has_error
    assert doc.cache.stats.fast_path
    assert doc.cache.stats.checked == [unit_range(doc.source, "#[rustc_offload_kernel]", "y[0] = 1.@;\n}")]
    assert after[-1] == before[1]
    # and taking the error out again gives the first analysis back
    assert doc.edit("y[0] = 1.@;", "y[0] = 1.0;").findings == before


def test_edit_that_moves_later_items_moves_their_findings_without_checking_them():
    doc = Doc(TWO_KERNELS)
    b_before = doc.result.findings[1]
    doc.edit("y[0] = 1.0;", "y[0] = 1.0; // first\n    y[0] = 3.0;")
    assert located(doc.source, doc.result.findings) == [
        ("unindexed_kernel_write", 3, 5, "y[0]"),
        ("unindexed_kernel_write", 4, 5, "y[0]"),
        ("unindexed_kernel_write", 9, 5, "y[1]"),
    ]
    moved = len(" // first\n    y[0] = 3.0;")
    assert doc.result.findings[2] == dataclasses.replace(
        b_before, span=Span(b_before.span.start + moved, b_before.span.end + moved))
    assert doc.cache.stats.checked == [unit_range(doc.source, "#[rustc_offload_kernel]", "y[0] = 3.0;\n}")]


LAUNCHED = dedent(
    """
    #[rustc_offload_kernel]
    extern "gpu-kernel" fn total(y: &mut [f32; 1]) {
        y[0] = 1.0;
    }

    #[rustc_offload_kernel]
    extern "gpu-kernel" fn other(y: &mut [f32; 4]) {
        y[0] = 2.0;
    }

    fn main() {
        core::intrinsics::offload(total, [1, 1, 1], [1, 1, 1], (&mut t,));
        core::intrinsics::offload(other, [4, 1, 1], [64, 1, 1], (&mut z,));
    }
    """
)


def test_edit_of_launch_dimensions_checks_the_launched_kernel_again():
    doc = Doc(LAUNCHED)
    # one thread in total: `total` writing y[0] is no race
    assert located(doc.source, doc.result.findings) == [("unindexed_kernel_write", 8, 5, "y[0]")]
    doc.edit("[1, 1, 1], (&mut t,)", "[8, 1, 1], (&mut t,)")
    assert [(f.rule, f.message) for f in doc.result.findings] == [
        ("unindexed_kernel_write", unindexed("y[0]", "total")),
        ("unindexed_kernel_write", unindexed("y[0]", "other")),
    ]
    assert located(doc.source, doc.result.findings) == [
        ("unindexed_kernel_write", 3, 5, "y[0]"),
        ("unindexed_kernel_write", 8, 5, "y[0]"),
    ]
    # `total` (whose launches changed) and `main` (edited); not `other`
    assert doc.cache.stats.checked == [
        unit_range(doc.source, "#[rustc_offload_kernel]", "y[0] = 1.0;\n}"),
        unit_range(doc.source, "fn main()", "(&mut z,));\n}"),
    ]
    # more threads: the kernel's launch dimensions are read by thread_index_collision, so
    # `total` is checked again (its findings stay); `other` is not
    doc.edit("[8, 1, 1], (&mut t,)", "[9, 1, 1], (&mut t,)")
    assert doc.cache.stats.checked == [
        unit_range(doc.source, "#[rustc_offload_kernel]", "y[0] = 1.0;\n}"),
        unit_range(doc.source, "fn main()", "(&mut z,));\n}"),
    ]
    assert len(doc.result.findings) == 2


ALIASED = dedent(
    """
    #[rustc_offload_kernel]
    extern "gpu-kernel" fn k(a: *mut f32, b: *mut f32) {}

    fn launch(p: Ptr) {
        core::intrinsics::offload(k, [1, 1, 1], [64, 1, 1], (p, p));
    }
    """
)


def test_edit_of_kernel_parameters_checks_its_launches_again():
    doc = Doc(ALIASED)
    aliased = [f for f in doc.result.findings if f.rule == "aliased_launch_args"]
    assert located(doc.source, aliased) == [("aliased_launch_args", 5, 61, "p")]
    assert aliased[0].message.startswith("argument 1 (`p`) and argument 2 (`p`) of this launch of `k` are the "
                                         "same buffer `p`: the kernel gets two pointers to one buffer and writes")
    # `p` is a pointer of unknown mutability: only a `*mut` parameter makes the pair a conflict
    doc.edit("(a: *mut f32, b: *mut f32)", "(a: *const f32, b: *const f32)")
    assert [f.rule for f in doc.result.findings] == ["raw_pointer_kernel_param", "raw_pointer_kernel_param"]
    assert doc.cache.stats.checked == [
        unit_range(doc.source, "#[rustc_offload_kernel]", "{}"),
        unit_range(doc.source, "fn launch(", "(p, p));\n}"),
    ]


USES_COUNTER = dedent(
    """
    #[kernel]
    pub unsafe fn k(y: *mut f32, n: usize) {
        let i = thread::index_1d() as usize;
        if i < n {
            *y.add(i) = helper(i);
        }
    }

    fn helper(i: usize) -> f32 {
        unsafe { COUNTER += 1; }
        i as f32
    }

    #[cfg(offload_device)]
    fn gated() -> u32 {
        7
    }
    """
)

COUNTER_MSG = (
    "device function `helper` (called from kernel `k`) writes `static mut COUNTER`: every GPU thread "
    "writes this one variable without synchronisation (a data race), and it is the device's copy, not "
    "the host's, so the host never sees the writes; return results through a `&mut` kernel argument instead"
)


def test_adding_a_static_mut_checks_the_device_functions_that_name_it():
    doc = Doc(USES_COUNTER)
    # a Rust-CUDA kernel: `unsafe fn` and raw device pointers are its idiom (no findings)
    assert doc.result.findings == ()
    doc.edit("    7\n}\n", "    7\n}\n\nstatic mut COUNTER: u32 = 0;\n")
    found = [f for f in doc.result.findings if f.rule == "static_mut_in_kernel"]
    assert located(doc.source, found) == [("static_mut_in_kernel", 10, 14, "COUNTER")]
    decl = doc.source.rindex(b"COUNTER")
    assert found[0].message == COUNTER_MSG
    assert found[0].related[0].span == Span(decl, decl + len("COUNTER"))
    # only `helper` names COUNTER: neither the kernel nor `gated` is checked again
    assert doc.cache.stats.checked == [unit_range(doc.source, "fn helper(", "i as f32\n}")]
    # a second static that no device code names changes nothing
    doc.edit("static mut COUNTER: u32 = 0;", "static mut COUNTER: u32 = 0;\nstatic mut OTHER: u32 = 0;")
    assert doc.cache.stats.checked == []
    assert [f.rule for f in doc.result.findings] == ["static_mut_in_kernel"]
    # text inserted above the declaration moves it: the finding pointing to it follows
    doc.edit("static mut COUNTER", "/* the counter */ static mut COUNTER")
    decl = doc.source.index(b"static mut COUNTER") + len("static mut ")
    assert doc.result.findings[-1].related[0].span == Span(decl, decl + len("COUNTER"))


MOD = dedent(
    """
    #[cfg(offload_device)]
    mod dev {
        pub fn f(x: f32) -> f32 {
            println!("{x}");
            x
        }

        pub fn g() -> u32 {
            1
        }
    }

    fn host() {
        println!("fine on the host");
    }
    """
)


def test_items_of_a_mod_body_are_units_of_their_own():
    tree = parse(MOD.encode())
    units = split_units(tree.root_node, MOD.encode())
    assert [[n.type for n in u.nodes] for u in units] == [
        ["attribute_item", "mod_item"], ["function_item"], ["function_item"], ["function_item"]]
    assert [u.gate for u in units] == [False, True, True, False]
    doc = Doc(MOD)
    assert located(doc.source, doc.result.findings) == [("host_only_api_in_kernel", 4, 9, "println!")]
    assert doc.result.findings[0].message.startswith("`println!` in `f`, under a device-only #[cfg]: there is no I/O")
    doc.edit("1\n", "2\n")
    assert doc.cache.stats.checked == [unit_range(doc.source, "pub fn g()", "2\n    }")]
    assert doc.cache.stats.summarized == 1


def test_deeply_nested_mods_do_not_exhaust_recursion():
    src = "mod a {\n" * 3000 + "#[kernel]\nfn k(y: &mut [f32; 4]) { y[0] = 1.0; }\n" + "}\n" * 3000
    result = analyze_source(src.encode())
    assert located(src.encode(), result.findings) == [("unindexed_kernel_write", 3002, 26, "y[0]")]
    gated = "#[cfg(offload_device)] mod a {\n" * 40 + "fn f() { println!(); }\n" + "}\n" * 40
    result = analyze_source(gated.encode())
    assert located(gated.encode(), result.findings) == [("host_only_api_in_kernel", 41, 10, "println!")]


def test_cache_stays_within_its_bound():
    text = (REPO / "examples" / "lint-gallery" / "src" / "main.rs").read_text()
    doc = Doc(text, max_entries=5)
    assert doc.cache.stats.units > 5
    for k in range(6):
        doc.edit("fn ", f"fn /*{k}*/ ", nth=k)
        assert len(doc.cache.summaries) <= 5 and len(doc.cache.results) <= 5
    assert len(doc.cache) == 10


def random_edit(rng: random.Random, src: bytes, items: list[bytes], words: list[bytes]) -> TextEdit:
    """One random small edit of ``src``: typing one of ``words`` (half the time), deleting
    a few bytes, pasting one of ``items`` at the start of a line, or changing a number."""
    at = rng.randrange(len(src) + 1)
    r = rng.random()
    if r < 0.5:
        return TextEdit(at, at, rng.choice(words))
    if r < 0.7:
        return TextEdit(at, min(len(src), at + rng.randrange(1, 6)), b"")
    if r < 0.85:
        line = src.rfind(b"\n", 0, at) + 1
        return TextEdit(line, line, rng.choice(items))
    d = rng.choice(list(re.finditer(rb"\d+", src)))
    return TextEdit(d.start(), d.end(), rng.choice([b"1", b"256", b"0"]))


def edit_and_compare(paths: list[Path], rng: random.Random, items: list[bytes], words: list[bytes],
                     edits: int) -> int:
    """Apply ``edits`` random edits to each file through ParsedFile.apply; after each, the
    analysis with the document's cache must equal a from-scratch analysis. Returns the
    number of comparisons."""
    compared = 0
    for path in paths:
        pf = ParsedFile(path.read_bytes())
        cache = AnalysisCache()
        analyze_tree(pf.source, pf.root, cache=cache)
        for _ in range(edits):
            edit = random_edit(rng, pf.source, items, words)
            pf.apply([edit])
            assert analyze_tree(pf.source, pf.root, cache=cache) == analyze_source(pf.source), (path, edit)
            compared += 1
    return compared


def test_results_never_depend_on_the_cache():
    """Random small edits (typing, deleting, pasting items) through ParsedFile.apply: after
    each, the analysis with the document's cache equals a from-scratch analysis."""
    items = [b"static mut G: i32 = 0;\n", b"#[cfg(offload_device)]\n", b"fn helper() { G += 1; }\n",
             b"// offload-ls: allow(unsafe_in_kernel)\n", b"use heapless::Vec;\n", b"struct Vec;\n",
             b"extern \"C\" { fn saxpy(x: *mut [f32; 4]); }\n", b"mod m {\n", b"}\n", b"#[kernel]\n",
             b"helper();", b"x.to_vec();"]
    words = [b"{", b"1", b"x", b";", b"\n", b"&mut "]
    paths = [REPO / "examples/lint-gallery/src/main.rs", REPO / "examples/offload-kernels/src/main.rs"]
    assert edit_and_compare(paths, random.Random(20250514), items, words, 60) == 120


def test_threads_sharing_a_cache_get_the_results_of_their_own_text():
    text = (REPO / "examples" / "lint-gallery" / "src" / "main.rs").read_bytes()
    versions = [text.replace(b"fn ", b"fn /*%d*/ " % k, k) for k in range(8)]
    expected = [analyze_source(v) for v in versions]
    trees = [parse(v) for v in versions]
    cache = AnalysisCache()

    def run(k: int):
        return analyze_tree(versions[k % 8], trees[k % 8].root_node, cache=cache)

    with ThreadPoolExecutor(max_workers=4) as pool:
        got = list(pool.map(run, range(64)))
    assert got == [expected[k % 8] for k in range(64)]
    assert expected[0].findings and expected[0] != expected[1]


def test_a_rule_that_raises_on_one_unit_reports_nothing_for_the_file(monkeypatch, caplog):
    """... and says so as data on the result (the analysis logs nothing: each front end
    reports ``failures``), also when the raising unit's result comes from the cache."""
    rule = all_rules()["unindexed_kernel_write"]

    def check(ctx):
        if any(k.name == "b" for k in ctx.kernels):
            raise RuntimeError("boom")
        return rule.check(ctx)

    monkeypatch.setitem(all_rules(), rule.name, dataclasses.replace(rule, check=check))
    assert analyze_source(TWO_KERNELS.encode()).findings == ()
    doc = Doc(TWO_KERNELS)
    assert doc.result.findings == ()
    doc.edit("y[0] = 1.0;", "y[0] = 5.0;")  # `a` checked again, `b` (raising) kept from the cache
    assert doc.result.findings == ()
    assert [(f.rule, f.error) for f in doc.result.failures] == [("unindexed_kernel_write", "RuntimeError: boom")]
    assert "rule unindexed_kernel_write failed" not in caplog.text


def test_levels_apply_to_cached_results():
    doc = Doc(TWO_KERNELS)
    levels = {"unindexed_kernel_write": "deny"}
    result = analyze_tree(doc.source, doc.pf.root, levels, cache=doc.cache)
    assert [f.level.value for f in result.findings] == ["deny", "deny"]
    assert result == analyze_source(doc.source, levels)
    result = analyze_tree(doc.source, doc.pf.root, {"unindexed_kernel_write": "allow"}, cache=doc.cache)
    assert result.findings == ()


def _any_of(scm: str) -> set[str]:
    """Every quoted name of the ``#any-of?`` predicates of a query file."""
    text = queries._text(scm)  # placeholders filled in from the ecosystem profiles
    names: set[str] = set()
    for m in re.finditer(r"#any-of\?\s+@[\w.]+((?:\s+\"[^\"]+\")+)", text):
        names |= set(re.findall(r"\"([^\"]+)\"", m.group(1)))
    return names


def test_std_name_sets_are_the_names_the_queries_match():
    assert _any_of("heap_types") == HEAP_NAMES
    assert _any_of("host_only_api") == PRINT_MACROS | ALLOC_MACROS | HEAP_TYPES | {
        "std", "alloc", "to_string", "to_vec", "to_owned"} | STD_FLOAT_METHODS == HOST_ONLY_API_NAMES
    assert _any_of("thread_index") == THREAD_INDEX_NAMES
    # the text pre-checks hold for every name the queries look for
    assert all(holds_any(name.encode(), THREAD_INDEX_HINTS) for name in THREAD_INDEX_NAMES)
    assert all(holds_any(name.encode() if name not in STD_FLOAT_METHODS else b"." + name.encode(), HOST_ONLY_HINTS)
               for name in HOST_ONLY_API_NAMES)  # (float methods are matched as method calls: `.sqrt`)
    assert b"spirv" in THREAD_INDEX_HINTS  # thread_index_params.scm: #[spirv(..)] parameters
    assert not holds_any(b"fn f(x: &[f32]) -> f32 { x[0] * 2.0 }", THREAD_INDEX_HINTS + HOST_ONLY_HINTS)


def test_queries_run_together_capture_what_they_capture_alone():
    source = (REPO / "examples" / "lint-gallery" / "src" / "main.rs").read_bytes()
    root = parse(source).root_node
    names = UNIT_QUERIES + FN_QUERIES
    together = captures_many(names, root)
    for name in names:
        alone = captures(name, root)
        assert {k: [(n.start_byte, n.end_byte, n.type) for n in v] for k, v in together[name].items()} == \
            {k: [(n.start_byte, n.end_byte, n.type) for n in v] for k, v in alone.items()}, name
    assert sum(len(v) for caps in together.values() for v in caps.values()) > 100


def test_suppression_index_answers_like_each_suppression():
    rng = random.Random(7)
    rules = ["a", "b", "c"]
    sups = []
    for _ in range(40):
        start = rng.randrange(200)
        sups.append(Suppression(frozenset(rng.sample(rules, rng.randrange(1, 3))),
                                Span(start, start + rng.randrange(0, 30)), Span(start, start + 1)))
    index = SuppressionIndex(sups)
    for pos in range(240):
        for rule in rules + ["d"]:
            f = Finding(rule, Span(pos, pos + 1), "m")
            assert index.covers(f) == any(s.covers(f) for s in sups), (rule, pos)


def test_cache_keeps_only_recent_versions():
    # Entries are keyed by unit bytes: without a sweep every edited version of an item
    # would stay (tests/stress/test_edit_storm.py measures the memory).
    from offload_ls.analysis.cache import AnalysisCache
    from offload_ls.analysis.engine import analyze_tree
    from offload_ls.syntax.parse import ParsedFile, TextEdit

    src = b"#[kernel]\nunsafe fn k(y: *mut f32) { *y = 0.0; }\n"
    f = ParsedFile(src)
    cache = AnalysisCache()
    analyze_tree(f.source, f.root, cache=cache)
    sizes = []
    for n in range(20):
        start = f.source.index(b"*y = ") + 5
        end = f.source.index(b";", start)
        f.apply([TextEdit(start, end, f"{n}.5".encode())])
        analyze_tree(f.source, f.root, cache=cache)
        sizes.append(len(cache))
    assert max(sizes) == sizes[-1] <= 3 * 2  # summaries + results of at most three versions


def test_results_never_depend_on_the_cache_with_crate_wide_rules():
    """As above, on corpus files that exercise the crate-wide rules (launch dimensions and
    arguments, constants, aliases, host declarations, ecosystem imports): random edits,
    including ones that leave a `mod` open (items then hang from an ERROR node)."""
    items = [b"static mut G: i32 = 0;\n", b"#[cfg(offload_device)]\n", b"const N: usize = 64;\n",
             b"type Real = f64;\n", b"use cuda_std::thread;\n", b"extern \"C\" { fn saxpy(x: *mut [f32; 4]); }\n",
             b"mod m {\n", b"}\n", b"#[kernel]\n"]
    words = [b"{", b"1", b"x", b";", b"\n", b"&mut ", b" + 1", b"[16, 16, 1]", b"_thread_idx_x()"]
    files = ["offload/stencils.rs", "offload/launch_errors.rs", "offload-1.96/apps.rs", "cubecl/reductions.rs",
             "rust-cuda/launches.rs", "krnl/elementwise.rs"]
    paths = [REPO / "tests" / "corpus" / name for name in files]
    assert edit_and_compare(paths, random.Random(7), items, words, 25) == 150


def test_re_splitting_around_an_edit_gives_the_units_of_a_whole_split():
    """split_units_after_edit (only the items around an edit split again) against
    split_units of the whole new tree, after each of many random edits — braces, comments,
    string quotes and `mod` headers that change what follows included: the same units
    (range and key), and a kept unit resolves to the nodes a whole split finds."""
    from offload_ls.analysis.units import resolve, split_units, split_units_after_edit

    items = [b"mod m {\n", b"}\n", b"/* open\n", b"*/\n", b"#[cfg(offload_device)]\n", b"// note\n",
             b"fn f() {}\n", b"\"\n", b"#[kernel]\n"]
    words = [b"{", b"}", b"1", b"x", b";", b"\n", b"\"", b"/*", b"*/", b"mod k { "]
    paths = [REPO / "examples/lint-gallery/src/main.rs", REPO / "examples/offload-kernels/src/main.rs",
             REPO / "tests/corpus/krnl/device_code.rs", REPO / "tests/corpus/rust-cuda/reductions.rs"]
    rng = random.Random(11)
    incremental = 0
    for path in paths:
        pf = ParsedFile(path.read_bytes())
        units = split_units(pf.root, pf.source)
        for _ in range(150):
            old_source = pf.source
            pf.apply([random_edit(rng, pf.source, items, words)])
            whole = split_units(pf.root, pf.source)
            after = split_units_after_edit(pf.root, pf.source, old_source, units)
            if after is not None:
                incremental += 1
                assert [(u.start, u.end, u.key) for u in after] == [(u.start, u.end, u.key) for u in whole], path
                for u, w in zip(after, whole):
                    r = resolve(u, pf.root)
                    assert [(n.start_byte, n.end_byte, n.type) for n in r.nodes] == \
                        [(n.start_byte, n.end_byte, n.type) for n in w.nodes]
                    assert (r.parent.start_byte, r.parent.type) == (w.parent.start_byte, w.parent.type)
                    assert (r.mod_body is None) == (w.mod_body is None)
                units = after
            else:
                units = whole
    assert incremental > 250  # about half: an edit that breaks the syntax around it is split whole


HELPER = dedent(
    """
    fn pos() -> usize {
        unsafe { (_block_idx_x() * _block_dim_x() + _thread_idx_x()) as usize }
    }

    #[rustc_offload_kernel]
    extern "gpu-kernel" fn copy(x: &[f32; 64], y: &mut [f32; 64]) {
        let i = pos();
        y[i] = x[i];
    }
    """
)


def test_editing_a_position_helper_checks_the_kernels_that_call_it_again():
    doc = Doc(HELPER)
    # the helper returns the launch position: its unguarded use is reported
    assert [loc[:2] for loc in located(doc.source, doc.result.findings)] == [
        ("unchecked_thread_index", 8), ("unchecked_thread_index", 8)]
    # the helper no longer returns the position (a constant): the kernel's findings go,
    # although the kernel's own bytes did not change (Doc.edit compares with a fresh analysis)
    doc.edit("unsafe { (_block_idx_x() * _block_dim_x() + _thread_idx_x()) as usize }", "7")
    assert doc.result.findings == ()
    doc.edit("7", "unsafe { (_block_idx_x() * _block_dim_x() + _thread_idx_x()) as usize }")
    assert len(doc.result.findings) == 2
    # a guard in the kernel: nothing
    doc.edit("y[i] = x[i];", "if i < 64 { y[i] = x[i]; }")
    assert doc.result.findings == ()


def test_a_rule_that_raises_is_a_failure_on_the_result(monkeypatch):
    # Failures are data on the result (the CLI prints them as notices, the server logs
    # them): cold, and when the failing unit's result comes from the cache.
    rule = all_rules()["unindexed_kernel_write"]

    def check(ctx):
        if any(k.name == "b" for k in ctx.kernels):
            raise RuntimeError("boom " + "x" * 300)
        return rule.check(ctx)

    monkeypatch.setitem(all_rules(), rule.name, dataclasses.replace(rule, check=check))
    cold = analyze_source(TWO_KERNELS.encode())
    assert [(f.rule, f.error) for f in cold.failures] == [
        ("unindexed_kernel_write", "RuntimeError: boom " + "x" * 195 + "…")]
    assert cold.failures[0].message.startswith(
        "rule unindexed_kernel_write failed; its findings are missing for this file (RuntimeError: boom x")
    assert "Traceback (most recent call last)" in cold.failures[0].traceback
    doc = Doc(TWO_KERNELS)
    doc.edit("y[0] = 1.0;", "y[0] = 5.0;")  # `b`'s failure is kept from the cache
    assert [f.rule for f in doc.result.failures] == ["unindexed_kernel_write"]
    monkeypatch.setitem(all_rules(), rule.name, rule)
    assert analyze_source(TWO_KERNELS.encode()).failures == ()
