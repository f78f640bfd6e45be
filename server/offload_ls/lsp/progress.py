"""Server-initiated ``$/progress`` (LSP 3.17 "Work Done Progress") and its cancellation.

Checks, builds, runs, profiles and assembly listings each show one progress; a client
cancel of its token (``window/workDoneProgress/cancel``) reaches the callback registered
with the token here, whoever started the work.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from lsprotocol import types

if TYPE_CHECKING:
    from offload_ls.lsp.host import Host

log = logging.getLogger(__name__)

#: most progress ends kept for tokens whose ``create`` the client never answered
MAX_ENDED_EARLY = 256


class Progress:
    """``$/progress`` of one server (``server.progress``); the tokens are the session's."""

    def __init__(self, server: "Host") -> None:
        self.server = server
        self.tokens = server.session.progress

    def supported(self) -> bool:
        """True if the client accepts server-initiated progress."""
        return self.server.client_supports("window.work_done_progress")

    def begin(self, token: str, title: str, message: str, cancellable: bool = False) -> None:
        """Create a server-initiated ``$/progress`` and send its begin."""
        wdp = self.server.work_done_progress

        def created(*_args, **_kwargs):
            wdp.begin(token, types.WorkDoneProgressBegin(
                title=title, message=message, cancellable=cancellable, percentage=0))
            ended = self.tokens.ended_early.pop(token, None)
            if ended is not None:  # the work ended before the client answered `create`
                self.end(token, ended)
        try:
            wdp.create(token, created)
        except Exception:  # noqa: BLE001 - progress is a courtesy
            log.exception("window/workDoneProgress/create failed")

    def report(self, token: str, message: str, percent: int | None = None) -> None:
        wdp = self.server.work_done_progress
        if token in wdp.tokens:
            wdp.report(token, types.WorkDoneProgressReport(message=message, percentage=percent))

    def end(self, token: str, message: str) -> None:
        """End ``$/progress`` ``token``; when the client has not answered its ``create`` yet,
        the end is sent right after the begin (a spinner must never be left running)."""
        wdp = self.server.work_done_progress
        if token in wdp.tokens:
            wdp.end(token, types.WorkDoneProgressEnd(message=message))
            wdp.tokens.pop(token, None)
        else:
            self.tokens.ended_early[token] = message
            while len(self.tokens.ended_early) > MAX_ENDED_EARLY:
                self.tokens.ended_early.pop(next(iter(self.tokens.ended_early)))

    # ------------------------------------------------------------------ cancellation

    def on_cancel(self, token: str, cancel: Callable[[], None]) -> None:
        """Route a client cancel of ``token`` to ``cancel()``."""
        self.tokens.on_cancel[token] = cancel

    def forget(self, token: str) -> None:
        """The work of ``token`` ended: a late cancel of it does nothing."""
        self.tokens.on_cancel.pop(token, None)

    def cancel(self, token) -> None:
        """The client cancelled our ``$/progress`` with this token."""
        callback = self.tokens.on_cancel.get(str(token))
        if callback is not None:
            callback()
