"""Run a :class:`~offload_ls.toolchain.plan.Plan` and collect what the compiler said.

Async (the language server awaits it while still answering requests); the CLI wraps it in
``asyncio.run``. Knows nothing of LSP.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from offload_ls.toolchain import std_cache
from offload_ls.toolchain.diagnostics import CompilerDiagnostic, merge, parse_cargo_output
from offload_ls.toolchain.lower import Lowering
from offload_ls.toolchain.lower_map import issue_diagnostics, map_diagnostics
from offload_ls.toolchain.plan import Pass, Plan
from offload_ls.toolchain.process import CancelToken, Completed, run_async
from offload_ls.toolchain.replay import STALE_ERRORS, ReplayCache, as_cargo_records, replay_env, with_verbose
from offload_ls.toolchain.transfer_plan import KernelTransfers, parse_ir_file


@dataclass
class PassResult:
    """One pass's process result (``skipped`` when an earlier pass had errors)."""

    name: str
    label: str
    completed: Completed | None
    skipped: bool = False


@dataclass
class CheckResult:
    """Everything one run of a plan produced.

    Attributes:
        diagnostics: merged across passes (one per message and place).
        transfers: kernel name -> transfer plan read from the host IR (empty if that pass
            did not run or failed).
        cancelled: a newer request (or the user) stopped the run; its results are partial
            and must not replace earlier ones.
    """

    diagnostics: list[CompilerDiagnostic] = field(default_factory=list)
    transfers: dict[str, KernelTransfers] = field(default_factory=dict)
    passes: list[PassResult] = field(default_factory=list)
    cancelled: bool = False

    @property
    def seconds(self) -> float:
        return sum(p.completed.seconds for p in self.passes if p.completed)


_SHA = re.compile(r"\{sha:([^}]+)\}")


def resolve_placeholders(argv: tuple[str, ...]) -> tuple[str, ...]:
    """Replace ``{sha:PATH}`` in argv elements with the first 16 hex digits of the SHA-256
    of that file (written by an earlier pass). Used to name the embedded device image by
    its content, so cargo relinks exactly when the image changes.

    Raises:
        OSError: the file does not exist.
    """
    def sub(m: re.Match) -> str:
        return hashlib.sha256(Path(m.group(1)).read_bytes()).hexdigest()[:16]
    return tuple(_SHA.sub(sub, a) for a in argv)


def _failure_diagnostic(p: Pass, done: Completed, had_json_errors: bool) -> CompilerDiagnostic | None:
    if done.error:
        return CompilerDiagnostic([p.label], "error", f"{p.label} pass could not start: {done.error}", None)
    if done.timed_out:
        return CompilerDiagnostic([p.label], "error",
                                  f"{p.label} pass timed out after {p.timeout:.0f} s and was stopped", None)
    if done.returncode not in (0, None) and not had_json_errors:
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        # the first error line (`error: ..`, or a tool's `llvm-as: f.ll:3:9: error: ..`), else the last
        first = next((line for line in lines if line.lstrip().startswith("error") or ": error:" in line),
                     lines[-1] if lines else "")
        return CompilerDiagnostic([p.label], "error",
                                  f"{p.label} pass failed (exit status {done.returncode}): {first.strip()}", None)
    return None


async def run_plan(plan: Plan, cancel: CancelToken | None = None,
                   on_pass: Callable[[int, int, Pass], None] | None = None,
                   on_line: Callable[[Pass, str], None] | None = None,
                   replay: "ReplayCache | None" = None) -> CheckResult:
    """Run the plan's passes: consecutive passes with ``concurrent=True`` run together
    (the device and host checks of check-on-save), the others one after another.

    Args:
        cancel: stops the running pass(es) (their process groups are killed) and the rest.
        on_pass: ``(index, count, pass)`` before each pass starts (for ``$/progress``).
        on_line: each stderr line of a pass (cargo's human-readable progress).
        replay: where ``replayable`` passes record their rustc command and replay it on
            later runs without cargo (:mod:`offload_ls.toolchain.replay`).
    """
    result = CheckResult()
    state = {"errors": False}
    all_diags: list[CompilerDiagnostic] = []
    passes = list(enumerate(plan.passes))
    low = plan.lowering
    if low is not None and not low.ok:
        passes = []  # the lowering's errors say why nothing was compiled
    # the device pass's `core` build, shared across crates (toolchain/std_cache.py)
    shared = std_cache.device_targets(plan.passes) if passes else {}
    for target_dir, key in shared.items():
        std_cache.seed(target_dir, key)
    for group in _groups(passes):
        if cancel is not None and cancel.cancelled:
            result.cancelled = True
            break
        outcomes = await asyncio.gather(*(_run_one(plan, idx, p, cancel, on_pass, on_line, state, replay)
                                          for idx, p in group))
        for pass_result, diags in outcomes:
            result.passes.append(pass_result)
            all_diags += diags
            if pass_result.completed is not None and pass_result.completed.cancelled:
                result.cancelled = True
            p = next(p for _, p in group if p.name == pass_result.name)
            all_diags += _read_transfers(p, pass_result, result)
        if result.cancelled:
            break
    _save_std_cache(plan, result, shared)
    if low is not None:
        all_diags = _to_user_files(low, result, all_diags)
    result.diagnostics = merge(all_diags)
    return result


def _groups(passes: list[tuple[int, Pass]]) -> Iterator[list[tuple[int, Pass]]]:
    """The passes in running order: consecutive ``concurrent`` passes together, others alone."""
    i = 0
    while i < len(passes):
        group = [passes[i]]
        if passes[i][1].concurrent:
            while i + len(group) < len(passes) and passes[i + len(group)][1].concurrent:
                group.append(passes[i + len(group)])
        i += len(group)
        yield group


def _read_transfers(p: Pass, pass_result: PassResult, result: CheckResult) -> list[CompilerDiagnostic]:
    """After a successful ``host-ir`` pass: its transfer plan into ``result.transfers`` (a
    warning when the IR cannot be read)."""
    if p.name == "host-ir" and pass_result.completed is not None and pass_result.completed.ok and p.emits:
        try:
            result.transfers = parse_ir_file(p.emits[0])
        except OSError as exc:
            return [CompilerDiagnostic(
                [p.label], "warning", f"could not read the host IR for the transfer plan: {exc}", None)]
    return []


def _save_std_cache(plan: Plan, result: CheckResult, shared: dict) -> None:
    """Keep the device ``core`` builds of device passes that succeeded (toolchain/std_cache.py)."""
    device_ok = {Path(p.argv[p.argv.index("--target-dir") + 1]) for p in plan.passes for r in result.passes
                 if r.name == p.name and p.name.startswith("device") and "--target-dir" in p.argv
                 and r.completed is not None and r.completed.ok}
    for target_dir, key in shared.items():
        if target_dir in device_ok and not result.cancelled:
            std_cache.save(target_dir, key)


def _to_user_files(low: Lowering, result: CheckResult, diags: list[CompilerDiagnostic]) -> list[CompilerDiagnostic]:
    """Spans of the generated copy back to the user's files (toolchain/lower_map.py), after
    the lowering's own issues; the transfer plan's by-reference arguments marked."""
    mapped = issue_diagnostics(low) + map_diagnostics(low, diags)
    for entry, kt in result.transfers.items():
        by_ref = low.by_reference.get(entry, set())
        kt.args = [replace(a, value_by_reference=True) if a.index in by_ref else a for a in kt.args]
    return mapped


async def _run_one(plan: Plan, index: int, p: Pass, cancel, on_pass, on_line, state: dict,
                   replay: "ReplayCache | None" = None) -> tuple[PassResult, list[CompilerDiagnostic]]:
    """One pass; ``state["errors"]`` records whether any earlier pass reported errors."""
    if p.needs_clean and state["errors"]:
        return PassResult(p.name, p.label, None, skipped=True), []
    if on_pass is not None:
        on_pass(index, len(plan.passes), p)
    try:
        argv = resolve_placeholders(p.argv)
    except OSError as exc:
        state["errors"] = True
        return (PassResult(p.name, p.label, None, skipped=True),
                [CompilerDiagnostic([p.label], "error", f"{p.name} pass: input missing: {exc}", None)])
    stderr_cb = (lambda line: on_line(p, line)) if on_line else None
    if replay is not None and p.replayable:
        rec = replay.get(p, plan.crate.manifest)
        if rec is not None:
            done = await run_async(rec.argv, timeout=p.timeout, cwd=plan.crate.root, env=replay_env(p, rec),
                                   cancel=cancel)
            if done.cancelled:
                return PassResult(p.name, p.label, done), []
            diags = parse_cargo_output(as_cargo_records(done.stderr), done.stderr, p.label, plan.crate.root)
            stale = any(d.code in STALE_ERRORS for d in diags)
            if not stale and (done.ok or diags):
                if any(d.level in ("error", "ice") for d in diags) or not done.ok:
                    state["errors"] = True
                return PassResult(p.name, p.label, done), diags
            replay.forget(p)  # fall back to cargo, and record afresh
        argv = with_verbose(p) if "rustc" in argv else argv
    done = await run_async(argv, timeout=p.timeout, cwd=p.cwd, env=p.env, cancel=cancel,
                           on_stderr_line=stderr_cb)
    if done.cancelled:
        return PassResult(p.name, p.label, done), []
    if replay is not None and p.replayable:
        replay.record(p, plan.crate.manifest, plan.crate.name, done.stderr)
    diags = parse_cargo_output(done.stdout, done.stderr, p.label, plan.crate.root) if p.json else []
    had_errors = any(d.level in ("error", "ice") for d in diags)
    failure = _failure_diagnostic(p, done, had_errors)
    if failure is not None:
        diags.append(failure)
    if had_errors or failure is not None:
        state["errors"] = True
    return PassResult(p.name, p.label, done), diags
