"""The offload check of a crate, shared by ``offload-ls check --compile`` and the server's
check on save: doctor -> crate (cargo metadata) -> lowering of today's upstream spelling ->
check plan (device pass, host pass, transfer plan) -> run -> compiler messages placed in
the user's files, and the transfer plan's disagreements with the source types.

The CLI runs :func:`check_crate`; the server's :class:`~offload_ls.toolchain.service.CompileService`
schedules the same plan (:func:`check_plan_for`) per crate (debounce, cancel-on-newer) and
converts its result with the same :func:`place_messages` / :func:`transfer_findings`. The front
ends only render: findings with UTF-8 byte spans become text / JSON / SARIF or LSP diagnostics.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from offload_ls.analysis.engine import FileAnalysis
from offload_ls.analysis.model import Edit, Finding, Fix, Launch, Level, Related, Span
from offload_ls.toolchain.compile import CheckResult, run_plan
from offload_ls.toolchain.crate import load_crate
from offload_ls.toolchain.diagnostics import CompilerDiagnostic
from offload_ls.toolchain.doctor import HOST_ONLY, DoctorReport
from offload_ls.toolchain.lower import lower_for_pipeline
from offload_ls.toolchain.plan import Plan, check_plan
from offload_ls.toolchain.process import CancelToken
from offload_ls.toolchain.transfer_check import ArgPlan, plan_for_launch
from offload_ls.toolchain.transfer_plan import KernelTransfers
from offload_ls.workspace.files import read_source, rust_files
from offload_ls.workspace.read import read_for_analysis

#: rule name of the findings offload-ls derives from the compiler's transfer plan
TRANSFER_RULE = "offload_transfer_plan"
#: ``source`` of those findings: the host pass wrote the plan
TRANSFER_SOURCE = "offload-ls(host)"
#: rustc levels that are findings on their own (``note`` / ``help`` only explain others)
_LEVEL = {"error": Level.DENY, "ice": Level.DENY, "warning": Level.WARN}


class CheckNotRun(Exception):
    """No check can run: no Rust toolchain with cargo (the message says what to install)."""


def check_plan_for(manifest: Path, doctor: DoctorReport, timeout_s: float, ir_timeout_s: float,
                   transfer_plan: bool = True) -> Plan:
    """The check plan of ``manifest``'s crate (upstream spelling lowered for the LLVM-tools
    pipeline where needed); ``transfer_plan`` adds the host-IR pass (never for a host-only
    toolchain). Timeouts in seconds per pass (``ir_timeout_s`` for the IR pass).

    Raises:
        CheckNotRun: no toolchain with cargo. CrateError: ``cargo metadata`` failed.
    """
    if doctor.toolchain is None or doctor.toolchain.cargo is None:
        raise CheckNotRun("no Rust toolchain with cargo found; `offload-ls doctor` says: "
                          + "; ".join(doctor.missing) + (f"; install: {doctor.install}" if doctor.install else ""))
    crate = load_crate(manifest, doctor.toolchain.cargo, env={"RUSTC": doctor.toolchain.rustc})
    crate, lowering = lower_for_pipeline(crate, doctor, "gpu")
    plan = check_plan(crate, doctor, {"check": timeout_s, "ir": ir_timeout_s},
                      transfer_plan=transfer_plan and doctor.pipeline != HOST_ONLY)
    plan.lowering = lowering
    return plan


@dataclass(frozen=True)
class CompilerMessage:
    """One compiler message placed in a file.

    Attributes:
        path: the file (the crate's Cargo.toml for a message without a span).
        span: UTF-8 byte range in ``path`` (Cargo.toml's ``[package]`` for a span-less one).
        diagnostic: the message as parsed (level, code, passes, notes, rustc's line/column).
        related: secondary places, in any file: (path, byte span, message).
        fix: the MachineApplicable suggestion's edits in ``path`` (empty when it has none,
            or when it also edits other files).
    """

    path: Path
    span: Span
    diagnostic: CompilerDiagnostic
    related: tuple[tuple[Path, Span, str], ...] = ()
    fix: tuple[Edit, ...] = ()

    @property
    def spanless(self) -> bool:
        return self.diagnostic.span is None

    def finding(self) -> Finding | None:
        """The message as a finding (``rule``: the compiler's code, or ``compiler`` / ``ice``;
        level ``deny`` for errors and crashes, ``warn`` for warnings; ``None`` for a note or
        help on its own). Notes follow the message on their own lines; related places in
        other files are left out."""
        d = self.diagnostic
        level = _LEVEL.get(d.level)
        if level is None:
            return None
        message = d.message + "".join(f"\n{n}" for n in d.notes)
        related = tuple(Related(span, m) for path, span, m in self.related if _same(path, self.path))
        fixes = (Fix("apply the compiler's suggestion", self.fix),) if self.fix else ()
        return Finding(rule=d.code or ("ice" if d.level == "ice" else "compiler"), span=self.span,
                       message=message, level=level, fixes=fixes, related=related, source=d.source)


def _same(a: Path, b: Path) -> bool:
    return a == b or a.resolve() == b.resolve()


def package_line_span(data: bytes) -> Span:
    """The ``[package]`` header of a Cargo.toml's bytes (``0..0`` when it has none)."""
    pos = data.find(b"[package]")
    return Span(pos, pos + len(b"[package]")) if pos >= 0 else Span(0, 0)


def place_messages(diagnostics: list[CompilerDiagnostic], manifest: Path,
                   read: Callable[[Path], bytes | None] | None = None) -> list[CompilerMessage]:
    """Each compiler message with its file and byte span: span-less ones on Cargo.toml's
    ``[package]`` line (``read``: a file's bytes or ``None``; default: from disk)."""
    read = read or _read
    out = []
    header: Span | None = None  # Cargo.toml's `[package]`, read once for every span-less message
    for d in diagnostics:
        if d.span is None:
            if header is None:
                data = read(manifest)
                header = package_line_span(data) if data is not None else Span(0, 0)
            path, span = manifest, header
        else:
            path, span = d.span.file, Span(d.span.start, d.span.end)
        related = tuple((s.file, Span(s.start, s.end), m) for s, m in d.related)
        fix = ()
        if d.fixes and d.span is not None and all(_same(r.span.file, d.span.file) for r in d.fixes):
            fix = tuple(Edit(Span(r.span.start, r.span.end), r.text) for r in d.fixes)
        out.append(CompilerMessage(path, span, d, related, fix))
    return out


def _read(path: Path) -> bytes | None:
    try:
        return read_source(path, sys.maxsize)
    except OSError:
        return None


def launch_arg_plans(analysis: FileAnalysis, transfers: dict[str, KernelTransfers]
                     ) -> list[tuple[Launch, list[ArgPlan]]]:
    """(launch, what the compiled host code copies for each argument) for each launch of a
    file whose kernel the host IR maps (toolchain/transfer_check.py)."""
    if not transfers:
        return []
    kernels = {k.name: k for k in analysis.kernels}
    out = []
    for launch in analysis.launches:
        kt = transfers.get(launch.kernel or "")
        if kt is not None:
            out.append((launch, plan_for_launch(launch, kernels.get(launch.kernel), kt)))
    return out


def transfer_findings(analysis: FileAnalysis, transfers: dict[str, KernelTransfers]) -> list[Finding]:
    """Disagreements between a file's launch arguments (their source types) and the map
    types the host pass compiled for them, as findings at each argument."""
    return [Finding(rule=TRANSFER_RULE, span=ap.arg.span, message=ap.problem, level=Level.WARN, source=TRANSFER_SOURCE)
            for _, plans in launch_arg_plans(analysis, transfers) for ap in plans if ap.problem]


#: Byte strings whose presence in a crate's sources means it uses rustc's offload (kernels
#: or launches). A cheap pre-filter before compiling: a crate without any would fail the
#: device pass (no `std` for nvptx64) for no benefit.
OFFLOAD_MARKERS = (b"rustc_offload_kernel", b"offload_kernel", b"gpu-kernel", b"intrinsics::offload", b"offload!")


def crate_uses_offload(manifest: Path, max_files: int = 5000, max_bytes: int = 8 << 20) -> bool:
    """True if any ``.rs`` file of the crate (not under ``target/``) mentions an offload
    marker. Files the screening skips (unreadable, over ``max_bytes``, binary) are not read;
    a crate of more than ``max_files`` files is taken to use offload (checked, not guessed)."""
    for i, path in enumerate(rust_files(manifest.parent)):
        if i >= max_files:
            return True
        source = read_for_analysis(path, max_bytes).source
        if source is not None and any(m in source for m in OFFLOAD_MARKERS):
            return True
    return False


@dataclass
class CrateCheck:
    """The offload check of one crate (:func:`check_crate`).

    Attributes:
        manifest: its Cargo.toml. name: the package name.
        messages: the compiler's messages, placed. transfers: kernel -> compiled transfer plan
            (empty without the IR pass). failed_passes: labels of passes that failed.
        seconds: wall-clock seconds the passes ran.
    """

    manifest: Path
    name: str
    messages: list[CompilerMessage] = field(default_factory=list)
    transfers: dict[str, KernelTransfers] = field(default_factory=dict)
    failed_passes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    cancelled: bool = False


def check_from_result(manifest: Path, name: str, result: CheckResult,
                read: Callable[[Path], bytes | None] | None = None) -> CrateCheck:
    """A finished run of a crate's check plan as a :class:`CrateCheck`."""
    return CrateCheck(manifest=manifest, name=name, messages=place_messages(result.diagnostics, manifest, read),
                      transfers=result.transfers, seconds=result.seconds, cancelled=result.cancelled,
                      failed_passes=[p.label for p in result.passes if p.completed and not p.completed.ok])


async def check_crate(manifest: Path, doctor: DoctorReport, *, timeout_s: float = 600.0,
                      transfer_plan: bool = True, cancel: CancelToken | None = None) -> CrateCheck:
    """Run the offload check of ``manifest``'s crate (``timeout_s`` per pass, seconds).

    Raises:
        CheckNotRun: no toolchain with cargo. CrateError: ``cargo metadata`` failed.
    """
    plan = check_plan_for(manifest, doctor, timeout_s, timeout_s, transfer_plan)
    result = await run_plan(plan, cancel=cancel)
    return check_from_result(manifest, plan.crate.name, result)


__all__ = ["CheckNotRun", "CompilerMessage", "CrateCheck", "check_crate", "check_from_result", "check_plan_for",
           "crate_uses_offload", "launch_arg_plans", "package_line_span", "place_messages", "transfer_findings"]
