"""Build and run, end to end: the steps ``offload-ls build`` / ``run`` and the server's
``offload-ls.build`` / ``offload-ls.run`` commands share.

doctor -> crate (cargo metadata) -> build plan -> passes -> images and kernel resources ->
optional bundle; run: build if stale -> launch with the runtime log -> run report.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from offload_ls.gpu.bundle import Bundle, BundleError, make_bundle, sha256_file
from offload_ls.gpu.launch import RunReport, run_binary
from offload_ls.gpu.ptx_perf import PtxKernelPerf, analyse_ptx
from offload_ls.gpu.resources import KernelResources, parse_ptxas_verbose
from offload_ls.gpu.targets import RunTarget
from offload_ls.gpu.profile import ProfileReport
from offload_ls.gpu.profile_run import profile_binary
from offload_ls.gpu.listing import Listing, SourceLoc, parse_asm, parse_llvm_ir, parse_sass
from offload_ls.toolchain.build import AssemblyPlan, BuildPlan, assembly_plan, build_plan
from offload_ls.toolchain.compile import CheckResult, resolve_placeholders, run_plan
from offload_ls.toolchain.crate import BuildSettings, Crate, load_crate
from offload_ls.toolchain.discover import find_cuda_tool
from offload_ls.toolchain.diagnostics import CompilerDiagnostic
from offload_ls.toolchain.doctor import DoctorReport
from offload_ls.toolchain.lower import LineMapper, Lowering, lower_for_pipeline
from offload_ls.toolchain import relink
from offload_ls.toolchain.process import CancelToken, run
from offload_ls.workspace.files import FileTooLarge, read_source, rust_files

Progress = Callable[[str], None]


@dataclass
class BuildOutcome:
    """Result of :func:`build_crate`.

    Attributes:
        exe: the executable (``None`` if the build failed). images: ``triple arch`` of each
        embedded image (from ``llvm-objdump --offloading``). resources: per-kernel figures
        from ``ptxas -v`` (NVIDIA arch only). ptx_perf: per-kernel counts read from the
        build's PTX (gpu/ptx_perf.py; NVIDIA arch with ``llc``). fresh: nothing was rebuilt.
    """

    crate: Crate
    exe: Path | None
    diagnostics: list[CompilerDiagnostic] = field(default_factory=list)
    images: list[str] = field(default_factory=list)
    resources: list[KernelResources] = field(default_factory=list)
    ptx_perf: list[PtxKernelPerf] = field(default_factory=list)
    bundle: Bundle | None = None
    seconds: float = 0.0
    fresh: bool = False
    cancelled: bool = False
    warnings: list[str] = field(default_factory=list)
    lowering: Lowering | None = None
    #: pass name -> seconds it ran (empty when nothing was rebuilt)
    pass_seconds: dict[str, float] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.exe is not None and not self.cancelled


def _load_crate(manifest: Path, report: DoctorReport, bin_name: str | None,
                settings: BuildSettings | None) -> Crate:
    """:func:`~offload_ls.toolchain.crate.load_crate` with the toolchain's rustc, and
    ``settings`` (when given) over the crate's own build settings."""
    tc = report.toolchain
    return load_crate(manifest, tc.cargo, bin_name, env={"RUSTC": tc.rustc} if tc else None, settings=settings)


def default_device_image(report: DoctorReport) -> str:
    """``gpu`` when a GPU is present, else ``host`` (kernels then run on the CPU)."""
    return "gpu" if report.gpus else "host"


def _stamp_path(crate: Crate) -> Path:
    return crate.out_dir / "build" / "stamp.json"


def _dep_info_lines(target_dir: Path, where: str) -> list[str]:
    """The lines of the dep-info files ``<target>/[<triple>/]<where>/*.d`` (unreadable ones
    skipped)."""
    lines: list[str] = []
    for d in [*target_dir.glob(f"{where}/*.d"), *target_dir.glob(f"*/{where}/*.d")]:
        try:
            lines += d.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
    return lines


def dep_info_sources(target_dir: Path) -> list[Path]:
    """Source files cargo's dep-info files (``<target>/[<triple>/]release/<bin>.d``, make
    syntax, spaces escaped as ``\\ ``) list below ``target_dir``: the crate's files and those
    of its path dependencies (the Cargo Book, "Build cache", dep-info files)."""
    out: list[Path] = []
    for line in _dep_info_lines(target_dir, "release"):
        _, sep, deps = line.partition(": ")
        if sep:
            out += [Path(p.replace("\x00", " ")) for p in deps.replace("\\ ", "\x00").split() if p]
    return out


def dep_info_env(target_dir: Path) -> tuple[str, ...]:
    """Environment variables rustc's dep-info files under ``target_dir`` say the build read
    (``# env-dep:NAME=value`` lines, written for ``env!`` / ``option_env!``): rustc's own
    dep-info (``release/deps/*.d``; cargo's ``release/<bin>.d`` has none), those of earlier
    builds too (a name more only costs a rebuild)."""
    return tuple(sorted({line[len("# env-dep:"):].split("=", 1)[0]
                         for line in _dep_info_lines(target_dir, "release/deps") if line.startswith("# env-dep:")}))


def dep_info_inputs(target_dirs: tuple[Path, ...]) -> tuple[list[Path], tuple[str, ...]]:
    """The sources and environment variables cargo's dep-info under ``target_dirs`` names."""
    return ([p for t in target_dirs for p in dep_info_sources(t)],
            tuple(n for t in target_dirs for n in dep_info_env(t)))


def build_inputs_digest(crate: Crate, target_dirs: tuple[Path, ...],
                        inputs: tuple[list[Path], tuple[str, ...]] | None = None) -> str:
    """The content digest of ``crate``'s build inputs (toolchain/relink.py ``source_digest``),
    with the path dependencies and environment reads cargo's dep-info under ``target_dirs``
    names (or ``inputs``, :func:`dep_info_inputs` taken earlier)."""
    sources, env = inputs if inputs is not None else dep_info_inputs(target_dirs)
    return relink.source_digest(crate.manifest.parent, crate.manifest, sources, env)


def _stamp_digest(crate: Crate, targets: tuple[Path, ...], before: tuple[list[Path], tuple[str, ...]],
                  digest: str) -> str:
    """The digest a finished build's stamp keeps: the one of its inputs with the dep-info it
    wrote, when nothing changed while it ran (the inputs named at its start digest as they
    did then), else the start's (a file saved meanwhile: the next build builds again)."""
    if build_inputs_digest(crate, targets, before) != digest:
        return digest
    return build_inputs_digest(crate, targets)


def is_fresh(crate: Crate, exe: Path, key: dict, stamp_path: Path | None = None,
             target_dirs: tuple[Path, ...] = ()) -> bool:
    """True if ``exe`` exists and its stamp (``stamp_path``, default the build's) holds the
    same settings ``key`` and the digest of the same build inputs
    (:func:`build_inputs_digest`, taken when that build started: a file saved during a build,
    or an older copy restored, is not taken as built)."""
    try:
        stamp = json.loads((stamp_path or _stamp_path(crate)).read_text())
    except (OSError, ValueError):
        return False
    if not isinstance(stamp, dict) or not exe.exists():
        return False
    sources = stamp.pop("sources", None)
    if stamp != key or sources is None:
        return False
    return sources == build_inputs_digest(crate, target_dirs)


def _forget_cargo_fingerprints(crate: Crate, targets: tuple[Path, ...]) -> None:
    """Make cargo compile the crate itself again (its dependencies stay built): cargo decides
    by file times, so a file put back with an older time, or saved while cargo compiled it,
    would look built to it. offload-ls has already decided by content
    (:func:`build_inputs_digest`) that this build is needed."""
    for target in targets:
        for fp in [*target.glob(f"release/.fingerprint/{crate.name}-*"),
                   *target.glob(f"*/release/.fingerprint/{crate.name}-*")]:
            shutil.rmtree(fp, ignore_errors=True)


def _prune_images(plan: BuildPlan) -> None:
    """Delete the device-image objects (``offload-image-<sha>.o``) of earlier builds: one per
    image ever built, never read again (the current one is named by its content)."""
    embed = next((p for p in plan.passes if p.name == "embed"), None)
    if embed is None or "-o" not in embed.argv:
        return
    try:
        current = Path(resolve_placeholders(embed.argv)[embed.argv.index("-o") + 1])
    except OSError:
        return
    for old in current.parent.glob("offload-image-*.o"):
        if old != current:
            old.unlink(missing_ok=True)


def _relink_host(plan: BuildPlan, crate: Crate, key: dict, fingerprint: str) -> bool:
    """Replace the plan's host pass by a relink (toolchain/relink.py) when the last full
    host pass was built with the same settings ``key`` from the same host-visible sources
    (``fingerprint``: :func:`relink.host_fingerprint` now); True if it did."""
    i = next((i for i, p in enumerate(plan.passes) if p.name == "host"), None)
    if i is None or plan.exe is None or relink.CAPTURE_ARGS[-1] not in plan.passes[i].argv:
        return False
    rec = relink.load(crate.out_dir / "build")
    try:
        stamp = json.loads(_stamp_path(crate).read_text())
    except (OSError, ValueError):
        return False
    if isinstance(stamp, dict):
        stamp.pop("sources", None)
    if rec is None or stamp != key or not rec.inputs_exist():
        return False
    if rec.fingerprint != fingerprint:
        return False
    p = relink.relink_pass(rec, plan.passes[i], plan.exe)
    if p is None:
        return False
    plan.passes[i] = p
    return True


def embedded_images(exe: Path, report: DoctorReport) -> list[str]:
    """``"<triple> <arch>"`` per image embedded in ``exe`` (``llvm-objdump --offloading``)."""
    objdump = report.llvm.tools.get("llvm-objdump") if report.llvm else None
    if not objdump:
        return []
    res = run([objdump, "--offloading", str(exe)], timeout=60)
    images, arch = [], ""
    for line in res.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 1 and parts[0] == "arch":
            arch = parts[1] if len(parts) > 1 else ""
        elif len(parts) >= 2 and parts[0] == "triple":
            images.append(f"{parts[1]} {arch or 'generic'}")
            arch = ""
    return images


async def build_crate(manifest: Path, report: DoctorReport, *, bin_name: str | None = None,
                      device_image: str | None = None, bundle_dir: Path | None = None,
                      cancel: CancelToken | None = None, progress: Progress | None = None,
                      force: bool = False, timeouts: dict[str, float] | None = None,
                      settings: BuildSettings | None = None) -> BuildOutcome:
    """Build ``manifest``'s crate to an executable with device images.

    Args:
        settings: build settings over the crate's Cargo.toml ones (``fp-contract``,
            ``max-registers``); ``None``: those.

    Raises:
        CrateError / ValueError: no usable crate or toolchain (message says what to do).
    """
    say = progress or (lambda m: None)
    tc = report.toolchain
    crate = _load_crate(manifest, report, bin_name, settings)
    image = device_image or default_device_image(report)
    crate, lowering = lower_for_pipeline(crate, report, image)
    outcome = BuildOutcome(crate, None, lowering=lowering)
    if lowering is not None:
        say(f"lowered the upstream spelling into {lowering.root} (kernels: "
            + ", ".join(e for entries in lowering.kernels.values() for e in entries) + ")")
    plan: BuildPlan = build_plan(crate, report, image, timeouts)
    plan.lowering = lowering
    if crate.max_registers and not any(i.triple.startswith("nvptx") for i in plan.images):
        outcome.warnings.append(f"max-registers = {crate.max_registers} applies to NVIDIA GPU images only; "
                                f"this build embeds {image} image(s) without one")
    if image == "both":
        outcome.warnings.append("--device-image both: on an H200 such a binary ran its kernels on the host "
                                "device although the GPU was there (docs/offload-notes.md); use gpu on GPU machines")
    key = {"image": image, "arch": report.arch, "target": report.target, "rustc": tc.rustc if tc else None,
           "pipeline": report.pipeline, "lowered": lowering is not None,
           # the passes themselves: a new offload-ls that builds differently rebuilds
           "passes": hashlib.sha256(json.dumps([p.argv for p in plan.passes]).encode()).hexdigest()[:16]}
    start = time.monotonic()
    out = crate.out_dir / "build"
    targets = (out / "target-host", out / "target-device")
    if not force and plan.exe is not None and is_fresh(crate, plan.exe, key, target_dirs=targets):
        say(f"{plan.exe} is up to date")
        outcome.fresh = True
    else:
        host_target = out / "target-host"
        # the inputs as this build starts (a file saved while it runs is not taken as built)
        before = dep_info_inputs(targets)
        digest = build_inputs_digest(crate, targets, before)
        # what the host pass would compile, before this build (the record of a full host pass
        # keeps the fingerprint taken at the same point: cargo rewrites Cargo.lock and dep-info)
        fingerprint = relink.host_fingerprint(crate.manifest.parent, crate.manifest, dep_info_sources(host_target),
                                              dep_info_env(host_target))
        relinking = not force and _relink_host(plan, crate, key, fingerprint)
        if relinking:
            say("only device code changed since the last host pass: relinking the host executable "
                "with the new device image (no host pass)")
        if plan.exe is not None and plan.exe.exists():
            plan.exe.unlink()  # a failed link must not leave the previous binary looking current
        _forget_cargo_fingerprints(crate, targets)
        result: CheckResult = await run_plan(
            plan, cancel=cancel, on_pass=lambda i, n, p: say(f"[{i + 1}/{n}] {p.name}: {p.label}"))
        host_run = next((p.completed for p in result.passes if p.name == "host" and p.completed is not None), None)
        if host_run is not None and host_run.ok and any(
                p.name == "host" and relink.CAPTURE_ARGS[-1] in p.argv for p in plan.passes):
            relink.record(out, host_run.stdout, fingerprint)
        outcome.diagnostics = result.diagnostics
        outcome.cancelled = result.cancelled
        outcome.pass_seconds = {p.name: p.completed.seconds for p in result.passes if p.completed is not None}
        if result.cancelled or plan.exe is None or not plan.exe.exists():
            outcome.seconds = time.monotonic() - start
            return outcome
        for p in result.passes:
            if p.name == "ptxas" and p.completed is not None:
                outcome.resources = parse_ptxas_verbose(p.completed.stderr)
                # `max-registers` below what ptxas can do with: it says so and raises the limit
                outcome.warnings += [f"ptxas: {line.split(':', 1)[-1].strip()} (max-registers = {crate.max_registers})"
                                     for line in p.completed.stderr.splitlines()
                                     if "adjusting per thread register count" in line]
        if plan.ptx is not None and plan.ptx.is_file():
            outcome.ptx_perf = analyse_ptx(plan.ptx.read_text(encoding="utf-8", errors="replace"))
        _stamp_path(crate).write_text(json.dumps({**key, "sources": _stamp_digest(crate, targets, before, digest)}))
        _prune_images(plan)
        (crate.out_dir / "build" / "resources.json").write_text(json.dumps(
            {"resources": [vars(r) for r in outcome.resources], "ptx_perf": [vars(p) for p in outcome.ptx_perf]}))
    if outcome.fresh:
        try:
            saved = json.loads((crate.out_dir / "build" / "resources.json").read_text())
            outcome.resources = [KernelResources(**r) for r in saved["resources"]]
            outcome.ptx_perf = [PtxKernelPerf(**p) for p in saved["ptx_perf"]]
        except (OSError, ValueError, TypeError, KeyError):
            pass
    outcome.exe = plan.exe
    outcome.images = embedded_images(plan.exe, report)
    if bundle_dir is not None:
        say(f"bundling into {bundle_dir}")
        outcome.bundle = make_bundle(plan.exe, bundle_dir)
    outcome.seconds = time.monotonic() - start
    return outcome


@dataclass
class RunOutcome:
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
    import shutil
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


def crate_has_offload_kernels(root: Path, max_bytes: int = 4 << 20) -> bool:
    """Does some ``.rs`` file below ``root`` (:func:`~offload_ls.workspace.files.rust_files`:
    ``target/`` and the like skipped) define a kernel this project's pipeline compiles (rustc
    offload, or a bare ``extern "gpu-kernel"``)? Files above ``max_bytes`` are not read."""
    from offload_ls.analysis.engine import analyze_source
    from offload_ls.analysis.model import Ecosystem

    for path in rust_files(root):
        try:
            data = read_source(path, max_bytes)
        except (OSError, FileTooLarge):
            continue
        if (b"offload" in data or b"gpu-kernel" in data) and any(
                k.ecosystem in (Ecosystem.OFFLOAD, Ecosystem.GPU_KERNEL_ABI) for k in analyze_source(data).kernels):
            return True
    return False


@dataclass
class AssemblyOutcome:
    """Result of :func:`assemble_crate`: the device listings of a crate's kernels.

    Attributes:
        files: format (``ptx`` / ``amdgcn``, ``llvm-ir``, ``sass``) -> file written under
            ``target/offload-ls/asm/``; only the formats the toolchain could make.
        arch: the GPU arch compiled for (``sm_90``, ``gfx90a``).
    """

    crate: Crate
    arch: str
    files: dict[str, Path] = field(default_factory=dict)
    diagnostics: list[CompilerDiagnostic] = field(default_factory=list)
    seconds: float = 0.0
    fresh: bool = False
    cancelled: bool = False
    lowering: Lowering | None = None

    @property
    def ok(self) -> bool:
        return bool(self.files) and not self.cancelled

    def listing(self, fmt: str) -> Listing:
        """Parse the listing of ``fmt``.

        Raises:
            KeyError: that format was not made (no nvdisasm for ``sass``, or the build failed).
            OSError: the file cannot be read.
        """
        text = self.files[fmt].read_text(encoding="utf-8", errors="replace")
        if fmt == "llvm-ir":
            listing = parse_llvm_ir(text)
        elif fmt == "sass":
            listing = parse_sass(text)
        else:
            listing = parse_asm(text, fmt, str(self.crate.manifest.parent))
        if self.lowering is not None:  # the debug info names the lowered copy: the user's lines
            mapper, base = LineMapper(self.lowering), self.crate.manifest.parent
            for i, chain in enumerate(listing.locs):
                out = []
                for loc in chain:
                    where = Path(loc.path) if os.path.isabs(loc.path) else base / loc.path
                    where = Path(os.path.normpath(where))
                    path, line = (mapper.map(where, loc.line) if loc.line > 0
                                  else (self.lowering.original_path(where), 0))
                    out.append(SourceLoc(str(path), line, loc.column))
                listing.locs[i] = tuple(out)
        return listing


async def assemble_crate(manifest: Path, report: DoctorReport, *, bin_name: str | None = None,
                         cancel: CancelToken | None = None, progress: Progress | None = None, force: bool = False,
                         timeouts: dict[str, float] | None = None, settings: BuildSettings | None = None) -> AssemblyOutcome:
    """Compile ``manifest``'s crate for the GPU target with line tables and return its device
    listings (PTX or AMDGPU assembly, optimised LLVM IR, SASS when nvdisasm exists). Reuses the
    last listings while no source changed.

    Raises:
        CrateError / ValueError: no usable crate or toolchain (the message says what to do).
    """
    say = progress or (lambda m: None)
    tc = report.toolchain
    crate = _load_crate(manifest, report, bin_name, settings)
    crate, lowering = lower_for_pipeline(crate, report, "gpu")
    plan: AssemblyPlan = assembly_plan(crate, report, timeouts)
    plan.lowering = lowering
    img = plan.image
    outcome = AssemblyOutcome(crate, img.arch, lowering=lowering)
    wanted = {"ptx" if img.triple.startswith("nvptx") else "amdgcn": img.asm, "llvm-ir": plan.ir}
    if plan.sass is not None:
        wanted["sass"] = plan.sass
    stamp = crate.out_dir / "asm" / "stamp.json"
    key = {"arch": img.arch, "target": img.triple, "rustc": tc.rustc if tc else None,
           "pipeline": report.pipeline, "formats": sorted(wanted), "bin": crate.bin, "fp_contract": crate.fp_contract,
           "max_registers": crate.max_registers}
    start = time.monotonic()
    asm_targets = (crate.out_dir / "asm" / "target-device",)
    before = dep_info_inputs(asm_targets)
    digest = build_inputs_digest(crate, asm_targets, before)
    if not force and is_fresh(crate, img.asm, key, stamp, asm_targets):
        say(f"the device listings in {img.asm.parent} are up to date")
        outcome.fresh = True
    else:
        # only before compiling: fresh listings were made from these kernels' sources
        if not crate_has_offload_kernels(manifest.parent):
            raise ValueError(f"{manifest.parent}: no rustc-offload kernel here (a function with "
                             f"#[rustc_offload_kernel] / #[offload_kernel] or extern \"gpu-kernel\"), so no device "
                             f"assembly to show; Rust-CUDA, rust-gpu and CubeCL kernels are built by their own tools")
        for path in wanted.values():
            path.unlink(missing_ok=True)
        result = await run_plan(plan, cancel=cancel,
                                on_pass=lambda i, n, p: say(f"[{i + 1}/{n}] {p.name}: {p.label}"))
        outcome.diagnostics, outcome.cancelled = result.diagnostics, result.cancelled
        for p in result.passes:
            if p.name == "nvdisasm" and p.completed is not None and p.completed.ok and plan.sass:
                plan.sass.write_text(p.completed.stdout, encoding="utf-8")
        if not result.cancelled and all(path.exists() for path in wanted.values()):
            # a failed SASS step is retried next time
            stamp.write_text(json.dumps({**key, "sources": _stamp_digest(crate, asm_targets, before, digest)}))
    outcome.files = {fmt: path for fmt, path in wanted.items() if path.exists()} if img.asm.exists() else {}
    outcome.seconds = time.monotonic() - start
    return outcome
