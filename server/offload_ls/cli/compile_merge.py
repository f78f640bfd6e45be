"""``offload-ls check --compile``: run the offload check (device pass, host pass, transfer
plan) of every crate the checked files belong to, and merge the compiler's findings into
the lint results — the same pipeline as check-on-save, headless.

Compiler messages become findings with ``rule`` = the compiler's code (``E0599``, a lint
name, ``offload_transfer_plan``) or ``compiler`` / ``ice`` when it has none, ``source`` =
the pass (``offload-ls(device nvptx64 sm_90)``), level ``deny`` for errors and crashes,
``warn`` for warnings. A message without a span is placed on the crate's Cargo.toml.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from pathlib import Path

from offload_ls.analysis.engine import analyze_source
from offload_ls.analysis.model import Edit, Finding, Fix, Level, Related, Span
from offload_ls.cli.check import CheckResult, FileReport, Notice, SourcePath
from offload_ls.toolchain.compile import run_plan
from offload_ls.toolchain.crate import CrateError, load_crate
from offload_ls.toolchain.diagnostics import CompilerDiagnostic
from offload_ls.toolchain.doctor import HOST_ONLY, run_doctor
from offload_ls.toolchain.lower import lower_for_pipeline
from offload_ls.toolchain.plan import check_plan
from offload_ls.toolchain.transfer_check import plan_for_launch
from offload_ls.workspace.cargo import find_manifest
from offload_ls.workspace.files import read_source

_LEVEL = {"error": Level.DENY, "ice": Level.DENY, "warning": Level.WARN}


def _package_line_span(data: bytes) -> Span:
    pos = data.find(b"[package]")
    return Span(pos, pos + len(b"[package]")) if pos >= 0 else Span(0, 0)


def merge_compiler_findings(result: CheckResult, report: Callable[[Notice], None],
                            transfer_plan: bool = True, timeout_s: float = 600.0) -> None:
    """Compile each crate of ``result``'s files and add the compiler's findings to it.

    Problems (no toolchain, a bad Cargo.toml) become notices with level ``error``.
    """
    manifests: dict[Path, list[FileReport]] = {}
    for fr in result.files:
        m = find_manifest(Path(fr.file.absolute))
        if m is not None:
            manifests.setdefault(m.resolve(), []).append(fr)
    if not manifests:
        why = ("no Cargo.toml above the checked files" if result.files
               else "no .rs file was analysed (see the notices above: skipped files are not compiled)")
        report(Notice("warning", f"--compile: {why}; nothing compiled"))
        return
    doctor = run_doctor(probe_gpus=False)
    if doctor.toolchain is None or doctor.toolchain.cargo is None:
        report(Notice("error", "--compile: no Rust toolchain with cargo found ("
                      + "; ".join(doctor.missing) + f"); install: {doctor.install}"))
        return
    if doctor.pipeline == HOST_ONLY:
        report(Notice("warning", "--compile: no offload-capable toolchain; only the host pass runs ("
                      + "; ".join(doctor.missing) + ")"))
    by_path = {Path(fr.file.absolute).resolve(): fr for fr in result.files}
    for manifest, crate_files in manifests.items():
        try:
            crate = load_crate(manifest, doctor.toolchain.cargo, env={"RUSTC": doctor.toolchain.rustc})
        except CrateError as exc:
            report(Notice("error", f"--compile: {exc}"))
            continue
        crate, lowering = lower_for_pipeline(crate, doctor, "gpu")
        plan = check_plan(crate, doctor, {"check": timeout_s, "ir": timeout_s},
                          transfer_plan=transfer_plan and doctor.pipeline != HOST_ONLY)
        plan.lowering = lowering
        outcome = asyncio.run(run_plan(plan))
        for d in outcome.diagnostics:
            _add(result, by_path, manifest, d)
        if outcome.transfers:
            result.transfer_plans[manifest.parent] = (crate.name, outcome.transfers)
            for fr in crate_files:
                _add_transfer_findings(result, fr, outcome.transfers)


def _report_for(result: CheckResult, by_path: dict[Path, FileReport], path: Path) -> FileReport | None:
    path = path.resolve()
    fr = by_path.get(path)
    if fr is None:
        try:
            data = read_source(path, sys.maxsize)
        except OSError:
            return None
        fr = FileReport(SourcePath.of(path, result.cwd), data, ())
        result.files.append(fr)
        by_path[path] = fr
    return fr


def _add(result: CheckResult, by_path: dict[Path, FileReport], manifest: Path, d: CompilerDiagnostic) -> None:
    level = _LEVEL.get(d.level)
    if level is None:
        return  # notes/help on their own are not findings
    if d.span is None:
        fr = _report_for(result, by_path, manifest)
        span = _package_line_span(fr.source) if fr else Span(0, 0)
    else:
        fr = _report_for(result, by_path, d.span.file)
        span = Span(d.span.start, d.span.end)
    if fr is None:
        return
    message = d.message + ("".join(f"\n{n}" for n in d.notes) if d.notes else "")
    related = tuple(Related(Span(s.start, s.end), m) for s, m in d.related if s.file.resolve() == Path(fr.file.absolute).resolve())
    fixes = ()
    if d.fixes and all(r.span.file.resolve() == Path(fr.file.absolute).resolve() for r in d.fixes):
        fixes = (Fix("apply the compiler's suggestion", tuple(Edit(Span(r.span.start, r.span.end), r.text)
                                                               for r in d.fixes)),)
    finding = Finding(rule=d.code or ("ice" if d.level == "ice" else "compiler"), span=span, message=message,
                      level=level, fixes=fixes, related=related, source=d.source)
    if level is Level.DENY:
        # the compiler's error where a lint predicted it (`x.sqrt()` in core-only device code:
        # host_only_api_in_kernel and E0599 on the same span): the compiler's word stands alone
        fr.findings = tuple(f for f in fr.findings
                            if not (f.span == span and f.rule in _PREDICTED_BY_LINTS and f.source == "offload-ls"))
    _append(fr, finding)


#: lints whose findings a compiler error on the same span makes redundant
_PREDICTED_BY_LINTS = frozenset({"host_only_api_in_kernel"})


def _append(fr: FileReport, finding: Finding) -> None:
    fr.findings = tuple(sorted((*fr.findings, finding), key=lambda f: (f.span.start, f.span.end, f.rule)))


def _add_transfer_findings(result: CheckResult, fr: FileReport, transfers) -> None:
    analysis = analyze_source(fr.source)
    kernels = {k.name: k for k in analysis.kernels}
    for launch in analysis.launches:
        kt = transfers.get(launch.kernel or "")
        if kt is None:
            continue
        for ap in plan_for_launch(launch, kernels.get(launch.kernel), kt):
            if ap.problem:
                _append(fr, Finding(rule="offload_transfer_plan", span=ap.arg.span, message=ap.problem,
                                    level=Level.WARN, source="offload-ls(host)"))
