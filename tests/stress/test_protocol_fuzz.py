"""Protocol fuzzing over stdio with raw Content-Length framing (hypothesis).

One server per module receives batches of malformed and odd messages; after every batch
it must answer a real request (hover on a kernel of an open document) with exactly the
answer it gave before the fuzzing, and every malformed request must have been answered
with the JSON-RPC / LSP error code the specifications give:

- body not JSON, not UTF-8 or nested too deeply for the decoder: ``-32700`` (id null);
- JSON that is not a request object (an array, a number, no/wrong ``jsonrpc``, a
  non-string ``method``, an id that is an object/array/bool/float): ``-32600``
  (the id echoed when it is an integer or string, else null);
- an unknown method: ``-32601``; a known method with params of the wrong shape
  (including positions outside LSP's ``uinteger`` range): ``-32602``;
- requests on unopened documents and positions past the end of the text: a normal
  (null or empty) result, never an error;
- bad headers (non-numeric, negative or missing ``Content-Length``, a length shorter than
  the body): the junk is skipped and the next well-framed message is read.

Bounded: ``max_examples`` (env ``OFFLOAD_LS_FUZZ_EXAMPLES``, default 150) batches of
1-6 messages, no hypothesis deadline (the server, not a test, sets the pace), a
30-second limit on every awaited answer. The number of messages tried is printed in the
"stress figures" summary.
"""

from __future__ import annotations

import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rawlsp import RawLsp, encode, frame
from stress_helpers import FIGURES

EXAMPLES = int(os.environ.get("OFFLOAD_LS_FUZZ_EXAMPLES", "150"))

SRC = """#[offload_kernel]
fn scale(a: f32, x: *mut [f32; 4], y: &[f32; 4]) {
}

fn main() {
    offload! { kernel = scale, workgroup_dim = [2, 1, 1], thread_dim = [64, 1, 1], args = (2.0, p, &a) }
}
"""
KERNEL_AT = {"line": 1, "character": 4}
UINT_MAX = 2**31 - 1  # LSP uinteger

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, NOT_INITIALIZED = (
    -32700, -32600, -32601, -32602, -32002)

STATS = {"messages": 0, "batches": 0, "bytes": 0}


# ------------------------------------------------------------------ the server

@pytest.fixture(scope="module")
def fuzz_server(tmp_path_factory):
    root = tmp_path_factory.mktemp("fuzz-ws")
    doc = root / "kernels.rs"
    doc.write_text(SRC)
    scratch = root / "scratch.rs"
    scratch.write_text("fn f() {}\n")
    server = RawLsp(root / "server.stderr", {"debounceMs": 0, "scanWorkspace": False, "checkOnSave": False})
    server.initialize(root)
    server.open(doc.as_uri(), SRC)
    server.open(scratch.as_uri(), "fn f() {}\n")
    baseline = probe(server, doc.as_uri())
    assert baseline["result"]["contents"]["value"].startswith("**GPU kernel `scale`**")
    server.doc_uri, server.scratch_uri, server.baseline = doc.as_uri(), scratch.as_uri(), baseline["result"]
    yield server
    status = server.close()
    FIGURES.append(f"protocol fuzz: {STATS['messages']} messages ({STATS['bytes']} bytes) in "
                   f"{STATS['batches']} batches; server exit status after shutdown/exit: {status}")
    assert status == 0


def probe(server: RawLsp, uri: str) -> dict:
    return server.call("textDocument/hover", {"textDocument": {"uri": uri}, "position": KERNEL_AT}, timeout=30)


# ------------------------------------------------------------------ strategies
#
# Each strategy gives (payload, expectation). payload: bytes to write as they are, or a
# dict to frame (its "id" "ID" is replaced by a fresh integer when sent). expectation:
# ("error", code) for the request's id, ("null-id", code) for an error with id null,
# ("result",) for a non-error answer, ("answered",) for any answer, or None (nothing is owed: notifications, junk).

json_scalars = st.one_of(st.none(), st.booleans(), st.integers(-2**40, 2**40),
                         st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=20))
json_values = st.recursive(json_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)), max_leaves=12)
no_header = st.text(max_size=40).filter(lambda t: "Content-Length" not in t)
uris = st.one_of(
    no_header.map(lambda t: "file:///nonexistent/" + t + ".rs"),
    no_header.map(lambda t: "untitled:" + t),
    no_header,
)


def _not_json(data: bytes) -> bool:
    try:
        json.loads(data)
    except (ValueError, RecursionError):
        return True
    return False


def _intlike(text: str) -> bool:
    try:
        int(text)
    except ValueError:
        return False
    return True


@st.composite
def invalid_json(draw):
    kind = draw(st.sampled_from(["bytes", "truncated", "bad-utf8", "deep"]))
    if kind == "bytes":
        body = draw(st.binary(min_size=1, max_size=200).filter(
            lambda b: b"Content-Length" not in b and b"\n" not in b and _not_json(b)))
    elif kind == "truncated":
        full = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "textDocument/hover",
                           "params": draw(json_values)}).encode()
        body = full[:draw(st.integers(1, len(full) - 1))]
    elif kind == "bad-utf8":
        body = (b'{"jsonrpc": "2.0", "method": "'
                + draw(st.sampled_from([b"\xff", b"\xc3\x28", b"\xed\xa0\x80"])) + b'"}')
    else:
        depth = draw(st.integers(5_000, 60_000))
        body = b"[" * depth + b"]" * depth
    return frame(body), ("null-id", PARSE_ERROR)


@st.composite
def not_an_object(draw):
    value = draw(json_values.filter(lambda v: not isinstance(v, dict)))
    return frame(json.dumps(value).encode()), ("null-id", INVALID_REQUEST)


@st.composite
def bad_envelope(draw):
    method = draw(st.sampled_from(["textDocument/hover", "x/unknown", "shutdown", "textDocument/codeLens"]))
    msg = {"jsonrpc": "2.0", "id": "ID", "method": method, "params": {}}
    how = draw(st.sampled_from(["no-jsonrpc", "jsonrpc", "method", "id"]))
    if how == "no-jsonrpc":
        del msg["jsonrpc"]
        return msg, ("error", INVALID_REQUEST)
    if how == "jsonrpc":
        msg["jsonrpc"] = draw(st.one_of(st.sampled_from(["1.0", "2", "2.0 "]), st.integers(), st.none()))
        return msg, ("error", INVALID_REQUEST)
    if how == "method":
        msg["method"] = draw(st.one_of(st.integers(), st.none(), st.lists(st.text(max_size=3), max_size=2)))
        return msg, ("error", INVALID_REQUEST)
    msg["id"] = draw(st.one_of(st.booleans(), st.floats(allow_nan=False, allow_infinity=False),
                               st.lists(st.integers(), max_size=2),
                               st.dictionaries(st.text(max_size=3), st.integers(), max_size=2)))
    return msg, ("null-id", INVALID_REQUEST)


@st.composite
def unknown_method(draw):
    method = draw(st.one_of(no_header.map(lambda t: "x/" + t), no_header.map(lambda t: "$/x" + t)))
    return {"jsonrpc": "2.0", "id": "ID", "method": method, "params": draw(json_values)}, ("error", METHOD_NOT_FOUND)


@st.composite
def invalid_params(draw, doc_uri: str):
    td = {"uri": doc_uri}
    how = draw(st.sampled_from(["textDocument", "uri", "line", "character", "range", "command", "args"]))
    if how == "textDocument":
        params = {"textDocument": draw(st.one_of(st.integers(), st.text(max_size=5), st.none())), "position": KERNEL_AT}
        method = "textDocument/hover"
    elif how == "uri":
        # pygls' converter (cattrs) turns any scalar into a string field's str(): a
        # number as a URI is answered (null: no such document), not rejected.
        params = {"textDocument": {
            "uri": draw(st.one_of(st.integers(), st.none(), st.lists(st.integers(), max_size=2)))}}
        method = draw(st.sampled_from(["textDocument/codeLens", "textDocument/hover"]))
        params.setdefault("position", KERNEL_AT)
        return {"jsonrpc": "2.0", "id": "ID", "method": method, "params": params}, ("answered",)
    elif how in ("line", "character"):
        # Outside uinteger, or not a number: -32602. (A numeric string or a bool would be
        # converted to an integer by cattrs, so they are not drawn here.)
        value = draw(st.one_of(st.integers(max_value=-1), st.integers(min_value=UINT_MAX + 1),
                               st.lists(st.integers(), max_size=2), st.none(),
                               st.text(max_size=5).filter(lambda t: not _intlike(t))))
        position = {"line": 0, "character": 0, how: value}
        params = {"textDocument": td, "position": position}
        method = "textDocument/hover"
    elif how == "range":
        params = {"textDocument": td, "range": draw(st.one_of(st.integers(), st.text(max_size=4),
                                                              st.fixed_dictionaries({"start": st.just(KERNEL_AT)})))}
        method = draw(st.sampled_from(["textDocument/inlayHint", "textDocument/codeAction"]))
        if method == "textDocument/codeAction":
            params["context"] = {"diagnostics": []}
    elif how == "command":
        params = {"command": draw(st.one_of(st.integers(), no_header.map(lambda t: "offload-ls.nope" + t))),
                  "arguments": []}
        method = "workspace/executeCommand"
    else:
        params = {"command": draw(st.sampled_from(["offload-ls.build", "offload-ls.run", "offload-ls.cancel"])),
                  "arguments": [draw(st.one_of(st.integers(), st.text(max_size=4), st.none(),
                                               st.fixed_dictionaries({"path": st.integers()})))]}
        method = "workspace/executeCommand"
    return {"jsonrpc": "2.0", "id": "ID", "method": method, "params": params}, ("error", INVALID_PARAMS)


@st.composite
def valid_odd_request(draw, doc_uri: str):
    """Well-formed requests the server must answer normally: unopened documents,
    positions and ranges far past the end of the text, inverted ranges."""
    uri = draw(st.one_of(uris, st.just(doc_uri)))
    pos = st.fixed_dictionaries({"line": st.integers(0, UINT_MAX), "character": st.integers(0, UINT_MAX)})
    method = draw(st.sampled_from(["textDocument/hover", "textDocument/codeLens", "textDocument/inlayHint",
                                   "textDocument/codeAction"]))
    td = {"uri": uri}
    if method == "textDocument/hover":
        params = {"textDocument": td, "position": draw(pos)}
    elif method == "textDocument/codeLens":
        params = {"textDocument": td}
    else:
        params = {"textDocument": td, "range": {"start": draw(pos), "end": draw(pos)}}
        if method == "textDocument/codeAction":
            params["context"] = {"diagnostics": [], "only": draw(st.one_of(st.none(), st.just(["quickfix"])))}
    return {"jsonrpc": "2.0", "id": "ID", "method": method, "params": params}, ("result",)


@st.composite
def odd_notification(draw, scratch_uri: str):
    """Notifications with wrong params, for unopened documents, unknown or ``$/`` methods,
    and edits with out-of-range ranges on the scratch document: no answer is owed."""
    pos = st.fixed_dictionaries({"line": st.integers(0, UINT_MAX), "character": st.integers(0, UINT_MAX)})
    how = draw(st.sampled_from(["unknown", "dollar", "wrong-params", "unopened", "edit", "cancel"]))
    if how == "unknown":
        msg = {"jsonrpc": "2.0", "method": "x/" + draw(no_header), "params": draw(json_values)}
    elif how == "dollar":
        msg = {"jsonrpc": "2.0", "method": "$/" + draw(no_header), "params": draw(json_values)}
    elif how == "wrong-params":
        msg = {"jsonrpc": "2.0", "method": draw(st.sampled_from([
            "textDocument/didOpen", "textDocument/didChange", "textDocument/didSave", "textDocument/didClose",
            "workspace/didChangeWatchedFiles", "workspace/didChangeConfiguration", "$/cancelRequest"])),
            "params": draw(json_values)}
    elif how == "unopened":
        uri = draw(uris)
        msg = draw(st.sampled_from([
            {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
                "textDocument": {"uri": uri, "version": 7}, "contentChanges": [{"text": "fn x() {}"}]}},
            {"jsonrpc": "2.0", "method": "textDocument/didClose", "params": {"textDocument": {"uri": uri}}},
            {"jsonrpc": "2.0", "method": "textDocument/didSave", "params": {"textDocument": {"uri": uri}}},
            {"jsonrpc": "2.0", "method": "workspace/didChangeWatchedFiles",
             "params": {"changes": [{"uri": uri, "type": 2}, {"uri": uri, "type": 3}]}},
        ]))
    elif how == "edit":
        changes = draw(st.lists(st.fixed_dictionaries({
            "range": st.fixed_dictionaries({"start": pos, "end": pos}), "text": st.text(max_size=30)}),
            min_size=1, max_size=3))
        msg = {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": scratch_uri, "version": draw(st.integers(0, UINT_MAX))}, "contentChanges": changes}}
    else:
        msg = {"jsonrpc": "2.0", "method": "$/cancelRequest",
               "params": {"id": draw(st.one_of(st.integers(), st.text(max_size=4)))}}
    return msg, None


@st.composite
def bad_header(draw):
    """Junk framing the server must skip: its body is never answered (there is no way
    to know where it ends), the next well-framed message is."""
    body = json.dumps({"jsonrpc": "2.0", "id": 999_999, "method": "x/never"}).encode()
    how = draw(st.sampled_from(["non-numeric", "negative", "missing", "short", "garbage-line"]))
    if how == "non-numeric":
        return (b"Content-Length: " + draw(st.sampled_from([b"abc", b"", b"1e3", b"0x10", b" 12 x"]))
                + b"\r\n\r\n" + body), None
    if how == "negative":
        return b"Content-Length: -%d\r\n\r\n" % draw(st.integers(1, 100)) + body, None
    if how == "missing":
        return b"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n" + body, None
    if how == "short":
        # The declared length ends inside the body: that prefix is not JSON (-32700);
        # the rest is junk before the next header.
        cut = draw(st.integers(1, len(body) - 1))
        return b"Content-Length: %d\r\n\r\n" % cut + body, ("null-id", PARSE_ERROR)
    return draw(st.binary(min_size=1, max_size=60).filter(lambda b: b"Content-Length" not in b)) + b"\r\n", None


def message_strategy(doc_uri: str, scratch_uri: str):
    return st.one_of(invalid_json(), not_an_object(), bad_envelope(), unknown_method(),
                     invalid_params(doc_uri), valid_odd_request(doc_uri), odd_notification(scratch_uri),
                     bad_header())


# ------------------------------------------------------------------ running a batch

def run_batch(server: RawLsp, batch) -> None:
    at = server.mark()
    owed: list[tuple[int, tuple]] = []
    null_id: dict[int, int] = {}
    for payload, expect in batch:
        if isinstance(payload, dict):
            payload = dict(payload)
            rid = None
            if payload.get("id") == "ID":
                rid = payload["id"] = server.new_id()
            data = encode(payload)
        else:
            rid, data = None, payload
        server.write(data)
        STATS["messages"] += 1
        STATS["bytes"] += len(data)
        if expect is None:
            continue
        if expect[0] == "null-id":
            null_id[expect[1]] = null_id.get(expect[1], 0) + 1
        else:
            owed.append((rid, expect))
    STATS["batches"] += 1
    answer = probe(server, server.doc_uri)
    assert answer.get("result") == server.baseline, answer
    window = server.since(at)
    for rid, expect in owed:
        # Errors for undecodable requests are sent as the message is read, before the
        # probe's answer; requests that reach a handler may be answered after it.
        reply = server.response(rid, timeout=120, after=at)
        if expect[0] == "error":
            assert reply.get("error", {}).get("code") == expect[1], reply
        elif expect[0] == "answered":
            assert "error" in reply or "result" in reply, reply
        else:
            assert "error" not in reply and "result" in reply, reply
    got_null: dict[int, int] = {}
    for m in window:
        if "method" not in m and m.get("id", 0) is None:
            code = m["error"]["code"]
            got_null[code] = got_null.get(code, 0) + 1
    assert got_null == null_id, (got_null, null_id)


def test_fuzzed_messages_are_answered_with_spec_errors_and_the_server_keeps_serving(fuzz_server):
    server = fuzz_server

    @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.lists(message_strategy(server.doc_uri, server.scratch_uri), min_size=1, max_size=6))
    def batches(batch):
        run_batch(server, batch)

    batches()
    assert server.proc.poll() is None
    # The scratch document took random out-of-range edits: it is still answered for.
    assert server.call("textDocument/codeLens", {"textDocument": {"uri": server.scratch_uri}})["result"] == []


def test_huge_payloads(fuzz_server):
    """A few MB per message: a 4 MB document (over no limit: maxFileBytes is 8 MiB), a
    3 MB URI, 3 MB of invalid JSON, a 3 MB string to an unknown method, a 3 MB
    configuration change. Each is answered or ignored as above, then the probe answers."""
    server = fuzz_server
    big_uri = "file:///nonexistent/" + "a" * 3_000_000 + ".rs"
    line = "fn f() { let x = 1; }\n"
    big_text = line * (4_000_000 // len(line))
    big_doc = "file:///nonexistent/big.rs"
    cases = [
        ({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": big_doc, "languageId": "rust", "version": 1, "text": big_text}}}, None),
        ({"jsonrpc": "2.0", "id": "ID", "method": "textDocument/hover",
          "params": {"textDocument": {"uri": big_uri}, "position": {"line": 0, "character": 0}}}, ("result",)),
        (frame(b'{"jsonrpc": "2.0", "id": 1, "params": "' + b"x" * 3_000_000), ("null-id", PARSE_ERROR)),
        ({"jsonrpc": "2.0", "id": "ID", "method": "x/big", "params": "y" * 3_000_000}, ("error", METHOD_NOT_FOUND)),
        ({"jsonrpc": "2.0", "method": "workspace/didChangeConfiguration",
          "params": {"settings": {"offload-ls": {"junk": "z" * 3_000_000}}}}, None),
        ({"jsonrpc": "2.0", "id": "ID", "method": "textDocument/codeLens",
          "params": {"textDocument": {"uri": big_doc}}}, ("result",)),
    ]
    for case in cases:
        run_batch(server, [case])
    # The big document was analysed (its diagnostics were published: it has none).
    server.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                    and m["params"]["uri"] == big_doc, timeout=120)
    server.notify("textDocument/didClose", {"textDocument": {"uri": big_doc}})
    assert probe(server, server.doc_uri)["result"] == server.baseline


def test_lifecycle_errors(make_server, tmp_path):
    """Requests before ``initialize`` get -32002 and notifications are dropped; a second
    ``initialize`` gets -32600; after ``shutdown`` requests get -32600; ``exit`` ends the
    process with status 0."""
    doc = tmp_path / "k.rs"
    doc.write_text(SRC)
    server = make_server({"debounceMs": 0, "scanWorkspace": False})
    hover = {"textDocument": {"uri": doc.as_uri()}, "position": KERNEL_AT}
    server.open(doc.as_uri(), SRC)  # dropped: before initialize
    reply = server.call("textDocument/hover", hover)
    assert reply["error"] == {"code": NOT_INITIALIZED,
                              "message": "textDocument/hover before initialize: the server is not initialized"}
    assert server.call("shutdown")["error"]["code"] == NOT_INITIALIZED
    init = server.initialize(tmp_path)
    assert "capabilities" in init["result"]
    # The didOpen sent before initialize was dropped: the document is not open.
    assert server.call("textDocument/hover", hover) == {"id": server._next_id, "jsonrpc": "2.0", "result": None}
    assert server.call("initialize", {"processId": None, "rootUri": None, "capabilities": {}})["error"] == {
        "code": INVALID_REQUEST, "message": "initialize may only be sent once"}
    # A change to a document that is not open: dropped with a log line on stderr, no
    # "Error in server" message to the user.
    mark = server.mark()
    server.notify("textDocument/didChange", {"textDocument": {"uri": doc.as_uri(), "version": 2},
                                             "contentChanges": [{"text": SRC}]})
    server.open(doc.as_uri(), SRC)
    assert probe(server, doc.as_uri())["result"]["contents"]["value"].startswith("**GPU kernel `scale`**")
    assert [m for m in server.since(mark) if m.get("method") == "window/showMessage"] == []
    assert f"didChange for {doc.as_uri()}, which is not open: ignored" in server.stderr_tail()
    # A frame that is not JSON: answered -32700 (the fuzz test checks that), one stderr line
    server.write(b"Content-Length: 5\r\n\r\n{bad}")
    assert probe(server, doc.as_uri())["result"]["contents"]["value"].startswith("**GPU kernel `scale`**")
    tail = server.stderr_tail()
    assert "Unable to handle message: JSONDecodeError: Expecting property name" in tail
    assert "Traceback" not in tail
    assert server.call("shutdown") == {"id": server._next_id, "jsonrpc": "2.0", "result": None}
    after = server.call("textDocument/hover", hover)
    assert after["error"] == {"code": INVALID_REQUEST, "message": "textDocument/hover after shutdown"}
    server.notify("exit")
    assert server.proc.wait(timeout=15) == 0
