"""Running external programs: argv lists, timeouts, process groups, cancellation.

Architecture invariant: every external program offload-ls starts goes through this module.
Nothing runs through a shell; each child gets its own process group (``start_new_session``)
so that cancelling kills the whole tree (cargo -> rustc -> linker).
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

#: Every program offload-ls starts, in order (argv lists). Tests audit this to prove that
#: untrusted workspaces start no compiler; it is bounded to the last 1,000 entries.
STARTED: list[tuple[str, ...]] = []
_STARTED_LOCK = threading.Lock()


#: Bytes of output kept per stream of one program run by :func:`run_async`; the rest is
#: still streamed to the line callbacks but only counted (a program printing without end
#: must not exhaust the server's memory).
MAX_CAPTURE = 64 * 1024 * 1024

#: Process groups started here and not yet reaped (pgid == the child's pid).
_LIVE: set[int] = set()

#: The program policy: ``(argv, env) -> reason`` to refuse starting it, ``None`` to
#: allow (``env``: the variables the caller adds, e.g. ``RUSTC`` for cargo). The language
#: server installs one that refuses programs inside untrusted workspace folders.
_guard: Callable[[tuple[str, ...], Mapping[str, str]], str | None] | None = None


def set_guard(guard: Callable[[tuple[str, ...], Mapping[str, str]], str | None] | None) -> None:
    """Install the program policy consulted before every start (``None``: allow all).
    A refused program is not started: the call returns a :class:`Completed` with
    ``returncode=None`` and ``error`` set to the reason, like a program that is missing."""
    global _guard
    _guard = guard


def _refusal(argv: tuple[str, ...], env: Mapping[str, str] | None) -> str | None:
    guard = _guard
    if guard is None:
        return None
    try:
        return guard(argv, env or {})
    except Exception as exc:  # noqa: BLE001 - a broken policy refuses, never allows by accident
        return f"{argv[0]}: not run: the program policy failed ({type(exc).__name__}: {exc})"


def _record(argv: Sequence[str]) -> None:
    with _STARTED_LOCK:
        STARTED.append(tuple(argv))
        del STARTED[:-1000]


def _track(pid: int) -> None:
    with _STARTED_LOCK:
        _LIVE.add(pid)


def _untrack(pid: int) -> None:
    with _STARTED_LOCK:
        _LIVE.discard(pid)


def kill_all() -> int:
    """Kill the process group of every program started here that is still running
    (the language server calls this when its session ends, however it ends: a compile
    must not outlive the editor). Returns how many groups were signalled."""
    with _STARTED_LOCK:
        groups = sorted(_LIVE)
        _LIVE.clear()
    for pgid in groups:
        _kill_group(pgid)
    return len(groups)


@dataclass
class Completed:
    """Result of one program run.

    Attributes:
        argv: what ran. returncode: exit status (negative: killed by that signal; ``None``
        if it could not be started). stdout/stderr: decoded output (UTF-8, replaced).
        seconds: wall time. timed_out / cancelled: why it was killed, if it was.
        error: why it could not be started (``FileNotFoundError`` text etc.).
    """

    argv: tuple[str, ...]
    returncode: int | None
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool = False
    cancelled: bool = False
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not (self.timed_out or self.cancelled)


def _env(env: Mapping[str, str] | None) -> dict[str, str]:
    merged = dict(os.environ)
    if env:
        merged.update(env)
    return merged


def run(argv: Sequence[str], *, timeout: float, cwd: Path | None = None,
        env: Mapping[str, str] | None = None, input: str | None = None) -> Completed:
    """Run ``argv`` synchronously (for quick probes) and capture its output.

    Args:
        argv: program and arguments; never interpreted by a shell.
        timeout: seconds before the process group is killed (``timed_out`` set).
        env: variables added to the current environment.

    Never raises for a missing program, a refused one (:func:`set_guard`) or a timeout:
    see :class:`Completed`.
    """
    argv = tuple(str(a) for a in argv)
    refused = _refusal(argv, env)
    if refused is not None:
        return Completed(argv, None, "", "", 0.0, error=refused)
    _record(argv)
    start = time.monotonic()
    try:
        proc = subprocess.Popen(
            argv, cwd=cwd, env=_env(env), stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
        )
    except OSError as exc:
        return Completed(argv, None, "", "", time.monotonic() - start, error=f"{argv[0]}: {exc.strerror or exc}")
    _track(proc.pid)
    try:
        out, err = proc.communicate(input=input.encode() if input is not None else None, timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        _kill_group(proc.pid)
        out, err = proc.communicate()
        timed_out = True
    finally:
        _untrack(proc.pid)
    return Completed(argv, proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"),
                     time.monotonic() - start, timed_out=timed_out)


def _retrieve(future: asyncio.Future) -> None:
    """Mark a cancelled helper's outcome as seen (no "exception was never retrieved")."""
    if not future.cancelled():
        future.exception()


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class CancelToken:
    """Set by whoever wants a running program stopped (a newer save, the client's cancel)."""

    def __init__(self) -> None:
        self._event = asyncio.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    async def wait(self) -> None:
        await self._event.wait()


async def run_async(argv: Sequence[str], *, timeout: float, cwd: Path | None = None,
                    env: Mapping[str, str] | None = None, cancel: CancelToken | None = None,
                    on_stdout_line: Callable[[str], None] | None = None,
                    on_stderr_line: Callable[[str], None] | None = None) -> Completed:
    """Run ``argv`` without blocking the event loop; kill its process group on timeout or
    when ``cancel`` fires.

    Args:
        timeout: seconds. on_stdout_line / on_stderr_line: called with each line (no
            newline) as it arrives, for streaming output and progress. Lines may be of
            any length; the returned ``stdout``/``stderr`` keep at most
            :data:`MAX_CAPTURE` bytes each, then say how many more were not kept.

    Never raises for a missing program, a timeout or a cancellation: see :class:`Completed`.
    """
    argv = tuple(str(a) for a in argv)
    refused = _refusal(argv, env)
    if refused is not None:
        return Completed(argv, None, "", "", 0.0, error=refused)
    _record(argv)
    start = time.monotonic()
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv, cwd=cwd, env=_env(env), stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, start_new_session=True,
        )
    except OSError as exc:
        return Completed(argv, None, "", "", time.monotonic() - start, error=f"{argv[0]}: {exc.strerror or exc}")

    _track(proc.pid)
    try:
        return await _supervise(proc, argv, start, timeout, cancel, on_stdout_line, on_stderr_line)
    finally:
        # Also when the awaiting task is cancelled (the event loop closing at the end of
        # the session): the group must not outlive its caller.
        if proc.returncode is None:
            _kill_group(proc.pid)
        _untrack(proc.pid)


async def _pump(stream, sink: list[str], callback) -> None:
    """Read ``stream`` to its end, line by line, into ``sink`` (at most MAX_CAPTURE bytes kept)
    and ``callback``."""
    # Chunks, not readline(): asyncio's readline raises on a line over 64 KiB (a rustc
    # JSON diagnostic with a long type in it), which ended the whole run.
    kept = dropped = 0
    parts: list[bytes] = []
    partial = 0

    def emit(raw: bytes) -> None:
        nonlocal kept, dropped
        text = raw.decode("utf-8", "replace")
        if kept + len(raw) <= MAX_CAPTURE:
            sink.append(text)
            kept += len(raw) + 1
        else:
            dropped += len(raw) + 1
        if callback is not None:
            callback(text)

    while True:
        chunk = await stream.read(1 << 16)
        if not chunk:
            break
        start = 0
        while True:
            nl = chunk.find(b"\n", start)
            if nl < 0:
                parts.append(chunk[start:])
                partial += len(chunk) - start
                if partial > MAX_CAPTURE:  # a "line" that never ends: cut it
                    emit(b"".join(parts))
                    parts.clear()
                    partial = 0
                break
            parts.append(chunk[start:nl])
            emit(b"".join(parts))
            parts.clear()
            partial = 0
            start = nl + 1
    if partial:
        emit(b"".join(parts))
    if dropped:
        sink.append(f"[offload-ls: {dropped} more bytes of output were not kept]")


async def _supervise(proc, argv: tuple[str, ...], start: float, timeout: float, cancel: CancelToken | None,
                     on_stdout_line, on_stderr_line) -> Completed:
    out_lines: list[str] = []
    err_lines: list[str] = []

    # two tasks, no gather: a gather cancelled with them (the loop's teardown at `exit`)
    # ends with an exception of its own that nobody retrieves (asyncio logs it)
    readers = [asyncio.ensure_future(_pump(proc.stdout, out_lines, on_stdout_line)),
               asyncio.ensure_future(_pump(proc.stderr, err_lines, on_stderr_line))]
    waiter = asyncio.ensure_future(proc.wait())
    cancel_wait = asyncio.ensure_future(cancel.wait()) if cancel is not None else None
    try:
        waits = {waiter} | ({cancel_wait} if cancel_wait else set())
        done, _ = await asyncio.wait(waits, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        timed_out = not done
        cancelled = cancel_wait is not None and cancel_wait in done and waiter not in done
        if timed_out or cancelled:
            _kill_group(proc.pid)
            await waiter
        else:
            # The direct child exited; kill any grandchildren it left in the group.
            _kill_group(proc.pid)
        await asyncio.wait(readers, timeout=5)
        for task in readers:
            if task.done() and not task.cancelled() and task.exception() is not None:
                raise task.exception()
    finally:
        # Also when this coroutine is cancelled: no helper task is left pending.
        for task in (*readers, waiter, cancel_wait):
            if task is not None and not task.done():
                task.cancel()
                task.add_done_callback(_retrieve)
    return Completed(argv, proc.returncode, "\n".join(out_lines), "\n".join(err_lines),
                     time.monotonic() - start, timed_out=timed_out, cancelled=cancelled)
