"""Follow a submitted Slurm job to its end (gpu/slurm.py submits it): ``squeue`` for its
state, elapsed time and pending reason while its output files stream in, ``scancel`` on
cancel or time-out, and the end state from ``sacct`` or, when accounting is off,
``scontrol show job``.

Commands and fields are those of Slurm's man pages (squeue(1) ``-o %T %M %R %N``, scontrol(1)
``show job -o``, sacct(1) ``-X -P -o State,ExitCode``); tested against Debian's slurm-wlm 22.05
(tests/gpu/test_remote.py).
"""

from __future__ import annotations

import asyncio
import base64
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from offload_ls.gpu.remote import Staged
from offload_ls.gpu.shell import Shell
from offload_ls.toolchain.process import MAX_CAPTURE, CancelToken, Completed

Progress = Callable[[str], None]


#: Job states after which a job never runs again (squeue(1) JOB STATE CODES).
FINAL_STATES = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED",
                "BOOT_FAIL", "DEADLINE", "SPECIAL_EXIT", "REVOKED"}


#: One poll: squeue's line for the job and its exit status, then what each output file
#: gained since the last poll, as base64 (exact bytes: invalid UTF-8 and characters split
#: across polls survive), at most CHUNK bytes per file and poll. Arguments: job id,
#: boundary, stdout path, offset, stderr path, offset, chunk bytes.
_POLL = r"""
echo "$2 squeue"
squeue -h -t all -j "$1" -o '%T|%M|%R|%N' 2>&1
echo "$2 squeue-status $?"
echo "$2 file"
if [ -f "$3" ]; then tail -c +"$(($4 + 1))" -- "$3" | head -c "$7" | base64; fi
echo "$2 file"
if [ -f "$5" ]; then tail -c +"$(($6 + 1))" -- "$5" | head -c "$7" | base64; fi
echo "$2 end"
"""


#: A line longer than this is passed on in pieces (bytes).
MAX_LINE = 1 << 20


#: Bytes of each output file read per poll (base64 makes them 4/3 as many on the wire).
CHUNK = 8 << 20


@dataclass
class JobResult:
    """How a job ended. ``state``: Slurm's final state; ``exit_status``: the program's exit
    status (negative: killed by that signal; ``None``: unknown); ``problems``: sentences."""

    job_id: str
    state: str = ""
    exit_status: int | None = None
    stdout: str = ""
    stderr: str = ""
    seconds: float = 0.0
    queued_seconds: float = 0.0
    node: str = ""
    reason: str = ""  # scontrol's Reason (JobLaunchFailure, ..)
    cancelled: bool = False
    timed_out: bool = False
    problems: list[str] = field(default_factory=list)


class _Follower:
    """What a job wrote to one output file, line by line, from the exact bytes."""

    def __init__(self, path: str, on_line: Callable[[str], None] | None) -> None:
        self.path = path
        self.offset = 0  # bytes consumed
        self.pending = b""
        self.kept: list[str] = []
        self.kept_bytes = 0
        self.dropped = 0
        self.on_line = on_line

    def feed(self, chunk: bytes, final: bool) -> None:
        """Take the bytes the file gained; complete lines go out (all of them when ``final``)."""
        self.offset += len(chunk)
        data = self.pending + chunk
        *lines, self.pending = data.split(b"\n")
        if len(self.pending) > MAX_LINE:  # output without newlines (progress bars with `\r`)
            lines.append(self.pending)
            self.pending = b""
        if final and self.pending:
            lines.append(self.pending)
            self.pending = b""
        for raw in lines:
            line = raw.decode("utf-8", errors="replace")
            if self.kept_bytes < MAX_CAPTURE:
                self.kept.append(line)
                self.kept_bytes += len(raw) + 1
            else:
                self.dropped += len(raw) + 1
            if self.on_line:
                self.on_line(line)

    def text(self) -> str:
        out = "\n".join(self.kept) + ("\n" if self.kept else "")
        return out + (f"[offload-ls: {self.dropped} more bytes of output were not kept]\n" if self.dropped else "")


def _parse_poll(text: str, boundary: str) -> tuple[str, int | None, bytes, bytes] | None:
    """(squeue's line, squeue's exit status, stdout bytes, stderr bytes) of one poll; only
    what lies between the poll's own boundary lines counts (a login shell's banner before or
    a goodbye after is not the job's). ``None`` when the answer is not a whole poll."""
    head, found, rest = text.partition(f"{boundary} squeue\n")
    if not found:
        return None
    squeue, found, rest = rest.partition(f"{boundary} squeue-status ")
    status_text, _, rest = rest.partition("\n")
    body, found, _ = rest.partition(f"{boundary} end")
    if not found:
        return None
    parts = body.split(f"{boundary} file")
    chunks = []
    for p in parts[1:3]:
        data = "".join(p.split())
        try:
            chunks.append(base64.b64decode(data, validate=True) if data else b"")
        except ValueError:
            return None
    if len(chunks) != 2:
        return None
    status = int(status_text) if status_text.strip().isdigit() else None
    line = next((ln for ln in squeue.splitlines() if ln.count("|") >= 3), "")
    return line, status, chunks[0], chunks[1]


async def follow(shell: Shell, job: str, staged: Staged, *, run_timeout: float, cancel: CancelToken | None,
                 progress: Progress | None = None, on_stdout: Callable[[str], None] | None = None,
                 on_stderr: Callable[[str], None] | None = None, poll_s: float = 1.0) -> JobResult:
    """Follow job ``job`` to its end: progress messages when its state or pending reason
    changes (and every 30 s while it waits, with the time waited); its output as it is
    written; ``scancel`` when ``cancel`` fires, when this task is cancelled (Ctrl-C), when it
    waited longer than the target's ``queue_timeout_s`` or ran longer than ``run_timeout``
    seconds. A failing ``squeue`` (slurmctld restarting, a busy controller) is retried for
    :data:`LOST_CONTACT_S` before giving up. Never raises for the job's own failures: they
    are in :attr:`JobResult.problems`."""
    try:
        return await _follow(shell, job, staged, run_timeout, cancel, progress or (lambda m: None),
                             on_stdout, on_stderr, poll_s)
    except asyncio.CancelledError:
        # Ctrl-C / SIGTERM in the CLI, or the server shutting down: the job must not outlive us
        await asyncio.shield(_scancel(shell, job))
        raise


#: Pending reasons (squeue ``%R``) under which a job never starts, with what to do
#: (Slurm's squeue(1) "JOB REASON CODES").
NEVER_STARTS = {
    "PartitionTimeLimit": "its time-limit is above the partition's MaxTime; lower time-limit",
    "PartitionNodeLimit": "it asks for more nodes than the partition allows",
    "PartitionDown": "the partition is down: choose another partition",
    "PartitionInactive": "the partition is inactive: choose another partition",
    "AccountNotAllowed": "the account may not use this partition: set another account or partition",
    "QOSMaxWallDurationPerJobLimit": "its time-limit is above the QOS's limit; lower time-limit",
    "InvalidAccount": "the account is invalid: set account",
    "InvalidQOS": "the QOS is invalid",
}


#: Seconds of failing polls (squeue or ssh errors) after which following a job stops.
LOST_CONTACT_S = 120.0


@dataclass
class _Watch:
    """When following began (``time.monotonic()``), when the job was first seen running
    (``None``: not yet), and the last (state, reason, time) said in a progress message."""

    start: float
    running_since: float | None = None
    last_said: tuple[str, str, float] = ("", "", 0.0)


async def _follow(shell: Shell, job: str, staged: Staged, run_timeout: float, cancel: CancelToken | None,
                  say: Progress, on_stdout, on_stderr, poll_s: float) -> JobResult:
    out = _Follower(f"{staged.work_dir}/jobs/job-{job}.out", on_stdout)
    err = _Follower(f"{staged.work_dir}/jobs/job-{job}.err", on_stderr)
    result = JobResult(job)
    watch = _Watch(time.monotonic())
    boundary = f"--offload-ls-{secrets.token_hex(8)}--"
    failing_since: float | None = None
    while True:
        done = await shell.run(["sh", "-c", _POLL, "sh", job, boundary, out.path, str(out.offset), err.path,
                                str(err.offset), str(CHUNK)], timeout=60.0)
        parsed = _parse_poll(done.stdout, boundary) if done.ok else None
        line, status, chunk_out, chunk_err = parsed if parsed is not None else ("", None, b"", b"")
        state, elapsed, reason, node = (line.split("|") + ["", "", "", ""])[:4]
        reason = "" if reason in ("(None)", "None") else reason.strip("()")
        known_gone = status not in (None, 0) and "Invalid job id" in done.stdout
        if parsed is None or status is None or (status != 0 and not known_gone):
            now = time.monotonic()
            failing_since = failing_since or now
            if now - failing_since > LOST_CONTACT_S:
                result.problems.append(_lost_contact(shell, job, done))
                result.stdout, result.stderr = out.text(), err.text()
                return result
            await asyncio.sleep(poll_s)
            continue
        failing_since = None
        final = known_gone or not line or (state.split()[0] if state else "") in FINAL_STATES
        if len(chunk_out) == CHUNK or len(chunk_err) == CHUNK:
            final = False  # more output to read before the end
        out.feed(chunk_out, final)
        err.feed(chunk_err, final)
        if node and node != "(null)":
            result.node = node
        if state == "RUNNING" and watch.running_since is None:
            watch.running_since = time.monotonic()
            result.queued_seconds = watch.running_since - watch.start
        now = time.monotonic()
        _say_state(say, job, watch, now, state, reason, elapsed, node)
        if final:
            break
        await _enforce_limits(shell, job, result, watch, now, state, reason, cancel, run_timeout)
        if len(chunk_out) < CHUNK and len(chunk_err) < CHUNK:
            await asyncio.sleep(poll_s)
    result.seconds = time.monotonic() - watch.running_since if watch.running_since is not None else 0.0
    await _final_state(shell, result, state if state in FINAL_STATES else "")
    result.stdout, result.stderr = out.text(), err.text()
    _explain(result, run_timeout)
    return result


def _lost_contact(shell: Shell, job: str, done: Completed) -> str:
    """The problem when polls kept failing for :data:`LOST_CONTACT_S`."""
    why = shell.unreachable(done) or (done.stdout.strip().splitlines()[:1] or [done.stderr.strip()])[0]
    return (f"lost contact with Slurm on {shell.target.describe()} for "
            f"{LOST_CONTACT_S:.0f} s while following job {job} ({why}); the job may "
            f"still run: `squeue -j {job}`, `scancel {job}`")


def _say_state(say: Progress, job: str, watch: _Watch, now: float, state: str, reason: str, elapsed: str,
               node: str) -> None:
    """A progress message when the state or pending reason changed, and every 30 s while pending."""
    last_said = watch.last_said
    if state and ((state, reason) != last_said[:2] or state == "PENDING" and now - last_said[2] >= 30):
        waited = f", waited {_clock(now - watch.start)}" if state == "PENDING" else f", {elapsed}" if elapsed else ""
        say(f"job {job} {state.lower()}" + (f" ({reason})" if state == "PENDING" and reason else "")
            + (f" on {node}" if state == "RUNNING" and node else "") + waited)
        watch.last_said = (state, reason, now)


async def _enforce_limits(shell: Shell, job: str, result: JobResult, watch: _Watch, now: float, state: str,
                          reason: str, cancel: CancelToken | None, run_timeout: float) -> None:
    """``scancel`` a job that is not final yet when ``cancel`` fired, when it can never start,
    waited longer than the target's ``queue_timeout_s`` or ran longer than ``run_timeout``."""
    running_since, start = watch.running_since, watch.start
    if cancel is not None and cancel.cancelled and not result.cancelled:
        result.cancelled = True
        await _scancel(shell, job)
    elif running_since is None and state == "PENDING" and reason.split(",")[0] in NEVER_STARTS \
            and not result.problems:
        result.problems.append(f"job {job} can never start ({reason}): "
                               f"{NEVER_STARTS[reason.split(',')[0]]}; it was cancelled")
        await _scancel(shell, job)
    elif running_since is None and now - start > shell.target.queue_timeout_s and not result.problems:
        advice = ("the partition is down: choose another partition" if "PartitionDown" in reason else
                  "raise queue-timeout-s or choose a less busy partition")
        result.problems.append(f"job {job} waited {now - start:.0f} s in the queue ({reason or 'pending'}) and was "
                               f"cancelled; {advice}")
        await _scancel(shell, job)
    elif running_since is not None and now - running_since > run_timeout and not result.timed_out:
        result.timed_out = True
        await _scancel(shell, job)


def _clock(seconds: float) -> str:
    s = int(seconds)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


async def _scancel(shell: Shell, job: str) -> None:
    await shell.run(["scancel", job], timeout=30.0)


async def _final_state(shell: Shell, result: JobResult, seen: str = "") -> None:
    """Fill ``state`` and ``exit_status`` from sacct, or scontrol when accounting is off
    (``seen``: the final state squeue showed, used when neither answers)."""
    job = result.job_id
    result.state = seen
    for _ in range(10):
        done = await shell.run(["sacct", "-n", "-X", "-P", "-j", job, "-o", "State,ExitCode"], timeout=30.0)
        line = done.stdout.strip().splitlines()[0] if done.ok and done.stdout.strip() else ""
        if line:
            state, _, code = line.partition("|")
            _set_exit(result, state.split()[0], code)
            return
        done = await shell.run(["scontrol", "show", "job", "-o", job], timeout=30.0)
        fields = dict(re.findall(r"(\w+)=(\S*)", done.stdout)) if done.ok else {}
        if fields.get("JobState"):
            _set_exit(result, fields["JobState"], fields.get("ExitCode", ""))
            result.reason = fields.get("Reason", "")
            if fields.get("NodeList") and fields["NodeList"] != "(null)":
                result.node = fields["NodeList"]
            if fields["JobState"] in FINAL_STATES:
                return
        await asyncio.sleep(1.0)


def _set_exit(result: JobResult, state: str, code: str) -> None:
    result.state = state
    status, _, signal = code.partition(":")
    if status.isdigit():
        sig = int(signal) if signal.isdigit() else 0
        # Slurm puts its own error codes in the signal field when a job never started on the
        # node (JobLaunchFailure: 0:53 when the output file cannot be opened); real signals are < 32
        result.exit_status = None if sig >= 32 else -sig if sig else int(status)


def _explain(result: JobResult, run_timeout: float) -> None:
    """Sentences for the ways a job ends that the program's own output does not explain."""
    job, state = result.job_id, result.state
    if result.reason == "JobLaunchFailure" or state == "FAILED" and result.exit_status is None:
        result.problems.append(f"job {job} could not be started on {result.node or 'its node'} "
                               f"({result.reason or 'launch failure'}): the node must see the work dir (a "
                               f"shared filesystem) and be able to write its jobs/ directory; see the node's "
                               f"slurmd log")
    elif state == "CANCELLED" and not result.cancelled and not result.timed_out and not result.problems:
        result.problems.append(f"job {job} was cancelled by someone else (scancel or an administrator)")
    elif state == "TIMEOUT":
        result.timed_out = True
        result.problems.append(f"job {job} reached its Slurm time limit and was killed: raise `time-limit`")
    elif result.timed_out:
        result.problems.append(f"job {job} ran longer than the run timeout ({run_timeout:g} s) and was cancelled")
    elif state == "NODE_FAIL":
        result.problems.append(f"the node {result.node or '?'} failed while job {job} ran (NODE_FAIL: its slurmd "
                               f"stopped answering); run again, and see `sinfo -R` for the node")
    elif state == "OUT_OF_MEMORY":
        result.problems.append(f"job {job} ran out of memory: ask for more with sbatch-options = [\"--mem=...\"]")
    elif state in ("PREEMPTED", "BOOT_FAIL", "DEADLINE", "REVOKED"):
        result.problems.append(f"job {job} ended as {state} before the program finished; run again")
    elif not state:
        result.problems.append(f"Slurm no longer knows job {job} and no end state could be read (is accounting "
                               f"off and MinJobAge short?); its output is in {result.node or 'the work dir'}")
