"""rustc JSON -> CompilerDiagnostic, from real cargo output recorded in tests/toolchain/data."""

from pathlib import Path

from offload_ls.toolchain.diagnostics import SpanRef, find_ice, merge, parse_cargo_output

DATA = Path(__file__).parent / "data"
ROOT = Path("/crate")


def test_device_error_from_nvptx_pass():
    diags = parse_cargo_output((DATA / "device_sin.jsonl").read_text(), "", "device nvptx64 sm_90", ROOT)
    assert len(diags) == 1  # the failure-note "For more information..." is dropped
    d = diags[0]
    assert d.level == "error"
    assert d.code == "E0599"
    assert d.message == "no method named `sin` found for type `f32` in the current scope"
    assert d.span == SpanRef(ROOT / "src/main.rs", 739, 742, 24, 31, 24, 34)
    assert d.source == "offload-ls(device nvptx64 sm_90)"
    # The help child points at `f32::min` in core's sources: related information, not a note.
    assert d.related == [(SpanRef(Path("/usr/lib/rustlib/src/rust/library/core/src/num/f32.rs"),
                                  38336, 38377, 1019, 5, 1019, 46),
                          "help: there is a method `min` with a similar name, but with different arguments")]
    assert d.notes == []
    assert d.fixes == []


def test_machine_applicable_suggestion_becomes_a_fix():
    [d] = parse_cargo_output((DATA / "unused_mut.jsonl").read_text(), "", "host", ROOT)
    assert d.message == "variable does not need to be mutable"
    assert d.code == "unused_mut"
    assert [(r.span.start, r.span.end, r.text) for r in d.fixes] == [(20, 24, "")]
    assert d.related == [(SpanRef(ROOT / "src/main.rs", 20, 24, 2, 9, 2, 13), "help: remove this `mut`: ``")]
    assert d.notes == ["note: `#[warn(unused_mut)]` (part of `#[warn(unused)]`) on by default"]


def test_same_message_from_both_passes_appears_once_with_both_labels():
    text = (DATA / "unused_mut.jsonl").read_text()
    merged = merge(parse_cargo_output(text, "", "device nvptx64 sm_90", ROOT)
                   + parse_cargo_output(text, "", "host", ROOT))
    assert len(merged) == 1
    assert merged[0].source == "offload-ls(device nvptx64 sm_90, host)"


def test_ice_in_plain_stderr_is_reported_with_its_first_line():
    stderr = (
        "   Compiling saxpy v0.1.0 (/tmp/sx)\n\n"
        "thread 'opt cgu.0' (9463) panicked at "
        "/usr/src/rustc-1.96.0/compiler/rustc_codegen_llvm/src/llvm/ffi.rs:1707:9:\n"
        "not implemented: This rustc version was not built with LLVM Offload support!\n"
        "stack backtrace:\n"
    )
    [d] = parse_cargo_output("", stderr, "host", ROOT)
    assert d.level == "ice"
    assert d.span is None
    assert d.message == (
        "internal compiler error: not implemented: This rustc version was not built with LLVM Offload "
        "support! [at /usr/src/rustc-1.96.0/compiler/rustc_codegen_llvm/src/llvm/ffi.rs:1707:9] (this rustc "
        "cannot run -Zoffload=Device/Host=; `offload-ls doctor` shows which pipeline works)"
    )


def test_ice_in_json_record_wins_over_the_useless_panic_payload():
    record = ('{"reason":"compiler-message","message":{"level":"error","message":"/usr/src/rustc-1.96.0/'
              'compiler/rustc_codegen_llvm/src/builder/gpu_offload.rs:670:22: offload does not support Struct",'
              '"spans":[],"children":[],"code":null}}')
    stderr = ("thread 'rustc' (1) panicked at "
              "/usr/src/rustc-1.96.0/compiler/rustc_codegen_llvm/src/builder/gpu_offload.rs:670:22:\nBox<dyn Any>\n")
    diags = parse_cargo_output(record, stderr, "host", ROOT)
    assert [(d.level, d.message) for d in diags] == [(
        "ice",
        "internal compiler error: offload does not support Struct "
        "[at /usr/src/rustc-1.96.0/compiler/rustc_codegen_llvm/src/builder/gpu_offload.rs:670:22]",
    )]


def test_no_ice_in_normal_output():
    assert find_ice("   Compiling x\nerror[E0599]: no method named `sin`\n") is None


def test_garbage_lines_are_ignored():
    assert parse_cargo_output("not json\n{broken\n{\"reason\":\"build-finished\"}\n", "", "host", ROOT) == []
