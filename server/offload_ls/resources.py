"""Locate the data files shipped with offload-ls: tree-sitter queries and rule doc pages.

In a wheel they live in ``offload_ls/_data/`` (hatch ``force-include``); in a source
checkout or an editable install they are the repository's ``grammars/`` and ``docs/``.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


@cache
def data_dir(name: str) -> Path:
    """Return the directory for ``name`` (``"grammars"`` or ``"docs/rules"``).

    Raises:
        FileNotFoundError: neither the installed copy nor the checkout copy exists.
    """
    for candidate in (_PACKAGE_DIR / "_data" / name, _PACKAGE_DIR.parents[1] / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(
        f"offload-ls data directory {name!r} not found; reinstall the package "
        f"(pip install /path/to/offload-ls) or run from a full source checkout"
    )


def rule_doc_path(rule_name: str) -> Path:
    """Path of the Markdown page documenting ``rule_name`` (may not exist for unknown rules)."""
    return data_dir("docs/rules") / f"{rule_name}.md"
