"""The example crates under examples/ against the analysis:

- lint-gallery: every registered rule fires, every finding is documented by a comment naming
  its rule (and every such comment by a finding), and the host function that does the same
  things outside any kernel gets none;
- offload-kernels: a correct crate: no findings, and no suppression comments;
- rust-cuda-style: Rust-CUDA's idioms (raw device pointers, `unsafe fn` kernels) get no
  findings; its one unguarded index does.

Building and running the examples is measured by hand (their READMEs say how); the one
build here (rust-cuda-style, plain cargo, no GPU toolchain) is marked ``toolchain``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from helpers import lint
from tree_sitter import Node

from offload_ls.analysis.engine import analyze_source
from offload_ls.analysis.model import Finding, Span
from offload_ls.analysis.rules import all_rules
from offload_ls.syntax.parse import node_text, parse
from offload_ls.syntax.queries import captures
from offload_ls.syntax.text import LineIndex

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
GALLERY = EXAMPLES / "lint-gallery"
OFFLOAD = EXAMPLES / "offload-kernels"
CUDA = EXAMPLES / "rust-cuda-style"


def rust_sources(crate: Path) -> list[Path]:
    """The crate's .rs files (build output under target/ and offload-build/ excluded)."""
    files = [p for p in sorted(crate.rglob("*.rs"))
             if not {"target", "offload-build"} & set(p.relative_to(crate).parts)]
    assert files, f"no .rs files in {crate}"
    return files


def function_span(root: Node, name: str) -> Span:
    """Byte span of the one function item called ``name``."""
    found = []
    stack = [root]
    while stack:
        n = stack.pop()
        if n.type == "function_item":
            ident = n.child_by_field_name("name")
            if ident is not None and node_text(ident) == name:
                found.append(Span(n.start_byte, n.end_byte))
        stack.extend(n.children)
    assert len(found) == 1, f"{len(found)} functions named {name}"
    return found[0]


def rule_comments(source: bytes, root: Node) -> list[tuple[str, Span, int]]:
    """``// <rule>: ..`` comments: (rule, region it documents, 1-based line of the comment).

    The region follows the suppression-comment convention (analysis/suppress.py): a comment
    after code documents its own line; a comment on a line of its own documents the next
    item or statement (skipping further comments and attributes)."""
    rules = set(all_rules())
    index = LineIndex(source)
    out = []
    for comment in captures("suppressions", root).get("comment", []):
        text = node_text(comment)
        if not text.startswith("//") or text.startswith(("///", "//!")):
            continue
        head = text[2:].strip().split(":", 1)[0].strip()
        if head not in rules:
            continue
        line_start = source.rfind(b"\n", 0, comment.start_byte) + 1
        if source[line_start : comment.start_byte].strip():
            line_end = source.find(b"\n", comment.end_byte)
            region = Span(line_start, len(source) if line_end == -1 else line_end)
        else:
            target = comment.next_sibling
            while target is not None and target.type in ("line_comment", "block_comment", "attribute_item"):
                target = target.next_sibling
            assert target is not None, f"rule comment with nothing after it: {text}"
            region = Span(comment.start_byte, target.end_byte)
        out.append((head, region, index.position(comment.start_byte, "utf-8")[0] + 1))
    return out


# ------------------------------------------------------------------ lint-gallery


def test_gallery_fires_every_registered_rule():
    fired = set()
    for path in rust_sources(GALLERY):
        fired |= {f.rule for f in analyze_source(path.read_bytes()).findings}
    assert sorted(fired) == sorted(all_rules())


def test_gallery_parses_without_errors():
    for path in rust_sources(GALLERY):
        assert not parse(path.read_bytes()).root_node.has_error, path


def test_gallery_findings_and_rule_comments_match_one_to_one():
    """Each finding lies in a region documented by a comment naming its rule, and each
    such comment documents at least one finding of that rule."""
    for path in rust_sources(GALLERY):
        source = path.read_bytes()
        root = parse(source).root_node
        comments = rule_comments(source, root)
        findings = analyze_source(source).findings
        index = LineIndex(source)

        def line(f: Finding) -> int:
            return index.position(f.span.start, "utf-8")[0] + 1

        undocumented = [(f.rule, line(f)) for f in findings
                        if not any(r == f.rule and reg.start <= f.span.start < reg.end for r, reg, _ in comments)]
        unmatched = [(r, ln) for r, reg, ln in comments
                     if not any(f.rule == r and reg.start <= f.span.start < reg.end for f in findings)]
        assert (undocumented, unmatched) == ([], []), path
        assert {r for r, _, _ in comments} == set(all_rules())


def test_gallery_comment_regions_are_what_the_comments_annotate():
    # The region logic above must be able to fail: check two regions by their text.
    source = (GALLERY / "src" / "main.rs").read_bytes()
    root = parse(source).root_node
    regions = {(r, ln): source[reg.start : reg.end].decode() for r, reg, ln in rule_comments(source, root)}
    trailing = [text for (r, _), text in regions.items() if r == "unindexed_kernel_write"]
    assert trailing == ["        y[0] = x[0] + 1.0; "
                        "// unindexed_kernel_write: every one of the 1024 threads writes y[0]"]
    aliased = sorted(text.splitlines()[-1].strip() for (r, _), text in regions.items() if r == "aliased_launch_args")
    assert aliased == [
        "let () = core::intrinsics::offload(raw_pointers, [4, 1, 1], [256, 1, 1], "
        "(&x as *const _ as *mut [f32; N], &mut one as *mut f32));",
        "let () = core::intrinsics::offload(scale_into, [4, 1, 1], [256, 1, 1], (&mut x, &x));",
    ]


def test_gallery_host_function_doing_the_same_has_no_findings():
    source = (GALLERY / "src" / "main.rs").read_bytes()
    root = parse(source).root_node
    host = function_span(root, "host_does_the_same")
    helper = function_span(root, "fill_through")
    inside = [(f.rule, f.span) for f in analyze_source(source).findings
              if host.start <= f.span.start < host.end or helper.start <= f.span.start < helper.end]
    assert inside == []
    # ... although it does the same things: the texts the kernels are flagged for are there.
    body = source[host.start : host.end].decode()
    for text in ("*mut f32", "Vec<f32>", "&Vec<f32>", "String", "Cell<f32>", "unsafe {", "y[0] =",
                 "println!", "vec!", "std::time", "HOST_CALLS += 1", "&x as *const _ as *mut _"):
        assert text in body, text


# ------------------------------------------------------------------ offload-kernels


KERNEL_NAMES = ["saxpy", "daxpy", "triad", "fir", "hash_u32"]


def test_offload_kernels_has_no_unsuppressed_findings():
    for path in rust_sources(OFFLOAD):
        assert analyze_source(path.read_bytes()).findings == (), path


def test_offload_kernels_kernels_and_launches_are_seen():
    result = analyze_source((OFFLOAD / "src" / "main.rs").read_bytes())
    # each kernel twice: extern "gpu-kernel" for nvptx64, extern "C" for the Virtual Host Device
    assert [(k.name, k.marker) for k in result.kernels] == [
        (name, "#[rustc_offload_kernel]") for name in KERNEL_NAMES * 2
    ]
    assert [(launch.kernel, launch.form, launch.arity, [a.text for a in launch.args])
            for launch in result.launches] == [
        ("saxpy", "offload()", 4, ["a", "x", "y"]),
        ("daxpy", "offload()", 4, ["a", "x", "y"]),
        ("triad", "offload()", 4, ["a", "b", "c", "q"]),
        ("fir", "offload()", 4, ["coeff", "x", "out"]),
        ("hash_u32", "offload()", 4, ["x", "out"]),
    ]


def test_offload_kernels_need_no_suppressions():
    """The nvptx index intrinsics are `unsafe fn`s, and reading them is what every kernel
    does: unsafe_in_kernel stays quiet without any `offload-ls: allow(..)` comment."""
    for path in rust_sources(OFFLOAD):
        source = path.read_bytes()
        root = parse(source).root_node
        comments = [node_text(c) for c in captures("suppressions", root).get("comment", [])]
        assert not [c for c in comments if "offload-ls: allow" in c], path
        if path.name == "main.rs":  # ... though every nvptx kernel reads the index intrinsics
            assert source.count(b"unsafe { (_block_idx_x() as usize)") == 5


# ------------------------------------------------------------------ rust-cuda-style


def test_rust_cuda_style_raw_device_pointers_are_the_idiom():
    """cuda_std kernels are `unsafe fn`s taking device pointers the host allocated: neither
    raw_pointer_kernel_param nor unsafe_in_kernel reports them (the ecosystem profile)."""
    src = (CUDA / "src" / "kernels.rs").read_text(encoding="utf-8")
    assert "*mut f32" in src and "pub unsafe fn" in src
    assert lint(src, "raw_pointer_kernel_param") == []
    assert lint(src, "unsafe_in_kernel") == []


def test_rust_cuda_style_other_files_have_no_kernels_or_raw_pointer_findings():
    for path in rust_sources(CUDA):
        if path.name == "kernels.rs":
            continue
        result = analyze_source(path.read_bytes())
        assert result.kernels == (), path
        assert [f for f in result.findings if f.rule == "raw_pointer_kernel_param"] == [], path


def test_rust_cuda_style_launches_and_lines_of_other_findings():
    main = analyze_source((CUDA / "src" / "main.rs").read_bytes())
    assert [(launch.kernel, launch.form, launch.workgroup_dim, len(launch.args)) for launch in main.launches] == [
        ("add", "launch!", (None,), 4),
        ("vecadd", "launch!", (None,), 3),
        ("scale", "launch!", (None,), 2),
        ("saxpy_strided", "launch!", (40,), 4),
    ]
    src = (CUDA / "src" / "kernels.rs").read_text(encoding="utf-8")
    # only `scale` indexes without a guard; the grid-stride loop's `while i < n` is a guard
    assert [loc[0] for loc in lint(src, "unchecked_thread_index")] == [32]


@pytest.mark.toolchain
@pytest.mark.skipif(shutil.which("cargo") is None, reason="needs cargo")
def test_rust_cuda_style_runs_on_the_cpu(tmp_path):
    """`cargo run` of the example (its kernels run on the CPU through the local stand-ins)."""
    cargo = "/usr/bin/cargo" if Path("/usr/bin/cargo").exists() else shutil.which("cargo")
    env = dict(os.environ, CARGO_TARGET_DIR=str(tmp_path / "target"))
    if Path("/usr/bin/rustc").exists():  # Debian's rustc, not a rustup shim (docs/offload-notes.md)
        env["RUSTC"] = "/usr/bin/rustc"
    proc = subprocess.run(
        [cargo, "--config", "net.offline=true", "run", "--quiet", "--manifest-path", str(CUDA / "Cargo.toml")],
        capture_output=True, text=True, timeout=300, env=env,
    )
    assert (proc.returncode, proc.stdout) == (0, "OK add: 100000 elements\nOK vecadd: 100000 elements\n"
                                                 "OK scale: 65536 elements\nOK saxpy_strided: 100000 elements\n"), \
        proc.stderr
