"""Per-URI debounced analysis jobs (the jedi-language-server pattern).

Each URI has at most one pending job. Scheduling a new one cancels the pending job of the
same URI, so a burst of keystrokes leads to one analysis of the last text. Jobs sleep for
the debounce delay (``Settings.debounceMs``), then run the analysis in a worker thread
and publish from the event loop; a result is dropped if the document changed meanwhile.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

log = logging.getLogger(__name__)


class Debouncer:
    """Keyed, cancellable delayed jobs on the running event loop."""

    def __init__(self) -> None:
        self._pending: dict[str, asyncio.Task] = {}

    def schedule(self, key: str, delay_s: float, job: Callable[[], Awaitable[None]]) -> asyncio.Task:
        """Run ``job()`` after ``delay_s`` seconds unless another job for ``key`` is
        scheduled first (which cancels this one). Must be called on the loop's thread."""
        self.cancel(key)
        task = asyncio.get_running_loop().create_task(self._run(key, delay_s, job))
        self._pending[key] = task
        return task

    async def _run(self, key: str, delay_s: float, job: Callable[[], Awaitable[None]]) -> None:
        try:
            if delay_s > 0:
                await asyncio.sleep(delay_s)
            await job()
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - a failed job must not kill the loop
            log.exception("analysis job for %s failed", key)
        finally:
            if self._pending.get(key) is asyncio.current_task():
                del self._pending[key]

    def cancel(self, key: str) -> None:
        """Cancel the pending job for ``key``, if any (a running analysis thread finishes,
        but its result is discarded)."""
        task = self._pending.pop(key, None)
        if task is not None and not task.done():
            task.cancel()

    def cancel_all(self) -> None:
        """Cancel every pending job (shutdown)."""
        for key in list(self._pending):
            self.cancel(key)

    def pending(self, key: str) -> bool:
        """True while a job for ``key`` is scheduled or running."""
        return key in self._pending
