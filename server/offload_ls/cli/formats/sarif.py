"""SARIF 2.1.0 output of ``offload-ls check`` (OASIS Static Analysis Results Interchange
Format, https://docs.oasis-open.org/sarif/sarif/v2.1.0/), as code-scanning services read it.

One run: ``tool.driver`` lists every rule (``id``, ``shortDescription`` = the rule's
summary, ``defaultConfiguration.level`` = its default level, ``help.markdown`` = its doc page);
each finding is a result with ``ruleId``/``ruleIndex``, ``level`` (``warning`` or
``error``), the message, its location (the file's URI relative to ``%SRCROOT%``, the
current directory, when the file lies below it; else an absolute ``file:`` URI), related
locations and fixes (``artifactChanges``/``replacements``). Regions are 1-based with
columns in Unicode code points, which ``run.columnKind = "unicodeCodePoints"`` declares;
``endColumn`` is the column just after the region (SARIF §3.30.8). Skipped files and
errors are ``invocations[0].toolExecutionNotifications``.
"""

from __future__ import annotations

import urllib.parse
from typing import Any

from offload_ls import __version__
from offload_ls.analysis.model import Finding, Level, Span
from offload_ls.analysis.rules import Rule, all_rules
from offload_ls.cli.check import CheckReport, FileReport, Notice, SourcePath
from offload_ls.resources import rule_doc_path

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SRCROOT = "%SRCROOT%"

#: SARIF ``level`` of each rule level (SARIF §3.27.10: "none", "note", "warning", "error").
SARIF_LEVEL = {Level.ALLOW: "none", Level.WARN: "warning", Level.DENY: "error"}


def _help(rule: str, summary: str) -> dict[str, str]:
    """``reportingDescriptor.help`` (SARIF §3.49.14): the rule's documentation page as
    Markdown, carried in the log itself. A ``file:`` URI of the installed page would name a
    path of the machine that ran the check, useless where the log is uploaded."""
    text = f"{summary}. Documentation: `offload-ls rules`, docs/rules/{rule}.md."
    try:
        return {"text": text, "markdown": rule_doc_path(rule).read_text(encoding="utf-8")}
    except (FileNotFoundError, OSError):
        return {"text": text}


def _artifact_location(src: SourcePath) -> dict[str, Any]:
    if src.relative is not None:
        return {"uri": urllib.parse.quote(src.relative, safe="/", errors="surrogateescape"), "uriBaseId": SRCROOT}
    return {"uri": src.absolute.as_uri()}


def _region(fr: FileReport, span: Span) -> dict[str, int]:
    loc = fr.location(span)
    return {"startLine": loc.line, "startColumn": loc.column, "endLine": loc.end_line, "endColumn": loc.end_column}


def _physical(fr: FileReport, span: Span) -> dict[str, Any]:
    return {"artifactLocation": _artifact_location(fr.file), "region": _region(fr, span)}


def _notification(n: Notice) -> dict[str, Any]:
    out: dict[str, Any] = {"level": n.level, "message": {"text": n.text}}
    if n.file is not None:
        out["locations"] = [{"physicalLocation": {"artifactLocation": _artifact_location(n.file)}}]
    return out


def sarif_log(result: CheckReport) -> dict[str, Any]:
    """The SARIF log object (a dict ready for ``json.dumps``)."""
    rules = all_rules()
    rule_index = {name: i for i, name in enumerate(rules)}
    descriptors = [_descriptor(name, rule) for name, rule in rules.items()]
    results = [_result(fr, f, rule_index) for fr, f in result.findings]
    run: dict[str, Any] = {
        "tool": {"driver": {
            "name": "offload-ls",
            "version": __version__,
            "rules": descriptors,
        }},
        "originalUriBaseIds": {SRCROOT: {"uri": result.cwd.absolute().as_uri().rstrip("/") + "/"}},
        "columnKind": "unicodeCodePoints",
        "invocations": [{
            "executionSuccessful": not result.failed,
            "exitCode": result.exit_status,
            "toolExecutionNotifications": [_notification(n) for n in result.notices],
        }],
        "results": results,
    }
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def _descriptor(name: str, rule: Rule) -> dict[str, Any]:
    """``tool.driver.rules[]`` entry (``reportingDescriptor``, SARIF §3.49) of one rule."""
    return {
        "id": name,
        "shortDescription": {"text": rule.summary},
        "defaultConfiguration": {"level": SARIF_LEVEL[rule.default_level]},
        "help": _help(name, rule.summary),
    }


def _result(fr: FileReport, f: Finding, rule_index: dict[str, int]) -> dict[str, Any]:
    """One finding as a SARIF ``result`` (SARIF §3.27)."""
    r: dict[str, Any] = {
        "ruleId": f.rule,
        "level": SARIF_LEVEL[f.level],
        "message": {"text": f.message},
        "locations": [{"physicalLocation": _physical(fr, f.span)}],
    }
    if f.rule in rule_index and f.source == "offload-ls":
        r["ruleIndex"] = rule_index[f.rule]
    if f.source != "offload-ls":
        r["properties"] = {"source": f.source}
    if f.related:
        r["relatedLocations"] = [
            {"id": i, "physicalLocation": _physical(fr, rel.span), "message": {"text": rel.message}}
            for i, rel in enumerate(f.related)
        ]
    if f.fixes:
        r["fixes"] = [
            {
                "description": {"text": fix.title},
                "artifactChanges": [{
                    "artifactLocation": _artifact_location(fr.file),
                    "replacements": [
                        {"deletedRegion": _region(fr, e.span), "insertedContent": {"text": e.new_text}}
                        for e in fix.edits
                    ],
                }],
            }
            for fix in f.fixes if fix.edits
        ]
    return r


def render(result: CheckReport) -> str:
    """The SARIF log as indented JSON text."""
    import json

    return json.dumps(sarif_log(result), indent=2, ensure_ascii=False) + "\n"
