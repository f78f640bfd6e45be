"""Fixtures for tests that need the Debian offload toolchain (rustc-web, llvm-22, ...)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from offload_ls.toolchain.doctor import HOST_ONLY, run_doctor

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="session")
def doctor_report(tmp_path_factory):
    """The doctor's report; skips the test when no offload-capable pipeline exists."""
    from offload_ls.toolchain.cache import ProbeCache

    report = run_doctor(cache=ProbeCache(tmp_path_factory.mktemp("cache") / "probes.json"), probe_gpus=False)
    if report.pipeline == HOST_ONLY:
        pytest.skip("needs the offload toolchain (`offload-ls doctor` says: "
                    + "; ".join(report.missing) + ")")
    return report


@pytest.fixture
def fixture_crate(tmp_path):
    """Copy a fixture crate into a temporary directory (tests may edit it)."""

    def copy(name: str) -> Path:
        dst = tmp_path / name
        shutil.copytree(FIXTURES / name, dst, ignore=shutil.ignore_patterns("target", "Cargo.lock"))
        return dst

    return copy
