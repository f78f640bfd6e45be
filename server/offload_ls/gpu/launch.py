"""Run a built offload binary with the runtime's log on, and report what happened.

The binary runs as an argv list with a timeout in its own process group (toolchain/process.py);
``OMP_TARGET_OFFLOAD=MANDATORY`` makes a missing device an error instead of silently
skipping kernels (with ``DISABLED`` the kernels are skipped and results are wrong, docs/offload-notes.md).
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from offload_ls.gpu.runlog import INFO_BITS, MANDATORY_FAILURE, MISSING_RUNTIME, TransferLog, parse_info_log
from offload_ls.toolchain.cache import cache_dir
from offload_ls.toolchain.facts import HOST_TRIPLE
from offload_ls.toolchain.process import CancelToken, run_async

DEFAULT_RUN_TIMEOUT = 300.0  # seconds


@dataclass
class RunReport:
    """What one run did.

    Attributes:
        exit_status: the process's exit status (negative: killed by that signal; ``None``:
            it could not be started). seconds: wall time.
        log: launches and copies parsed from the runtime's log.
        problems: plain sentences about what went wrong or looks wrong (empty: all good).
        stdout / stderr: the program's output (the runtime's log lines removed from stderr).
    """

    exe: str
    exit_status: int | None
    seconds: float
    log: TransferLog
    stdout: str = ""
    stderr: str = ""
    timed_out: bool = False
    cancelled: bool = False
    problems: list[str] = field(default_factory=list)
    #: where it ran when not here (``job 12 on node3, Slurm partition gpu``; ``"gpubox (ssh)"``)
    where: str = ""

    @property
    def ok(self) -> bool:
        return self.exit_status == 0 and not self.problems_fatal

    @property
    def problems_fatal(self) -> bool:
        return self.timed_out or self.cancelled or self.exit_status != 0

    def to_json(self) -> dict:
        """The run report as JSON (the ``offload-ls.run`` command's result; bytes, seconds)."""
        return {"ok": self.ok, "exitStatus": self.exit_status, "seconds": round(self.seconds, 3), "where": self.where,
                "timedOut": self.timed_out, "cancelled": self.cancelled, "problems": self.problems,
                "launches": [{"kernel": launch.kernel, "device": launch.device, "blocks": list(launch.blocks),
                              "threads": list(launch.threads), "hostDevice": launch.on_host, "mode": launch.mode,
                              "h2dBytes": launch.h2d_bytes, "d2hBytes": launch.d2h_bytes}
                             for launch in self.log.launches],
                "h2dBytes": self.log.h2d_bytes, "d2hBytes": self.log.d2h_bytes, "report": self.render()}

    def render(self) -> str:
        """The run report as text (what ``offload-ls run`` prints at the end)."""
        from offload_ls.toolchain.transfer_plan import human_bytes

        status = ("timed out" if self.timed_out else "cancelled" if self.cancelled
                  else "did not run to its end" if self.exit_status is None else f"exit status {self.exit_status}")
        where = f" ({self.where})" if self.where else ""
        lines = [f"run report{where}: {status}, {self.seconds:.2f} s wall, "
                 f"{len(self.log.launches)} kernel launch{'' if len(self.log.launches) == 1 else 'es'}, "
                 f"{human_bytes(self.log.h2d_bytes)} host→device, {human_bytes(self.log.d2h_bytes)} device→host"]
        for launch in self.log.launches:
            dims = f"{launch.dims} (host)*" if launch.on_host else launch.dims
            lines.append(f"  launch {launch.kernel:<20} device {launch.device} {dims:<22} {launch.mode:<8} "
                         f"→ {human_bytes(launch.h2d_bytes):>9} ({_copies(launch.h2d_copies)})  "
                         f"← {human_bytes(launch.d2h_bytes):>9} ({_copies(launch.d2h_copies)})")
        if any(launch.on_host for launch in self.log.launches):
            lines.append("  * libomptarget's Virtual Host Device: the dims are the host plugin's own team and thread "
                         "counts, not the launch's; the launch's grid runs inside the kernel")
        for p in self.problems:
            lines.append(f"  problem: {p}")
        return "\n".join(lines)


def _copies(n: int) -> str:
    return "1 copy" if n == 1 else f"{n} copies"


def cuda_shim_dir() -> Path | None:
    """A directory holding ``libcuda.so -> libcuda.so.1`` when the driver installed only
    ``libcuda.so.1`` (libomptarget's CUDA plugin dlopens the unversioned name; docs/offload-notes.md).
    ``None`` when not needed or no driver library is found."""
    search = [p for p in os.environ.get("LD_LIBRARY_PATH", "").split(":") if p] + [
        "/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/local/nvidia/lib64", "/usr/local/nvidia/lib",
        "/usr/local/cuda/compat", "/lib/x86_64-linux-gnu"]
    for d in search:
        if (Path(d) / "libcuda.so").exists():
            return None
    for d in search:
        lib = Path(d) / "libcuda.so.1"
        if lib.exists():
            shim = cache_dir() / "libcuda-shim"
            shim.mkdir(parents=True, exist_ok=True)
            link = shim / "libcuda.so"
            if not link.exists() or os.path.realpath(link) != os.path.realpath(lib):
                if link.is_symlink() or link.exists():
                    link.unlink()
                link.symlink_to(lib)
            return shim
    return None


def run_env(device: int | None = None, extra: dict[str, str] | None = None) -> dict[str, str]:
    """Environment for a run: runtime log bits, mandatory offload, device choice, shim."""
    env = {"LIBOMPTARGET_INFO": str(INFO_BITS), "OMP_TARGET_OFFLOAD": "MANDATORY"}
    if device is not None:
        env["OMP_DEFAULT_DEVICE"] = str(device)
    shim = cuda_shim_dir()
    if shim is not None:
        env["LD_LIBRARY_PATH"] = f"{shim}:{os.environ.get('LD_LIBRARY_PATH', '')}".rstrip(":")
    env.update(extra or {})
    return env


async def run_binary(exe: Path, args: Sequence[str] = (), *, device: int | None = None,
                     timeout: float = DEFAULT_RUN_TIMEOUT, cancel: CancelToken | None = None,
                     cwd: Path | None = None, on_stdout: Callable[[str], None] | None = None,
                     on_stderr: Callable[[str], None] | None = None,
                     gpu_present: bool | None = None, images: Sequence[str] = (),
                     gpu_archs: Sequence[str] = (), image_archs: Sequence[str] = (),
                     wrapper: Sequence[str] = (), extra_env: dict[str, str] | None = None) -> RunReport:
    """Run ``exe`` and build its :class:`RunReport`.

    Args:
        device: ``OMP_DEFAULT_DEVICE``; timeout: seconds before the process group is killed.
        on_stdout / on_stderr: each line as it arrives (the runtime log is on stderr).
        gpu_present: whether this machine has a GPU (from ``doctor``), for the checks.
        images: triples embedded in the binary (``llvm-objdump --offloading``).
        gpu_archs: archs of this machine's GPUs (``sm_90``); image_archs: archs of the
            binary's GPU images — a mismatch explains a launch that finds no kernel.
        wrapper: argv run in front of the binary (a profiler: ``ncu ... --``).
        extra_env: more environment (``LIBOMPTARGET_PROFILE``).
    """
    if not exe.is_file():
        return RunReport(str(exe), None, 0.0, TransferLog(), problems=[f"{exe}: no such binary; build it first"])
    done = await run_async([*wrapper, str(exe), *args], timeout=timeout, cwd=cwd or exe.parent,
                           env=run_env(device, extra_env),
                           cancel=cancel, on_stdout_line=on_stdout, on_stderr_line=on_stderr)
    log = parse_info_log(done.stderr.splitlines())
    if HOST_TRIPLE in images:
        # The runtime numbers the GPUs first, then the host plugin's devices (libomptarget
        # PluginManager: plugins in load order, host last); without a GPU every launch ran there.
        # With a GPU of unknown arch count, no launch is marked.
        first_host = 0 if not gpu_present else len(gpu_archs) if gpu_archs else None
        for launch in log.launches:
            launch.on_host = first_host is not None and launch.device >= first_host
    program_err = "\n".join(line for line in done.stderr.splitlines() if " info: " not in line)
    report = RunReport(str(exe), done.returncode, done.seconds, log, done.stdout, program_err,
                       done.timed_out, done.cancelled)
    report.problems = diagnose(report, done.error, timeout, gpu_present, images, gpu_archs, image_archs)
    return report


def diagnose(report: RunReport, start_error: str | None, timeout: float, gpu_present: bool | None,
             images: Sequence[str], gpu_archs: Sequence[str] = (), image_archs: Sequence[str] = ()) -> list[str]:
    """Sentences about what the run and its log reveal."""
    problems = []
    err = report.stderr
    if start_error:
        problems.append(f"could not start {report.exe}: {start_error}")
    if report.timed_out:
        problems.append(f"did not finish within {timeout:g} s and was killed (raise the run timeout, "
                        f"or look for a kernel that never terminates: a kernel that panics, e.g. on an "
                        f"index out of bounds, ends in the crate's #[panic_handler], often `loop {{}}`)")
    if MISSING_RUNTIME in err:
        lib = err.split(MISSING_RUNTIME, 1)[1].split(":")[1].strip() if ":" in err.split(MISSING_RUNTIME, 1)[1] else ""
        problems.append(f"the offload runtime library {lib or ''} is missing on this machine: install "
                        f"liboffload-22 (Debian) or build with --bundle DIR and run DIR/run")
    if MANDATORY_FAILURE in err:
        if HOST_TRIPLE not in images and not gpu_present:
            problems.append("no usable device: the binary holds only GPU images and this machine has no GPU "
                            "(or no libcuda/driver); rebuild with --device-image host to run the kernels on "
                            "the CPU (libomptarget's Virtual Host Device)")
        elif gpu_archs and image_archs and not set(gpu_archs) & set(image_archs):
            # Seen on an H200 with an sm_80 image: the data is mapped, then "Host ptr ... does
            # not have a matching target pointer" for the kernel, then this fatal error.
            problems.append(f"no usable device: the binary's GPU image is for {', '.join(image_archs)} but this "
                            f"machine's GPU is {', '.join(gpu_archs)}; rebuild with --arch {gpu_archs[0]}")
        else:
            problems.append("no usable device: the runtime could not run a kernel on any device "
                            "(\"failure of target construct while offloading is mandatory\"); check the "
                            "GPU arch (`offload-ls doctor`), the driver, and libcuda.so")
    if "out of range, only" in err and "device number" in err:
        tail = err.split("device number", 1)[1].splitlines()[0].strip()
        problems.append(f"no such device: device number {tail} (GPUs and libomptarget's host devices count); "
                        f"choose another with --device / offload-ls.device, or leave it unset for the first GPU")
    if report.exit_status not in (0, None) and not problems:
        status = report.exit_status
        if status < 0:
            try:
                name = signal.Signals(-status).name
            except ValueError:
                name = f"signal {-status}"
            problems.append(f"the program was killed by {name} (exit status {status})"
                            + ("; a panic or abort: its message is in the program's stderr"
                               if name == "SIGABRT" else ""))
        else:
            problems.append(f"the program exited with status {status}")
    generic_one = [launch for launch in report.log.launches if launch.total_threads == 1 and launch.mode == "Generic"]
    if generic_one and gpu_present:
        names = ", ".join(sorted({launch.kernel for launch in generic_one}))
        if HOST_TRIPLE in images:
            problems.append(f"kernels {names} ran with [1,1,1]x[1,1,1] in Generic mode although a GPU is "
                            f"present: the binary embeds an x86_64 image and the runtime chose the host device; "
                            f"build with --device-image gpu")
        else:
            problems.append(f"kernels {names} ran with [1,1,1]x[1,1,1] in Generic mode: one GPU thread does all "
                            f"the work")
    return problems

