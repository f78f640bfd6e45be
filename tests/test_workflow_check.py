"""workflow/check.py's one conversion of compiler messages (text, level, related places,
fixes) and the merge rules both front ends call; workspace/read.py's reads of named files
and its analysis-failure value."""

from __future__ import annotations

from pathlib import Path

from offload_ls.analysis.model import Edit, Finding, Level, Related, Span
from offload_ls.toolchain.diagnostics import CompilerDiagnostic, Replacement, SpanRef
from offload_ls.workflow.check import merge_findings, place_messages, predicted
from offload_ls.workspace.read import SkipKind, analysis_failed, read_named


def _ref(path: Path, start: int, end: int) -> SpanRef:
    return SpanRef(path, start, end, line=2, column=3, end_line=2, end_column=5)


def test_messages_are_worded_once(tmp_path):
    manifest = tmp_path / "Cargo.toml"
    main, other = tmp_path / "main.rs", tmp_path / "other.rs"
    manifest.write_bytes(b'# x\n[package]\nname = "k"\n')
    passes = ["device nvptx64 sm_90", "host"]
    diags = [
        CompilerDiagnostic(passes, "error", "could not compile", None, notes=["note: see above"]),
        CompilerDiagnostic(passes[:1], "ice", "the compiler panicked", None),
        CompilerDiagnostic(passes[:1], "warning", "unused", _ref(main, 10, 12), code="unused_variables",
                           related=[(_ref(main, 1, 2), "here"), (_ref(other, 3, 4), "there")],
                           notes=["help: prefix it"], fixes=[Replacement(_ref(main, 10, 10), "_")]),
        CompilerDiagnostic(passes[:1], "note", "on its own", _ref(main, 5, 6)),
    ]
    spanless, ice, warning, note = place_messages(diags, manifest, lambda p: read_named(p, 1 << 20))
    assert (spanless.path, spanless.span, spanless.spanless) == (manifest, Span(4, 13), True)
    assert spanless.text == "[device nvptx64 sm_90, host] could not compile\nnote: see above"
    assert spanless.source == "offload-ls(device nvptx64 sm_90, host)" and spanless.is_error
    assert ice.text == "the compiler panicked" and ice.rule == "ice"
    assert (warning.path, warning.span, warning.rustc_place) == (main, Span(10, 12), _ref(main, 10, 12))
    assert warning.text == "unused\nhelp: prefix it" and not warning.is_error
    assert warning.related == ((main, Span(1, 2), "here"), (other, Span(3, 4), "there"))
    assert warning.fix == (Edit(Span(10, 10), "_"),)
    f = warning.finding()
    assert (f.rule, f.level, f.message, f.source) == ("unused_variables", Level.WARN, warning.text, warning.source)
    assert f.related == (Related(Span(1, 2), "here"),)  # a finding's related places are in its own file
    assert note.finding() is None and spanless.finding().level is Level.DENY


def test_unreadable_or_oversized_manifest_places_spanless_messages_at_the_start(tmp_path):
    manifest = tmp_path / "Cargo.toml"
    manifest.write_bytes(b"[package]\n" + b"#" * 100)
    d = CompilerDiagnostic(["host"], "error", "failed", None)
    [m] = place_messages([d], manifest, lambda p: read_named(p, 50))
    assert m.span == Span(0, 0)
    assert read_named(tmp_path / "missing.rs", 50) is None
    assert read_named(manifest, 200) == manifest.read_bytes()


def test_a_compiler_error_on_the_same_span_stands_for_the_predicting_lint():
    lint = Finding("host_only_api_in_kernel", Span(5, 8), "host only", Level.DENY)
    other = Finding("raw_pointer_kernel_param", Span(5, 8), "raw", Level.WARN)
    error = Finding("E0599", Span(5, 8), "no method", Level.DENY, source="offload-ls(device nvptx64 sm_90)")
    warn = Finding("E0599", Span(5, 8), "no method", Level.WARN, source="offload-ls(device nvptx64 sm_90)")
    assert merge_findings([lint, other], [error]) == (error, other)
    assert merge_findings([lint, other], [warn]) == (warn, lint, other)  # by span, then rule
    assert predicted("host_only_api_in_kernel", "offload-ls", "range", ["range"])
    assert not predicted("host_only_api_in_kernel", "offload-ls(host)", "range", ["range"])


def test_analysis_failure_is_a_skip():
    try:
        raise RuntimeError("x" * 300)
    except RuntimeError as exc:
        skip = analysis_failed(exc)
    assert skip.kind is SkipKind.ANALYSIS_FAILED
    assert skip.reason == f"analysis failed (RuntimeError: {'x' * 200}…)"
    assert skip.describe("/w/a.rs") == f"/w/a.rs: {skip.reason}; not analysed"
    assert "Traceback" in skip.traceback
