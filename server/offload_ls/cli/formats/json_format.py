"""JSON output of ``offload-ls check``: a list with one object per finding.

Each object::

    {"file": "src/lib.rs", "line": 3, "column": 22, "end_line": 3, "end_column": 30,
     "severity": "warning" | "error", "level": "warn" | "deny", "rule": "...",
     "message": "...", "source": "offload-ls",
     "related": [{"line", "column", "end_line", "end_column", "message"}],
     "fixes": [{"title": "...", "edits": [{"line", "column", "end_line", "end_column",
                                             "new_text"}]}]}

``file`` is relative to the current directory when the file lies below it, else absolute;
bytes of the name that are not UTF-8, and control characters, are written as ``\\xNN`` /
``\\n`` escapes (as in the text output).
Lines and columns are 1-based, columns in Unicode code points; ``end_column`` is the column
just after the range (as SARIF's ``endColumn``). Related locations and edits are in the
same file as the finding.
"""

from __future__ import annotations

import json
from typing import Any

from offload_ls.analysis.model import Finding, Span
from offload_ls.cli.check import CheckReport, FileReport
from offload_ls.cli.formats.text import severity


def _range(fr: FileReport, span: Span) -> dict[str, int]:
    loc = fr.location(span)
    return {"line": loc.line, "column": loc.column, "end_line": loc.end_line, "end_column": loc.end_column}


def finding_object(fr: FileReport, finding: Finding) -> dict[str, Any]:
    """The JSON object (a dict) for one finding of file ``fr``."""
    return {
        "file": fr.file.display,
        **_range(fr, finding.span),
        "severity": severity(finding),
        "level": finding.level.value,
        "rule": finding.rule,
        "message": finding.message,
        "source": finding.source,
        "related": [{**_range(fr, r.span), "message": r.message} for r in finding.related],
        "fixes": [
            {"title": fix.title,
             "edits": [{**_range(fr, e.span), "new_text": e.new_text} for e in fix.edits]}
            for fix in finding.fixes
        ],
    }


def render(result: CheckReport) -> str:
    """The findings as a JSON array (``[]`` when there are none), UTF-8, indented."""
    return json.dumps([finding_object(fr, f) for fr, f in result.findings], indent=2, ensure_ascii=False) + "\n"
