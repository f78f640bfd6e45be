"""ARCHITECTURE.md's code map matches the tree: every module of ``server/offload_ls`` is
named there, and every module path it names exists.

How the code map is read (the text between ``## Code map`` and the next ``## `` heading):

- A ``### `` heading whose backticked name starts with ``server/offload_ls/`` opens a
  section about that directory or module; a heading naming a module (``settings.py``)
  names it. Sections about anything else (``grammars/``, "Elsewhere") are not read.
- In a section, a backticked span that looks like a path and ends in ``.py`` or ``/``
  (``parse.py``, ``ecosystems/``, ``rules/__init__.py``, ``analysis/units/``) names a
  module or a package: relative to the section's directory where that exists, else
  relative to ``server/offload_ls/``. A ``.py`` name that exists in neither place is a
  mismatch; a directory name that does not exist is prose (``target/``, a crate's
  directories). Other spans (``CrateView``, ``-Cdebuginfo=..``) are prose.
- A module is covered when its own path is named, with three exceptions: ``__main__.py``
  (``python -m`` entry points); a package's ``__init__.py``, covered by its section or its
  name; and the modules of a package below a layer (``analysis/rules/``,
  ``analysis/ecosystems/``, ``cli/formats/``), covered when the package is named (as
  ``rules/`` or ``rules/__init__.py``): such a package is one concept, one module per rule,
  ecosystem or format.
"""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "server" / "offload_ls"
PREFIX = "server/offload_ls/"
PATHLIKE = re.compile(r"[A-Za-z_][\w/]*(?:\.py|/)")

#: Modules ARCHITECTURE.md does not name, and names it gives that do not exist, today:
#: removed by the refactor of issue 13 (ARCHITECTURE.md's code map is rewritten from it).
KNOWN_UNNAMED: set[str] = set()
KNOWN_MISSING: set[str] = set()


def code_map(text: str) -> str:
    start = text.index("\n## Code map")
    end = text.find("\n## ", start + 1)
    return text[start: end if end != -1 else len(text)]


def named_paths(text: str, package: Path = PACKAGE) -> tuple[set[str], set[str], set[str]]:
    """``(named, sections, missing)``: paths relative to ``package`` (directories end in
    ``/``) that the code map names, that its sections are about, and that it names but
    do not exist."""
    named: set[str] = set()
    sections: set[str] = set()
    missing: set[str] = set()
    base: str | None = None
    for line in code_map(text).splitlines():
        if line.startswith("### "):
            heading = re.findall(r"`([^`]+)`", line)
            base = None
            if heading and heading[0].startswith(PREFIX):
                path = heading[0][len(PREFIX):]
                sections.add(path)
                if path.endswith(".py"):
                    named.add(path)
                base = path if path.endswith("/") else path.rpartition("/")[0]
                base = base.rstrip("/")
            continue
        if base is None:
            continue
        for span in re.findall(r"`([^`]+)`", line):
            if not PATHLIKE.fullmatch(span):
                continue
            here = f"{base}/{span}" if base else span
            path = here if (package / here).exists() else span
            if not (package / path).exists():
                if span.endswith(".py"):  # `target/`, `bundles/<id>/`: directories of prose
                    missing.add(span)
                continue
            named.add(path)
            if path.endswith("/__init__.py"):
                named.add(path[: -len("__init__.py")])
    return named, sections, missing


def unnamed_modules(named: set[str], sections: set[str], package: Path = PACKAGE) -> set[str]:
    out = set()
    for file in package.rglob("*.py"):
        rel = file.relative_to(package).as_posix()
        parts = rel.split("/")
        if rel in named or parts[-1] == "__main__.py":
            continue
        if parts[-1] == "__init__.py" and ("/".join(parts[:-1]) + "/" in named | sections or len(parts) == 1):
            continue
        # a package below a layer (depth >= 2), named as a whole
        if any("/".join(parts[:i]) + "/" in named for i in range(2, len(parts))):
            continue
        out.add(rel)
    return out


def test_every_module_is_named_in_the_code_map():
    named, sections, _ = named_paths((REPO / "ARCHITECTURE.md").read_text(encoding="utf-8"))
    unnamed = unnamed_modules(named, sections)
    assert unnamed - KNOWN_UNNAMED == set(), "modules ARCHITECTURE.md's code map does not name"
    assert KNOWN_UNNAMED <= unnamed, "named now: remove from KNOWN_UNNAMED"


def test_every_path_the_code_map_names_exists():
    _, _, missing = named_paths((REPO / "ARCHITECTURE.md").read_text(encoding="utf-8"))
    assert missing - KNOWN_MISSING == set(), "paths ARCHITECTURE.md's code map names that do not exist"
    assert KNOWN_MISSING <= missing, "fixed: remove from KNOWN_MISSING"


def test_the_checker_sees_an_unnamed_module_and_a_missing_path(tmp_path):
    pkg = tmp_path / "offload_ls"
    for rel in ("__init__.py", "__main__.py", "alpha/__init__.py", "alpha/one.py", "alpha/two.py",
                "alpha/sub/__init__.py", "alpha/sub/x.py", "alpha/other/__init__.py", "alpha/other/y.py",
                "beta/__init__.py", "beta/three.py", "top.py", "extra.py"):
        (pkg / rel).parent.mkdir(parents=True, exist_ok=True)
        (pkg / rel).write_text("")
    text = (
        "# Architecture\n\n## Code map\n\n"
        "### `server/offload_ls/alpha/`\n"
        "- `one.py` — uses `beta/three.py`; `sub/` is a package. `CrateView`, `gone.py`, `target/`.\n"
        "### `grammars/rust/*.scm`\n- `nothing.py` is not read here.\n"
        "### `server/offload_ls/top.py`\nThe top module.\n"
        "## Architecture invariants\n- `extra.py` is past the code map.\n"
    )
    named, sections, missing = named_paths(text, pkg)
    assert missing == {"gone.py"}
    assert unnamed_modules(named, sections, pkg) == {
        "alpha/two.py", "alpha/other/__init__.py", "alpha/other/y.py", "beta/__init__.py", "extra.py"}


# ------------------------------------------------------------------ the diagram

def diagram_layers(text: str, known: set[str]) -> list[list[str]]:
    """The layers the bird's-eye diagram (the first fenced block) names, line by line from
    the top: each ``name/`` or ``name.py`` on a line that is a layer of ``known``."""
    start = text.index("```") + 3
    block = text[start:text.index("```", start)]
    out = []
    for line in block.splitlines():
        names = [m.group(1) for m in re.finditer(r"\b([a-z_]+)(?:/|\.py)", line) if m.group(1) in known]
        if names:
            out.append(names)
    return out


def out_of_order(rows: list[list[str]], rank: dict[str, int]) -> list[str]:
    """Lines of the diagram that draw layers of different ranks side by side, or a layer
    not strictly below every line above it."""
    bad = []
    above = None
    for names in rows:
        ranks = {rank[n] for n in names}
        if len(ranks) > 1 or (above is not None and max(ranks) >= above):
            bad.append(" ".join(names))
        above = min(ranks) if above is None else min(above, min(ranks))
    return bad


def test_the_diagram_draws_the_checked_layer_order():
    """ARCHITECTURE.md's bird's-eye diagram names every layer of tests/test_architecture.py's
    LAYERS (but the package root, resources.py and __main__.py) once, each below the ones
    that may import it."""
    from test_architecture import LAYERS, RANK

    wanted = {layer for group in LAYERS for layer in group} - {"offload_ls", "resources", "__main__"}
    rows = diagram_layers((REPO / "ARCHITECTURE.md").read_text(encoding="utf-8"), wanted)
    drawn = [n for names in rows for n in names]
    assert sorted(drawn) == sorted(wanted), "each layer drawn exactly once"
    assert out_of_order(rows, RANK) == []


def test_the_diagram_check_sees_a_layer_drawn_too_high():
    rank = {"syntax": 0, "analysis": 1, "workspace": 2, "settings": 3}
    text = "```\n  settings.py\n  analysis/\n  workspace/\n  syntax/\n```\n"
    assert out_of_order(diagram_layers(text, set(rank)), rank) == ["workspace"]
    text = "```\n  settings.py, workspace/\n  analysis/\n  syntax/\n```\n"
    assert out_of_order(diagram_layers(text, set(rank)), rank) == ["settings workspace"]
