"""How the server words what was not analysed and what failed, for the client's log. The
data and the words both front ends share come from workspace/read.py (``Skip`` and its
``describe`` / ``reason``, ``SourceRead.utf8_note``, ``analysis_failed``); what is the
server's own is here: the setting that sets the size limit, what a failure means in the
editor."""

from __future__ import annotations

from offload_ls.workspace.read import Skip, SourceRead, analysis_failed

#: how the user sets the size limit, named in the message of a file above it
LIMIT_SETTING = "setting maxFileBytes"


def skip_message(skip: Skip, label: str) -> str:
    """One log line: ``<label>: <why>; not analysed``."""
    return skip.describe(label, LIMIT_SETTING)


def invalid_utf8_message(label: str, read: SourceRead) -> str | None:
    """A file analysed although its bytes are not all UTF-8; ``None`` when they are."""
    return f"{label}: {read.utf8_note}" if read.utf8_note is not None else None


def analysis_failed_message(label: str, exc: BaseException) -> str:
    """The analysis of ``label`` raised ``exc``: no finding of it is shown."""
    return f"{label}: {analysis_failed(exc).reason}; no lints for this text"


def rule_failed_message(label: str, message: str) -> str:
    """A rule raised on ``label`` (``message``: the ``RuleFailure``'s); its other rules ran."""
    return f"{label}: {message}"
