"""The extension in a real VS Code: code-server 4.100.3 (VS Code 1.100.3) from npm, the
packaged ``.vsix`` installed into it, driven in headless Chromium by playwright-core
(editors/vscode/e2e/drive.mjs), with no ``offload-ls.server.*`` setting: the extension must
find the server in the workspace's ``.venv`` by itself.

Steps checked, in one session: the workbench loads; main.rs opens; the status bar shows the
toolchain; the finding is squiggled and listed in Problems; the hover on the kernel's name;
a rule turned off in the workspace settings and back; the quick fix applied and the finding
gone; the server killed, a new one started by the client, and a new finding reported.
A failed step leaves ``<step>.png`` under the test's temporary directory.

Needs ``make vscode-e2e`` (npm packages under editors/vscode/e2e), Debian's ``chromium``
and the ``.vsix`` that ``make test`` packages first. Without them these tests skip; with
``OFFLOAD_LS_REQUIRE_EDITORS=1`` (CI) they fail instead.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
E2E = REPO / "editors" / "vscode" / "e2e"
CODE_SERVER = E2E / "node_modules" / ".bin" / "code-server"
VSIX = REPO / "editors" / "vscode" / "offload-ls.vsix"
CHROMIUM = "/usr/bin/chromium"
SERVER_SCRIPT = Path(sys.executable).parent / "offload-ls"

MAIN_RS = """#[rustc_offload_kernel]
extern "gpu-kernel" fn scale(x: *mut [f32; 4]) {
}

fn main() {}
"""
DIAGNOSTIC = ("kernel `scale` takes `x: *mut [f32; 4]`, a raw pointer: the kernel needs `unsafe` to use it, "
              "the compiler cannot mark it `noalias`, and the offload runtime copies it to the device and back "
              "| offload-ls | raw_pointer_kernel_param | [Ln 2, Col 33]")
HOVER = ("GPU kernel scale — std-offload (#[rustc_offload_kernel]) | Parameters: | x: *mut [f32; 4] — ⇄ tofrom: "
         "copied host → device before the launch and device → host after it")


def _missing() -> str | None:
    node = shutil.which("node")
    if node is None:
        return "no node"
    if not CODE_SERVER.exists() or not (E2E / "node_modules" / "playwright-core").is_dir():
        return "code-server / playwright-core not installed: make vscode-e2e"
    if not os.path.exists(CHROMIUM):
        return "no Debian chromium: apt-get install chromium"
    if not VSIX.exists():
        return "no editors/vscode/offload-ls.vsix: make test packages it (cd editors/vscode && npm run package)"
    if not SERVER_SCRIPT.exists():
        return f"no {SERVER_SCRIPT}: pip install -e ."
    return None


@pytest.fixture
def vscode_ready():
    why = _missing()
    if why is not None:
        if os.environ.get("OFFLOAD_LS_REQUIRE_EDITORS") == "1":
            pytest.fail(f"OFFLOAD_LS_REQUIRE_EDITORS=1 but the real-VS-Code test cannot run: {why}")
        pytest.skip(why)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_http(url: str, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.3)


def _drive(tmp_path: Path, ws: Path, drive_args: list[str], drive_env: dict[str, str], timeout_s: float = 600):
    """Install the .vsix into a fresh code-server, open ``ws`` and run drive.mjs; returns
    (steps by name, the finished drive process, the screenshot dir, the user-data dir)."""
    user, exts, shots = tmp_path / "user-data", tmp_path / "extensions", tmp_path / "screenshots"
    shots.mkdir()
    (user / "User").mkdir(parents=True)  # no welcome page taking the focus
    (user / "User" / "settings.json").write_text('{"workbench.startupEditor": "none"}')
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "xdg-config"), "XDG_DATA_HOME": str(tmp_path / "xdg-data")}
    common = [str(CODE_SERVER), "--user-data-dir", str(user), "--extensions-dir", str(exts)]
    installed = subprocess.run([*common, "--install-extension", str(VSIX)], env=env, capture_output=True,
                               text=True, timeout=180)
    assert installed.returncode == 0, installed.stdout + installed.stderr

    port = _free_port()
    log = open(tmp_path / "code-server.log", "wb")
    server = subprocess.Popen([*common, "--auth", "none", "--bind-addr", f"127.0.0.1:{port}", "--disable-telemetry",
                               "--disable-update-check", "--disable-workspace-trust", str(ws)],
                              env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        _wait_http(f"http://127.0.0.1:{port}/healthz", 60)
        drive = subprocess.run(
            ["node", str(E2E / "drive.mjs"), f"http://127.0.0.1:{port}/?folder={ws}", str(shots), *drive_args],
            env={**env, **drive_env}, capture_output=True, text=True, encoding="utf-8", timeout=timeout_s, cwd=E2E)
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=20)
        log.close()
    steps = {}
    for line in drive.stdout.splitlines():
        if line.startswith("{"):
            record = json.loads(line)
            steps[record["step"]] = record
    return steps, drive, shots, user


def test_the_extension_in_a_real_vscode(vscode_ready, tmp_path):
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "Cargo.toml").write_text('[package]\nname = "e2e"\nversion = "0.1.0"\nedition = "2021"\n')
    (ws / "src" / "main.rs").write_text(MAIN_RS)
    (ws / ".vscode").mkdir()
    settings = ws / ".vscode" / "settings.json"
    settings.write_text("{}")
    (ws / ".venv" / "bin").mkdir(parents=True)
    (ws / ".venv" / "bin" / "offload-ls").symlink_to(SERVER_SCRIPT)
    steps, drive, shots, user = _drive(tmp_path, ws, [str(settings)],
                                       {"OFFLOAD_LS_E2E_SERVER": f"{ws}/.venv/bin/offload-ls serve"})
    failed = [s for s in steps.values() if not s["ok"]]
    assert not failed and drive.returncode == 0, \
        f"{failed or drive.stderr[-2000:]}; screenshots: {sorted(p.name for p in shots.iterdir())} in {shots}"
    assert list(steps) == ["workbench", "open_file", "status_bar", "diagnostic", "hover", "settings_change",
                           "quick_fix", "server_restart"]
    assert steps["status_bar"]["detail"].startswith("offload: ")
    assert " · " in steps["status_bar"]["detail"]
    assert steps["diagnostic"]["detail"] == DIAGNOSTIC
    assert steps["hover"]["detail"] == HOVER
    assert steps["quick_fix"]["detail"] == "Change `*mut [f32; 4]` to `&mut [f32; 4]`"
    # zero setup: no server setting, found in the workspace's .venv
    logs = [p.read_text(errors="replace") for p in user.glob("logs/*/exthost*/offload-ls.offload-ls/*.log")]
    started = [ln for text in logs for ln in text.splitlines() if "starting the server:" in ln]
    assert started and all(f"the workspace's .venv: {ws}/.venv/bin/offload-ls" in ln for ln in started), started
    assert len(started) == 1  # after the kill the client restarted the same command (a new pid: drive.mjs)


@pytest.mark.toolchain
def test_run_lens_and_the_ptx_view_in_a_real_vscode(vscode_ready, tmp_path):
    """The example crate, with the server bundled in the .vsix (no .venv, no setting):
    "▶ Run on GPU" (no GPU here: the Virtual Host Device image) ends in the run report;
    "Show PTX" on `saxpy` opens its PTX beside the source; the cursor on
    `saxpy_at`'s statement selects its PTX lines (status bar), and a PTX line leads back."""
    from offload_ls.toolchain.doctor import HOST_ONLY, run_doctor

    if run_doctor(probe_gpus=False).pipeline == HOST_ONLY:
        if os.environ.get("OFFLOAD_LS_REQUIRE_TOOLCHAIN") == "1":
            pytest.fail("OFFLOAD_LS_REQUIRE_TOOLCHAIN=1 but the offload toolchain is missing")
        pytest.skip("needs the offload toolchain")
    ws = tmp_path / "offload-kernels"
    shutil.copytree(REPO / "examples" / "offload-kernels", ws, ignore=shutil.ignore_patterns("target"))
    # no .venv and no server setting: the extension runs the server bundled in the .vsix
    lines = (ws / "src" / "main.rs").read_text().splitlines()
    find = lambda text: next(n for n, line in enumerate(lines, 1) if text in line)  # noqa: E731
    body = find("y[i] = a * x[i] + y[i];")
    steps, drive, shots, user = _drive(tmp_path, ws, [], {
        "OFFLOAD_LS_E2E_MODE": "gpu", "OFFLOAD_LS_E2E_LINE": str(body),
        "OFFLOAD_LS_E2E_MAIN_LINE": str(find("fn main()")),
        "OFFLOAD_LS_E2E_KERNEL_LINE": str(find('extern "gpu-kernel" fn saxpy('))}, timeout_s=1200)
    failed = [s for s in steps.values() if not s["ok"]]
    assert not failed and drive.returncode == 0, \
        f"{failed or drive.stderr[-2000:]}; screenshots: {sorted(p.name for p in shots.iterdir())} in {shots}"
    assert list(steps) == ["workbench", "open_file", "run_lens", "show_ptx", "source_to_ptx", "ptx_to_source"]
    assert steps["run_lens"]["detail"].startswith("run report: exit status 0, ")
    assert steps["show_ptx"]["detail"].startswith("main.rs.saxpy.ptx")
    # The status bar's PTX lines are the ones `offload-ls asm` maps to that statement.
    asm = subprocess.run([sys.executable, "-m", "offload_ls", "asm", str(ws), "--json"], capture_output=True,
                         text=True, timeout=600)
    assert asm.returncode == 0, asm.stderr
    mapped = sorted(row["line"] + 1 for row in json.loads(asm.stdout)["lines"] if row["sourceLine"] == body)
    assert mapped
    runs: list[list[int]] = []
    for n in mapped:
        if runs and n == runs[-1][1] + 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    parts = [f"{a}" if a == b else f"{a}-{b}" for a, b in runs]
    expected = "ptx " + ", ".join(parts[:4] + (["…"] if len(parts) > 4 else []))
    assert steps["source_to_ptx"]["detail"].endswith(expected), (steps["source_to_ptx"], expected)
    assert steps["ptx_to_source"]["detail"].endswith(f"main.rs:{body}")
    logs = [p.read_text(errors="replace") for p in user.glob("logs/*/exthost*/offload-ls.offload-ls/*.log")]
    started = [ln for text in logs for ln in text.splitlines() if "starting the server:" in ln]
    assert len(started) == 1 and "the server bundled in the extension, run by " in started[0], started
    assert "/launcher/offload_ls_launch.py serve)" in started[0]
