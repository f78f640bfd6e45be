"""``offload-ls run`` / ``profile`` and the server's ``offload-ls.run`` / ``offload-ls.profile``:
build if stale -> launch with the runtime log (here, or staged on an ssh / Slurm target) ->
run report; or the profile of the run (the runtime's timings, Nsight Compute's figures)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from offload_ls.gpu.bundle import BundleError, make_bundle, sha256_file
from offload_ls.gpu.launch import RunReport, run_binary
from offload_ls.gpu.profile import ProfileReport
from offload_ls.gpu.profile_run import profile_binary
from offload_ls.gpu.targets import RunTarget
from offload_ls.toolchain.crate import BuildSettings
from offload_ls.toolchain.doctor import DoctorReport
from offload_ls.toolchain.process import CancelToken
from offload_ls.toolchain.tools import find_cuda_tool
from offload_ls.workflow.build import BuildOutcome, Progress, build_crate


@dataclass
class RunOutcome:
    """Result of :func:`run_crate`: the build and the run report (``None`` when the build failed)."""

    build: BuildOutcome
    report: RunReport | None


@dataclass
class ProfileOutcome:
    """Result of :func:`profile_crate`: the build, the plain run's report and the profile
    (``None`` for both when the build failed)."""

    build: BuildOutcome
    report: RunReport | None
    profile: ProfileReport | None


async def run_crate(manifest: Path, report: DoctorReport, args: list[str] | None = None, *,
                    bin_name: str | None = None, device: int | None = None, device_image: str | None = None,
                    timeout: float = 300.0, cancel: CancelToken | None = None, progress: Progress | None = None,
                    on_stdout: Callable[[str], None] | None = None,
                    on_stderr: Callable[[str], None] | None = None,
                    target: RunTarget | None = None, settings: BuildSettings | None = None,
                    force: bool = False) -> RunOutcome:
    """Build if stale (always with ``force``), then run with the runtime's log and return the
    run report.

    Args:
        target: where to run (gpu/targets.py); ``None`` or ``local``: here. For an ``ssh``
            or ``slurm`` target the binary is bundled once into ``<out>/bundles/<hash>``
            (:func:`remote_bundle`) and staged there (gpu/remote_run.py).

    Raises:
        TargetError: the target is unreachable or cannot run the bundle (nothing ran).
    """
    built = await build_crate(manifest, report, bin_name=bin_name, device_image=device_image,
                              cancel=cancel, progress=progress, settings=settings, force=force)
    if not built.ok:
        return RunOutcome(built, None)
    if target is not None and target.remote:
        from offload_ls.gpu.remote_run import run_on_target

        if progress:
            progress(f"bundling {built.exe.name} for {target.describe()}")
        bundle = remote_bundle(built.exe, built.crate.out_dir / "bundles")
        checks = _image_checks(built, report)
        rep = await run_on_target(target, bundle, args or [], device=device, timeout=timeout,
                                  cancel=cancel, progress=progress, on_stdout=on_stdout, on_stderr=on_stderr,
                                  images=checks["images"], image_archs=checks["image_archs"],
                                  job_name=f"offload-ls-{built.crate.name}")
        return RunOutcome(built, rep)
    if progress:
        progress(f"running {built.exe}")
    rep = await run_binary(built.exe, args or [], device=device, timeout=timeout, cancel=cancel,
                           on_stdout=on_stdout, on_stderr=on_stderr, gpu_present=bool(report.gpus),
                           **_image_checks(built, report))
    return RunOutcome(built, rep)


def remote_bundle(exe: Path, root: Path, keep: int = 3) -> Path:
    """The bundle of ``exe`` for a remote run: ``root/<hash of the binary>``, made once
    (in a private directory, then renamed into place, so concurrent runs of the same crate
    never see a half-made bundle or overwrite one another's); the ``keep`` most recent are
    kept, older ones removed.

    Raises:
        BundleError: ldd failed (make_bundle)."""
    import tempfile

    try:
        final = root / sha256_file(exe)[:16]
    except FileNotFoundError:
        raise BundleError(f"{exe} went away while it was being bundled (another build of this crate "
                          f"replaced it); run again when that build is done") from None
    if not (final / ".offload-ls-bundle").is_file():
        root.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".making-", dir=root))
        try:
            try:
                make_bundle(exe, tmp / "b", overwrite=True)
            except FileNotFoundError as exc:
                raise BundleError(f"{exc.filename} went away while it was being bundled (another build of this "
                                  f"crate?); run again when that build is done") from None
            try:
                os.rename(tmp / "b", final)
            except OSError:
                if not (final / ".offload-ls-bundle").is_file():
                    raise  # not a concurrent run that finished first
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    os.utime(final)
    others = sorted((d for d in root.iterdir() if d.is_dir() and not d.name.startswith(".") and d != final),
                    key=lambda d: d.stat().st_mtime, reverse=True)
    for old in others[keep - 1:]:
        shutil.rmtree(old, ignore_errors=True)
    return final


def _image_checks(built: BuildOutcome, report: DoctorReport) -> dict:
    return {"images": [i.split()[0] for i in built.images], "gpu_archs": [g.arch for g in report.gpus if g.arch],
            "image_archs": [i.split()[1] for i in built.images if not i.startswith("x86_64")]}


async def profile_crate(manifest: Path, report: DoctorReport, args: list[str] | None = None, *,
                        bin_name: str | None = None, device: int | None = None, device_image: str | None = None,
                        timeout: float = 300.0, cancel: CancelToken | None = None,
                        progress: Progress | None = None, settings: BuildSettings | None = None) -> ProfileOutcome:
    """Build if stale, then profile (:func:`offload_ls.gpu.profile_run.profile_binary`): the
    runtime's copy and launch timings always, Nsight Compute's per-launch figures with a GPU
    and ``ncu``. Files go to ``target/offload-ls/profile/``."""
    built = await build_crate(manifest, report, bin_name=bin_name, device_image=device_image,
                              cancel=cancel, progress=progress, settings=settings)
    if not built.ok:
        return ProfileOutcome(built, None, None)
    ncu = find_cuda_tool("ncu", report.cuda_path, beside=report.ptxas)
    rep, prof = await profile_binary(built.exe, args or [], out_dir=built.crate.out_dir / "profile",
                                     gpu_present=bool(report.gpus), ncu=ncu, device=device, timeout=timeout,
                                     cancel=cancel, progress=progress, run_kwargs=_image_checks(built, report))
    return ProfileOutcome(built, rep, prof)

