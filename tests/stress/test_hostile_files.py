"""Hostile files in a scanned and watched workspace: invalid UTF-8, NUL bytes, a 10 MB
file, 10,000-deep nesting, symlink loops, symlinks out of the workspace, dangling links,
files that vanish or change right after they appear.

The server must log one clear line per file it does not analyse, never crash, never
print a traceback, never follow a link out of the workspace folder (no diagnostics for
anything reached through one), and end with exactly the diagnostics of what is on disk.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from rawlsp import RawLsp

KERNEL = b"#[offload_kernel]\npub unsafe fn k(x: *mut f32) {}\n"
RAW_POINTER = "raw_pointer_kernel_param"
LIMIT = 8 * 1024 * 1024  # maxFileBytes default
BIG = 10 * 1024 * 1024
DEPTH = 10_000
SETTINGS = {"debounceMs": 0, "checkOnSave": False}


def raw_pointer_ranges(publish: dict) -> list[tuple[int, int, int, int]]:
    return [(d["range"]["start"]["line"], d["range"]["start"]["character"],
             d["range"]["end"]["line"], d["range"]["end"]["character"])
            for d in publish["diagnostics"] if d.get("code") == RAW_POINTER]


def write_hostile(src: Path, outside: Path, prefix: str) -> dict[str, Path]:
    """The hostile files, names starting with ``prefix``; returns name -> path."""
    files = {
        "good": src / f"{prefix}good.rs",
        "bad_utf8": src / f"{prefix}bad_utf8.rs",
        "nul": src / f"{prefix}nul.rs",
        "huge": src / f"{prefix}huge.rs",
        "deep": src / f"{prefix}deep.rs",
        "loop_a": src / f"{prefix}loop_a.rs",
        "loop_b": src / f"{prefix}loop_b.rs",
        "self": src / f"{prefix}self.rs",
        "out": src / f"{prefix}out.rs",
        "dangling": src / f"{prefix}dangling.rs",
        "outdir": src / f"{prefix}outdir",
        "dirloop": src / f"{prefix}dirloop",
        "fifo": src / f"{prefix}fifo.rs",
        "lock": src / f".#{prefix}good.rs",
    }
    files["good"].write_bytes(KERNEL)
    # File names that are not UTF-8 or hold a newline: published under their
    # percent-encoded URIs (see odd_name_uris).
    with open(os.fsencode(src) + b"/" + prefix.encode() + b"odd\xffname.rs", "wb") as fh:
        fh.write(KERNEL)
    (src / f"{prefix}new\nline.rs").write_bytes(KERNEL)
    # Invalid UTF-8 in a comment (byte offset 3), then a kernel: analysed with U+FFFD.
    files["bad_utf8"].write_bytes(b"// \xff\xfe\n" + KERNEL)
    files["nul"].write_bytes(b"fn f() {}\0" + KERNEL)
    with open(files["huge"], "wb") as fh:
        fh.write(KERNEL + b"// " + b"x" * (BIG - len(KERNEL) - 4) + b"\n")
    # 10,000 nested blocks in a kernel's body.
    files["deep"].write_bytes(b"#[offload_kernel]\npub unsafe fn k(x: *mut f32) " + b"{" * DEPTH + b"}" * DEPTH + b"\n")
    os.symlink(files["loop_b"].name, files["loop_a"])
    os.symlink(files["loop_a"].name, files["loop_b"])
    os.symlink(files["self"].name, files["self"])
    os.symlink(outside / "secret.rs", files["out"])
    os.symlink(src / "nowhere" / "gone.rs", files["dangling"])
    os.symlink(outside, files["outdir"], target_is_directory=True)
    os.symlink("..", files["dirloop"], target_is_directory=True)
    os.mkfifo(files["fifo"])  # reading it would wait for a writer for ever
    os.symlink("user@host.4242:1700000000", files["lock"])  # an Emacs lock file: no source file
    return files


def odd_name_uris(src: Path, prefix: str) -> list[str]:
    base = src.as_uri() + "/" + prefix
    return [base + "odd%FFname.rs", base + "new%0Aline.rs"]


def expected_lines(files: dict[str, Path]) -> list[str]:
    f = files
    return [
        f"{f['bad_utf8']}: invalid UTF-8 at byte offset 3; analysed with U+FFFD in its place",
        f"{f['nul']}: binary file (NUL byte at offset 9); not analysed",
        f"{f['huge']}: {BIG} bytes, above the {LIMIT}-byte limit (setting maxFileBytes); not analysed",
        f"{f['loop_a']}: cannot read: Too many levels of symbolic links; not analysed",
        f"{f['loop_b']}: cannot read: Too many levels of symbolic links; not analysed",
        f"{f['self']}: cannot read: Too many levels of symbolic links; not analysed",
        f"{f['dangling']}: cannot read: No such file or directory; not analysed",
        f"{f['fifo']}: cannot read: not a regular file; not analysed",
    ]


@pytest.fixture
def workspace(tmp_path):
    root = tmp_path / "ws"
    src = root / "src"
    src.mkdir(parents=True)
    (root / "Cargo.toml").write_text('[package]\nname = "hostile"\nversion = "0.1.0"\nedition = "2021"\n')
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.rs").write_bytes(KERNEL)
    (outside / "more.rs").write_bytes(KERNEL)
    return root, src, outside


def no_tracebacks(server: RawLsp) -> None:
    text = server.stderr_path.read_text(errors="replace")
    assert "Traceback" not in text, text[-4000:]


def test_hostile_files_scanned_then_watched(make_server, workspace):
    root, src, outside = workspace
    scanned = write_hostile(src, outside, "")
    server = make_server(SETTINGS)
    server.initialize(root)
    summary = server.wait_for(lambda m: m.get("method") == "window/logMessage"
                              and m["params"]["message"].startswith("workspace scan:"), timeout=120)
    # Analysed: good, bad_utf8, deep, the two odd names. Not analysed: nul, huge, the three loop links, the
    # dangling link, the FIFO. Not even listed: out.rs (leads outside), outdir/ and dirloop/
    # (directory links are never walked), the lock file.
    assert summary["params"]["message"] == "workspace scan: 5 files analysed, 7 not analysed"
    assert not any(".#good.rs" in m for m in server.log_messages())
    logs = server.log_messages()
    for line in expected_lines(scanned):
        assert logs.count(line) == 1, (line, logs)

    # Now the same files again, created while the server watches the folder.
    at = server.mark()
    watched = write_hostile(src, outside, "w_")
    good_uri = watched["good"].as_uri()
    server.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                    and m["params"]["uri"] == good_uri, timeout=60, after=at)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        logs = server.log_messages(at)
        if all(line in logs for line in expected_lines(watched)):
            break
        time.sleep(0.1)
    for line in expected_lines(watched):
        assert line in logs, (line, logs)

    # Files that vanish right after they appear, and files rewritten right after.
    for i in range(30):
        p = src / f"blink{i}.rs"
        p.write_bytes(KERNEL)
        p.unlink()
        q = src / f"flip{i}.rs"
        q.write_bytes(KERNEL)
        q.write_bytes(b"fn clean() {}\n" if i % 2 else b"\n\n" + KERNEL)
    time.sleep(3)  # let the watcher's events and the debounced analyses settle
    hover = server.call("textDocument/hover", {"textDocument": {"uri": scanned["good"].as_uri()},
                                               "position": {"line": 1, "character": 15}})
    assert "error" not in hover

    publishes = server.publishes()
    last = {}
    for p in publishes:
        last[p["uri"]] = p
    # Nothing outside the folder, nothing through a link out of it.
    for uri in last:
        assert uri.startswith(root.as_uri() + "/"), uri
        assert "/out.rs" not in uri and "/w_out.rs" not in uri and "outdir" not in uri and "dirloop" not in uri, uri
    # Exactly the findings of what is on disk.
    kernel_range = [(1, 19, 1, 27)]
    for name in ("good", "deep"):
        assert raw_pointer_ranges(last[scanned[name].as_uri()]) == kernel_range
        assert raw_pointer_ranges(last[watched[name].as_uri()]) == kernel_range
    for files in (scanned, watched):
        assert raw_pointer_ranges(last[files["bad_utf8"].as_uri()]) == [(2, 19, 2, 27)]
        for name in ("nul", "huge", "loop_a", "loop_b", "self", "dangling"):
            assert raw_pointer_ranges(last.get(files[name].as_uri(), {"diagnostics": []})) == []
    for uri in odd_name_uris(src, "") + odd_name_uris(src, "w_"):
        assert raw_pointer_ranges(last[uri]) == kernel_range, uri
    for i in range(30):
        blink = last.get((src / f"blink{i}.rs").as_uri())
        assert blink is None or blink["diagnostics"] == [], blink
        flip = last.get((src / f"flip{i}.rs").as_uri(), {"diagnostics": []})
        assert raw_pointer_ranges(flip) == ([] if i % 2 else [(3, 19, 3, 27)]), (i, flip)
    assert server.proc.poll() is None
    no_tracebacks(server)


def test_client_reported_events_for_hostile_paths(make_server, workspace):
    """A client that watches files itself reports events for links, loops and paths
    outside the folder: none of them is followed or published, none breaks the server."""
    root, src, outside = workspace
    files = write_hostile(src, outside, "")
    caps = {"workspace": {"configuration": True, "workspaceFolders": True,
                          "didChangeWatchedFiles": {"dynamicRegistration": True}},
            "textDocument": {"publishDiagnostics": {"versionSupport": True}}}
    server = make_server({**SETTINGS, "scanWorkspace": True})
    server.initialize(root, capabilities=caps)
    server.wait_for(lambda m: m.get("method") == "window/logMessage"
                    and m["params"]["message"].startswith("workspace scan:"), timeout=120)
    at = server.mark()
    paths = [files["loop_a"], files["self"], files["out"], files["dangling"], files["outdir"] / "more.rs",
             files["dirloop"] / "src" / "good.rs", outside / "secret.rs", Path("/proc/self/status.rs")]
    server.notify("workspace/didChangeWatchedFiles", {"changes": [
        {"uri": p.as_uri(), "type": t} for p in paths for t in (1, 2, 3)]})
    server.notify("workspace/didChangeWatchedFiles", {"changes": [
        {"uri": p.as_uri(), "type": 2} for p in paths]})
    time.sleep(1.5)
    reply = server.call("textDocument/hover", {"textDocument": {"uri": files["good"].as_uri()},
                                               "position": {"line": 0, "character": 0}})
    assert "error" not in reply
    published = {p["uri"] for p in server.publishes(after=at) if p["diagnostics"]}
    assert published == set(), published
    no_tracebacks(server)


def test_deeply_nested_modules_are_analyzed(make_server, workspace):
    """10,000 nested ``mod`` blocks (analysis/units/ raised RecursionError on them until
    098084e) are analysed: the kernel at the bottom has its finding."""
    root, src, _ = workspace
    deep = src / "mods.rs"
    deep.write_bytes(b"mod a { " * DEPTH + KERNEL + b"}" * DEPTH + b"\n")
    server = make_server(SETTINGS)
    server.initialize(root)
    server.wait_for(lambda m: m.get("method") == "window/logMessage"
                    and m["params"]["message"].startswith("workspace scan:"), timeout=120)
    publish = [p for p in server.publishes(deep.as_uri())]
    assert publish and raw_pointer_ranges(publish[-1]) == [(1, 19, 1, 27)]
    no_tracebacks(server)


def test_an_analysis_failure_is_reported_to_the_client(monkeypatch):
    """A rule crashing on some text (none is known today: this stands in for the next one)
    gives no findings and one window/logMessage line naming the file and the error, not
    only a traceback on stderr; the server's handler does not raise."""
    from offload_ls.analysis import engine
    from offload_ls.lsp import server as server_module
    from offload_ls.syntax.parse import parse

    def boom(source, root, levels=None, cache=None, crate=None):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(engine, "analyze_tree", boom)
    ls = server_module.OffloadLanguageServer()
    logged = []
    monkeypatch.setattr(ls.analyses, "_log", lambda message, type_=None: logged.append((message, type_)))
    result = ls.analyses.analyze(KERNEL, parse(KERNEL), {}, "/w/src/k.rs")
    assert result.findings == () and result.kernels == ()
    from lsprotocol import types
    assert logged == [("/w/src/k.rs: analysis failed (RecursionError: maximum recursion depth exceeded); "
                       "no lints for this text", types.MessageType.Error)]


def test_a_failing_rule_is_logged_to_the_client_once(monkeypatch):
    """A rule that raises on a text is a failure on the analysis (analysis/engine.py), which
    the server sends to the client's log once per file and rule, not on every keystroke; the
    other rules' findings still come."""
    import dataclasses

    from lsprotocol import types

    from offload_ls.analysis.rules import all_rules
    from offload_ls.lsp import server as server_module
    from offload_ls.syntax.parse import parse

    rules = all_rules()

    def boom(ctx):
        raise RuntimeError("rule bug")

    monkeypatch.setitem(rules, "unsafe_in_kernel", dataclasses.replace(rules["unsafe_in_kernel"], check=boom))
    ls = server_module.OffloadLanguageServer()
    logged = []
    monkeypatch.setattr(ls.analyses, "_log", lambda message, type_=None: logged.append((message, type_)))
    first = ls.analyses.analyze(KERNEL, parse(KERNEL), {}, "/w/src/k.rs")
    again = ls.analyses.analyze(KERNEL, parse(KERNEL), {}, "/w/src/k.rs")
    assert [f.rule for f in first.findings] == [f.rule for f in again.findings] != []
    assert "unsafe_in_kernel" not in {f.rule for f in first.findings}
    assert logged == [("/w/src/k.rs: rule unsafe_in_kernel failed; its findings are missing for this file "
                       "(RuntimeError: rule bug)", types.MessageType.Error)]


@pytest.mark.toolchain
def test_source_vanishing_between_save_and_check(make_server, tmp_path, shared_target_dir):
    """``src/main.rs`` is deleted right after its save, before the check starts (the
    check-on-save debounce is 0.3 s): the check reports on Cargo.toml why it could not
    run; restoring the file (fixed) and saving clears that, and nothing stale remains."""
    from stress_helpers import copy_fixture, toolchain_or_skip

    toolchain_or_skip()
    crate = copy_fixture("device-error", tmp_path / "crate")
    main = crate / "src" / "main.rs"
    manifest = crate / "Cargo.toml"
    text = main.read_text()
    env = {**os.environ, "CARGO_TARGET_DIR": str(shared_target_dir)}
    server = make_server({"trustedWorkspaces": [str(crate)], "transferPlan": False, "debounceMs": 0}, env=env)
    server.initialize(crate)
    server.open(main.as_uri(), text)
    at = server.mark()
    server.notify("textDocument/didSave", {"textDocument": {"uri": main.as_uri()}})
    # A round trip: the save has been handled (the crate was found to use offload, the
    # check is scheduled), and the check has not started (0.3 s debounce).
    server.call("textDocument/hover", {"textDocument": {"uri": main.as_uri()}, "position": {"line": 0, "character": 0}})
    main.unlink()
    line = server.wait_for(lambda m: m.get("method") == "window/logMessage"
                           and m["params"]["message"].startswith("offload check of "), timeout=240, after=at)
    assert line["params"]["message"].startswith(
        f"offload check of {crate} not run: {manifest}: cargo metadata failed: ")
    published = server.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                                and m["params"]["uri"] == manifest.as_uri(), timeout=30, after=at)
    [diag] = published["params"]["diagnostics"]
    assert diag["message"].startswith(f"offload check not run: {manifest}: cargo metadata failed: ")

    at = server.mark()
    main.write_text(text.replace("(i as f32).sin()", "(i as f32) * 0.5"))
    server.notify("textDocument/didSave", {"textDocument": {"uri": main.as_uri()}})
    server.wait_for(lambda m: m.get("method") == "window/logMessage"
                    and m["params"]["message"].startswith("offload check of crate: "), timeout=240, after=at)
    assert server.publishes(manifest.as_uri())[-1]["diagnostics"] == []
    errors = [d for d in server.publishes(main.as_uri())[-1]["diagnostics"]
              if d.get("severity") == 1 and (d.get("source") or "").startswith("offload-ls(")]
    assert errors == []
    assert server.proc.poll() is None
    no_tracebacks(server)
