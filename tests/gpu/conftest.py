"""Fixtures for build/run tests: the doctor's report (skip without the toolchain) and
copies of the example crates (so builds never write into the checkout)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def offload_report(tmp_path_factory):
    from offload_ls.toolchain.cache import ProbeCache
    from offload_ls.toolchain.doctor import HOST_ONLY, run_doctor

    report = run_doctor(cache=ProbeCache(tmp_path_factory.mktemp("cache") / "probes.json"))
    if report.pipeline == HOST_ONLY:
        pytest.skip("needs the offload toolchain: " + "; ".join(report.missing))
    return report


@pytest.fixture(scope="session")
def example_copy(tmp_path_factory):
    """Copy ``examples/<name>`` (or another path below the repo) once per session."""
    made: dict[str, Path] = {}

    def copy(rel: str) -> Path:
        if rel not in made:
            dst = tmp_path_factory.mktemp("crates") / Path(rel).name
            shutil.copytree(ROOT / rel, dst, ignore=shutil.ignore_patterns("target", "offload-build"))
            made[rel] = dst
        return made[rel]

    return copy
