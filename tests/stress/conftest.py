"""Fixtures of the stress tests: a raw server per test (or per module) and a summary of
the figures the tests measured, printed at the end of the pytest run.

Every test here bounds its own time (message timeouts, hypothesis ``max_examples``, a
fixed number of edits); the directory runs in well under 5 minutes on a 2-core machine.
"""

from __future__ import annotations

import os
import shutil
import stat
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from rawlsp import RawLsp  # noqa: E402

FIXTURES = Path(__file__).resolve().parents[1] / "toolchain" / "fixtures"

#: Lines printed in pytest's terminal summary ("stress figures"), e.g. how many fuzz
#: messages were tried and the edit storm's memory readings.
FIGURES: list[str] = []


def pytest_terminal_summary(terminalreporter):
    if FIGURES:
        terminalreporter.section("stress figures")
        for line in FIGURES:
            terminalreporter.write_line(line)


@pytest.fixture
def make_server(tmp_path):
    """``make_server(settings=..., env=..., cwd=...)`` -> a started :class:`RawLsp`;
    every server made is shut down (or killed) after the test."""
    servers: list[RawLsp] = []

    def make(settings: dict | None = None, env: dict | None = None, cwd: Path | None = None,
             name: str = "server") -> RawLsp:
        server = RawLsp(tmp_path / f"{name}-{len(servers)}.stderr", settings, env=env, cwd=cwd)
        servers.append(server)
        return server

    yield make
    for server in servers:
        server.close()


def copy_fixture(name: str, dst: Path) -> Path:
    """A copy of tests/toolchain/fixtures/<name> at ``dst`` (without target/ and Cargo.lock)."""
    shutil.copytree(FIXTURES / name, dst, ignore=shutil.ignore_patterns("target", "Cargo.lock"))
    return dst


def executable(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def toolchain_or_skip():
    """The doctor's report, or skip the test when the offload toolchain is missing."""
    from offload_ls.toolchain.doctor import HOST_ONLY, run_doctor

    report = run_doctor(probe_gpus=False)
    if report.pipeline == HOST_ONLY:
        pytest.skip("needs the offload toolchain")
    return report


def server_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(extra)
    return env
