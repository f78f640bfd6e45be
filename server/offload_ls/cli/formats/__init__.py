"""Renderers for ``offload-ls check`` results: each module exports ``render(result) -> str``.

- :mod:`.text`: rustc-style lines for people and editors' problem matchers;
- :mod:`.json_format`: a JSON list of findings with 1-based positions;
- :mod:`.sarif`: SARIF 2.1.0 for code-scanning services.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from offload_ls.cli.check import CheckReport

#: the ``--format`` values
FormatName = Literal["text", "json", "sarif"]


def renderer(name: FormatName) -> Callable[[CheckReport], str]:
    """The ``render`` function of format ``name`` (``"text"``, ``"json"`` or ``"sarif"``).

    Raises:
        KeyError: unknown format name.
    """
    if name == "text":
        from offload_ls.cli.formats.text import render
    elif name == "json":
        from offload_ls.cli.formats.json_format import render
    elif name == "sarif":
        from offload_ls.cli.formats.sarif import render
    else:
        raise KeyError(name)
    return render


FORMATS: tuple[FormatName, ...] = ("text", "json", "sarif")
