"""rustc/cargo JSON diagnostics (``--message-format=json``) -> :class:`CompilerDiagnostic`.

Format: cargo's ``compiler-message`` records wrapping rustc's JSON diagnostics
(https://doc.rust-lang.org/rustc/json.html). Spans carry ``byte_start``/``byte_end`` (UTF-8
byte offsets into the file), so no column conversion happens here. Output that is not JSON
(a compiler crash, a linker message) is scanned for internal compiler errors, which are
reported with the first line of the panic — never dropped.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from offload_ls.toolchain import facts

# rustc's own source location at the start of a bug!() message (compiler/rustc_*/...).
_ICE_MESSAGE = re.compile(r"^\S*compiler/rustc_[a-z_]+/\S+:\d+:\d+: ")


@dataclass(frozen=True)
class SpanRef:
    """A location in a file: absolute path and UTF-8 byte range, plus rustc's 1-based
    line/column (columns in characters) for files offload-ls has not read."""

    file: Path
    start: int
    end: int
    line: int = 1
    column: int = 1
    end_line: int = 1
    end_column: int = 1


@dataclass(frozen=True)
class Replacement:
    """A MachineApplicable suggestion: replace ``span`` with ``text``."""

    span: SpanRef
    text: str


#: rustc's levels of a message, and ``ice`` for a compiler crash
DiagnosticLevel = Literal["error", "warning", "note", "help", "ice", "failure-note"]


@dataclass
class CompilerDiagnostic:
    """One compiler message, attributed to the pass(es) that produced it.

    Attributes:
        passes: pass labels (``"device nvptx64 sm_90"``, ``"host"``); more than one when
            several passes reported the same message at the same place.
        level: ``"error"``, ``"warning"``, ``"note"``, ``"help"``, ``"ice"``.
        span: primary location (``None``: no span; the caller attaches it to Cargo.toml).
        related: secondary spans and children with spans, as (span, message).
        notes: children without spans (``"help: ..."``, ``"note: ..."``).
        fixes: MachineApplicable suggestions (one fix of possibly several replacements).
        code: lint or error code (``E0599``, ``improper_gpu_kernel_arg``) or ``None``.
    """

    passes: list[str]
    level: DiagnosticLevel
    message: str
    span: SpanRef | None
    code: str | None = None
    related: list[tuple[SpanRef, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    fixes: list[Replacement] = field(default_factory=list)

    def key(self) -> tuple:
        s = self.span
        return (self.level, self.message, self.code, (str(s.file), s.start, s.end) if s else None)

    @property
    def source(self) -> str:
        """LSP ``source``: ``offload-ls(device nvptx64 sm_90)``, ``offload-ls(host)``..."""
        return f"offload-ls({', '.join(self.passes)})"


def _span(raw: dict, root: Path) -> SpanRef:
    file = Path(raw.get("file_name", ""))
    if not file.is_absolute():
        file = root / file
    return SpanRef(file, int(raw.get("byte_start", 0)), int(raw.get("byte_end", 0)),
                   int(raw.get("line_start", 1)), int(raw.get("column_start", 1)),
                   int(raw.get("line_end", 1)), int(raw.get("column_end", 1)))


def _from_message(msg: dict, pass_label: str, root: Path) -> CompilerDiagnostic | None:
    level = msg.get("level", "error")
    text = msg.get("message", "")
    if level == "failure-note" or text.startswith("aborting due to") or text.startswith("Some errors have detailed"):
        return None
    if level == "warning" and (text.endswith("warnings emitted") or text.endswith("warning emitted")):
        return None
    if _ICE_MESSAGE.match(text) or text.startswith("internal compiler error"):
        # rustc's bug!() in a JSON record: "<rustc source path>:<line>:<col>: <what>"
        detail = _ICE_MESSAGE.sub("", text).removeprefix("internal compiler error:").strip()
        return CompilerDiagnostic([pass_label], "ice",
                                  f"internal compiler error: {detail} [at {text.split(': ', 1)[0]}]", None)
    spans = msg.get("spans") or []
    primary = next((s for s in spans if s.get("is_primary")), spans[0] if spans else None)
    code = (msg.get("code") or {}).get("code")
    diag = CompilerDiagnostic([pass_label], level, text, _span(primary, root) if primary else None, code)
    if primary and primary.get("label"):
        diag.message = f"{text}\n{primary['label']}" if primary["label"] not in text else text
    for s in spans:
        if s is primary:
            continue
        diag.related.append((_span(s, root), s.get("label") or text))
    fix: list[Replacement] = []
    for child in msg.get("children") or []:
        cspans = child.get("spans") or []
        ctext = f"{child.get('level', 'note')}: {child.get('message', '')}"
        replacements = [s for s in cspans if s.get("suggested_replacement") is not None]
        if replacements and all(s.get("suggestion_applicability") == "MachineApplicable" for s in replacements):
            fix += [Replacement(_span(s, root), s["suggested_replacement"]) for s in replacements]
        if cspans:
            for s in cspans:
                label = ctext
                if s.get("suggested_replacement") is not None:
                    label = f"{ctext}: `{s['suggested_replacement']}`"
                diag.related.append((_span(s, root), label))
        else:
            diag.notes.append(ctext)
    diag.fixes = fix
    return diag


def parse_cargo_output(stdout: str, stderr: str, pass_label: str, root: Path) -> list[CompilerDiagnostic]:
    """Diagnostics from one cargo run.

    Args:
        stdout: cargo's ``--message-format=json`` lines (non-JSON lines are ignored here).
        stderr: cargo/rustc's stderr, scanned for internal compiler errors.
        pass_label: e.g. ``"device nvptx64 sm_90"``; root: directory that relative
            ``file_name`` values are relative to (the cargo workspace root).
    """
    out: list[CompilerDiagnostic] = []
    for line in stdout.splitlines():
        if not line.startswith("{"):
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if record.get("reason") != "compiler-message":
            continue
        d = _from_message(record.get("message") or {}, pass_label, root)
        if d is not None:
            out.append(d)
    if not any(d.level == "ice" for d in out):
        ice = find_ice(stdout + "\n" + stderr)
        if ice:
            out.append(CompilerDiagnostic([pass_label], "ice", ice, None))
    return out


def find_ice(text: str) -> str | None:
    """``"internal compiler error: <first line of the panic>"`` if ``text`` holds a
    compiler crash, else ``None``. rustc prints panics as ``thread '…' panicked at
    <location>:`` followed by the message on the next line (rustc 1.96)."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if "panicked at" in line and line.lstrip().startswith("thread "):
            detail = next((following.strip() for following in lines[i + 1 : i + 4] if following.strip()), "")
            where = line.split("panicked at", 1)[1].strip().rstrip(":")
            first = detail or where
            hint = ""
            if facts.NO_OFFLOAD_SUPPORT_ICE in first:
                hint = " (this rustc cannot run -Zoffload=Device/Host=; `offload-ls doctor` shows which pipeline works)"
            return f"internal compiler error: {first} [at {where}]{hint}"
        if line.startswith("error: internal compiler error:"):
            return "internal compiler error: " + line.split("internal compiler error:", 1)[1].strip()
    return None


def merge(diags: list[CompilerDiagnostic]) -> list[CompilerDiagnostic]:
    """One diagnostic per (level, message, code, span): passes that report the same thing
    are merged into its ``passes`` list, in first-seen order."""
    by_key: dict[tuple, CompilerDiagnostic] = {}
    for d in diags:
        k = d.key()
        if k in by_key:
            for p in d.passes:
                if p not in by_key[k].passes:
                    by_key[k].passes.append(p)
        else:
            by_key[k] = d
    return list(by_key.values())
