"""The offload check of a crate, shared by ``offload-ls check --compile`` and the server's
check on save: doctor -> crate (cargo metadata) -> lowering of today's upstream spelling ->
check plan (device pass, host pass, transfer plan) -> run -> compiler messages placed in
the user's files, and the transfer plan's disagreements with the source types.

The CLI runs :func:`check_crate`; the server's :class:`~offload_ls.toolchain.service.CompileService`
schedules the same plan (:func:`check_plan_for`) per crate (debounce, cancel-on-newer) and
converts its result with the same :func:`check_from_result` (messages placed and worded once:
:class:`CompilerMessage`), :func:`crate_transfer_findings` and the rule of which lint findings a
compiler error makes redundant (:func:`predicted`, :func:`merge_findings`). The front ends
only render: byte spans become text / JSON / SARIF positions or LSP ranges.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from offload_ls.analysis.engine import FileAnalysis
from offload_ls.analysis.model import Edit, Finding, Fix, Launch, Level, Related, Span
from offload_ls.toolchain.compile import CheckResult, run_plan
from offload_ls.toolchain.crate import load_crate
from offload_ls.toolchain.diagnostics import CompilerDiagnostic, DiagnosticLevel, SpanRef
from offload_ls.toolchain.doctor import HOST_ONLY, DoctorReport
from offload_ls.toolchain.lower import lower_for_pipeline
from offload_ls.toolchain.plan import Plan, check_plan
from offload_ls.toolchain.process import CancelToken
from offload_ls.toolchain.transfer_check import ArgPlan, plan_for_launch
from offload_ls.toolchain.transfer_plan import KernelTransfers
from offload_ls.workspace.files import rust_files
from offload_ls.workspace.read import DEFAULT_MAX_FILE_BYTES, read_for_analysis, read_named

#: rule name of the findings offload-ls derives from the compiler's transfer plan
TRANSFER_RULE = "offload_transfer_plan"
#: ``source`` of those findings: the host pass wrote the plan
TRANSFER_SOURCE = "offload-ls(host)"
#: rustc levels that are findings on their own (``note`` / ``help`` only explain others)
_LEVEL = {"error": Level.DENY, "ice": Level.DENY, "warning": Level.WARN}

K = TypeVar("K")
P = TypeVar("P")


class CheckNotRun(Exception):
    """No check can run: no Rust toolchain with cargo (the message says what to install)."""


class CheckNotNeeded(CheckNotRun):
    """The crate has no rustc offload kernel or launch (:func:`crate_uses_offload`): its
    device pass would fail on code that was never meant for it, so nothing is compiled."""


#: why a crate is not checked (:class:`CheckNotNeeded`), after its name
NOT_NEEDED = "no rustc offload kernel or launch in this crate; the offload check (device pass + host pass) is skipped"

#: the host-IR pass (the transfer plan) may take this many times a check pass's timeout
IR_TIMEOUT_FACTOR = 2


def check_plan_for(manifest: Path, doctor: DoctorReport, timeout_s: float, transfer_plan: bool = True) -> Plan:
    """The check plan of ``manifest``'s crate (upstream spelling lowered for the LLVM-tools
    pipeline where needed); ``transfer_plan`` adds the host-IR pass (never for a host-only
    toolchain). ``timeout_s``: seconds per pass (the IR pass: :data:`IR_TIMEOUT_FACTOR` times it).

    Raises:
        CheckNotRun: no toolchain with cargo. CrateError: ``cargo metadata`` failed.
    """
    if doctor.toolchain is None or doctor.toolchain.cargo is None:
        raise CheckNotRun("no Rust toolchain with cargo found; `offload-ls doctor` says: "
                          + "; ".join(doctor.missing) + (f"; install: {doctor.install}" if doctor.install else ""))
    crate = load_crate(manifest, doctor.toolchain.cargo, env={"RUSTC": doctor.toolchain.rustc})
    crate, lowering = lower_for_pipeline(crate, doctor, "gpu")
    plan = check_plan(crate, doctor, {"check": timeout_s, "ir": IR_TIMEOUT_FACTOR * timeout_s},
                      transfer_plan=transfer_plan and doctor.pipeline != HOST_ONLY)
    plan.lowering = lowering
    return plan


@dataclass(frozen=True)
class CompilerMessage:
    """One compiler message placed in a file and converted once for both front ends: the
    server only maps its byte spans to LSP ranges, the CLI only renders :meth:`finding`.

    Attributes:
        path: the file (the crate's Cargo.toml for a message without a span).
        span: UTF-8 byte range in ``path`` (Cargo.toml's ``[package]`` for a span-less one).
        level: rustc's level (``error``, ``warning``, ``note``, ``help``, ``ice``,
            ``failure-note``).
        text: the message as shown: a span-less one (not a crash) starts with the passes
            that reported it (``[device nvptx64 sm_90, host] ...``: it sits on Cargo.toml);
            each note follows on its own line.
        code: the compiler's code (``E0599``, a lint name) or ``None``.
        source: the passes that reported it (``offload-ls(device nvptx64 sm_90)``).
        rustc_place: rustc's own 1-based line/column of the primary span (columns in
            characters), for a file that cannot be read; ``None`` for a span-less message.
        related: secondary places, in any file: (path, byte span, message).
        fix: the MachineApplicable suggestion's edits in ``path`` (empty when it has none,
            or when it also edits other files).
    """

    path: Path
    span: Span
    level: DiagnosticLevel
    text: str
    code: str | None = None
    source: str = "offload-ls"
    rustc_place: SpanRef | None = None
    related: tuple[tuple[Path, Span, str], ...] = ()
    fix: tuple[Edit, ...] = ()

    @property
    def spanless(self) -> bool:
        return self.rustc_place is None

    @property
    def is_error(self) -> bool:
        """An error or a crash (a finding of level ``deny``): it can stand for a lint
        finding on the same span (:func:`predicted`)."""
        return _LEVEL.get(self.level) is Level.DENY

    @property
    def rule(self) -> str:
        """The compiler's code, or ``ice`` for a crash, ``compiler`` for another message."""
        return self.code or ("ice" if self.level == "ice" else "compiler")

    def finding(self) -> Finding | None:
        """The message as a finding (``rule``: :attr:`rule`; level ``deny`` for errors and
        crashes, ``warn`` for warnings; ``None`` for a note or help on its own: a finding has
        no such level). A finding's related places are in its own file: those in other files
        are left out."""
        level = _LEVEL.get(self.level)
        if level is None:
            return None
        related = tuple(Related(span, m) for path, span, m in self.related if _same(path, self.path))
        fixes = (Fix("apply the compiler's suggestion", self.fix),) if self.fix else ()
        return Finding(rule=self.rule, span=self.span, message=self.text, level=level, fixes=fixes,
                       related=related, source=self.source)


def _same(a: Path, b: Path) -> bool:
    return a == b or a.resolve() == b.resolve()


def package_line_span(data: bytes) -> Span:
    """The ``[package]`` header of a Cargo.toml's bytes (``0..0`` when it has none)."""
    pos = data.find(b"[package]")
    return Span(pos, pos + len(b"[package]")) if pos >= 0 else Span(0, 0)


def place_messages(diagnostics: list[CompilerDiagnostic], manifest: Path,
                   read: Callable[[Path], bytes | None]) -> list[CompilerMessage]:
    """Each compiler message with its file and byte span: span-less ones on Cargo.toml's
    ``[package]`` line (``read``: a file's bytes or ``None``, e.g. :func:`read_named`)."""
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
        out.append(_placed(d, path, span))
    return out


def _placed(d: CompilerDiagnostic, path: Path, span: Span) -> CompilerMessage:
    text = d.message
    if d.span is None and d.level != "ice":
        text = f"[{', '.join(d.passes)}] {text}"
    text += "".join(f"\n{n}" for n in d.notes)
    related = tuple((s.file, Span(s.start, s.end), m) for s, m in d.related)
    fix: tuple[Edit, ...] = ()
    if d.fixes and d.span is not None and all(_same(r.span.file, d.span.file) for r in d.fixes):
        fix = tuple(Edit(Span(r.span.start, r.span.end), r.text) for r in d.fixes)
    return CompilerMessage(path, span, d.level, text, d.code, d.source, d.span, related, fix)


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


def crate_transfer_findings(analyses: Mapping[K, FileAnalysis], transfers: dict[str, KernelTransfers]
                            ) -> dict[K, list[Finding]]:
    """:func:`transfer_findings` of each file of a crate (``analyses``: any key -> the file's
    analysis as the front end made it, with its crate view and rule levels: a path for the
    CLI, a URI for the server); files without any are left out."""
    out: dict[K, list[Finding]] = {}
    for key, analysis in analyses.items():
        found = transfer_findings(analysis, transfers)
        if found:
            out[key] = found
    return out


#: Lint rules whose finding a compiler error on the same span makes redundant: the
#: compiler's word stands alone (``x.sqrt()`` in core-only device code: host_only_api_in_kernel
#: and E0599 on the same span).
PREDICTED_BY_LINTS = frozenset({"host_only_api_in_kernel"})
#: ``source`` of the lint rules' findings
LINT_SOURCE = "offload-ls"


def predicted(rule: str | None, source: str | None, place: P, error_places: Collection[P]) -> bool:
    """True if a compiler error (or crash) at ``place`` stands for the finding of ``rule``
    reported by ``source`` there: the front ends do not show that lint finding. ``place`` and
    ``error_places`` (those of :attr:`CompilerMessage.is_error` messages in the same file)
    are byte spans (the CLI) or LSP ranges (the server)."""
    return source == LINT_SOURCE and rule in PREDICTED_BY_LINTS and place in error_places


def merge_findings(lints: Iterable[Finding], compiler: Iterable[Finding]) -> tuple[Finding, ...]:
    """One file's findings and the compiler's there (its messages' :meth:`~CompilerMessage.finding`
    and the transfer plan's) as one tuple sorted by span then rule (in given order on a tie),
    without the lint findings a compiler error on the same span predicts (:func:`predicted`)."""
    compiler = list(compiler)
    errors = {f.span for f in compiler if f.level is Level.DENY and f.source != LINT_SOURCE}
    kept = [f for f in lints if not predicted(f.rule, f.source, f.span, errors)]
    return tuple(sorted((*kept, *compiler), key=lambda f: (f.span.start, f.span.end, f.rule)))


#: Byte strings whose presence in a crate's sources means it uses rustc's offload (kernels
#: or launches). A cheap pre-filter before compiling: a crate without any would fail the
#: device pass (no `std` for nvptx64) for no benefit.
OFFLOAD_MARKERS = (b"rustc_offload_kernel", b"offload_kernel", b"gpu-kernel", b"intrinsics::offload", b"offload!")


def crate_uses_offload(manifest: Path, max_files: int = 5000, max_bytes: int = DEFAULT_MAX_FILE_BYTES) -> bool:
    """True if any ``.rs`` file of the crate (not under ``target/``) mentions an offload
    marker. Files the screening skips (unreadable, over ``max_bytes``, binary) are not read;
    a crate of more than ``max_files`` files is taken to use offload (checked, not guessed)."""
    for i, path in enumerate(rust_files(manifest.parent)):
        if i >= max_files:
            return True
        source = read_for_analysis(path, max_bytes).source
        if source is not None and mentions_offload(source):
            return True
    return False


def mentions_offload(source: bytes) -> bool:
    """Does one file's text (UTF-8 bytes) mention an offload marker (:data:`OFFLOAD_MARKERS`)?"""
    return any(m in source for m in OFFLOAD_MARKERS)


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
                      max_bytes: int = DEFAULT_MAX_FILE_BYTES) -> CrateCheck:
    """A finished run of a crate's check plan as a :class:`CrateCheck` (reads Cargo.toml for
    span-less messages, through :func:`read_named` with the size limit ``max_bytes``: blocking
    file I/O, for a worker thread)."""
    messages = place_messages(result.diagnostics, manifest, lambda path: read_named(path, max_bytes))
    return CrateCheck(manifest=manifest, name=name, messages=messages,
                      transfers=result.transfers, seconds=result.seconds, cancelled=result.cancelled,
                      failed_passes=[p.label for p in result.passes if p.completed and not p.completed.ok])


async def check_crate(manifest: Path, doctor: DoctorReport, *, timeout_s: float = 600.0,
                      transfer_plan: bool = True, cancel: CancelToken | None = None,
                      max_bytes: int = DEFAULT_MAX_FILE_BYTES) -> CrateCheck:
    """Run the offload check of ``manifest``'s crate (``timeout_s`` per pass, seconds;
    ``max_bytes``: the size limit of the files it reads and its messages name).

    Raises:
        CheckNotNeeded: the crate has no offload kernel or launch (nothing was compiled).
        CheckNotRun: no toolchain with cargo. CrateError: ``cargo metadata`` failed.
    """
    if not crate_uses_offload(manifest, max_bytes=max_bytes):
        raise CheckNotNeeded(f"{manifest.parent}: {NOT_NEEDED}")
    plan = check_plan_for(manifest, doctor, timeout_s, transfer_plan)
    result = await run_plan(plan, cancel=cancel)
    return check_from_result(manifest, plan.crate.name, result, max_bytes)


__all__ = ["IR_TIMEOUT_FACTOR", "LINT_SOURCE", "NOT_NEEDED", "PREDICTED_BY_LINTS",
           "CheckNotNeeded", "CheckNotRun", "CompilerMessage", "CrateCheck", "check_crate",
           "check_from_result", "check_plan_for", "crate_transfer_findings", "crate_uses_offload",
           "launch_arg_plans", "mentions_offload", "merge_findings", "package_line_span", "place_messages", "predicted",
           "transfer_findings"]
