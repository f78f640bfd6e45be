"""``offload-ls --version``, ``rules``, ``serve`` and usage errors."""

from __future__ import annotations

import json
import sys
import types

from cli_helpers import FIXTURES, only

from offload_ls import __version__
from offload_ls.analysis.rules import all_rules
from offload_ls.resources import rule_doc_path


def test_version(cli):
    assert cli("--version") == (0, f"offload-ls {__version__}\n", "")


def test_help_exits_zero(cli):
    rc, out, _ = cli("--help")
    assert rc == 0
    assert out.startswith("usage: offload-ls ")
    for command in ("serve", "check", "rules"):
        assert f"    {command} " in out


def test_rules_text_lists_every_rule_aligned(cli):
    rc, out, err = cli("rules")
    assert (rc, err) == (0, "")
    rules = all_rules()
    width = max(len(n) for n in rules)
    lines = out.splitlines()
    assert lines[0] == f"{'RULE':<{width}}  DEFAULT  SUMMARY"
    assert lines[1:] == [f"{n:<{width}}  {r.default_level.value:<7}  {r.summary}" for n, r in rules.items()]
    # The finished rule, spelled out (so a broken table cannot pass by construction).
    assert lines[1] == (f"{'raw_pointer_kernel_param':<{width}}  warn     kernel parameter is a raw pointer: "
                        "unsafe to use, no noalias, and often the wrong copy size")


def test_rules_json(cli):
    rc, out, err = cli("rules", "--format", "json")
    assert (rc, err) == (0, "")
    items = json.loads(out)
    assert [i["name"] for i in items] == list(all_rules())
    assert items[0] == {
        "name": "raw_pointer_kernel_param",
        "default_level": "warn",
        "summary": "kernel parameter is a raw pointer: unsafe to use, no noalias, and often the wrong copy size",
        "doc": rule_doc_path("raw_pointer_kernel_param").as_uri(),
    }
    assert {i["default_level"] for i in items} <= {"allow", "warn", "deny"}


def _fake_server(monkeypatch) -> list[str]:
    calls: list[str] = []
    module = types.ModuleType("offload_ls.lsp.server")
    module.serve_stdio = lambda: calls.append("serve_stdio")
    monkeypatch.setitem(sys.modules, "offload_ls.lsp.server", module)
    return calls


def test_no_command_serves_over_stdio(cli, monkeypatch):
    calls = _fake_server(monkeypatch)
    assert cli() == (0, "", "")
    assert calls == ["serve_stdio"]


def test_serve_and_serve_stdio_and_bare_stdio(cli, monkeypatch):
    calls = _fake_server(monkeypatch)
    assert cli("serve") == (0, "", "")
    assert cli("serve", "--stdio") == (0, "", "")
    assert cli("--stdio") == (0, "", "")  # vscode-languageclient appends --stdio to the command
    assert calls == ["serve_stdio"] * 3


def test_serve_without_language_server_module_is_a_clear_error(cli, monkeypatch):
    # A None entry in sys.modules makes the import raise ImportError.
    monkeypatch.setitem(sys.modules, "offload_ls.lsp.server", None)
    rc, out, err = cli("serve")
    assert (rc, out) == (2, "")
    assert err.startswith("offload-ls: error: the language server is not available (")
    assert err.endswith("; `offload-ls check` and `offload-ls rules` still work\n")


def test_unknown_rule_is_a_usage_error_listing_known_rules(cli):
    rc, out, err = cli("check", ".", "--deny", "no_such_rule")
    assert (rc, out) == (2, "")
    known = ", ".join(all_rules())
    assert err.splitlines()[-1] == (
        f"offload-ls check: error: argument -D/--deny: unknown rule `no_such_rule` (known rules: {known})")


def test_unknown_format_is_a_usage_error(cli):
    rc, _, err = cli("check", ".", "--format", "xml")
    assert rc == 2
    assert "argument --format: invalid choice: 'xml'" in err


def test_check_without_a_path_checks_the_current_directory(cli, monkeypatch):
    monkeypatch.chdir(FIXTURES / "deny_crate")
    assert cli("check", "--format", "json", *only()) == cli("check", ".", "--format", "json", *only())
    rc, out, _ = cli("check", "--format", "json", *only())
    assert rc == 1
    assert [(i["file"], i["line"], i["severity"]) for i in json.loads(out)] == [("src/lib.rs", 2, "error")]


def test_max_file_bytes_must_be_positive(cli):
    rc, _, err = cli("check", ".", "--max-file-bytes", "0")
    assert rc == 2
    assert err.splitlines()[-1] == "offload-ls check: error: argument --max-file-bytes: must be positive, got 0"
