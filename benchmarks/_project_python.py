"""Run a benchmark with the project's interpreter: ``python3 benchmarks/X.py`` with a
Python that lacks offload-ls and its dependencies re-runs itself with ``.venv/bin/python``
(``make setup`` creates it), or says how to get one."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / ".venv"


def ensure() -> None:
    """Return when offload-ls imports here; else exec the script under ``.venv/bin/python``
    (same arguments), or exit with a message when there is no such venv."""
    try:
        import offload_ls.analysis.engine  # noqa: F401 - needs tree-sitter too
        return
    except ImportError as exc:
        why = exc
    python = VENV / "bin" / "python"
    if python.exists() and Path(sys.prefix).resolve() != VENV.resolve():
        os.execv(str(python), [str(python), *sys.argv])
    sys.exit(f"{Path(sys.argv[0]).name}: offload-ls is not importable with {sys.executable} ({why}); "
             f"run `make setup` (it creates .venv), then `.venv/bin/python {' '.join(sys.argv)}`")
