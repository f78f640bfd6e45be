"""Background offload checks, one crate at a time: debounce, cancel-on-newer, generations.

LSP-agnostic: the language server gives callbacks and converts results. Rules:

- at most one compile per crate runs; a newer request cancels the running one (its process
  group is killed) and starts after it has ended;
- requests within ``debounce_s`` of each other coalesce into one run;
- every run gets a generation number per crate; only a run that finished (not cancelled)
  and is newer than the last delivered one is delivered, and it replaces all of that
  crate's earlier compiler results — nothing stale remains after a fix.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from offload_ls.toolchain.compile import CheckResult, run_plan
from offload_ls.toolchain.diagnostics import merge
from offload_ls.toolchain.plan import Pass, Plan
from offload_ls.toolchain.process import CancelToken
from offload_ls.toolchain.replay import ReplayCache

log = logging.getLogger(__name__)

#: what a progress callback is told: a check began, reports a step, or ended
ProgressEvent = Literal["begin", "report", "end"]


@dataclass
class _CrateSchedule:
    generation: int = 0
    delivered: int = 0
    pending: asyncio.Task | None = None
    running: asyncio.Task | None = None
    token: CancelToken | None = None
    waiters: list[asyncio.Future] = field(default_factory=list)


class CompileService:
    """Schedules checks per crate manifest.

    Args:
        make_plan: ``manifest -> Plan`` (may raise; the error is delivered via ``on_error``).
            Called in a worker thread (it may run ``cargo metadata``).
        on_result: ``(manifest, generation, CheckResult)`` for each delivered run.
        on_error: ``(manifest, message)`` when no plan could be made.
        on_progress: ``(manifest, event, message, percent)`` with event ``begin`` /
            ``report`` / ``end``; return value ignored.
        debounce_s: seconds to wait for more requests before starting.
    """

    def __init__(self, make_plan: Callable[[Path], Plan],
                 on_result: Callable[[Path, int, CheckResult], Awaitable[None] | None],
                 on_error: Callable[[Path, str], None],
                 on_progress: Callable[[Path, ProgressEvent, str, int | None], None] | None = None,
                 debounce_s: float = 0.3) -> None:
        self.make_plan = make_plan
        self.on_result = on_result
        self.on_error = on_error
        self.on_progress = on_progress
        self.debounce_s = debounce_s
        self._crates: dict[Path, _CrateSchedule] = {}
        self.replay = ReplayCache()

    def manifests(self) -> list[Path]:
        """The crates (their Cargo.toml) this service has checked or been asked to check."""
        return list(self._crates)

    def running(self, manifest: Path) -> bool:
        st = self._crates.get(manifest)
        return bool(st and st.running and not st.running.done())

    def request(self, manifest: Path) -> asyncio.Future:
        """Schedule a check of ``manifest``'s crate; returns a future resolved when a run
        covering this request has been delivered or superseded."""
        st = self._crates.setdefault(manifest, _CrateSchedule())
        st.generation += 1
        if st.token is not None:
            st.token.cancel()  # a newer save cancels the older compile of the same crate
        if st.pending is not None and not st.pending.done():
            st.pending.cancel()
        fut = asyncio.get_running_loop().create_future()
        st.waiters.append(fut)
        st.pending = asyncio.ensure_future(self._start_after_debounce(manifest, st, st.generation))
        return fut

    def cancel(self, manifest: Path | None = None) -> None:
        """Cancel the running check of one crate, or of all crates."""
        for m, st in self._crates.items():
            if manifest is None or m == manifest:
                if st.token is not None:
                    st.token.cancel()
                if st.pending is not None:
                    st.pending.cancel()

    async def shutdown(self) -> None:
        self.cancel()
        tasks = [t for st in self._crates.values() for t in (st.running, st.pending) if t is not None]
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _start_after_debounce(self, manifest: Path, st: _CrateSchedule, generation: int) -> None:
        await asyncio.sleep(self.debounce_s)
        if st.running is not None and not st.running.done():
            await asyncio.gather(st.running, return_exceptions=True)  # killed already; wait for it
        if generation != st.generation:
            return  # a newer request will run
        st.token = CancelToken()
        st.running = asyncio.ensure_future(self._run(manifest, st, generation, st.token))

    def _progress(self, manifest: Path, event: ProgressEvent, message: str, percent: int | None = None) -> None:
        if self.on_progress is not None:
            try:
                self.on_progress(manifest, event, message, percent)
            except Exception:  # noqa: BLE001 - progress must never break a compile
                log.exception("progress callback failed")

    async def _run(self, manifest: Path, st: _CrateSchedule, generation: int, token: CancelToken) -> None:
        """Checks first (delivered as soon as they finish), then the slower passes that
        need clean checks (the transfer plan), delivered again with their results."""
        self._progress(manifest, "begin", f"offload check of {manifest.parent.name}", 0)
        result: CheckResult | None = None
        try:
            try:
                plan = await asyncio.get_running_loop().run_in_executor(None, self.make_plan, manifest)
            except Exception as exc:  # noqa: BLE001 - reported to the user
                if generation == st.generation:
                    self.on_error(manifest, str(exc))
                return
            # the two stages keep everything else of the plan (its lowering: diagnostics mapped
            # back to the user's files, a failed lowering refused), as the CLI's one run does
            first = dataclasses.replace(plan, passes=[p for p in plan.passes if not p.needs_clean])
            later = dataclasses.replace(plan, passes=[p for p in plan.passes if p.needs_clean])
            total = len(plan.passes)

            def on_pass(offset: int):
                def report(i: int, n: int, p: Pass) -> None:
                    self._progress(manifest, "report", f"{p.label} pass ({offset + i + 1}/{total})",
                                   int(100 * (offset + i) / max(total, 1)))
                return report

            result = await run_plan(first, cancel=token, on_pass=on_pass(0), replay=self.replay)
            if result.cancelled or generation <= st.delivered:
                return
            clean = not any(d.level in ("error", "ice") for d in result.diagnostics)
            run_later = bool(later.passes) and clean
            await self._deliver(manifest, st, generation, result, final=not run_later)
            if not run_later or generation != st.generation:
                return
            more = await run_plan(later, cancel=token, on_pass=on_pass(len(first.passes)))
            if more.cancelled or generation != st.generation:
                result.cancelled = more.cancelled
                return
            result = CheckResult(diagnostics=merge(result.diagnostics + more.diagnostics),
                                 transfers=more.transfers, passes=result.passes + more.passes)
            await self._deliver(manifest, st, generation, result, final=True)
        finally:
            self._progress(manifest, "end", "cancelled" if (result is None or result.cancelled) else
                           f"done in {result.seconds:.1f} s")

    async def _deliver(self, manifest: Path, st: _CrateSchedule, generation: int, result: CheckResult,
                       final: bool) -> None:
        """Hand ``result`` to ``on_result`` (twice per run when a transfer plan follows the
        checks: the second replaces the first); resolve the waiters on the final one."""
        st.delivered = generation
        maybe = self.on_result(manifest, generation, result)
        if asyncio.iscoroutine(maybe):
            await maybe
        if final:
            for fut in st.waiters:
                if not fut.done():
                    fut.set_result(result)
            st.waiters.clear()
