"""``offload-ls check --compile``: run the offload check (device pass, host pass, transfer
plan) of every crate the checked files belong to (:func:`offload_ls.workflow.check.check_crate`,
the pipeline the server's check on save runs too) and merge the compiler's findings into the
lint results.

Compiler messages become findings (:meth:`~offload_ls.workflow.check.CompilerMessage.finding`):
``rule`` = the compiler's code (``E0599``, a lint name, ``offload_transfer_plan``) or
``compiler`` / ``ice`` when it has none, ``source`` = the pass (``offload-ls(device nvptx64
sm_90)``), level ``deny`` for errors and crashes, ``warn`` for warnings. A message without a
span is placed on the crate's Cargo.toml.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from pathlib import Path

from offload_ls.analysis.engine import analyze_source
from offload_ls.analysis.model import Finding, Level
from offload_ls.cli.check import CheckReport, FileReport, Notice, SourcePath
from offload_ls.toolchain.crate import CrateError
from offload_ls.toolchain.doctor import HOST_ONLY, run_doctor
from offload_ls.workflow.check import CheckNotRun, CrateCheck, check_crate, transfer_findings
from offload_ls.workspace.cargo import find_manifest
from offload_ls.workspace.files import read_source

#: lints whose findings a compiler error on the same span makes redundant
_PREDICTED_BY_LINTS = frozenset({"host_only_api_in_kernel"})


def merge_compiler_findings(result: CheckReport, report: Callable[[Notice], None],
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
    if doctor.pipeline == HOST_ONLY and doctor.toolchain is not None:
        report(Notice("warning", "--compile: no offload-capable toolchain; only the host pass runs ("
                      + "; ".join(doctor.missing) + ")"))
    by_path = {Path(fr.file.absolute).resolve(): fr for fr in result.files}
    for manifest, crate_files in manifests.items():
        try:
            checked = asyncio.run(check_crate(manifest, doctor, timeout_s=timeout_s, transfer_plan=transfer_plan))
        except CheckNotRun as exc:  # no toolchain: no crate can be compiled
            report(Notice("error", f"--compile: {exc}"))
            return
        except CrateError as exc:
            report(Notice("error", f"--compile: {exc}"))
            continue
        _merge(result, by_path, checked, crate_files)


def _merge(result: CheckReport, by_path: dict[Path, FileReport], checked: CrateCheck,
           crate_files: list[FileReport]) -> None:
    """Add one crate's compiler findings and transfer-plan disagreements to ``result``."""
    for message in checked.messages:
        finding = message.finding()
        fr = _report_for(result, by_path, message.path) if finding is not None else None
        if fr is None:
            continue  # a note on its own, or a file that cannot be read
        if finding.level is Level.DENY:
            # the compiler's error where a lint predicted it (`x.sqrt()` in core-only device code:
            # host_only_api_in_kernel and E0599 on the same span): the compiler's word stands alone
            fr.findings = tuple(f for f in fr.findings if not (
                f.span == finding.span and f.rule in _PREDICTED_BY_LINTS and f.source == "offload-ls"))
        _append(fr, finding)
    if checked.transfers:
        result.transfer_plans[checked.manifest.parent] = (checked.name, checked.transfers)
        for fr in crate_files:
            for finding in transfer_findings(analyze_source(fr.source), checked.transfers):
                _append(fr, finding)


def _report_for(result: CheckReport, by_path: dict[Path, FileReport], path: Path) -> FileReport | None:
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


def _append(fr: FileReport, finding: Finding) -> None:
    fr.findings = tuple(sorted((*fr.findings, finding), key=lambda f: (f.span.start, f.span.end, f.rule)))
