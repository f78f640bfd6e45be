"""Run a bundle on an ``ssh`` or ``slurm`` target and make the same :class:`RunReport` as a
local run (launches, dims and bytes per kernel from the runtime's log, problems).

Order (issue 14): checks that need no queue first (the target reachable, its glibc against
the bundle's, the partition's nodes and GPU archs against the image), then staging (only
what changed), then the run or the job; the job's id, state and elapsed time go to
``progress`` while it waits; ``cancel`` ends it on the target (``scancel`` / kill).
"""

from __future__ import annotations

import secrets
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from offload_ls.gpu.glibc import check_glibc
from offload_ls.gpu.launch import RunReport, diagnose
from offload_ls.gpu.remote import JOB_SCRIPT, bundle_entries, run_over_ssh, stage
from offload_ls.gpu.runlog import INFO_BITS, parse_info_log
from offload_ls.gpu.shell import Shell
from offload_ls.gpu.slurm import check_partition, partition_info, sbatch_argv, submit
from offload_ls.gpu.slurm_follow import follow
from offload_ls.gpu.targets import RunTarget, TargetError
from offload_ls.toolchain.process import CancelToken

Progress = Callable[[str], None]


def remote_env(device: int | None) -> dict[str, str]:
    """The runtime's settings for a run elsewhere (as :func:`offload_ls.gpu.launch.run_env`
    sets them here; the node's own libcuda is found by the bundle's ``run``)."""
    env = {"LIBOMPTARGET_INFO": str(INFO_BITS), "OMP_TARGET_OFFLOAD": "MANDATORY"}
    if device is not None:
        env["OMP_DEFAULT_DEVICE"] = str(device)
    return env


async def run_on_target(target: RunTarget, bundle: Path, program_args: Sequence[str] = (), *,
                        device: int | None = None, timeout: float = 300.0, cancel: CancelToken | None = None,
                        progress: Progress | None = None, on_stdout: Callable[[str], None] | None = None,
                        on_stderr: Callable[[str], None] | None = None, images: Sequence[str] = (),
                        image_archs: Sequence[str] = (), job_name: str = "offload-ls") -> RunReport:
    """Stage ``bundle`` (made by :func:`offload_ls.gpu.bundle.make_bundle`) on ``target`` and
    run it there.

    Args:
        timeout: seconds the program may run (the queue wait is the target's
            ``queue_timeout_s``). images / image_archs: the binary's embedded image triples
            and GPU archs, for the checks before anything is queued.

    Raises:
        TargetError: the target is unreachable or refuses the bundle before it runs (the
            message says what to do); nothing was queued then.
    """
    if not target.remote:
        raise TargetError("run_on_target needs an ssh or slurm target")
    say = progress or (lambda m: None)
    shell = Shell(target)
    exe = bundle / "run"
    gpu_image = any(not i.startswith("x86_64") for i in images)
    part = None
    if target.kind == "slurm":
        part = await partition_info(shell, target.partition)
        problems = check_partition(part, image_archs, target.gpu_arch, gpu_image)
        if problems:
            raise TargetError("; ".join(problems))
    with tempfile.TemporaryDirectory(prefix="offload-ls-job-") as scratch:
        entries = bundle_entries(bundle, {".offload-ls/job.sh": JOB_SCRIPT.encode()}, Path(scratch))
        staged = await stage(shell, entries, cancel=cancel, progress=say)
    check_glibc(bundle, staged.glibc, target.describe())
    if target.kind == "ssh" and gpu_image and staged.gpu_archs and image_archs \
            and not set(staged.gpu_archs) & set(image_archs):
        raise TargetError(f"the bundle's GPU image is for {', '.join(image_archs)} but {target.host}'s GPUs are "
                          f"{', '.join(staged.gpu_archs)}: rebuild with --arch {staged.gpu_archs[0]}")
    env = remote_env(device)
    if target.kind == "ssh":
        return await _run_ssh(shell, staged, program_args, env, str(exe), timeout=timeout, cancel=cancel,
                              say=say, on_stdout=on_stdout, on_stderr=on_stderr, images=images,
                              image_archs=image_archs, gpu_image=gpu_image)
    # a name of its own, so that a Ctrl-C while sbatch runs can still cancel it (slurm.submit)
    argv = sbatch_argv(shell, staged, f"{job_name}-{secrets.token_hex(3)}", env, program_args)
    job = await submit(shell, argv)
    say(f"submitted job {job} to {target.describe()}")
    result = await follow(shell, job, staged, run_timeout=timeout, cancel=cancel, progress=say,
                          on_stdout=on_stdout, on_stderr=on_stderr)
    status = result.exit_status
    if result.state not in ("COMPLETED", "FAILED") and status == 0 or result.cancelled:
        status = None  # NODE_FAIL, PREEMPTED, cancelled ..: Slurm's 0:0 does not mean the program succeeded
    report = _report(str(exe), status, result.seconds, result.stdout, result.stderr, result.timed_out,
                     result.cancelled)
    report.where = f"job {job}" + (f" on {result.node}" if result.node else "") + f", {target.describe()}"
    archs = part.archs if part is not None else []
    own = diagnose(report, None, timeout, (bool(archs) or None) if gpu_image else None, images, archs, image_archs)
    if result.problems:  # Slurm's account of the end says it better than the generic sentences
        own = [p for p in own if not p.startswith(("the program exited", "did not finish within"))]
    report.problems = result.problems + own
    return report


async def _run_ssh(shell: Shell, staged, program_args, env, exe: str, *, timeout: float, cancel, say,
                   on_stdout, on_stderr, images, image_archs, gpu_image: bool) -> RunReport:
    """The ssh half of :func:`run_on_target`: the program's own exit status from the
    target's shell (ssh's 255 is ambiguous), the report's problems."""
    target = shell.target
    say(f"running on {target.host}")
    done, status = await run_over_ssh(shell, staged, program_args, env, timeout=timeout, cancel=cancel,
                                      on_stdout=on_stdout, on_stderr=on_stderr)
    why = shell.unreachable(done) if status is None else None
    if done.cancelled or done.timed_out:
        code = None  # the local ssh client was killed; the program was killed on the target
    elif status is not None:
        code = -(status - 128) if status > 128 else status  # `wait` gives 128 + N for signal N
    else:
        code = done.returncode if why is None else None
    report = _report(exe, code, done.seconds, done.stdout, done.stderr, done.timed_out, done.cancelled)
    report.where = f"{target.host} (ssh)"
    report.problems = ([why] if why else []) + [
        p for p in diagnose(report, None, timeout, (bool(staged.gpu_archs) or None) if gpu_image else None,
                            images, staged.gpu_archs, image_archs)
        if not (why and p.startswith("the program exited"))]
    return report


def _report(exe: str, status: int | None, seconds: float, stdout: str, stderr: str, timed_out: bool,
            cancelled: bool) -> RunReport:
    lines = stderr.splitlines()
    program_err = "\n".join(line for line in lines if " info: " not in line)
    return RunReport(exe, status, seconds, parse_info_log(lines), stdout, program_err, timed_out, cancelled)
