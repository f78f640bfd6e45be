"""Helpers shared by the stress tests (imported by name: tests/conftest.py puts this
folder on sys.path)."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[1] / "toolchain" / "fixtures"

#: Lines printed in pytest's terminal summary ("stress figures"), e.g. how many fuzz
#: messages were tried and the edit storm's memory readings.
FIGURES: list[str] = []


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
