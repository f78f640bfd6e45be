"""A big document never blocks the server: requests about it wait for its analysis in the
worker thread, while requests about other documents are answered at once.

No timing assertion: the order of the server's messages says whether its event loop was
blocked. The analysis of a 4 MB document takes seconds; a hover on a small document
takes milliseconds. With the loop free, that hover's answer comes before the big
document's diagnostics; a loop blocked by the big analysis answers it after them.
"""

from __future__ import annotations

from rawlsp import RawLsp

SMALL = """#[offload_kernel]
fn scale(a: f32, x: *mut [f32; 4]) {
}
"""
LINE = "fn f() { let x = 1; }\n"
BIG_BYTES = 4_000_000


def test_requests_on_a_big_document_do_not_block_others(make_server, tmp_path):
    small, big = tmp_path / "small.rs", tmp_path / "big.rs"
    server: RawLsp = make_server({"debounceMs": 0, "scanWorkspace": False, "checkOnSave": False})
    server.initialize(tmp_path)
    server.open(small.as_uri(), SMALL)
    hover_small = {"textDocument": {"uri": small.as_uri()}, "position": {"line": 1, "character": 4}}
    baseline = server.call("textDocument/hover", hover_small)["result"]
    assert baseline["contents"]["value"].startswith("**GPU kernel `scale`**")

    at = server.mark()
    big_text = LINE * (BIG_BYTES // len(LINE))
    server.open(big.as_uri(), big_text)
    # What an editor asks right after opening a file, then a hover elsewhere.
    lens_big = server.request("textDocument/codeLens", {"textDocument": {"uri": big.as_uri()}})
    hint_big = server.request("textDocument/inlayHint", {"textDocument": {"uri": big.as_uri()}, "range": {
        "start": {"line": 0, "character": 0}, "end": {"line": 50, "character": 0}}})
    hover_big = server.request("textDocument/hover", {"textDocument": {"uri": big.as_uri()},
                                                      "position": {"line": 3, "character": 3}})
    small_id = server.request("textDocument/hover", hover_small)
    assert server.response(small_id, timeout=120, after=at)["result"] == baseline
    big_published = server.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                                    and m["params"]["uri"] == big.as_uri(), timeout=300, after=at)
    order = [m for m in server.since(at) if m is big_published or m.get("id") == small_id]
    assert order[0].get("id") == small_id, "the hover on the small document waited for the big analysis"
    assert big_published["params"]["diagnostics"] == []
    # The requests about the big document are answered too, from its analysis.
    assert server.response(lens_big, timeout=300, after=at)["result"] == []
    assert server.response(hint_big, timeout=300, after=at)["result"] == []
    assert server.response(hover_big, timeout=300, after=at)["result"] is None
