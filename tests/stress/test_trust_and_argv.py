"""Untrusted workspaces start nothing of theirs; paths with spaces, quotes and shell
metacharacters reach programs as single argv elements, never through a shell.

Audit: ``cargo`` and ``rustc`` wrapper scripts (Python, so no shell is involved in the
audit itself) record every start as a JSON line — argv, working directory and the name
of the parent process — and then exec the real program (or exit 1). They are first on
the server's PATH, in its ``RUSTC``/``CARGO`` environment and in the ``rustc``/``cargo``
settings. The crate has a build script and a ``main`` that each leave a marker file if
they ever run, and a watcher thread samples the server's child processes every 20 ms.

Behaviour made explicit here (docs/hardening.md, "Trust"):

- untrusted: saves, edits, file events and ``didChangeWatchedFiles`` start no program;
  ``offload-ls.build`` / ``offload-ls.run`` refuse (``{"ok": false, "error": ...}`` and
  an error ``showMessage``);
- ``offload-ls.doctor`` is allowed untrusted: it runs the toolchain's own ``rustc`` with
  ``-vV``, ``--print sysroot`` and two compiles of a one-line probe file in a temporary
  directory — no code of the workspace — and never ``cargo``;
- no program located inside a workspace folder that is not trusted ever starts (a
  ``rustc`` setting pointing into the workspace is the workspace's code): the doctor
  reports ``not run`` for it.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path

import pytest
from rawlsp import descendants
from stress_helpers import copy_fixture, executable, toolchain_or_skip

SHELLS = {"sh", "bash", "dash", "zsh", "fish", "ksh", "busybox"}
COMPILERS = {"cargo", "rustc", "clang", "ld.lld", "cc", "ld"}
WEIRD = "we ird $(x) 'q'"


def make_wrappers(bin_dir: Path, log: Path, real: dict[str, str | None]) -> dict[str, Path]:
    """Recording wrappers named after ``real``'s keys in ``bin_dir``; each execs the real
    program given (or exits 1 for ``None``)."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    out = {}
    for name, target in real.items():
        out[name] = executable(bin_dir / name, f"""#!{sys.executable}
import json, os, sys
try:
    parent = open(f"/proc/{{os.getppid()}}/comm").read().strip()
except OSError:
    parent = "?"
with open({str(log)!r}, "a") as fh:
    fh.write(json.dumps({{"tool": {name!r}, "argv": sys.argv, "cwd": os.getcwd(), "parent": parent}}) + "\\n")
real = {target!r}
if real:
    os.execv(real, [real] + sys.argv[1:])
sys.exit(1)
""")
    return out


def traps(bin_dir: Path, marker: Path) -> None:
    """Programs ``x``, ``y``, ``z`` that leave ``marker`` if a shell ever expands
    ``$(x)`` and friends from a path."""
    for name in ("x", "y", "z"):
        executable(bin_dir / name, f"#!{sys.executable}\nopen({str(marker)!r}, 'a').write('{name} ran\\n')\n")


def records(log: Path) -> list[dict]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


class ChildWatch:
    """Samples the server's descendants every 20 ms; ``seen`` holds (comm, cmdline)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.seen: set[tuple[str, str]] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                for _, comm, cmd in descendants(self.pid):
                    self.seen.add((comm, cmd))
            except OSError:
                pass
            time.sleep(0.02)

    def stop(self) -> set[tuple[str, str]]:
        self._stop.set()
        self._thread.join(2)
        return self.seen


def untrusted_crate(tmp_path: Path, markers: Path) -> Path:
    crate = copy_fixture("device-error", tmp_path / "ws" / "crate")
    (crate / "build.rs").write_text(
        f'fn main() {{ std::fs::write({json.dumps(str(markers / "build-script-ran"))}, "ran").unwrap(); }}\n')
    main = crate / "src" / "main.rs"
    main.write_text(main.read_text().replace(
        "    let mut x = [0.0f32; N];",
        f'    std::fs::write({json.dumps(str(markers / "binary-ran"))}, "ran").unwrap();\n'
        '    let mut x = [0.0f32; N];'))
    return crate


def test_untrusted_workspace_starts_nothing_and_build_run_refuse(make_server, tmp_path):
    markers = tmp_path / "markers"
    markers.mkdir()
    crate = untrusted_crate(tmp_path, markers)
    root = crate.parent  # the workspace folder
    log = tmp_path / "audit.jsonl"
    bin_dir = tmp_path / "audit-bin"
    wrappers = make_wrappers(bin_dir, log, {"cargo": "/usr/bin/cargo" if Path("/usr/bin/cargo").exists() else None,
                                            "rustc": "/usr/bin/rustc" if Path("/usr/bin/rustc").exists() else None})
    traps(bin_dir, markers / "shell-ran")
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
           "RUSTC": str(wrappers["rustc"]), "CARGO": str(wrappers["cargo"]),
           "OFFLOAD_LS_CACHE_DIR": str(tmp_path / "probe-cache")}
    settings = {"trustedWorkspaces": [], "rustc": str(wrappers["rustc"]), "cargo": str(wrappers["cargo"]),
                "debounceMs": 0}
    server = make_server(settings, env=env)
    server.initialize(root)
    watch = ChildWatch(server.pid)
    main = crate / "src" / "main.rs"
    uri = main.as_uri()
    text = main.read_text()
    server.open(uri, text)
    for v in range(2, 22):
        server.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": v}, "contentChanges": [
            {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": " "}]})
        if v % 5 == 0:
            main.write_text(" " * (v - 1) + text)
            server.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
    (crate / "src" / "extra.rs").write_text("pub fn extra() {}\n")  # watchdog: created
    main.write_text(text + "\n")  # watchdog: modified
    server.notify("workspace/didChangeWatchedFiles", {"changes": [
        {"uri": uri, "type": 2}, {"uri": (crate / "Cargo.toml").as_uri(), "type": 2},
        {"uri": (crate / "build.rs").as_uri(), "type": 1}]})
    at = server.mark()
    build = server.call("workspace/executeCommand", {"command": "offload-ls.build", "arguments": [{"uri": uri}]})
    run = server.call("workspace/executeCommand", {"command": "offload-ls.run", "arguments": [{"uri": uri}]})
    refusal = (f"offload-ls: {crate} is not a trusted workspace; building runs its build scripts and running "
               f"runs its code. Add it to offload-ls.trustedWorkspaces to allow this.")
    assert build["result"] == {"ok": False, "error": refusal}
    assert run["result"] == {"ok": False, "error": refusal}
    shown = [m["params"] for m in server.since(at) if m.get("method") == "window/showMessage"]
    assert shown == [{"type": 1, "message": refusal}, {"type": 1, "message": refusal}]
    report = server.call("workspace/executeCommand",
                         {"command": "offload-ls.showRunReport", "arguments": [{"uri": uri}]})
    assert report["result"] == {"ok": False, "error": "no run yet: use offload-ls.run first"}
    cancel = server.call("workspace/executeCommand", {"command": "offload-ls.cancel", "arguments": [{"uri": uri}]})
    assert cancel["result"] == {"ok": False, "error": "nothing is running for this crate"}
    time.sleep(1.5)  # longer than the compile debounce (0.3 s) and the watcher's latency
    assert server.wait_for(lambda m: m.get("method") == "window/logMessage"
                           and "is not a trusted workspace" in m["params"]["message"], timeout=5)
    assert records(log) == []
    assert sorted(p.name for p in markers.iterdir()) == []
    assert watch.stop() == set()

    # The doctor is allowed untrusted: rustc probes on a temporary file, nothing else.
    watch = ChildWatch(server.pid)
    doctor = server.call("workspace/executeCommand", {"command": "offload-ls.doctor"}, timeout=180)["result"]
    seen = watch.stop()
    assert doctor["toolchains"][0]["rustc"] == str(wrappers["rustc"])
    recs = records(log)
    assert recs and {r["tool"] for r in recs} == {"rustc"}
    for r in recs:
        args = r["argv"][1:]
        assert args in (["-vV"], ["--print", "sysroot"]) or args[-1].endswith("/probe.rs"), args
        assert not r["cwd"].startswith(str(root)), r
        assert not any(str(root) in a for a in r["argv"]), r
        assert r["parent"] not in SHELLS, r
    # rustup: `rustup component list --toolchain NAME` for rustup toolchains (the offload component),
    # started outside the workspace
    assert {comm for comm, _ in seen} <= {"rustc", "rustup", "nvidia-smi", "rocm-smi", "llvm-offload-de"}, seen
    assert not any("cargo" in comm for comm, _ in seen), seen
    assert sorted(p.name for p in markers.iterdir()) == []

    # A rustc inside the untrusted folder is the workspace's code: never run.
    inner_log = tmp_path / "inner.jsonl"
    inner = make_wrappers(root / "tools", inner_log, {"rustc": None})["rustc"]
    server.settings = {**settings, "rustc": str(inner)}
    server.notify("workspace/didChangeConfiguration", {"settings": {"offload-ls": server.settings}})
    for _ in range(10):  # the server pulls the new settings (workspace/configuration) first
        doctor = server.call("workspace/executeCommand", {"command": "offload-ls.doctor"}, timeout=180)["result"]
        if doctor["toolchains"][0]["rustc"] == str(inner):
            break
        time.sleep(0.2)
    first = doctor["toolchains"][0]
    assert first["rustc"] == str(inner)
    assert first["error"] == (f"{inner}: not run: it lies in the workspace folder {root}, which is not trusted "
                              f"(setting offload-ls.trustedWorkspaces)")
    assert not inner_log.exists()
    assert sorted(p.name for p in markers.iterdir()) == []


@pytest.mark.toolchain
def test_weird_paths_reach_programs_as_single_arguments(make_server, tmp_path):
    toolchain_or_skip()
    markers = tmp_path / "markers"
    markers.mkdir()
    crate = copy_fixture("device-error", tmp_path / WEIRD)
    log = tmp_path / "audit.jsonl"
    bin_dir = tmp_path / 'wrap bin $(y) "d" ;z &'
    wrappers = make_wrappers(bin_dir, log, {"cargo": "/usr/bin/cargo", "rustc": "/usr/bin/rustc"})
    traps(bin_dir, markers / "shell-ran")
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
           "OFFLOAD_LS_CACHE_DIR": str(tmp_path / "probe-cache")}
    settings = {"trustedWorkspaces": [str(crate)], "rustc": str(wrappers["rustc"]), "cargo": str(wrappers["cargo"]),
                "transferPlan": False, "debounceMs": 0, "scanWorkspace": False}
    server = make_server(settings, env=env)
    server.initialize(crate)
    main = crate / "src" / "main.rs"
    uri = main.as_uri()
    server.open(uri, main.read_text())
    server.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
    server.wait_for(lambda m: m.get("method") == "window/logMessage"
                    and m["params"]["message"].startswith(f"offload check of {WEIRD}: "), timeout=240)
    last = server.publishes(uri)[-1]
    device = [d for d in last["diagnostics"] if d.get("code") == "E0599"]
    assert [(d["source"], d["range"]) for d in device] == [(
        "offload-ls(device nvptx64 sm_90)",
        {"start": {"line": 23, "character": 30}, "end": {"line": 23, "character": 33}})]

    recs = records(log)
    manifest, target = str(crate / "Cargo.toml"), crate / "target" / "offload-ls"
    from_server = [r for r in recs if r["tool"] == "cargo" and r["parent"].startswith("python")]
    metadata = [r for r in from_server if r["argv"][1] == "metadata"]
    assert metadata and all(_after(r["argv"], "--manifest-path") == manifest for r in metadata)
    passes = {_after(r["argv"], "--target-dir"): r for r in from_server if r["argv"][1:].count("rustc")}
    assert set(passes) == {str(target / "device"), str(target / "host")}
    for r in passes.values():
        assert _after(r["argv"], "--manifest-path") == manifest
        assert r["cwd"] == str(crate)
    compiles = [r for r in recs if r["tool"] == "rustc" and "src/main.rs" in r["argv"]]
    assert compiles and all(r["cwd"] == str(crate) and r["parent"] == "cargo" for r in compiles)
    for r in recs:
        assert r["parent"] not in SHELLS, r
        for a in r["argv"]:
            if "we ird" in a or "$(x)" in a or "'q'" in a:
                assert WEIRD in a and str(tmp_path) in a, (a, r["argv"])
    assert sorted(p.name for p in markers.iterdir()) == []


def _after(argv: list[str], flag: str) -> str | None:
    return argv[argv.index(flag) + 1] if flag in argv else None
