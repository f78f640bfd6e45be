"""rustc-style text output of ``offload-ls check``.

One line per finding, ``path:line:col: warning[rule]: message`` (``error[rule]`` for a
``deny``-level finding), lines and columns 1-based and columns in Unicode code points as
rustc counts them, so editors' problem matchers and terminals can jump to it. Related
locations follow as indented ``note:`` lines and quick fixes as ``help:`` lines; the last
line is the summary, e.g. ``1 error, 2 warnings in 3 files``.
"""

from __future__ import annotations

from offload_ls.analysis.model import Finding, Level
from offload_ls.cli.check import CheckReport, FileReport


def severity(finding: Finding) -> str:
    """``"error"`` for a ``deny``-level finding, else ``"warning"``."""
    return "error" if finding.level is Level.DENY else "warning"


def finding_lines(fr: FileReport, finding: Finding) -> list[str]:
    """The lines for one finding: the headline, then notes and help."""
    loc = fr.location(finding.span)
    path = fr.file.display
    pass_label = f" [{finding.source}]" if finding.source != "offload-ls" else ""
    lines = [f"{path}:{loc.line}:{loc.column}: {severity(finding)}[{finding.rule}]: {finding.message}{pass_label}"]
    for rel in finding.related:
        r = fr.location(rel.span)
        lines.append(f"  {path}:{r.line}:{r.column}: note: {rel.message}")
    for fix in finding.fixes:
        lines.append(f"  help: {fix.title}")
    return lines


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def summary(result: CheckReport) -> str:
    """``E errors, W warnings in K files`` (singular where 1), with ``(S skipped)``
    appended when files were skipped."""
    text = (f"{_plural(result.count(Level.DENY), 'error')}, {_plural(result.count(Level.WARN), 'warning')} "
            f"in {_plural(len(result.files), 'file')}")
    if result.skipped:
        text += f" ({result.skipped} skipped)"
    return text


def render(result: CheckReport) -> str:
    """All findings, file by file in check order, then the summary line."""
    lines: list[str] = []
    for fr, finding in result.findings:
        lines += finding_lines(fr, finding)
    lines.append(summary(result))
    return "\n".join(lines) + "\n"
