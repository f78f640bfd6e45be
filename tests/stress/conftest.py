"""Fixtures of the stress tests: a raw server per test (or per module) and a summary of
the figures the tests measured, printed at the end of the pytest run.

Every test here bounds its own time (message timeouts, hypothesis ``max_examples``, a
fixed number of edits); the directory runs in well under 5 minutes on a 2-core machine.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from rawlsp import RawLsp  # noqa: E402
from stress_helpers import FIGURES  # noqa: E402


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
        status = server.close()
        assert status == 0, f"the server did not end cleanly after shutdown/exit (status {status})"


@pytest.fixture(scope="session")
def shared_target_dir(tmp_path_factory):
    """One cargo target directory for every compiling stress test (CARGO_TARGET_DIR), so
    `core` for the GPU target is built once per session."""
    return tmp_path_factory.mktemp("cargo-target")

