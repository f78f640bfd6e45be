"""Workspace scanning, file watching (watchdog and client-side), and bad input."""

from __future__ import annotations

import os

from lsp_helpers import (
    RULE,
    initialize,
    log_line,
    of_rule,
    open_doc,
    published,
    rng,
)
from lsprotocol import types

SRC = """#[offload_kernel]
fn scale(x: *mut [f32; 4]) {
}
"""
CLEAN = SRC.replace("*mut", "&mut")
#: The finding of SRC: line 1, `*mut [f32; 4]` at columns 12..25 (ASCII line).
FINDING = rng(1, 12, 1, 25)


def write(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    path.write_bytes(data)
    return path


def ranges(diags):
    return [d.range for d in of_rule(diags)]


async def test_scan_publishes_unopened_files_and_skips_target(client, tmp_path):
    lib = write(tmp_path / "src" / "lib.rs", SRC)
    write(tmp_path / "src" / "clean.rs", CLEAN)
    generated = write(tmp_path / "target" / "debug" / "build" / "gen.rs", SRC)
    write(tmp_path / ".git" / "hooks" / "x.rs", SRC)
    await initialize(client, tmp_path)
    assert ranges(await published(client, lib.as_uri())) == [FINDING]
    await log_line(client, lambda m: m == "workspace scan: 2 files analysed, 0 not analysed", "scan summary")
    uris = {p.uri for p in client.published}
    assert lib.as_uri() in uris
    assert (tmp_path / "src" / "clean.rs").as_uri() not in uris  # clean files are not published
    assert generated.as_uri() not in uris


async def test_watchdog_picks_up_created_changed_and_deleted_files(client, tmp_path):
    await initialize(client, tmp_path)
    await log_line(client, lambda m: m == f"watching {tmp_path} for changes to .rs and Cargo.toml files",
                   "the watcher to start")
    new = write(tmp_path / "src" / "new.rs", SRC)
    assert ranges(await published(client, new.as_uri())) == [FINDING]

    count = len(client.published)
    write(new, "\n" + SRC)  # modified: the finding moves down one line
    assert ranges(await published(client, new.as_uri(), after=count)) == [rng(2, 12, 2, 25)]

    # Ignored: under target/. Synchronise on a later file, then check target/ was skipped.
    ignored = write(tmp_path / "target" / "out.rs", SRC)
    later = write(tmp_path / "src" / "later.rs", SRC)
    await published(client, later.as_uri())
    assert ignored.as_uri() not in {p.uri for p in client.published}

    count = len(client.published)
    new.unlink()
    assert await published(client, new.as_uri(), after=count) == []


async def test_client_side_watching_with_dynamic_registration(client, tmp_path):
    await initialize(client, tmp_path, watch_dynamic=True)
    await log_line(client, lambda m: m.startswith("workspace scan:"), "scan summary")
    # register_options arrive untyped (JSON) on the client side.
    assert [(r.method, [w["globPattern"] for w in r.register_options["watchers"]])
            for r in client.registrations] == [
        (types.WORKSPACE_DID_CHANGE_WATCHED_FILES, ["**/*.rs", "**/Cargo.toml"])]
    assert not any(m.message.startswith("watching ") for m in client.log_messages)  # no watchdog

    new = write(tmp_path / "src" / "new.rs", SRC)
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=new.as_uri(), type=types.FileChangeType.Created)]))
    assert ranges(await published(client, new.as_uri())) == [FINDING]

    # A Cargo.toml reported by the client changes the rule level of the scanned file.
    count = len(client.published)
    write(tmp_path / "Cargo.toml", f'[package]\nname = "k"\nversion = "0.1.0"\n'
                                   f'[package.metadata.offload-ls]\n{RULE} = "deny"\n')
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=(tmp_path / "Cargo.toml").as_uri(), type=types.FileChangeType.Created)]))
    diags = of_rule(await published(client, new.as_uri(), after=count))
    assert [(d.range, d.severity) for d in diags] == [(FINDING, types.DiagnosticSeverity.Error)]

    count = len(client.published)
    new.unlink()
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=new.as_uri(), type=types.FileChangeType.Deleted)]))
    assert await published(client, new.as_uri(), after=count) == []


async def test_bad_input_is_logged_and_the_server_keeps_working(client, tmp_path):
    # Invalid UTF-8: byte 0xff inside a comment on the finding's line. It decodes to one
    # U+FFFD (1 UTF-16 unit), so `*mut` starts at column 20 (12 + len("/* \ufffd */ ")).
    bad = write(tmp_path / "bad_utf8.rs", SRC.encode().replace(b"x: *mut", b"/* \xff */ x: *mut"))
    binary = write(tmp_path / "binary.rs", SRC.encode() + b"\x00\x01\x02")
    big = write(tmp_path / "big.rs", SRC + "// padding\n" * 200)
    good = write(tmp_path / "good.rs", SRC)
    os.symlink(tmp_path / "missing.rs", tmp_path / "dangling.rs")
    await initialize(client, tmp_path, encodings=["utf-16"], init_options={"maxFileBytes": 1000})
    summary = await log_line(client, lambda m: m.startswith("workspace scan:"), "scan summary")
    assert summary == "workspace scan: 2 files analysed, 3 not analysed"

    messages = [m.message for m in client.log_messages]
    nul = len(SRC.encode())
    assert f"{bad}: invalid UTF-8 at byte offset 30; analysed with U+FFFD in its place" in messages
    assert f"{binary}: binary file (NUL byte at offset {nul}); not analysed" in messages
    assert (f"{big}: {big.stat().st_size} bytes, above the 1000-byte limit "
            f"(setting maxFileBytes); not analysed") in messages
    assert f"{tmp_path / 'dangling.rs'}: cannot read: No such file or directory; not analysed" in messages
    assert ranges(client.diagnostics[bad.as_uri()]) == [rng(1, 20, 1, 33)]
    assert ranges(client.diagnostics[good.as_uri()]) == [FINDING]
    assert binary.as_uri() not in client.diagnostics and big.as_uri() not in client.diagnostics

    # An open document above the size limit: one log line, no findings.
    too_big = (tmp_path / "open_big.rs").as_uri()
    open_doc(client, too_big, SRC + "//" + "x" * 1000)
    assert await published(client, too_big, version=1) == []
    await log_line(client, lambda m: m == f"{tmp_path / 'open_big.rs'}: {len(SRC) + 1002} bytes, above "
                   f"the 1000-byte limit (setting maxFileBytes); not analysed", "open-document size log")

    # A real request is still answered.
    open_doc(client, good.as_uri(), SRC)
    await published(client, good.as_uri(), version=1)
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=good.as_uri()),
        position=types.Position(line=1, character=4)))
    assert hover.contents.value.startswith("**GPU kernel `scale`** — std-offload")


async def test_scan_workspace_setting_toggles_scanning(client, tmp_path):
    lib = write(tmp_path / "src" / "lib.rs", SRC)
    await initialize(client, tmp_path, init_options={"scanWorkspace": False},
                     configuration={"scanWorkspace": False})
    # Synchronise on an open document: nothing was scanned or watched.
    doc = (tmp_path / "open.rs").as_uri()
    open_doc(client, doc, SRC)
    await published(client, doc, version=1)
    assert lib.as_uri() not in client.diagnostics
    assert not any(m.message.startswith(("watching ", "workspace scan:")) for m in client.log_messages)

    client.set_configuration({"scanWorkspace": True}, section="offload-ls")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    assert ranges(await published(client, lib.as_uri())) == [FINDING]
    await log_line(client, lambda m: m.startswith("watching "), "the watcher to start")

    count = len(client.published)
    client.set_configuration({"scanWorkspace": False}, section="offload-ls")
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    assert await published(client, lib.as_uri(), after=count) == []


async def test_workspace_folders_added_and_removed(client, tmp_path):
    first, second = tmp_path / "first", tmp_path / "second"
    a = write(first / "a.rs", SRC)
    b = write(second / "b.rs", SRC)
    await initialize(client, first)
    assert ranges(await published(client, a.as_uri())) == [FINDING]
    count = len(client.published)
    client.workspace_did_change_workspace_folders(types.DidChangeWorkspaceFoldersParams(
        event=types.WorkspaceFoldersChangeEvent(
            added=[types.WorkspaceFolder(uri=second.as_uri(), name="second")],
            removed=[types.WorkspaceFolder(uri=first.as_uri(), name="first")])))
    assert await published(client, a.as_uri(), after=count) == []
    assert ranges(await published(client, b.as_uri(), after=count)) == [FINDING]
