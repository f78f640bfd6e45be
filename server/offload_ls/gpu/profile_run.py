"""Profile a built offload binary: one plain run with the runtime's time trace (the run report
and copy/launch timings), then, with a GPU and Nsight Compute, one run under ``ncu`` for the
per-launch figures (:mod:`offload_ls.gpu.profile`).

``ncu`` writes a report file (``-o``) that a second ``ncu --import ... --csv --page raw`` turns
into CSV, so the program's own output never mixes with the CSV. Every failure becomes a note
that says what to do; nothing here raises for a missing tool, GPU or permission.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from offload_ls.gpu.launch import RunReport, run_binary
from offload_ls.gpu.profile import NCU_METRICS, ProfileError, ProfileReport, parse_ncu_raw, parse_runtime_profile
from offload_ls.toolchain.process import CancelToken, run_async

#: Nsight Compute's error when the driver restricts performance counters to admin users
#: (NVIDIA "ERR_NVGPUCTRPERM" support page).
COUNTER_PERMISSION = "ERR_NVGPUCTRPERM"
NO_KERNELS = "No kernels were profiled"


def ncu_note(stderr: str, stdout: str, returncode: int | None) -> str | None:
    """A sentence for an ncu run that gave no figures (``None`` when nothing went wrong)."""
    text = stderr + "\n" + stdout
    if COUNTER_PERMISSION in text:
        return ("Nsight Compute may not read the GPU's performance counters (ERR_NVGPUCTRPERM): run as root, or "
                "load the driver with NVreg_RestrictProfilingToAdminUsers=0 (NVIDIA's ERR_NVGPUCTRPERM page)")
    if NO_KERNELS in text:
        return "Nsight Compute profiled no kernel: the program launched none on the GPU (see the run report)"
    if returncode not in (0, None):
        last = next((line for line in reversed(text.splitlines()) if line.strip()), "")
        return f"ncu failed (exit status {returncode}): {last.strip()}"
    return None


async def profile_binary(exe: Path, args: Sequence[str] = (), *, out_dir: Path, gpu_present: bool,
                         ncu: str | None, device: int | None = None, timeout: float = 300.0,
                         cancel: CancelToken | None = None, progress: Callable[[str], None] | None = None,
                         run_kwargs: dict | None = None) -> tuple[RunReport, ProfileReport]:
    """Run ``exe`` for a profile; files go to ``out_dir`` (created).

    Returns:
        (the plain run's :class:`RunReport`, the :class:`ProfileReport`).
    """
    say = progress or (lambda m: None)
    out_dir.mkdir(parents=True, exist_ok=True)
    trace = out_dir / "omptarget-profile.json"
    trace.unlink(missing_ok=True)
    say(f"running {exe.name} with the runtime's time trace")
    rep = await run_binary(exe, args, device=device, timeout=timeout, cancel=cancel,
                           extra_env={"LIBOMPTARGET_PROFILE": str(trace)}, gpu_present=gpu_present,
                           **(run_kwargs or {}))
    profile = ProfileReport()
    try:
        profile.runtime = parse_runtime_profile(trace.read_text(encoding="utf-8", errors="replace"))
    except (OSError, ProfileError) as exc:
        profile.notes.append(f"no runtime time trace ({exc}): the program ended before the offload runtime wrote "
                             f"it, or the runtime predates LIBOMPTARGET_PROFILE")
    if not rep.ok:
        profile.notes.append("the program failed; no kernel profile was taken (see the run report)")
        return rep, profile
    if not gpu_present:
        profile.notes.append("no GPU here: kernel durations, DRAM bandwidth and occupancy need an NVIDIA GPU and "
                             "Nsight Compute; the kernels ran on libomptarget's Virtual Host Device")
        return rep, profile
    if ncu is None:
        profile.notes.append("Nsight Compute (ncu) not found: install the CUDA toolkit's nsight-compute or put ncu "
                             "on PATH for per-kernel duration, bandwidth, FLOP/s and occupancy")
        return rep, profile
    stem = out_dir / "kernels"
    say("profiling the kernels with Nsight Compute")
    wrapper = [ncu, "--target-processes", "all", "-f", "-o", str(stem), "--metrics", ",".join(NCU_METRICS)]
    under = await run_binary(exe, args, device=device, timeout=timeout * 10, cancel=cancel, wrapper=wrapper,
                             gpu_present=gpu_present, **(run_kwargs or {}))
    note = ncu_note(under.stderr, under.stdout, under.exit_status)
    report_file = stem.with_suffix(".ncu-rep")
    if note is not None or not report_file.exists():
        profile.notes.append(note or "ncu wrote no report")
        return rep, profile
    done = await run_async([ncu, "--import", str(report_file), "--csv", "--page", "raw", "--print-units", "base"],
                           timeout=120, cancel=cancel)
    try:
        profile.kernels, profile.gpu = parse_ncu_raw(done.stdout)
        profile.source = f"ncu {report_file}"
    except ProfileError:
        profile.notes.append(ncu_note(done.stderr, done.stdout, done.returncode or 1) or "ncu gave no CSV")
    return rep, profile
