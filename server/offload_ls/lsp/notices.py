"""How the server words what was not analysed and what failed, for the client's log (the
CLI words the same data for a terminal: cli/check.py). The data comes from
workspace/read.py (``Skip``, ``SourceRead.invalid_utf8_at``) and from the analysis
(``FileAnalysis.failures``)."""

from __future__ import annotations

from offload_ls.workspace.read import Skip, SkipKind

#: how the user sets the size limit, named in the message of a file above it
LIMIT_SETTING = "setting maxFileBytes"


def skip_message(skip: Skip, label: str) -> str:
    """One log line: ``<label>: <why>; not analysed``."""
    if skip.kind is SkipKind.TOO_LARGE:
        size = f"{skip.size} bytes" if skip.size is not None else "size unknown"
        return f"{label}: {size}, above the {skip.limit}-byte limit ({LIMIT_SETTING}); not analysed"
    if skip.kind is SkipKind.BINARY:
        return f"{label}: binary file (NUL byte at offset {skip.nul_offset}); not analysed"
    return f"{label}: cannot read: {skip.error}; not analysed"


def invalid_utf8_message(label: str, offset: int) -> str:
    """A file analyzed although its bytes are not all UTF-8 (``offset``: of the first bad byte)."""
    return f"{label}: invalid UTF-8 at byte offset {offset}; analysed with U+FFFD in its place"


def analysis_failed_message(label: str, exc: BaseException) -> str:
    """The analysis of ``label`` raised ``exc`` (no finding of it is shown)."""
    return f"{label}: analysis failed ({type(exc).__name__}: {exc}); no lints for this text"


def rule_failed_message(label: str, message: str) -> str:
    """A rule raised on ``label`` (``message``: the ``RuleFailure``'s); its other rules ran."""
    return f"{label}: {message}"
