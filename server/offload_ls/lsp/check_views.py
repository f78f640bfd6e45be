"""What the newest offload check of a document's crate shows in it: the compiled transfer
plan as inlay hints (``→ 4 KiB`` to the device, ``⇄ 4 KiB`` there and back) and as a table
in a launch's hover, and the compiler's MachineApplicable suggestions as quick fixes.

Functions of a :class:`~offload_ls.lsp.session.DocumentSnapshot` only (lsp/compile.py runs
the checks and stores their results in the session)."""

from __future__ import annotations

from lsprotocol import types

from offload_ls.analysis.model import Span
from offload_ls.lsp.positions import to_range
from offload_ls.lsp.session import DocumentSnapshot
from offload_ls.toolchain.transfer_check import ArgPlan
from offload_ls.toolchain.transfer_plan import decode_map_type, human_bytes
from offload_ls.workflow.check import launch_arg_plans


def arg_plans(doc: DocumentSnapshot) -> list[tuple[object, list[ArgPlan]]]:
    """(launch, argument plans) for each launch of the document whose kernel the host IR maps."""
    return launch_arg_plans(doc.analysis, doc.crate.transfers)


def inlay_hints(doc: DocumentSnapshot, wanted: Span) -> list[types.InlayHint]:
    """``→ 4 KiB`` / ``⇄ 4 KiB`` / ``by value`` before each launch argument in the byte
    span ``wanted``."""
    hints = []
    for launch, plans in arg_plans(doc):
        if launch.span.end < wanted.start or launch.span.start > wanted.end:
            continue
        for ap in plans:
            if ap.transfer is None:
                continue
            pos = to_range(doc.line_index, ap.arg.span, doc.encoding).start
            t = ap.transfer
            tip = (f"{t.bytes} bytes; map types begin {decode_map_type(t.begin) or ['none']}, "
                   f"kernel {decode_map_type(t.kernel) or ['none']}, end {decode_map_type(t.end) or ['none']}")
            hints.append(types.InlayHint(position=pos, label=t.hint + ":", kind=types.InlayHintKind.Parameter,
                                         padding_right=True, tooltip=tip))
    return hints


def hover_table(doc: DocumentSnapshot, launch) -> str | None:
    """Markdown table of what the compiled host code copies for ``launch`` (``None``: the
    newest check has no plan for its kernel)."""
    for lch, plans in arg_plans(doc):
        if lch is not launch and lch.span != launch.span:
            continue
        rows = ["", "**Compiled transfer plan** (host pass IR):", "",
                "| argument | to device | back to host | map types (begin/kernel/end) |", "|---|---|---|---|"]
        to_dev = back = 0
        for ap in plans:
            t = ap.transfer
            if t is None:
                continue
            td = human_bytes(t.bytes) if t.to_device else ("by value" if t.literal else "—")
            fd = human_bytes(t.bytes) if t.from_device else "—"
            to_dev += t.bytes if t.to_device else 0
            back += t.bytes if t.from_device else 0
            rows.append(f"| `{ap.arg.text}` | {td} | {fd} | {t.begin:#x} / {t.kernel:#x} / {t.end:#x} |")
        rows.append(f"| **total** | **{human_bytes(to_dev)}** | **{human_bytes(back)}** | |")
        problems = [f"- ⚠ {ap.problem}" for ap in plans if ap.problem]
        return "\n".join(rows + ([""] + problems if problems else []))
    return None


def compiler_quick_fixes(doc: DocumentSnapshot, rng: types.Range) -> list[types.CodeAction]:
    """MachineApplicable compiler suggestions overlapping ``rng`` (LSP positions), as quick fixes."""
    return [types.CodeAction(title=f"Apply compiler suggestion: {diag.message.splitlines()[0]}",
                             kind=types.CodeActionKind.QuickFix, diagnostics=[diag],
                             edit=types.WorkspaceEdit(changes={doc.uri: edits}))
            for diag, edits in doc.compiler_fixes if _overlaps(diag.range, rng)]


def _overlaps(a: types.Range, b: types.Range) -> bool:
    def key(p: types.Position) -> tuple[int, int]:
        return (p.line, p.character)
    return not (key(a.end) < key(b.start) or key(b.end) < key(a.start))
