"""Run a staged bundle as a Slurm batch job: check the partition, then ``sbatch`` it;
gpu/slurm_follow.py follows the job to its end.

Commands and fields are those of Slurm's man pages (sbatch(1) ``--parsable``/``--chdir``/
``--export``/``--no-requeue``, sinfo(1) ``-N -o %N %G %T``); tested against Debian's
slurm-wlm 22.05 (tests/gpu/test_remote.py).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from offload_ls.gpu.remote import Staged
from offload_ls.gpu.shell import Shell
from offload_ls.gpu.targets import TargetError, arch_of_gres

#: Node states (sinfo ``%T``) in which a node takes no new job.
_DOWN = ("down", "drain", "drained", "draining", "fail", "failing", "future", "inval", "maint", "not_responding",
         "power_down", "powered_down", "unknown")


@dataclass
class Partition:
    """What ``sinfo`` says of a partition: its nodes' states and GPU archs."""

    name: str
    nodes: dict[str, str] = field(default_factory=dict)
    archs: list[str] = field(default_factory=list)
    gres: list[str] = field(default_factory=list)
    available: str = "up"  # sinfo %a: up / down / drain / inact

    @property
    def usable(self) -> list[str]:
        return [n for n, s in self.nodes.items() if not any(s.lower().rstrip("*~#!%$@^-").startswith(d) for d in _DOWN)
                and not s.endswith("*")]


async def partition_info(shell: Shell, partition: str, timeout: float = 60.0) -> Partition:
    """The nodes of ``partition`` (the default one when "") with their states and GRES.

    Raises:
        TargetError: sinfo is missing or fails, or the partition does not exist.
    """
    argv = ["sinfo", "-h", "-N", "-o", "%N|%G|%T|%P|%a"]
    if partition:
        argv += ["-p", partition]
    done = await shell.run(argv, timeout=timeout)
    why = shell.unreachable(done)
    if why:
        raise TargetError(why)
    if not done.ok:
        raise TargetError(f"sinfo failed on {shell.target.describe()}: "
                          f"{(done.stderr.strip() or f'exit status {done.returncode}').splitlines()[-1]}; "
                          f"is Slurm installed and slurmctld reachable there?")
    part = Partition(partition)
    for line in done.stdout.splitlines():
        bits = line.strip().split("|")
        if len(bits) < 4:
            continue
        node, gres, state, pname = bits[:4]
        if not partition and not pname.endswith("*"):
            continue  # the default partition is marked with '*'
        part.name = pname.rstrip("*")
        part.nodes[node] = state
        if len(bits) > 4 and bits[4].strip():
            part.available = bits[4].strip()
        if gres and gres != "(null)":
            part.gres.append(gres)
            part.archs += [a for a in arch_of_gres(gres) if a not in part.archs]
    if not part.nodes:
        raise TargetError(f"Slurm knows no partition {partition!r}" if partition else
                          "Slurm has no default partition: set `partition` in the run target")
    return part


def check_partition(part: Partition, image_archs: Sequence[str], configured_arch: str, wants_gpu: bool) -> list[str]:
    """Errors that make a job pointless before it is queued: no node up, or GPUs of another
    arch than the bundle's GPU image (which would fail with "no usable device").

    Returns:
        sentences (empty: go ahead)."""
    problems = []
    if part.available != "up":
        problems.append(f"partition {part.name} is {part.available} (its State is not UP): no job of it starts; "
                        f"choose another partition or ask the administrators")
    elif not part.usable:
        states = ", ".join(f"{n}: {s}" for n, s in sorted(part.nodes.items()))
        problems.append(f"partition {part.name} has no node that can take a job ({states}); see `sinfo -R` "
                        f"for why, or choose another partition")
    archs = part.archs or ([configured_arch] if configured_arch else [])
    if wants_gpu and image_archs and archs and not set(image_archs) & set(archs):
        problems.append(f"the bundle's GPU image is for {', '.join(image_archs)} but partition {part.name}'s GPUs "
                        f"are {', '.join(archs)}: rebuild with --arch {archs[0]} (or set gpuArch)")
    return problems


def sbatch_argv(shell: Shell, staged: Staged, job_name: str, env: dict[str, str], program_args: Sequence[str]
                ) -> list[str]:
    """The ``sbatch`` command for the staged bundle (output files in the work dir's
    ``jobs/``, removed after 14 days; no requeue, so a node failure ends the job instead of
    restarting it).

    Raises:
        TargetError: the work dir's real path holds a ``%`` (sbatch would expand it)."""
    t = shell.target
    meta = f"{staged.bundle_dir}/.offload-ls"
    if "%" in staged.work_dir:
        raise TargetError(f"the work dir's real path {staged.work_dir} holds a '%', which sbatch expands in file "
                          f"names; choose another work-dir")
    export = ",".join(["ALL", *(f"{k}={v}" for k, v in sorted(env.items()))])
    argv = ["sbatch", "--parsable", f"--job-name={job_name}", "--no-requeue", f"--chdir={staged.bundle_dir}",
            f"--output={staged.work_dir}/jobs/job-%j.out", f"--error={staged.work_dir}/jobs/job-%j.err",
            f"--export={export}"]
    if t.partition:
        argv.append(f"--partition={t.partition}")
    if t.account:
        argv.append(f"--account={t.account}")
    if t.gres:
        argv.append(f"--gres={t.gres}")
    elif t.gpus is not None:
        argv.append(f"--gpus={t.gpus}")
    if t.time_limit:
        argv.append(f"--time={t.time_limit}")
    argv += list(t.sbatch_options)
    return [*argv, f"{meta}/job.sh", *program_args]


async def submit(shell: Shell, argv: Sequence[str], timeout: float = 60.0) -> str:
    """Submit; the job id.

    Raises:
        TargetError: sbatch refused the job (its message, e.g. an unknown partition or
            account, is kept)."""
    try:
        done = await shell.run(argv, timeout=timeout)
    except asyncio.CancelledError:
        # Ctrl-C while sbatch runs: the job may be queued already; its name is unique
        name = next((a.split("=", 1)[1] for a in argv if a.startswith("--job-name=")), "")
        if name:
            await asyncio.shield(shell.run(["scancel", f"--name={name}"], timeout=30.0))
        raise
    why = shell.unreachable(done)
    if why:
        raise TargetError(why)
    # `--parsable` prints `jobid[;cluster]` as its last line (a login banner may come first)
    ids = [ln.split(";")[0] for ln in done.stdout.splitlines() if re.fullmatch(r"\d+(;\S+)?", ln.strip())]
    if not done.ok or not ids:
        lines = [ln for ln in (done.stderr.strip() or done.stdout.strip()).splitlines()
                 if ln.strip() and "--help" not in ln] or [f"exit status {done.returncode}"]
        raise TargetError("sbatch refused the job: " + "; ".join(lines[-4:]))
    return ids[-1].strip()


