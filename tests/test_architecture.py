"""Architecture invariants (ARCHITECTURE.md): the layer order, no import cycles, no
protocol library below ``lsp/``, and the size goals (no module over 420 lines, no function
over 65).

Every ``import`` statement of ``server/offload_ls`` counts: at module level, inside
functions and under ``if TYPE_CHECKING:``. The order is data (:data:`LAYERS`); each check
is also run on a synthetic bad module, so it can fail. ``importlib.import_module`` calls are
not statements and are not seen: the only ones (analysis/rules/ and analysis/ecosystems/)
load their own package's modules.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "server" / "offload_ls"
ROOT = "offload_ls"
FORBIDDEN = ("pygls", "lsprotocol")

#: The layer order, lowest first. A module's layer is the first component below
#: ``offload_ls`` (``offload_ls.analysis.units`` -> ``analysis``; ``offload_ls.settings`` ->
#: ``settings``); the package itself is ``offload_ls``. A module may import modules of its
#: own rank or of a lower one, never of a higher one.
#:
#: - ``offload_ls`` (``__version__``) and ``resources.py`` (where the shipped data files are:
#:   the tree-sitter queries ``syntax/queries.py`` loads and the rule pages) sit below
#:   everything: they import nothing of offload-ls.
#: - ``workspace`` reads files (crates, Cargo.toml metadata, rule-level tables);
#:   ``settings.py``, the editor's settings schema, sits above it: ``Settings.trusts`` uses
#:   workspace path containment and the ``rules`` table is validated by the same function as
#:   Cargo.toml's (workspace/rule_levels.py). Nothing below the front ends imports settings.
#: - ``gpu`` sits above ``toolchain``: every program it starts goes through
#:   ``toolchain/process.py`` (ARCHITECTURE.md's invariant) and it reads toolchain facts (the
#:   host triple, the discovered tools); the toolchain compiles and never runs or inspects a
#:   built binary, so it never imports ``gpu``.
#: - ``workflow/`` (check, build, run, profile, assembly) is shared by both front ends.
#: - ``lsp`` and ``cli`` are the two front ends; ``cli`` sits above ``lsp`` only because
#:   ``offload-ls serve`` starts the server (the server never reaches into the CLI).
#:   ``offload_ls/__main__.py`` is ``python -m offload_ls``, the CLI.
LAYERS: tuple[tuple[str, ...], ...] = (
    (ROOT, "resources"),
    ("syntax",),
    ("analysis",),
    ("workspace",),
    ("settings",),
    ("toolchain",),
    ("gpu",),
    ("workflow",),
    ("lsp",),
    ("cli", "__main__"),
)
RANK = {layer: rank for rank, group in enumerate(LAYERS) for layer in group}
#: every layer but the LSP front end: none imports pygls or lsprotocol (the CLI starts the
#: server through lsp/, it never imports a protocol library itself)
PURE_LAYERS = tuple(layer for group in LAYERS for layer in group if layer != "lsp")

#: Imports against the order, as ``(importing module, imported module)``: removed by the
#: refactor of issue 13. Empty: none today.
KNOWN_LAYER_VIOLATIONS: set[tuple[str, str]] = set()

#: Import cycles between modules (module-level and function-local imports), each as the
#: sorted modules of one strongly connected component: removed by the refactor of issue 13.
KNOWN_CYCLES: set[tuple[str, ...]] = set()


@dataclass(frozen=True)
class Import:
    """One imported module: ``target`` is a module of :func:`modules` where the statement
    names one (``from offload_ls.analysis import rules`` -> ``offload_ls.analysis.rules``),
    else the named module itself."""

    source: str
    target: str
    line: int
    type_checking: bool  # under ``if TYPE_CHECKING:`` (never executed at run time)


def modules(package: Path = PACKAGE) -> dict[str, Path]:
    """Dotted module name -> file, for every ``.py`` file below ``package``."""
    out = {}
    for path in sorted(package.rglob("*.py")):
        parts = (package.name, *path.relative_to(package).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imports(source: str, module: str, is_package: bool, known: Iterable[str]) -> Iterator[Import]:
    """Every import in ``source`` (the text of ``module``), wherever it stands."""
    known = set(known)
    package = module if is_package else module.rpartition(".")[0]

    def resolve(node: ast.ImportFrom) -> str:
        if not node.level:
            return node.module or ""
        base = package.split(".")
        base = base[: len(base) - (node.level - 1)]
        return ".".join([*base, node.module] if node.module else base)

    def visit(node: ast.AST, type_checking: bool) -> Iterator[Import]:
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Import(module, alias.name, node.lineno, type_checking)
        elif isinstance(node, ast.ImportFrom):
            base = resolve(node)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                yield Import(module, sub if sub in known else base, node.lineno, type_checking)
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.body:
                yield from visit(child, True)
            for child in node.orelse:
                yield from visit(child, type_checking)
            return
        for child in ast.iter_child_nodes(node):
            yield from visit(child, type_checking)

    yield from visit(ast.parse(source), False)


def package_imports(package: Path = PACKAGE) -> list[Import]:
    """Every import of an offload-ls module by an offload-ls module."""
    mods = modules(package)
    out = []
    for name, path in mods.items():
        text = path.read_text(encoding="utf-8")
        for imp in imports(text, name, path.name == "__init__.py", mods):
            if imp.target == package.name or imp.target.startswith(package.name + "."):
                out.append(imp)
    return out


def layer_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def layer_violations(found: Iterable[Import], rank: dict[str, int] = RANK) -> dict[tuple[str, str], int]:
    """``(importer, imported) -> line`` for each import of a higher layer; a module outside
    every layer is a violation too (the order must name it)."""
    bad = {}
    for imp in found:
        if imp.target.split(".")[0] != ROOT:
            continue
        src, dst = layer_of(imp.source), layer_of(imp.target)
        if src not in rank or dst not in rank or rank[dst] > rank[src]:
            bad.setdefault((imp.source, imp.target), imp.line)
    return bad


def cycles(edges: Iterable[tuple[str, str]]) -> set[tuple[str, ...]]:
    """The strongly connected components of more than one node (Tarjan), each sorted."""
    graph: dict[str, set[str]] = {}
    for a, b in edges:
        if a != b:
            graph.setdefault(a, set()).add(b)
            graph.setdefault(b, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = set()

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.add(tuple(sorted(component)))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return found


def all_edges(found: Iterable[Import]) -> set[tuple[str, str]]:
    """Every import as an edge, ``if TYPE_CHECKING:`` ones included: a cycle of type
    annotations is still two modules that cannot be understood one without the other (the
    features of lsp/ are typed against lsp/host.py's protocols, not the server, for this)."""
    return {(imp.source, imp.target) for imp in found}


# ---------------------------------------------------------------------------------------


def test_every_layer_exists_and_every_module_has_a_layer():
    tops = {layer_of(m) for m in modules()}
    assert tops == set(RANK), "LAYERS must name exactly the top-level modules and packages"


def test_imports_follow_the_layer_order():
    found = package_imports()
    assert len(found) > 300, "the import walk found too little"
    bad = layer_violations(found)
    new = {k: v for k, v in bad.items() if k not in KNOWN_LAYER_VIOLATIONS}
    assert new == {}, "imports of a higher layer (importer, imported): line"
    assert KNOWN_LAYER_VIOLATIONS <= set(bad), "fixed: remove from KNOWN_LAYER_VIOLATIONS"


def test_no_import_cycles_between_modules():
    found = cycles(all_edges(package_imports()))
    assert found - KNOWN_CYCLES == set()
    assert KNOWN_CYCLES <= found, "fixed: remove from KNOWN_CYCLES"


def test_no_import_cycles_between_layers():
    # Layers of one rank could import each other without breaking the order; they may not.
    edges = {(layer_of(i.source), layer_of(i.target)) for i in package_imports()}
    assert cycles(edges) == set()


def test_checker_sees_a_function_local_and_a_type_checking_import_of_a_higher_layer():
    known = {"offload_ls.lsp", "offload_ls.lsp.server", "offload_ls.analysis.model",
             "offload_ls.workflow", "offload_ls.syntax.bad"}
    source = (
        "from __future__ import annotations\n"
        "from typing import TYPE_CHECKING\n"
        "from offload_ls.analysis.model import Span\n"
        "if TYPE_CHECKING:\n"
        "    from offload_ls.lsp import server\n"
        "def f():\n"
        "    import offload_ls.workflow as w\n"
        "    from ..analysis import model\n"
        "    return w\n"
    )
    found = list(imports(source, "offload_ls.syntax.bad", False, known))
    assert [(i.target, i.line, i.type_checking) for i in found if i.target.startswith(ROOT)] == [
        ("offload_ls.analysis.model", 3, False),
        ("offload_ls.lsp.server", 5, True),
        ("offload_ls.workflow", 7, False),
        ("offload_ls.analysis.model", 8, False),
    ]
    assert layer_violations(found) == {
        ("offload_ls.syntax.bad", "offload_ls.analysis.model"): 3,
        ("offload_ls.syntax.bad", "offload_ls.lsp.server"): 5,
        ("offload_ls.syntax.bad", "offload_ls.workflow"): 7,
    }


def test_checker_sees_a_cycle_through_a_function_local_import(tmp_path):
    pkg = tmp_path / "offload_ls"
    (pkg / "analysis").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "analysis" / "__init__.py").write_text("")
    (pkg / "analysis" / "a.py").write_text("from offload_ls.analysis import b\n")
    (pkg / "analysis" / "b.py").write_text("def f():\n    from offload_ls.analysis.a import x\n")
    (pkg / "analysis" / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from offload_ls.analysis import d\n")
    (pkg / "analysis" / "d.py").write_text("from offload_ls.analysis import c\n")
    found = package_imports(pkg)
    assert cycles(all_edges(found)) == {("offload_ls.analysis.a", "offload_ls.analysis.b"),
                                        ("offload_ls.analysis.c", "offload_ls.analysis.d")}
    assert cycles({("x", "y"), ("y", "z"), ("z", "x"), ("z", "w")}) == {("x", "y", "z")}


@pytest.mark.parametrize("layer", PURE_LAYERS)
def test_layer_never_imports_protocol_libraries(layer):
    mods = modules()
    files = {m: p for m, p in mods.items() if layer_of(m) == layer}
    assert files, f"no modules found in {layer}/"
    offenders = {
        m: sorted(i.target for i in imports(p.read_text(encoding="utf-8"), m, p.name == "__init__.py", mods)
                  if i.target.split(".")[0] in FORBIDDEN)
        for m, p in files.items()
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_analysis_does_not_import_lsp_or_cli_layers():
    mods = modules()
    for m, p in mods.items():
        if layer_of(m) in ("analysis", "syntax"):
            found = imports(p.read_text(encoding="utf-8"), m, p.name == "__init__.py", mods)
            bad = [i.target for i in found if i.target.startswith(("offload_ls.lsp", "offload_ls.cli", "asyncio"))]
            assert bad == [], f"{m} imports {bad}"


def test_checker_sees_a_forbidden_import():
    found = imports("from lsprotocol import types\nimport pygls.server\n", "offload_ls.syntax.x", False, ())
    assert sorted(i.target for i in found) == ["lsprotocol", "pygls.server"]


def test_the_cli_reaches_the_server_only_to_start_it():
    # `cli` ranks above `lsp` only for `offload-ls serve`: any other import of lsp/ from the
    # CLI would make the command line depend on the protocol layer.
    seen = {(i.source, i.target) for i in package_imports()
            if i.source.startswith("offload_ls.cli") and i.target.startswith("offload_ls.lsp")}
    assert seen == {("offload_ls.cli.main", "offload_ls.lsp.server")}


# ------------------------------------------------------------------ sizes

#: The issue's size goals (~400 lines a module, ~60 a function), with a margin: over these
#: a module or function is split by meaning.
MAX_MODULE_LINES = 420
MAX_FUNCTION_LINES = 65


def oversized(path: Path) -> list[str]:
    """The module at ``path`` if over :data:`MAX_MODULE_LINES` lines, and its functions and
    methods (nested ones too) over :data:`MAX_FUNCTION_LINES` lines, decorators excluded."""
    text = path.read_text(encoding="utf-8")
    out = []
    lines = len(text.splitlines())
    if lines > MAX_MODULE_LINES:
        out.append(f"{path.name}: {lines} lines")
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = node.end_lineno - node.lineno + 1
            if length > MAX_FUNCTION_LINES:
                out.append(f"{path.name}: {node.name} (line {node.lineno}) {length} lines")
    return out


def test_no_module_or_function_is_over_the_size_goals():
    offenders = {str(p.relative_to(PACKAGE)): found for p in sorted(PACKAGE.rglob("*.py")) if (found := oversized(p))}
    assert offenders == {}


def test_the_size_check_sees_a_long_module_and_function(tmp_path):
    body = "".join(f"    x{i} = {i}\n" for i in range(MAX_FUNCTION_LINES))
    long = tmp_path / "long.py"
    long.write_text("def f():\n" + body + "\n" * MAX_MODULE_LINES)
    assert oversized(long) == [f"long.py: {MAX_MODULE_LINES + MAX_FUNCTION_LINES + 1} lines",
                               f"long.py: f (line 1) {MAX_FUNCTION_LINES + 1} lines"]
