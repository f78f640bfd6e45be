"""textDocument/hover on kernels and launch sites, positions in the client's encoding."""

from __future__ import annotations

import pytest
from lsp_helpers import initialize, open_doc, published, rng
from lsprotocol import types

SRC = """#[offload_kernel]
fn scale(λ: f32, x: *mut [f32; 4], y: &[f32; 4], w: Wrapper) {
}

fn main() {
    let s = "😀"; offload! { kernel = scale, workgroup_dim = [2, 1, 1], thread_dim = [64, 1, 1], \
args = (2.0, p, &a, w, extra) }
    core::intrinsics::offload(other, (&a,));
}
"""

KERNEL_HOVER = """**GPU kernel `scale`** — std-offload (`#[offload_kernel]`)

Parameters:
- `λ: f32` — = **by value**: passed as a kernel argument, nothing copied
- `x: *mut [f32; 4]` — ⇄ **tofrom**: copied host → device before the launch and device → host after it
- `y: &[f32; 4]` — → **to**: copied host → device before the launch
- `w: Wrapper` — ? **unknown**: the type does not say what is copied"""

LAUNCH_HOVER = """**Launch of kernel `scale`** (`offload!`) — std-offload

- workgroup dimensions: `[2, 1, 1]`
- thread dimensions: `[64, 1, 1]`
- threads in total: 128

Arguments ↦ parameters:
- `2.0` ↦ `λ: f32` — = **by value**: passed as a kernel argument, nothing copied
- `p` ↦ `x: *mut [f32; 4]` — ⇄ **tofrom**: copied host → device before the launch and device → host after it
- `&a` ↦ `y: &[f32; 4]` — → **to**: copied host → device before the launch
- `w` ↦ `w: Wrapper` — ? **unknown**: the type does not say what is copied
- `extra` ↦ no parameter (the kernel takes 4)"""

UNKNOWN_KERNEL_HOVER = """**Launch of kernel `other`** (`offload()`)

- no workgroup/thread dimensions at this launch

Kernel `other` is not defined in this file; its parameters are not known.

Arguments:
- `&a`"""

# Line 5: `    let s = "😀"; offload! {` - the launch starts at code point 17 (UTF-16 18,
# UTF-8 20: 😀 is 2 UTF-16 units / 4 bytes) and `scale` at code point 37 (UTF-16 38,
# UTF-8 40); the launch ends at the end of the line (code point 127).
LAUNCH_START = {"utf-8": 20, "utf-16": 18}
LAUNCH_END = {"utf-8": 130, "utf-16": 128}
SCALE_AT_LAUNCH = {"utf-8": 40, "utf-16": 38}


async def hover(client, uri, line, character):
    return await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        position=types.Position(line=line, character=character)))


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8"])
async def test_hover_texts_and_ranges(client, tmp_path, encoding):
    await initialize(client, tmp_path, encodings=[encoding])
    uri = (tmp_path / "k.rs").as_uri()
    open_doc(client, uri, SRC)
    await published(client, uri, version=1)

    h = await hover(client, uri, 1, 5)  # inside `scale` at its definition
    assert h.contents.kind == types.MarkupKind.Markdown
    assert h.contents.value == KERNEL_HOVER
    assert h.range == rng(1, 3, 1, 8)

    for character in (SCALE_AT_LAUNCH[encoding], LAUNCH_START[encoding], LAUNCH_END[encoding] - 2):
        h = await hover(client, uri, 5, character)
        assert h.contents.value == LAUNCH_HOVER, character
        assert h.range == rng(5, LAUNCH_START[encoding], 5, LAUNCH_END[encoding])

    h = await hover(client, uri, 6, 10)
    assert h.contents.value == UNKNOWN_KERNEL_HOVER

    assert await hover(client, uri, 5, 6) is None  # on `let s`: nothing to say
    assert await hover(client, uri, 0, 3) is None  # on the attribute


async def test_hover_follows_unanalyzed_edit(client, tmp_path):
    """A hover right after didChange sees the new text (before the debounce fires)."""
    await initialize(client, tmp_path, encodings=["utf-16"], init_options={"debounceMs": 5000})
    uri = (tmp_path / "k.rs").as_uri()
    open_doc(client, uri, SRC)
    await published(client, uri, version=1)
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangePartial(range=rng(1, 3, 1, 8), text="grow")]))
    h = await hover(client, uri, 1, 4)
    assert h.contents.value.splitlines()[0] == "**GPU kernel `grow`** — std-offload (`#[offload_kernel]`)"
    assert h.range == rng(1, 3, 1, 7)
