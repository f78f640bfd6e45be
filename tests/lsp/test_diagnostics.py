"""End to end over stdio: didOpen / didChange / didClose -> publishDiagnostics, in the
negotiated position encoding. Exact expectations use only raw_pointer_kernel_param."""

from __future__ import annotations

import pytest
from lsp_helpers import (
    RULE,
    change_doc,
    edit,
    initialize,
    of_rule,
    open_doc,
    published,
    rng,
    wait_for,
)
from lsprotocol import types

# Line 1 holds a λ identifier and a 😀 comment before the finding `*mut [f32; 4]`:
# code points 28..41; UTF-16 units 29..42 (😀 is a surrogate pair); UTF-8 bytes 32..45.
SRC = """#[offload_kernel]
fn scale(λ: f32, /* 😀 */ x: *mut [f32; 4]) {
}
"""
MESSAGE = ("kernel `scale` takes `x: *mut [f32; 4]`, a raw pointer: the kernel needs `unsafe` "
           "to use it, the compiler cannot mark it `noalias`, and the offload runtime copies it "
           "to the device and back")
FINDING_COLUMNS = {"utf-8": (32, 45), "utf-16": (29, 42), "utf-32": (28, 41)}
#: Column just after the 😀 of line 1, per encoding.
AFTER_EMOJI = {"utf-8": 25, "utf-16": 22, "utf-32": 21}


def expected(encoding: str, line: int = 1, shift: int = 0,
             severity=types.DiagnosticSeverity.Warning) -> tuple:
    start, end = FINDING_COLUMNS[encoding]
    return (rng(line, start + shift, line, end + shift), severity, RULE, "offload-ls", MESSAGE)


def key(d: types.Diagnostic) -> tuple:
    return (d.range, d.severity, d.code, d.source, d.message)


@pytest.mark.parametrize(("offered", "encoding"), [
    (None, "utf-16"),
    (["utf-16"], "utf-16"),
    (["utf-16", "utf-8"], "utf-8"),
    (["utf-32", "utf-16", "utf-8"], "utf-8"),
    (["utf-32"], "utf-32"),
])
async def test_open_publishes_exact_diagnostic(client, tmp_path, offered, encoding):
    result = await initialize(client, tmp_path, encodings=offered)
    assert result.capabilities.position_encoding == encoding
    assert result.server_info.name == "offload-ls"
    assert result.capabilities.text_document_sync.change == types.TextDocumentSyncKind.Incremental
    uri = (tmp_path / "k.rs").as_uri()
    open_doc(client, uri, SRC)
    diags = of_rule(await published(client, uri, version=1))
    assert [key(d) for d in diags] == [expected(encoding)]
    href = diags[0].code_description.href
    assert href.startswith("file:///") and href.endswith("/docs/rules/raw_pointer_kernel_param.md")
    assert diags[0].related_information is None


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8"])
async def test_incremental_changes_update_diagnostics(client, tmp_path, encoding):
    await initialize(client, tmp_path, encodings=[encoding])
    uri = (tmp_path / "k.rs").as_uri()
    open_doc(client, uri, SRC)
    assert [key(d) for d in of_rule(await published(client, uri, version=1))] == [expected(encoding)]

    # Two changes in one notification; the second's range refers to the text left by the
    # first (the kernel line is line 2 by then). "🎉" is 2 UTF-16 units / 4 UTF-8 bytes.
    after = AFTER_EMOJI[encoding]
    change_doc(client, uri, 2, [
        edit(rng(0, 0, 0, 0), "// λ 😀 header\n"),
        edit(rng(2, after, 2, after), "🎉"),
    ])
    shift = {"utf-8": 4, "utf-16": 2}[encoding]
    assert [key(d) for d in of_rule(await published(client, uri, version=2))] == \
        [expected(encoding, line=2, shift=shift)]

    # Replace the `*` of `*mut` with `&`: no raw pointer any more.
    star = FINDING_COLUMNS[encoding][0] + shift
    change_doc(client, uri, 3, [edit(rng(2, star, 2, star + 1), "&")])
    assert of_rule(await published(client, uri, version=3)) == []


async def test_newer_change_cancels_pending_analysis(client, tmp_path):
    await initialize(client, tmp_path, encodings=["utf-16"], init_options={"debounceMs": 1000})
    uri = (tmp_path / "k.rs").as_uri()
    open_doc(client, uri, SRC)  # didOpen is analysed at once, without the debounce delay
    await published(client, uri, version=1)
    # Three quick edits that each shift the finding by one column; only the last is analysed.
    for version in (2, 3, 4):
        change_doc(client, uri, version, [edit(rng(1, 0, 1, 0), " ")])
    diags = of_rule(await published(client, uri, version=4))
    assert [key(d) for d in diags] == [expected("utf-16", shift=3)]
    assert [p.version for p in client.published if p.uri == uri] == [1, 4]


async def test_close_clears_diagnostics_of_an_unsaved_file(client, tmp_path):
    await initialize(client, tmp_path)
    uri = (tmp_path / "scratch.rs").as_uri()  # not on disk
    open_doc(client, uri, SRC)
    assert len(of_rule(await published(client, uri, version=1))) == 1
    count = len(client.published)
    client.text_document_did_close(types.DidCloseTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    assert await published(client, uri, after=count) == []


async def test_editor_text_wins_and_close_returns_to_disk_diagnostics(client, tmp_path):
    path = tmp_path / "src" / "lib.rs"
    path.parent.mkdir()
    path.write_text(SRC, encoding="utf-8")
    uri = path.as_uri()
    await initialize(client, tmp_path, encodings=["utf-16"])
    # Scanned from disk (no version: the file is not open).
    assert [key(d) for d in of_rule(await published(client, uri))] == [expected("utf-16")]
    assert [p.version for p in client.published if p.uri == uri] == [None]
    open_doc(client, uri, SRC.replace("*mut", "&mut"))
    assert of_rule(await published(client, uri, version=1)) == []
    count = len(client.published)
    client.text_document_did_close(types.DidCloseTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    diags = of_rule(await published(client, uri, after=count))
    assert [key(d) for d in diags] == [expected("utf-16")]
    assert client.published[-1].version is None


async def test_deeply_nested_expression_is_analyzed(client, tmp_path):
    depth = 20_000
    nested = "(" * depth + "1" + ")" * depth
    chain = "1.0 + " * depth + "1.0"
    src = SRC.replace("{\n}", f"{{\n    let v = {nested};\n    let w = {chain};\n}}")
    await initialize(client, tmp_path, encodings=["utf-8"])
    uri = (tmp_path / "deep.rs").as_uri()
    open_doc(client, uri, src)
    assert [key(d) for d in of_rule(await published(client, uri, version=1))] == [expected("utf-8")]
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=1, character=4)))
    assert hover.contents.value.startswith("**GPU kernel `scale`**")


async def test_non_rust_documents_are_ignored(client, tmp_path):
    await initialize(client, tmp_path)
    md = (tmp_path / "notes.md").as_uri()
    open_doc_params = types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=md, language_id="markdown", version=1, text=SRC))
    client.text_document_did_open(open_doc_params)
    rs = (tmp_path / "k.rs").as_uri()
    open_doc(client, rs, SRC)
    await published(client, rs, version=1)
    await wait_for(lambda: any("workspace scan:" in m.message for m in client.log_messages), "scan end")
    assert [p.uri for p in client.published] == [rs]


async def test_default_settings_analyze_at_once_and_coalesce_edits_during_an_analysis(client, tmp_path):
    """Default settings (no ``debounceMs``): a whole-text change of a 6,000-line document
    starts a full analysis at once; the four edits that arrive while it runs are coalesced
    into one analysis of the newest text. The superseded versions are never published."""
    await initialize(client, tmp_path, encodings=["utf-16"])
    uri = (tmp_path / "k.rs").as_uri()
    open_doc(client, uri, SRC)
    await published(client, uri, version=1)
    # 1,000 kernels: version 2's full analysis takes far longer than sending four edits
    big = "".join(SRC.replace("scale", f"scale{i}") for i in range(1000))
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=big)]))
    for version in (3, 4, 5, 6):
        change_doc(client, uri, version, [edit(rng(1, 0, 1, 0), " ")])
    diags = of_rule(await published(client, uri, version=6))
    assert len(diags) == 1000
    assert key(diags[0])[0] == rng(1, 29 + 5, 1, 42 + 5)  # `scale0`, 4 spaces in
    assert [p.version for p in client.published if p.uri == uri] == [1, 6]
