"""``textDocument/codeAction``: the rules' quick fixes for the findings in the range, the
compiler's MachineApplicable suggestions, and Build/Run as source actions (offered when the
client asks for source actions, e.g. VS Code's "Source Action..." menu, not mixed into the
quick fixes)."""

from __future__ import annotations

from lsprotocol import types

from offload_ls.lsp import check_views, kernel_views
from offload_ls.lsp.code_actions import code_actions
from offload_ls.lsp.positions import to_span
from offload_ls.lsp.session import DocumentSnapshot

METHOD = types.TEXT_DOCUMENT_CODE_ACTION
OPTIONS = types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix])


def _wants_source_actions(only) -> bool:
    return bool(only) and any(k == types.CodeActionKind.Source or str(k).startswith("source.offload-ls")
                              for k in only)


def handle(snap: DocumentSnapshot, params: types.CodeActionParams) -> list[types.CodeAction] | None:
    wanted = to_span(snap.line_index, params.range, snap.encoding)
    only = params.context.only if params.context else None
    actions = code_actions(snap.analysis, snap.uri, snap.line_index, snap.encoding, wanted, only)
    if not only or types.CodeActionKind.QuickFix in only:
        compiler = check_views.compiler_quick_fixes(snap, params.range)
        if compiler:
            actions = (actions or []) + compiler
    if _wants_source_actions(only):
        gpu = kernel_views.source_actions(snap, wanted)
        if gpu:
            actions = (actions or []) + gpu
    return actions
