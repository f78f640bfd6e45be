"""The real program: ``python -m offload_ls`` in a child process (argv list, timeout)."""

from __future__ import annotations

import json
import subprocess
import sys

from cli_helpers import FIXTURES, SCALE_N, SCALE_X, SCALE_X_HELP, only

from offload_ls import __version__


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "offload_ls", *args], cwd=FIXTURES, capture_output=True,
                          text=True, encoding="utf-8", timeout=120)


def test_python_dash_m_check_text_and_exit_statuses():
    proc = _run("check", "warn_crate", *only())
    assert (proc.returncode, proc.stderr) == (0, "")
    assert proc.stdout.splitlines() == [SCALE_X, SCALE_X_HELP, SCALE_N, "0 errors, 2 warnings in 2 files"]

    proc = _run("check", "deny_crate", "--format", "json", *only())
    assert proc.returncode == 1
    assert [(i["file"], i["line"], i["column"], i["severity"]) for i in json.loads(proc.stdout)] == [
        ("deny_crate/src/lib.rs", 2, 25, "error")]

    proc = _run("check", "nowhere")
    assert proc.returncode == 2
    assert proc.stderr == "offload-ls: error: nowhere: No such file or directory\n"


def test_python_dash_m_version():
    proc = _run("--version")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, f"offload-ls {__version__}\n", "")
