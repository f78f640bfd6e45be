"""``window/workDoneProgress/cancel``: the user cancelled a check, build or run shown as
``$/progress`` (lsp/progress.py routes the token to its work)."""

from __future__ import annotations

from lsprotocol import types

METHOD = types.WINDOW_WORK_DONE_PROGRESS_CANCEL


def handle(ls, params: types.WorkDoneProgressCancelParams) -> None:
    ls.progress.cancel(params.token)
