"""The server sees the whole crate: a kernel in one file is checked against its launch in
another (thread_index_collision), the other file's items come from disk when it is not
open and from the editor's text when it is, and an edit in one open document re-publishes
the other's diagnostics."""

from __future__ import annotations

from lsp_helpers import change_doc, edit, initialize, open_doc, published, rng, wait_for
from lsprotocol import types

KERNELS = """#[rustc_offload_kernel]
pub extern "gpu-kernel" fn fill(y: &mut [f32; 1024]) {
    let i = unsafe { core::arch::nvptx::_thread_idx_x() } as usize;
    if i < 1024 {
        y[i] = 1.0;
    }
}
"""
MAIN = """mod kernels;
const BLOCKS: u32 = 1;
fn main() {
    let mut y = [0.0f32; 1024];
    core::intrinsics::offload(kernels::fill, [BLOCKS, 1, 1], [256, 1, 1], (&mut y,));
}
"""


def _crate(tmp_path):
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "k"\nversion = "0.1.0"\nedition = "2021"\n')
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "kernels.rs").write_text(KERNELS)
    (tmp_path / "src" / "main.rs").write_text(MAIN)
    return tmp_path / "src" / "kernels.rs", tmp_path / "src" / "main.rs"


def _codes(diags) -> list[str]:
    return sorted(str(d.code) for d in diags)


async def test_a_launch_in_another_file_decides_a_kernels_findings(client, tmp_path):
    kernels, main = _crate(tmp_path)
    main.write_text(MAIN.replace("const BLOCKS: u32 = 1;", "const BLOCKS: u32 = 4;"))
    await initialize(client, tmp_path, init_options={"offload-ls": {"scanWorkspace": False}})
    open_doc(client, kernels.as_uri(), KERNELS)
    diags = await published(client, kernels.as_uri(), version=1)
    # main.rs (on disk, not open) launches 4 blocks; the index ignores the block index
    assert _codes(diags) == ["thread_index_collision"]
    assert "4 blocks along x" in diags[0].message


async def test_an_edit_in_the_launching_file_republishes_the_kernel_file(client, tmp_path):
    kernels, main = _crate(tmp_path)
    await initialize(client, tmp_path, init_options={"offload-ls": {"scanWorkspace": False, "debounceMs": 0}})
    open_doc(client, kernels.as_uri(), KERNELS)
    assert _codes(await published(client, kernels.as_uri(), version=1)) == []  # one block: fine
    open_doc(client, main.as_uri(), MAIN)
    await published(client, main.as_uri(), version=1)
    seen = len(client.published)
    # the editor's text of main.rs (not saved) now launches 8 blocks
    change_doc(client, main.as_uri(), 2, [edit(rng(1, 20, 1, 21), "8")])
    await published(client, main.as_uri(), version=2, after=seen)

    def republished():
        for p in client.published[seen:]:
            if p.uri == kernels.as_uri() and any(d.code == "thread_index_collision" for d in p.diagnostics):
                return p
        return None

    p = await wait_for(republished, "kernels.rs re-published with the collision")
    assert "8 blocks along x" in p.diagnostics[0].message
    assert p.diagnostics[0].severity == types.DiagnosticSeverity.Warning


async def test_closing_an_unsaved_launching_file_republishes_the_kernel_file_from_disk(client, tmp_path):
    kernels, main = _crate(tmp_path)
    await initialize(client, tmp_path, init_options={"offload-ls": {"scanWorkspace": False, "debounceMs": 0}})
    open_doc(client, kernels.as_uri(), KERNELS)
    await published(client, kernels.as_uri(), version=1)
    open_doc(client, main.as_uri(), MAIN)
    await published(client, main.as_uri(), version=1)
    seen = len(client.published)
    change_doc(client, main.as_uri(), 2, [edit(rng(1, 20, 1, 21), "8")])  # 8 blocks, never saved

    def kernel_diags(after):
        def find():
            for p in client.published[after:]:
                if p.uri == kernels.as_uri():
                    return p
            return None
        return find

    p = await wait_for(kernel_diags(seen), "kernels.rs re-published after the unsaved edit")
    assert _codes(p.diagnostics) == ["thread_index_collision"]
    seen = len(client.published)
    # closing without saving drops the editor's text: main.rs on disk launches one block
    client.text_document_did_close(types.DidCloseTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=main.as_uri())))
    p = await wait_for(kernel_diags(seen), "kernels.rs re-published after main.rs was closed")
    assert _codes(p.diagnostics) == []
