"""Architecture invariants (ARCHITECTURE.md): lower layers never import protocol libraries."""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "server" / "offload_ls"
FORBIDDEN = ("pygls", "lsprotocol")
PURE_LAYERS = ("syntax", "analysis", "workspace")


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


@pytest.mark.parametrize("layer", PURE_LAYERS)
def test_layer_never_imports_protocol_libraries(layer):
    files = sorted((PACKAGE / layer).rglob("*.py"))
    assert files, f"no modules found in {layer}/"
    offenders = {
        str(f.relative_to(PACKAGE)): sorted(n for n in _imports(f) if n.split(".")[0] in FORBIDDEN)
        for f in files
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_analysis_does_not_import_lsp_or_cli_layers():
    for f in sorted((PACKAGE / "analysis").rglob("*.py")) + sorted((PACKAGE / "syntax").rglob("*.py")):
        bad = [n for n in _imports(f) if n.startswith(("offload_ls.lsp", "offload_ls.cli", "asyncio"))]
        assert bad == [], f"{f.relative_to(PACKAGE)} imports {bad}"


def test_checker_sees_a_forbidden_import(tmp_path):
    # The check itself must be able to fail.
    bad = tmp_path / "bad.py"
    bad.write_text("from lsprotocol import types\nimport pygls.server\n")
    assert sorted(_imports(bad)) == ["lsprotocol", "pygls.server"]
