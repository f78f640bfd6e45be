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

_REQUIRED_MARKS = {"toolchain"}
_skipped_required: list[str] = []


def pytest_runtest_logreport(report):
    if report.skipped and os.environ.get("OFFLOAD_LS_REQUIRE_TOOLCHAIN") == "1":
        if _REQUIRED_MARKS & set(report.keywords):
            _skipped_required.append(report.nodeid)


def pytest_sessionfinish(session, exitstatus):
    if _skipped_required:
        session.exitstatus = 1
        print("\nOFFLOAD_LS_REQUIRE_TOOLCHAIN=1 but these toolchain tests were skipped:")
        for nodeid in _skipped_required:
            print(f"  {nodeid}")
