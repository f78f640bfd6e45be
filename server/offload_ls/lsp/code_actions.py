"""``textDocument/codeAction``: quick fixes from ``Finding.fixes``.

Every fix of every finding whose span touches the requested range becomes one
``CodeAction`` of kind ``quickfix``, carrying the finding's diagnostic and a
``WorkspaceEdit`` whose TextEdits (UTF-8 byte spans in the analysis) are converted to the
negotiated position encoding against the document's current text.
"""

from __future__ import annotations

from lsprotocol import types

from offload_ls.analysis.engine import FileAnalysis
from offload_ls.analysis.model import Finding, Fix, Span
from offload_ls.lsp.diagnostics import to_diagnostic
from offload_ls.lsp.positions import to_range
from offload_ls.syntax.text import Encoding, LineIndex


def _touches(span: Span, wanted: Span) -> bool:
    """True if the finding's span and the requested span overlap or touch (an empty
    request range at the cursor inside or at either end of the finding counts)."""
    return span.start <= wanted.end and wanted.start <= span.end


def fix_to_action(finding: Finding, fix: Fix, uri: str, index: LineIndex, encoding: Encoding,
                  preferred: bool) -> types.CodeAction:
    """One quick fix as an LSP CodeAction editing document ``uri``."""
    edits = [types.TextEdit(range=to_range(index, e.span, encoding), new_text=e.new_text)
             for e in sorted(fix.edits, key=lambda e: e.span.start)]
    return types.CodeAction(
        title=fix.title,
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[to_diagnostic(finding, index, encoding, uri)],
        edit=types.WorkspaceEdit(changes={uri: edits}),
        is_preferred=preferred or None,
    )


def code_actions(analysis: FileAnalysis, uri: str, index: LineIndex, encoding: Encoding,
                 wanted: Span, only: list[str] | None = None) -> list[types.CodeAction]:
    """Quick fixes for the findings touching ``wanted`` (a UTF-8 byte span).

    Args:
        only: the client's ``context.only`` kinds; if given and neither ``quickfix`` nor a
            parent kind of it (``""``) is listed, nothing is returned.
    """
    if only is not None and not any(k in ("", types.CodeActionKind.QuickFix) for k in only):
        return []
    actions = []
    for finding in analysis.findings:
        if not finding.fixes or not _touches(finding.span, wanted):
            continue
        for fix in finding.fixes:
            actions.append(fix_to_action(finding, fix, uri, index, encoding,
                                         preferred=len(finding.fixes) == 1))
    return actions
