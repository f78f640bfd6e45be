"""Run targets against real components (issue 14): a Slurm cluster (slurmctld + slurmd +
munge, Debian's slurm-wlm) and an sshd on localhost, both started by tests/gpu/local_cluster.py,
running a bundle of tests/gpu/fixtures/remote-job built with the host image (its kernel
really runs, on the CPU). CI installs the packages and sets OFFLOAD_LS_REQUIRE_REMOTE=1:
then these must not skip."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from local_cluster import LocalCluster

from offload_ls.gpu.bundle import make_bundle
from offload_ls.gpu.glibc import check_glibc
from offload_ls.gpu.launch import run_binary
from offload_ls.gpu.remote import JOB_SCRIPT, bundle_entries, stage
from offload_ls.gpu.remote_run import run_on_target
from offload_ls.gpu.shell import Shell
from offload_ls.gpu.targets import RunTarget, TargetError
from offload_ls.toolchain.process import CancelToken
from offload_ls.workflow import build_crate

pytestmark = [pytest.mark.remote, pytest.mark.toolchain]

FIXTURE = Path(__file__).parent / "fixtures" / "remote-job"


@pytest.fixture(scope="session")
def job_bundle(offload_report, tmp_path_factory):
    """(bundle dir, image triples, GPU archs) of remote-job built with the host image."""
    crate = tmp_path_factory.mktemp("crates") / "remote-job"
    shutil.copytree(FIXTURE, crate, ignore=shutil.ignore_patterns("target"))
    built = asyncio.run(build_crate(crate / "Cargo.toml", offload_report, device_image="host"))
    assert built.ok, [d.message for d in built.diagnostics]
    bundle = make_bundle(built.exe, tmp_path_factory.mktemp("bundle") / "remote-job")
    return bundle.directory, [i.split()[0] for i in built.images]


def slurm(tmp_path: Path, **kw) -> RunTarget:
    return RunTarget(name="cluster", kind="slurm", work_dir=str(tmp_path / "work"), partition="gpu",
                     gres="gpu:1", time_limit="5", **kw)


def ssh(cluster: LocalCluster, work: str | None = None, **kw) -> RunTarget:
    return RunTarget(name="node", kind="ssh", host="gpunode", ssh_config=str(cluster.ssh_config),
                     work_dir=work or str(cluster.root / "ssh-work"), **kw)


async def _run(target: RunTarget, bundle, args=(), *, cancel_when: str | None = None, on_running=None,
               timeout: float = 120.0, images=None, image_archs=()):
    """run_on_target with progress recorded; cancels when a progress message contains
    ``cancel_when``; calls ``on_running()`` once when the job runs."""
    directory, triples = bundle
    messages: list[str] = []
    cancel = CancelToken()
    fired = []

    def say(m: str) -> None:
        messages.append(m)
        if cancel_when and cancel_when in m:
            cancel.cancel()
        if on_running and " running" in m and not fired:
            fired.append(m)
            on_running()

    rep = await run_on_target(target, directory, list(args), timeout=timeout, cancel=cancel, progress=say,
                              images=triples if images is None else images, image_archs=image_archs,
                              job_name="offload-ls-test")
    return rep, messages


async def test_slurm_job_gives_the_same_run_report_as_a_local_run(cluster, job_bundle, tmp_path):
    rep, messages = await _run(slurm(tmp_path), job_bundle, ["sleep", "3"])  # long enough to be seen running
    assert rep.exit_status == 0, (rep.problems, rep.stderr)
    assert rep.stdout.splitlines() == ["OK double: 4096"]
    # the runtime's log came back through the job's stderr file: the launches, dims and bytes
    # per kernel of the same bundle run here
    local = await run_binary(job_bundle[0] / "run", images=job_bundle[1], timeout=120)
    assert local.exit_status == 0
    assert [(launch.kernel, launch.blocks, launch.threads, launch.h2d_bytes, launch.d2h_bytes)
            for launch in rep.log.launches] == \
        [(launch.kernel, launch.blocks, launch.threads, launch.h2d_bytes, launch.d2h_bytes)
         for launch in local.log.launches]
    assert [(launch.kernel, launch.h2d_bytes, launch.d2h_bytes)
            for launch in rep.log.launches] == [("double", 16408, 16384)]
    job = next(m.split()[2] for m in messages if m.startswith("submitted job"))
    assert any(m.startswith(f"job {job} running on {cluster.node}") for m in messages), messages
    assert rep.where == f"job {job} on {cluster.node}, Slurm partition gpu"
    # a host image was asked for (remote runs build the GPU image unless told): no advice
    assert rep.problems == []
    assert rep.render().startswith(f"run report (job {job} on {cluster.node}, Slurm partition gpu): exit status 0")


async def test_staging_sends_only_what_changed(cluster, job_bundle, tmp_path):
    directory, _ = job_bundle
    shell = Shell(slurm(tmp_path))
    entries = bundle_entries(directory, {".offload-ls/job.sh": JOB_SCRIPT.encode()}, tmp_path)
    first = await stage(shell, entries)
    assert first.copied_files == len({e.sha256 for e in entries if not e.link}) and first.reused_files == 0
    assert first.copied_bytes > 1_000_000
    staged = Path(first.bundle_dir)
    assert (staged / "run").stat().st_mode & 0o111 and (staged / "lib" / "libomp.so").is_symlink()
    again = await stage(shell, entries)
    assert (again.bundle_id, again.copied_files) == (first.bundle_id, 0)
    # one file changed: one object sent, the rest linked from what is there
    changed = tmp_path / "changed"
    shutil.copytree(directory, changed, symlinks=True)
    (changed / "run").write_text((changed / "run").read_text() + "# changed\n")
    third = await stage(shell, bundle_entries(changed, {".offload-ls/job.sh": JOB_SCRIPT.encode()}, tmp_path))
    assert third.bundle_id != first.bundle_id and third.copied_files == 1
    assert third.copied_bytes == (changed / "run").stat().st_size
    assert glibc_of_this_machine() == third.glibc


def glibc_of_this_machine() -> str:
    return os.confstr("CS_GNU_LIBC_VERSION").split()[-1]


async def test_a_failing_job_says_its_exit_status_and_keeps_its_stderr(cluster, job_bundle, tmp_path):
    rep, _ = await _run(slurm(tmp_path), job_bundle, ["fail", "3"])
    assert rep.exit_status == 3 and not rep.ok
    assert "failing on purpose with status 3" in rep.stderr
    assert "the program exited with status 3" in rep.problems


async def test_output_larger_than_a_pipe_buffer_comes_back_whole(cluster, job_bundle, tmp_path):
    streamed: list[str] = []
    directory, triples = job_bundle
    rep = await run_on_target(slurm(tmp_path), directory, ["spam", "20000"], timeout=120, images=triples,
                              on_stdout=streamed.append)
    lines = rep.stdout.splitlines()
    assert len(lines) == 20001 and lines[-1].split()[0] == "19999" and len(rep.stdout) > 2_000_000
    assert streamed == lines


async def test_cancel_while_queued_cancels_the_job(cluster, job_bundle, tmp_path):
    target = slurm(tmp_path, sbatch_options=("--begin=now+300",))  # held until then: pending
    rep, messages = await _run(target, job_bundle, cancel_when="pending")
    assert sum("pending" in m for m in messages) == 1  # said once, not on every poll
    assert rep.cancelled and not rep.ok and rep.stdout == ""
    job = next(m.split()[2] for m in messages if m.startswith("submitted job"))
    state = subprocess.run(["scontrol", "show", "job", "-o", job], capture_output=True, text=True,
                           env=cluster.env, timeout=30).stdout
    assert "JobState=CANCELLED" in state


async def test_cancel_while_running_stops_the_program(cluster, job_bundle, tmp_path):
    directory, triples = job_bundle
    cancel = CancelToken()
    messages: list[str] = []
    rep = await run_on_target(slurm(tmp_path), directory, ["sleep", "120"], timeout=120, cancel=cancel,
                              images=triples, progress=messages.append,
                              on_stdout=lambda line: cancel.cancel() if line.startswith("OK double") else None)
    assert rep.cancelled and not rep.ok and rep.seconds < 60
    assert rep.stdout.splitlines() == ["OK double: 4096"]  # what it wrote before it was cancelled
    assert any(" running" in m for m in messages)


async def test_a_node_that_disappears_ends_the_job_with_a_clear_problem(cluster, job_bundle, tmp_path):
    try:
        rep, _ = await _run(slurm(tmp_path), job_bundle, ["sleep", "300"], on_running=cluster.stop_slurmd,
                            timeout=240)
    finally:
        cluster.start_slurmd()
    assert not rep.ok
    assert any("NODE_FAIL" in p and cluster.node in p for p in rep.problems), rep.problems


async def test_gpu_arch_mismatch_is_refused_before_anything_is_queued(cluster, job_bundle, tmp_path):
    before = cluster.jobs()
    with pytest.raises(TargetError, match=r"GPU image is for sm_80 but partition gpu's GPUs are sm_90"):
        await _run(slurm(tmp_path), job_bundle, images=["nvptx64-nvidia-cuda"], image_archs=["sm_80"])
    assert cluster.jobs() == before


async def test_unknown_partition_is_refused_with_its_name(cluster, job_bundle, tmp_path):
    target = RunTarget(name="c", kind="slurm", work_dir=str(tmp_path / "w"), partition="nosuch")
    with pytest.raises(TargetError, match="Slurm knows no partition 'nosuch'"):
        await _run(target, job_bundle)


def test_a_bundle_needing_a_newer_glibc_is_refused(job_bundle):
    directory, _ = job_bundle
    with pytest.raises(TargetError, match=r"needs glibc 2\.\d+ but old-node has 2\.17"):
        check_glibc(directory, "2.17", "old-node")
    check_glibc(directory, glibc_of_this_machine(), "this machine")  # no error


async def test_ssh_target_runs_the_bundle_and_reports(cluster, job_bundle):
    rep, messages = await _run(ssh(cluster), job_bundle)
    assert rep.exit_status == 0 and rep.stdout.splitlines() == ["OK double: 4096"]
    assert [(launch.kernel, launch.h2d_bytes, launch.d2h_bytes)
            for launch in rep.log.launches] == [("double", 16408, 16384)]
    assert any(m.startswith("checking gpunode (ssh)") for m in messages)
    rep, messages = await _run(ssh(cluster), job_bundle, ["fail", "5"])
    assert rep.exit_status == 5 and "failing on purpose with status 5" in rep.stderr
    assert any("already on gpunode" in m for m in messages)  # staged once


async def test_ssh_cancel_kills_the_program_on_the_target(cluster, job_bundle):
    directory, triples = job_bundle
    cancel = CancelToken()

    def out(line: str) -> None:
        if line.startswith("OK double"):
            cancel.cancel()

    rep = await run_on_target(ssh(cluster), directory, ["sleep", "97"], timeout=120, cancel=cancel,
                              images=triples, on_stdout=out)
    assert rep.cancelled
    await asyncio.sleep(0.5)
    left = subprocess.run(["pgrep", "-f", "remote-job sleep 97"], capture_output=True, text=True, timeout=30)
    assert left.stdout.strip() == "", "the program still runs on the target after the cancel"


async def test_unreachable_ssh_target_says_what_to_check(cluster, job_bundle):
    target = RunTarget(name="gone", kind="ssh", host="127.0.0.1", ssh_options=("Port=1",), connect_timeout_s=5)
    with pytest.raises(TargetError, match=r"cannot reach 127\.0\.0\.1 over ssh .*"
                                          r"`ssh -o BatchMode=yes -o ConnectTimeout=5 -o Port=1 -- 127\.0\.0\.1 true`"):
        await _run(target, job_bundle)


async def test_slurm_through_a_login_node_over_ssh(cluster, job_bundle):
    target = RunTarget(name="login", kind="slurm", host="gpunode", ssh_config=str(cluster.ssh_config),
                       work_dir=str(cluster.root / "login-work"), partition="gpu", gpus=1, time_limit="5")
    rep, messages = await _run(target, job_bundle, ["fail", "2"])
    assert rep.exit_status == 2 and rep.stdout.splitlines() == ["OK double: 4096"]
    assert any(m.startswith("submitted job") and "via gpunode" in m for m in messages)


def test_cli_runs_on_a_target_named_in_cargo_toml(cluster, offload_report, tmp_path):
    crate = tmp_path / "remote-job"
    shutil.copytree(FIXTURE, crate, ignore=shutil.ignore_patterns("target"))
    with (crate / "Cargo.toml").open("a") as fh:
        fh.write(f'\n[package.metadata.offload-ls]\nrun-target = "cluster"\n\n'
                 f'[package.metadata.offload-ls.run-targets.cluster]\nkind = "slurm"\nwork-dir = "{tmp_path / "w"}"\n'
                 f'partition = "gpu"\ngres = "gpu:1"\ntime-limit = "5"\n')
    done = subprocess.run([sys.executable, "-m", "offload_ls", "run", "--device-image", "host", str(crate), "--",
                           "fail", "7"], capture_output=True, text=True, timeout=600, env=cluster.env)
    assert done.returncode == 1, done.stderr
    assert "OK double: 4096" in done.stdout
    assert "running on Slurm partition gpu (run target cluster)" in done.stderr
    assert "submitted job" in done.stderr
    assert "run report (job " in done.stdout and "Slurm partition gpu): exit status 7" in done.stdout
    assert "launch double" in done.stdout
    bad = subprocess.run([sys.executable, "-m", "offload_ls", "run", "--on", "nope", str(crate)],
                         capture_output=True, text=True, timeout=120, env=cluster.env)
    assert bad.returncode == 2 and "no run target named 'nope'; defined: local, cluster" in bad.stderr


def test_bundling_the_same_binary_again_rewrites_nothing(job_bundle, tmp_path):
    directory, _ = job_bundle
    exe = next(p for p in directory.iterdir() if p.is_file() and os.access(p, os.X_OK) and p.name != "run")
    lib = next((directory / "lib").glob("libomptarget*"))
    before = (lib.stat().st_mtime_ns, lib.stat().st_ino)
    again = make_bundle(exe, directory)  # the bundle's own binary: same size and mtime
    assert again.directory == directory and (lib.stat().st_mtime_ns, lib.stat().st_ino) == before
    other = tmp_path / "exe"
    shutil.copy(exe, other)  # a new binary (new mtime): bundled afresh
    rebuilt = make_bundle(other, tmp_path / "b2")
    assert (rebuilt.directory / "exe").exists() and rebuilt.libraries



def _cli_until(args: list[str], env: dict, marker: str, timeout: float = 300.0) -> subprocess.Popen:
    """Start `offload-ls ARGS` and return once its stderr or stdout shows ``marker``."""
    import selectors

    proc = subprocess.Popen([sys.executable, "-m", "offload_ls", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, text=True)
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    sel.register(proc.stderr, selectors.EVENT_READ)
    import time
    deadline = time.monotonic() + timeout
    seen = ""
    while time.monotonic() < deadline:
        for key, _ in sel.select(timeout=1.0):
            line = key.fileobj.readline()
            seen += line
            if marker in line:
                return proc
        if proc.poll() is not None:
            break
    proc.kill()
    raise AssertionError(f"never saw {marker!r}: {seen[-2000:]}")


def _crate_with_targets(tmp_path: Path, cluster: LocalCluster) -> Path:
    crate = tmp_path / "remote-job"
    shutil.copytree(FIXTURE, crate, ignore=shutil.ignore_patterns("target"))
    with (crate / "Cargo.toml").open("a") as fh:
        fh.write(f'\n[package.metadata.offload-ls.run-targets.cluster]\nkind = "slurm"\nwork-dir = "{tmp_path / "w"}"\n'
                 f'partition = "gpu"\ngpus = 1\ntime-limit = "5"\n'
                 f'\n[package.metadata.offload-ls.run-targets.node]\nkind = "ssh"\nhost = "gpunode"\n'
                 f'ssh-config = "{cluster.ssh_config}"\nwork-dir = "{tmp_path / "s"}"\n')
    return crate


def test_ctrl_c_in_the_cli_cancels_the_job_and_kills_the_remote_program(cluster, offload_report, tmp_path):
    import signal
    import time

    crate = _crate_with_targets(tmp_path, cluster)
    before = set(cluster.jobs())
    proc = _cli_until(["run", "--on", "cluster", "--device-image", "host", str(crate), "--", "sleep", "120"],
                      cluster.env, "OK double")
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=60) != 0
    (job,) = set(cluster.jobs()) - before
    state = subprocess.run(["scontrol", "show", "job", "-o", job], capture_output=True, text=True,
                           env=cluster.env, timeout=30).stdout
    assert "JobState=CANCELLED" in state, state
    # ssh: a program that prints nothing more (no SIGPIPE would end it) is killed on the target
    proc = _cli_until(["run", "--on", "node", "--device-image", "host", str(crate), "--", "sleep", "96"],
                      cluster.env, "OK double")
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=60) != 0
    time.sleep(1.0)
    left = subprocess.run(["pgrep", "-f", "remote-job sleep 96"], capture_output=True, text=True, timeout=30)
    assert left.stdout.strip() == "", "the program still runs on the target after Ctrl-C"


async def test_a_program_killed_by_a_signal_over_ssh_is_not_called_unreachable(cluster, job_bundle):
    rep, _ = await _run(ssh(cluster), job_bundle, ["abort"])
    assert rep.exit_status == -6 and not any("cannot reach" in p for p in rep.problems)
    assert "the program was killed by SIGABRT (exit status -6)" in rep.problems[0]


async def test_output_bytes_survive_invalid_utf8_and_characters_split_between_polls(cluster, job_bundle, tmp_path):
    for target in (slurm(tmp_path), ssh(cluster)):
        streamed: list[str] = []
        directory, triples = job_bundle
        rep = await run_on_target(target, directory, ["utf8"], timeout=120, images=triples,
                                  on_stdout=streamed.append)
        assert streamed == ["OK double: 4096", "bad:\ufffd\ufffd:end", "split:\U0001f600 after"], target.kind
        assert rep.exit_status == 0 and rep.stdout.splitlines() == streamed


async def test_a_controller_outage_is_waited_out_not_taken_for_the_end(cluster, job_bundle, tmp_path):
    import threading

    def outage() -> None:
        cluster.stop_slurmctld()
        threading.Event().wait(8.0)
        cluster.start_slurmctld()

    worker: list[threading.Thread] = []
    rep, messages = await _run(slurm(tmp_path), job_bundle, ["sleep", "15"],
                               on_running=lambda: worker.append(threading.Thread(target=outage)) or worker[0].start())
    worker[0].join()
    assert rep.exit_status == 0 and rep.stdout.splitlines() == ["OK double: 4096"], (rep.problems, messages)


async def test_a_down_partition_is_refused_before_anything_is_queued(cluster, job_bundle, tmp_path):
    before = cluster.jobs()
    cluster.set_partition("DOWN")
    try:
        with pytest.raises(TargetError, match="partition gpu is down"):
            await _run(slurm(tmp_path), job_bundle)
    finally:
        cluster.set_partition("UP")
    assert cluster.jobs() == before


def test_concurrent_runs_share_one_bundle_per_binary(job_bundle, tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    from offload_ls.workflow import remote_bundle

    directory, _ = job_bundle
    exe = next(p for p in directory.iterdir() if p.is_file() and os.access(p, os.X_OK) and p.name != "run")
    with ThreadPoolExecutor(4) as pool:
        made = list(pool.map(lambda _: remote_bundle(exe, tmp_path / "bundles"), range(4)))
    assert len(set(made)) == 1 and (made[0] / ".offload-ls-bundle").is_file()
    assert sorted(p.name for p in (tmp_path / "bundles").iterdir()) == [made[0].name]  # no half-made leftovers



async def test_a_work_dir_offload_ls_did_not_make_is_refused_and_never_cleaned(cluster, job_bundle, tmp_path):
    import time

    work = tmp_path / "home"
    (work / "objects").mkdir(parents=True)
    mine = work / "objects" / "experiment.dat"
    mine.write_text("a user's data")
    old = time.time() - 30 * 86400
    os.utime(mine, (old, old))
    with pytest.raises(TargetError, match="offload-ls did not make"):
        await _run(dataclasses.replace(slurm(tmp_path), work_dir=str(work)), job_bundle)
    assert mine.read_text() == "a user's data"


async def test_a_job_that_cannot_start_is_cancelled_with_the_reason(cluster, job_bundle, tmp_path):
    # the partition's MaxTime is 60 minutes: a 2-hour job never starts (PartitionTimeLimit)
    target = dataclasses.replace(slurm(tmp_path), time_limit="02:00:00")
    rep, _ = await _run(target, job_bundle)
    assert not rep.ok and any("can never start (PartitionTimeLimit)" in p and "lower time-limit" in p
                              for p in rep.problems), rep.problems
