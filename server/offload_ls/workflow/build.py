"""``offload-ls build`` and the server's ``offload-ls.build``: doctor -> crate (cargo metadata)
-> build plan -> passes -> images and kernel resources -> optional bundle."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from offload_ls.gpu.bundle import Bundle, make_bundle
from offload_ls.gpu.ptx_perf import PtxKernelPerf, analyze_ptx
from offload_ls.gpu.resources import KernelResources, parse_ptxas_verbose
from offload_ls.toolchain import relink
from offload_ls.toolchain.build import BuildPlan, build_plan
from offload_ls.toolchain.compile import CheckResult, resolve_placeholders, run_plan
from offload_ls.toolchain.crate import BuildSettings, Crate, load_crate
from offload_ls.toolchain.diagnostics import CompilerDiagnostic
from offload_ls.toolchain.doctor import DoctorReport
from offload_ls.toolchain.lower import Lowering, lower_for_pipeline
from offload_ls.toolchain.process import CancelToken, run
from offload_ls.workflow.freshness import (
    build_inputs_digest,
    build_stamp_path,
    dep_info_env,
    dep_info_inputs,
    dep_info_sources,
    forget_cargo_fingerprints,
    is_fresh,
    stamp_digest,
)

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
        stamp = json.loads(build_stamp_path(crate).read_text())
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
    crate = _load_crate(manifest, report, bin_name, settings)
    image = device_image or default_device_image(report)
    crate, lowering = lower_for_pipeline(crate, report, image)
    outcome = BuildOutcome(crate, None, lowering=lowering)
    if lowering is not None:
        say(f"lowered the upstream spelling into {lowering.root} (kernels: "
            + ", ".join(e for entries in lowering.kernels.values() for e in entries) + ")")
    plan: BuildPlan = build_plan(crate, report, image, timeouts)
    plan.lowering = lowering
    outcome.warnings += _plan_warnings(crate, plan, image)
    key = _build_key(plan, report, image, lowering is not None)
    start = time.monotonic()
    targets = (crate.out_dir / "build" / "target-host", crate.out_dir / "build" / "target-device")
    if not force and plan.exe is not None and is_fresh(crate, plan.exe, key, target_dirs=targets):
        say(f"{plan.exe} is up to date")
        outcome.fresh = True
        _load_figures(outcome)
    elif not await _compile(plan, outcome, key, targets, force, cancel, say):
        outcome.seconds = time.monotonic() - start
        return outcome
    outcome.exe = plan.exe
    outcome.images = embedded_images(plan.exe, report)
    if bundle_dir is not None:
        say(f"bundling into {bundle_dir}")
        outcome.bundle = make_bundle(plan.exe, bundle_dir)
    outcome.seconds = time.monotonic() - start
    return outcome


def _plan_warnings(crate: Crate, plan: BuildPlan, image: str) -> list[str]:
    """What the user should know about a build plan before it runs."""
    warnings = []
    if crate.max_registers and not any(i.triple.startswith("nvptx") for i in plan.images):
        warnings.append(f"max-registers = {crate.max_registers} applies to NVIDIA GPU images only; "
                        f"this build embeds {image} image(s) without one")
    if image == "both":
        warnings.append("--device-image both: on an H200 such a binary ran its kernels on the host "
                        "device although the GPU was there (docs/offload-notes.md); use gpu on GPU machines")
    return warnings


def _build_key(plan: BuildPlan, report: DoctorReport, image: str, lowered: bool) -> dict:
    """The settings a build's stamp records: a build with other settings is not current."""
    tc = report.toolchain
    return {"image": image, "arch": report.arch, "target": report.target, "rustc": tc.rustc if tc else None,
            "pipeline": report.pipeline, "lowered": lowered,
            # the passes themselves: a new offload-ls that builds differently rebuilds
            "passes": hashlib.sha256(json.dumps([p.argv for p in plan.passes]).encode()).hexdigest()[:16]}


async def _compile(plan: BuildPlan, outcome: BuildOutcome, key: dict, targets: tuple[Path, Path], force: bool,
                   cancel: CancelToken | None, say: Progress) -> bool:
    """Run the build plan (the host pass replaced by a relink when only device code changed)
    and record its stamp and figures; False when it was cancelled or made no executable."""
    crate = outcome.crate
    out = crate.out_dir / "build"
    host_target = targets[0]
    # the inputs as this build starts (a file saved while it runs is not taken as built)
    before = dep_info_inputs(targets)
    digest = build_inputs_digest(crate, targets, before)
    # what the host pass would compile, before this build (the record of a full host pass
    # keeps the fingerprint taken at the same point: cargo rewrites Cargo.lock and dep-info)
    fingerprint = relink.host_fingerprint(crate.manifest.parent, crate.manifest, dep_info_sources(host_target),
                                          dep_info_env(host_target))
    if not force and _relink_host(plan, crate, key, fingerprint):
        say("only device code changed since the last host pass: relinking the host executable "
            "with the new device image (no host pass)")
    if plan.exe is not None and plan.exe.exists():
        plan.exe.unlink()  # a failed link must not leave the previous binary looking current
    forget_cargo_fingerprints(crate, targets)
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
        return False
    _read_figures(plan, result, outcome)
    build_stamp_path(crate).write_text(json.dumps({**key, "sources": stamp_digest(crate, targets, before, digest)}))
    _prune_images(plan)
    (out / "resources.json").write_text(json.dumps(
        {"resources": [vars(r) for r in outcome.resources], "ptx_perf": [vars(p) for p in outcome.ptx_perf]}))
    return True


def _read_figures(plan: BuildPlan, result: CheckResult, outcome: BuildOutcome) -> None:
    """Per-kernel resources from ``ptxas -v`` and counts from the PTX of a finished build."""
    for p in result.passes:
        if p.name == "ptxas" and p.completed is not None:
            outcome.resources = parse_ptxas_verbose(p.completed.stderr)
            # `max-registers` below what ptxas can do with: it says so and raises the limit
            outcome.warnings += [f"ptxas: {line.split(':', 1)[-1].strip()} "
                                 f"(max-registers = {outcome.crate.max_registers})"
                                 for line in p.completed.stderr.splitlines()
                                 if "adjusting per thread register count" in line]
    if plan.ptx is not None and plan.ptx.is_file():
        outcome.ptx_perf = analyze_ptx(plan.ptx.read_text(encoding="utf-8", errors="replace"))


def _load_figures(outcome: BuildOutcome) -> None:
    """The kernel figures the last build saved (an up-to-date build compiles nothing)."""
    try:
        saved = json.loads((outcome.crate.out_dir / "build" / "resources.json").read_text())
        outcome.resources = [KernelResources(**r) for r in saved["resources"]]
        outcome.ptx_perf = [PtxKernelPerf(**p) for p in saved["ptx_perf"]]
    except (OSError, ValueError, TypeError, KeyError):
        pass
