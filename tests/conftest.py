import sys
from pathlib import Path

# Tests import helper modules (helpers.py, lsp/lsp_helpers.py, ...) by plain name; with
# --import-mode=importlib their folders must be on sys.path.
_HERE = Path(__file__).parent
for _folder in (_HERE, *sorted(p for p in _HERE.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))):
    sys.path.insert(0, str(_folder))


# CI sets OFFLOAD_LS_REQUIRE_TOOLCHAIN=1 after installing the toolchain: then a skipped
# toolchain test is a failure, so compile tests cannot silently stop running.
import os  # noqa: E402

import pytest  # noqa: E402

# OFFLOAD_LS_REQUIRE_REMOTE=1 does the same for the Slurm/ssh tests (marked `remote`).
_REQUIRED_MARKS = {"toolchain": "OFFLOAD_LS_REQUIRE_TOOLCHAIN", "remote": "OFFLOAD_LS_REQUIRE_REMOTE"}
_skipped_required: list[str] = []


def pytest_runtest_logreport(report):
    if report.skipped and any(mark in report.keywords and os.environ.get(var) == "1"
                              for mark, var in _REQUIRED_MARKS.items()):
        _skipped_required.append(report.nodeid)


def pytest_sessionfinish(session, exitstatus):
    if _skipped_required:
        session.exitstatus = 1
        print("\nOFFLOAD_LS_REQUIRE_TOOLCHAIN/_REMOTE=1 but these required tests were skipped:")
        for nodeid in _skipped_required:
            print(f"  {nodeid}")


@pytest.fixture(scope="session")
def cluster(tmp_path_factory):
    """A real Slurm cluster and sshd on localhost (tests/gpu/local_cluster.py), for the
    session; skipped (a failure with OFFLOAD_LS_REQUIRE_REMOTE=1) where they cannot start.
    ``SLURM_CONF`` points at it meanwhile, as /etc/slurm does for a cluster's users."""
    from local_cluster import LocalCluster, missing_reason

    why = missing_reason()
    if why:
        pytest.skip(why)
    c = LocalCluster(tmp_path_factory.mktemp("cluster"))
    mp = pytest.MonkeyPatch()
    mp.setenv("SLURM_CONF", str(c.conf))
    try:
        c.start()
        yield c
    finally:
        c.stop()
        mp.undo()
