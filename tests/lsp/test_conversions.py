"""Unit tests of the lsp layer's pure conversions (no server process)."""

from __future__ import annotations

from lsprotocol import types

from offload_ls.analysis.engine import analyze_source
from offload_ls.analysis.model import Finding, Level, Related, Span
from offload_ls.lsp.diagnostics import to_diagnostic
from offload_ls.lsp.hover import hover_at
from offload_ls.syntax.text import LineIndex

TEXT = "let λ = 1;\nlet 😀 = λ;\n".encode()


def test_diagnostic_fields_and_related_information():
    index = LineIndex(TEXT)
    first_lambda = TEXT.index("λ".encode())
    second_lambda = TEXT.rindex("λ".encode())
    finding = Finding(
        rule="raw_pointer_kernel_param", span=Span(second_lambda, second_lambda + 2), message="m",
        level=Level.DENY, related=(Related(Span(first_lambda, first_lambda + 2), "defined here"),))
    d = to_diagnostic(finding, index, "utf-16", "file:///w/a.rs")
    assert d.severity == types.DiagnosticSeverity.Error
    assert (d.code, d.source, d.message) == ("raw_pointer_kernel_param", "offload-ls", "m")
    # Line 1 `let 😀 = λ;`: 😀 is 2 UTF-16 units, so λ is at 9..10.
    assert d.range == types.Range(start=types.Position(line=1, character=9),
                                  end=types.Position(line=1, character=10))
    assert d.related_information == [types.DiagnosticRelatedInformation(
        location=types.Location(uri="file:///w/a.rs", range=types.Range(
            start=types.Position(line=0, character=4), end=types.Position(line=0, character=5))),
        message="defined here")]
    d8 = to_diagnostic(finding, index, "utf-8", "file:///w/a.rs")
    assert (d8.range.start.character, d8.range.end.character) == (11, 13)
    warn = to_diagnostic(Finding("raw_pointer_kernel_param", Span(0, 3), "m"), index, "utf-16", "u")
    assert warn.severity == types.DiagnosticSeverity.Warning
    assert warn.related_information is None
    assert warn.code_description.href.endswith("/docs/rules/raw_pointer_kernel_param.md")


CUDA = b"""#[kernel]
pub unsafe fn add(a: &[f32], b: *mut f32) {}
fn main() {
    unsafe { launch!(module.add<<<blocks, 128, 0, stream>>>(x.as_device_ptr())).unwrap(); }
}
"""


def test_hover_for_a_rust_cuda_kernel_and_launch():
    analysis = analyze_source(CUDA)
    text, span = hover_at(analysis, CUDA, CUDA.index(b"add"))
    assert text == (
        "**GPU kernel `add`** — rust-cuda (`#[kernel]`)\n\n"
        "Parameters:\n"
        "- `a: &[f32]` — ? **unknown**: rust-cuda host code copies data explicitly\n"
        "- `b: *mut f32` — ? **unknown**: rust-cuda host code copies data explicitly")
    assert span == Span(CUDA.index(b"add"), CUDA.index(b"add") + 3)
    text, span = hover_at(analysis, CUDA, CUDA.index(b"launch!") + 3)
    assert text == (
        "**Launch of kernel `add`** (`launch!`) — rust-cuda\n\n"
        "- workgroup dimensions: `blocks`\n"
        "- thread dimensions: `128`\n"
        "- threads in total: not known (a dimension is not an integer literal)\n\n"
        "Arguments ↦ parameters:\n"
        "- `x.as_device_ptr()` ↦ `a: &[f32]` — ? **unknown**: rust-cuda host code copies data explicitly\n"
        "- missing argument ↦ `b: *mut f32`")
    assert CUDA[span.start:span.end].startswith(b"launch!(") and CUDA[span.end - 1:span.end] == b")"
    assert hover_at(analysis, CUDA, CUDA.index(b"fn main")) is None
