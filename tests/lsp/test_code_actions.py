"""textDocument/codeAction: quick fixes from Finding.fixes, applied the way a client does."""

from __future__ import annotations

import pytest
from lsp_helpers import (
    RULE,
    apply_edits,
    change_doc,
    edit,
    initialize,
    of_rule,
    open_doc,
    published,
    rng,
)
from lsprotocol import types

# The kernel line holds λ and 😀 before the raw pointer; the host declaration (line 5)
# holds λ before it.
SRC = """#[offload_kernel]
fn scale(λ: f32, /* 😀 */ x: *mut [f32; 4]) {
}

unsafe extern "C" {
    fn scale(λ: f32, x: *mut [f32; 4]);
}
"""
TITLE = "Change `*mut [f32; 4]` to `&mut [f32; 4]` (kernel and host declaration)"
KERNEL_RANGE = {"utf-8": rng(1, 32, 1, 45), "utf-16": rng(1, 29, 1, 42)}
DECL_RANGE = {"utf-8": rng(5, 25, 5, 38), "utf-16": rng(5, 24, 5, 37)}


async def request(client, uri, range_, diagnostics, only=None):
    result = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri), range=range_,
        context=types.CodeActionContext(diagnostics=diagnostics, only=only)))
    return list(result)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8"])
async def test_quick_fix_applies_and_finding_disappears(client, tmp_path, encoding):
    await initialize(client, tmp_path, encodings=[encoding])
    uri = (tmp_path / "k.rs").as_uri()
    open_doc(client, uri, SRC)
    diags = of_rule(await published(client, uri, version=1))
    assert [d.range for d in diags] == [KERNEL_RANGE[encoding]]

    # Cursor (empty range) inside the finding.
    cursor = KERNEL_RANGE[encoding].start.character + 3
    actions = await request(client, uri, rng(1, cursor, 1, cursor), diags)
    assert [(a.title, a.kind, a.is_preferred) for a in actions] == \
        [(TITLE, types.CodeActionKind.QuickFix, True)]
    action = actions[0]
    assert [(d.code, d.range, d.message) for d in action.diagnostics] == \
        [(RULE, diags[0].range, diags[0].message)]
    assert list(action.edit.changes) == [uri]
    edits = action.edit.changes[uri]
    assert [(e.range, e.new_text) for e in edits] == [
        (KERNEL_RANGE[encoding], "&mut [f32; 4]"),
        (DECL_RANGE[encoding], "&mut [f32; 4]"),
    ]

    fixed = apply_edits(SRC, edits, encoding)
    assert fixed == SRC.replace("*mut", "&mut")

    # Send the edits back as incremental changes (last first, so each range still holds).
    change_doc(client, uri, 2, [edit(e.range, e.new_text) for e in reversed(edits)])
    assert of_rule(await published(client, uri, version=2)) == []
    assert await request(client, uri, rng(1, cursor, 1, cursor), []) == []


async def test_no_actions_outside_the_finding_or_for_other_kinds(client, tmp_path):
    await initialize(client, tmp_path, encodings=["utf-16"])
    uri = (tmp_path / "k.rs").as_uri()
    open_doc(client, uri, SRC)
    diags = of_rule(await published(client, uri, version=1))
    assert await request(client, uri, rng(2, 0, 2, 1), []) == []
    assert await request(client, uri, KERNEL_RANGE["utf-16"], diags,
                         only=[types.CodeActionKind.Refactor]) == []
    actions = await request(client, uri, KERNEL_RANGE["utf-16"], diags,
                            only=[types.CodeActionKind.QuickFix])
    assert [a.title for a in actions] == [TITLE]



def test_build_and_run_source_actions_on_a_kernel():
    # In-process: lsprotocol's client-side converter decodes a CodeAction that carries a
    # `command` as a bare Command (losing `kind`), so the stdio client cannot check this.
    from types import SimpleNamespace

    from offload_ls.analysis.engine import analyze_source
    from offload_ls.analysis.model import Span
    from offload_ls.lsp.kernel_views import source_actions

    analysis = analyze_source(SRC.encode())
    doc = SimpleNamespace(uri="file:///k.rs", analysis=analysis)
    actions = source_actions(doc, Span(30, 30))
    assert [(a.title, a.kind, a.command.command, a.command.arguments) for a in actions] == [
        ("Build for GPU", "source.offload-ls.build", "offload-ls.build", [{"uri": "file:///k.rs"}]),
        ("Run on GPU", "source.offload-ls.run", "offload-ls.run", [{"uri": "file:///k.rs"}])]
    end = len(SRC.encode())
    assert source_actions(doc, Span(end, end)) == []
