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
from collections.abc import Callable
from pathlib import Path

from offload_ls.analysis.model import Finding
from offload_ls.cli.check import CheckReport, FileReport, Notice, SourcePath
from offload_ls.toolchain.crate import CrateError
from offload_ls.toolchain.doctor import HOST_ONLY, run_doctor
from offload_ls.workflow.check import (
    CheckNotNeeded,
    CheckNotRun,
    CrateCheck,
    check_crate,
    crate_transfer_findings,
    merge_findings,
)
from offload_ls.workspace.cargo import find_manifest
from offload_ls.workspace.read import DEFAULT_MAX_FILE_BYTES, read_named


def merge_compiler_findings(result: CheckReport, report: Callable[[Notice], None],
                            transfer_plan: bool = True, timeout_s: float = 600.0,
                            max_file_bytes: int = DEFAULT_MAX_FILE_BYTES) -> None:
    """Compile each crate of ``result``'s files and add the compiler's findings to it
    (``max_file_bytes``: the size limit of the files the compiler's messages name).

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
            checked = asyncio.run(check_crate(manifest, doctor, timeout_s=timeout_s, transfer_plan=transfer_plan,
                                              max_bytes=max_file_bytes))
        except CheckNotNeeded as exc:  # no offload code in it: the editor skips it too
            report(Notice("warning", f"--compile: {exc}"))
            continue
        except CheckNotRun as exc:  # no toolchain: no crate can be compiled
            report(Notice("error", f"--compile: {exc}"))
            return
        except CrateError as exc:
            report(Notice("error", f"--compile: {exc}"))
            continue
        _merge(result, by_path, checked, crate_files, max_file_bytes)


def _merge(result: CheckReport, by_path: dict[Path, FileReport], checked: CrateCheck,
           crate_files: list[FileReport], max_file_bytes: int) -> None:
    """Add one crate's compiler findings and transfer-plan disagreements to ``result``
    (workflow/check.py's :func:`~offload_ls.workflow.check.merge_findings`: a lint finding a
    compiler error on the same span predicts is dropped)."""
    found: dict[Path, list[Finding]] = {}  # resolved path (``by_path``'s key) -> the compiler's findings
    for message in checked.messages:
        # The CLI shows findings only: a note or help on its own (``finding()`` is None) is not
        # printed, and related places in other files are left out (a finding's are in its file).
        finding = message.finding()
        if finding is not None and _report_for(result, by_path, message.path, max_file_bytes) is not None:
            found.setdefault(message.path.resolve(), []).append(finding)  # else: a file that cannot be read
    if checked.transfers:
        result.transfer_plans[checked.manifest.parent] = (checked.name, checked.transfers)
        analyses = {Path(fr.file.absolute).resolve(): fr.analysis for fr in crate_files if fr.analysis is not None}
        for path, findings in crate_transfer_findings(analyses, checked.transfers).items():
            found.setdefault(path, []).extend(findings)
    for path, findings in found.items():
        fr = by_path[path]
        fr.findings = merge_findings(fr.findings, findings)


def _report_for(result: CheckReport, by_path: dict[Path, FileReport], path: Path,
                max_file_bytes: int) -> FileReport | None:
    """The report of ``path`` (a file a compiler message names): a checked file's, or a new
    one without lint findings; ``None`` when it cannot be read (workspace/read.py's screening)."""
    path = path.resolve()
    fr = by_path.get(path)
    if fr is None:
        data = read_named(path, max_file_bytes)
        if data is None:
            return None
        fr = FileReport(SourcePath.of(path, result.cwd), data, ())
        result.files.append(fr)
        by_path[path] = fr
    return fr
