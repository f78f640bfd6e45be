"""No compiler outlives the session, however it ends: ``shutdown`` + ``exit``, ``exit``
alone, the editor closing the pipe (it crashed), or SIGTERM.

A fake toolchain (no real compiler needed): ``rustc`` answers the doctor's probes like a
rustc with native offload support and a prebuilt GPU ``core`` (so the doctor chooses it)
and ``cargo`` answers ``metadata``, then, for each pass of the check (device and host,
run concurrently), starts a grandchild and both sleep for five minutes. Both carry a unique
token in their command line, so they can be found even
after they were re-parented away from the server.
"""

from __future__ import annotations

import os
import signal
import sys
import time
import uuid
from pathlib import Path

import pytest
from rawlsp import RawLsp, processes_matching
from stress_helpers import copy_fixture, executable

FAKE_RUSTC = """#!{python}
import sys
args = sys.argv[1:]
if args == ["-vV"]:
    print("rustc 1.96.0 (fake)\\nbinary: rustc\\ncommit-date: 2026-01-01\\nhost: x86_64-unknown-linux-gnu\\n"
          "release: 1.96.0\\nLLVM version: 22.1.0")
elif args == ["--print", "sysroot"]:
    print({sysroot!r})
elif "-Zoffload=offload_ls_probe" in args:
    sys.exit("error: incorrect value `offload_ls_probe` for unstable option `offload` - a comma-separated "
             "list of settings: `Host=<Absolute-Path>`, `Device`, `Test` was expected")
"""

FAKE_CARGO = """#!{python}
import json, subprocess, sys, time
args = sys.argv[1:]
if args and args[0] == "metadata":
    print(json.dumps({metadata}))
    sys.exit(0)
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)", {token!r}, "grandchild"])
time.sleep(300)
"""


def fake_toolchain(tmp_path: Path, crate: Path, token: str) -> dict[str, str]:
    bin_dir = tmp_path / token  # the token is in every fake program's command line
    bin_dir.mkdir()
    sysroot = tmp_path / "sysroot"  # with a prebuilt `core` for the GPU target: the doctor picks this rustc
    (sysroot / "lib" / "rustlib" / "nvptx64-nvidia-cuda" / "lib").mkdir(parents=True)
    metadata = {"packages": [{"name": "device-error", "manifest_path": str(crate / "Cargo.toml"),
                              "targets": [{"kind": ["bin"], "name": "device-error"}]}],
                "workspace_root": str(crate), "target_directory": str(crate / "target")}
    rustc = executable(bin_dir / "rustc", FAKE_RUSTC.format(python=sys.executable, sysroot=str(sysroot)))
    cargo = executable(bin_dir / "cargo", FAKE_CARGO.format(python=sys.executable, metadata=repr(metadata),
                                                            token=token))
    return {"rustc": str(rustc), "cargo": str(cargo)}


def alive(token: str) -> list:
    return processes_matching(lambda comm, cmd: token in cmd)


def wait_until(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def start_hung_check(tmp_path: Path) -> tuple[RawLsp, str]:
    token = f"offload-ls-stress-{uuid.uuid4().hex}"
    crate = copy_fixture("device-error", tmp_path / "crate")
    tools = fake_toolchain(tmp_path, crate, token)
    settings = {"trustedWorkspaces": [str(crate)], "transferPlan": False, "debounceMs": 0,
                "scanWorkspace": False, **tools}
    env = {**os.environ, "OFFLOAD_LS_CACHE_DIR": str(tmp_path / "probe-cache")}
    server = RawLsp(tmp_path / "server.stderr", settings, env=env)
    server.initialize(crate)
    main = crate / "src" / "main.rs"
    server.open(main.as_uri(), main.read_text())
    server.notify("textDocument/didSave", {"textDocument": {"uri": main.as_uri()}})
    # The fake cargos of both passes and their grandchildren are running.
    try:
        wait_until(lambda: len(alive(token)) == 4, 60, "the check's cargo and its grandchild to start")
    except AssertionError:
        server.close()
        raise AssertionError(f"no hung check; server log: {server.log_messages()}") from None
    return server, token


def end_session(server: RawLsp, how: str) -> None:
    if how == "shutdown+exit":
        assert server.call("shutdown")["result"] is None
        server.notify("exit")
    elif how == "exit":
        server.notify("exit")
    elif how == "pipe-closed":
        server.proc.stdin.close()
    else:
        server.proc.send_signal(signal.SIGTERM)


@pytest.mark.parametrize("how", ["shutdown+exit", "exit", "pipe-closed", "sigterm"])
def test_no_compiler_outlives_the_session(tmp_path, how):
    server, token = start_hung_check(tmp_path)
    try:
        end_session(server, how)
        status = server.proc.wait(timeout=20)
        expected = {"shutdown+exit": 0, "exit": 1, "pipe-closed": 1, "sigterm": 128 + signal.SIGTERM}[how]
        assert status == expected, server.stderr_tail()
        wait_until(lambda: not alive(token), 10, f"the compile processes to end: {alive(token)}")
        # one line says why it left; no tracebacks
        reason = {"shutdown+exit": "session ended (shutdown, then exit)", "exit": "exit without shutdown",
                  "pipe-closed": "the client closed the connection", "sigterm": "stopped by signal SIGTERM"}[how]
        stderr = server.stderr_path.read_text(errors="replace")
        assert "Traceback" not in stderr
        last = stderr.splitlines()[-1]
        assert last.startswith(f"offload-ls: {reason}") and last.endswith(f"exit status {expected}"), stderr
    finally:
        for pid, _, _ in alive(token):
            os.kill(pid, signal.SIGKILL)
        server.close()


def test_withdrawing_trust_stops_the_running_check(tmp_path):
    """Consent can be taken back: when the crate's folder leaves ``trustedWorkspaces``,
    its running check is stopped at once (process groups killed), with a log line."""
    server, token = start_hung_check(tmp_path)
    try:
        crate = tmp_path / "crate"
        at = server.mark()
        server.settings = {**server.settings, "trustedWorkspaces": []}
        server.notify("workspace/didChangeConfiguration", {"settings": {"offload-ls": server.settings}})
        wait_until(lambda: not alive(token), 20, f"the check's processes to end: {alive(token)}")
        line = server.wait_for(lambda m: m.get("method") == "window/logMessage"
                               and "is no longer trusted" in m["params"]["message"], timeout=10, after=at)
        assert line["params"] == {"type": 2, "message": f"{crate} is no longer trusted: its running offload check, "
                                                        f"build or run was stopped"}
        # A save now is refused like in any untrusted folder.
        main = crate / "src" / "main.rs"
        server.notify("textDocument/didSave", {"textDocument": {"uri": main.as_uri()}})
        server.wait_for(lambda m: m.get("method") == "window/logMessage"
                        and m["params"]["message"].startswith(f"{crate} is not a trusted workspace"), timeout=10)
        time.sleep(1)
        assert alive(token) == []
        assert server.close() == 0
    finally:
        for pid, _, _ in alive(token):
            os.kill(pid, signal.SIGKILL)
        server.close()


class SilentConfigLsp(RawLsp):
    """A client that never answers ``workspace/configuration`` (the server's
    ``initialized`` handler then waits for it, up to its timeout)."""

    def _answer(self, msg: dict) -> None:
        if msg["method"] != "workspace/configuration":
            super()._answer(msg)


def test_shutdown_while_the_initialized_handler_waits_for_the_client(tmp_path):
    """``shutdown`` while ``initialized`` still waits on ``workspace/configuration``:
    the pending handler is cancelled and ``shutdown`` is answered with ``null`` (pygls
    cancelled it while iterating its request table: "dictionary changed size during
    iteration" came back as the answer), then ``exit`` ends the process with status 0."""
    server = SilentConfigLsp(tmp_path / "server.stderr", {"scanWorkspace": False})
    try:
        server.initialize(tmp_path)
        server.wait_for(lambda m: m.get("method") == "workspace/configuration")
        reply = server.call("shutdown")
        assert reply == {"jsonrpc": "2.0", "id": reply["id"], "result": None}
        server.notify("exit")
        assert server.proc.wait(timeout=10) == 0
    finally:
        if server.proc.poll() is None:
            server.proc.kill()
            server.proc.wait(timeout=10)
        server._stderr.close()
