"""Findings -> LSP diagnostics (``textDocument/publishDiagnostics``).

Mapping (issue: "publishDiagnostics"): ``code`` = rule name, ``codeDescription.href`` =
``file:`` URI of the rule's page ``docs/rules/<rule>.md`` (shipped with the package,
:func:`offload_ls.resources.rule_doc_path`), ``source`` = ``"offload-ls"``, severity
``warn`` -> Warning and ``deny`` -> Error, ``relatedInformation`` from ``Finding.related``
(locations in the same document). Ranges are converted from UTF-8 byte spans to the
negotiated position encoding by :mod:`offload_ls.lsp.positions`.
"""

from __future__ import annotations

from functools import cache

from lsprotocol import types

from offload_ls.analysis.model import Finding, Level
from offload_ls.lsp.positions import to_range
from offload_ls.resources import rule_doc_path
from offload_ls.syntax.text import Encoding, LineIndex

SOURCE = "offload-ls"

_SEVERITY = {
    Level.WARN: types.DiagnosticSeverity.Warning,
    Level.DENY: types.DiagnosticSeverity.Error,
}


@cache
def rule_doc_uri(rule: str) -> str | None:
    """``file:`` URI of the rule's documentation page, ``None`` if the docs directory is
    missing (a broken install: the diagnostic is still sent, without a link)."""
    try:
        return rule_doc_path(rule).as_uri()
    except FileNotFoundError:
        return None


def to_diagnostic(finding: Finding, index: LineIndex, encoding: Encoding, uri: str) -> types.Diagnostic:
    """One :class:`Finding` of the document ``uri`` (bytes indexed by ``index``) as an LSP
    Diagnostic with ranges in ``encoding`` units."""
    href = rule_doc_uri(finding.rule)
    related = [
        types.DiagnosticRelatedInformation(
            location=types.Location(uri=uri, range=to_range(index, r.span, encoding)),
            message=r.message,
        )
        for r in finding.related
    ]
    return types.Diagnostic(
        range=to_range(index, finding.span, encoding),
        message=finding.message,
        severity=_SEVERITY.get(finding.level, types.DiagnosticSeverity.Warning),
        code=finding.rule,
        code_description=types.CodeDescription(href=href) if href else None,
        source=SOURCE,
        related_information=related or None,
    )


def to_diagnostics(findings, index: LineIndex, encoding: Encoding, uri: str) -> list[types.Diagnostic]:
    """All findings (``allow``-level ones are never produced by the engine) as Diagnostics."""
    return [to_diagnostic(f, index, encoding, uri) for f in findings if f.level is not Level.ALLOW]


def publish_params(uri: str, diagnostics: list[types.Diagnostic], version: int | None = None
                   ) -> types.PublishDiagnosticsParams:
    """The ``textDocument/publishDiagnostics`` payload (``version``: the open document's
    version the diagnostics were computed from, ``None`` for files on disk)."""
    return types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version)
