"""The offload pipeline as data: each pass is an argv list, environment, working
directory, timeout and the files it emits. The same plan serves check-on-save, ``check
--compile``, ``build``, tests and docs.

Commands follow docs/offload-notes.md ("Pipeline without native support"),
measured with Debian's rustc 1.96 and LLVM 22.
"""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

from offload_ls.toolchain import facts
from offload_ls.toolchain.crate import Crate
from offload_ls.toolchain.doctor import HOST_ONLY, NATIVE, DoctorReport, Pipeline
from offload_ls.toolchain.lower import Lowering

RELEASE_PROFILE = ("--config", 'profile.release.lto="fat"', "--config", 'profile.release.panic="abort"',
                   "--config", "profile.release.codegen-units=1")
DEFAULT_TIMEOUTS = {"check": 300.0, "ir": 600.0, "build": 900.0, "tool": 120.0}


@dataclass(frozen=True)
class Pass:
    """One step of the pipeline.

    Attributes:
        name: ``device``, ``host``, ``host-ir``... label: what diagnostics say
            (``device nvptx64 sm_90``, ``host``). json: stdout is cargo JSON.
        emits: files the pass writes (absolute paths).
        needs_clean: skip when an earlier pass reported an error.
        concurrent: may run at the same time as the neighbouring concurrent passes (they
            write to different target directories).
        replayable: a ``cargo rustc`` check whose rustc command may be replayed without
            cargo while the manifests are unchanged (toolchain/replay.py).
    """

    name: str
    label: str
    argv: tuple[str, ...]
    env: dict[str, str]
    cwd: Path
    timeout: float
    emits: tuple[Path, ...] = ()
    json: bool = True
    needs_clean: bool = False
    concurrent: bool = False
    replayable: bool = False


@dataclass
class Plan:
    """Passes in order, plus what the plan is for."""

    crate: Crate
    pipeline: Pipeline
    passes: list[Pass] = field(default_factory=list)
    #: set when ``crate`` is the lowered copy of the user's package (toolchain/lower.py):
    #: running the plan maps diagnostics back, and runs nothing if the lowering failed
    lowering: Lowering | None = None

    @property
    def ir_path(self) -> Path:
        return self.crate.out_dir / "host.ll"


def _target_args(crate: Crate) -> list[str]:
    return ["--bin", crate.bin] if crate.bin else (["--lib"] if crate.lib else [])


def _base_env(report: DoctorReport) -> dict[str, str]:
    tc = report.toolchain
    # RUSTC_ICE=0: a compiler crash must not drop rustc-ice-*.txt files into the user's crate.
    env = {"RUSTC_BOOTSTRAP": "1", "CARGO_TERM_COLOR": "never", "RUSTC_ICE": "0"}
    if tc is not None:
        env["RUSTC"] = tc.rustc  # so cargo does not pick a rustup shim (docs/offload-notes.md)
    return env


def device_cargo_config(report: DoctorReport) -> list[str]:
    """``--config`` arguments for ``-Zbuild-std=core``: crates.io replaced by the crates
    vendored in rust-src (offline), as docs/offload-notes.md describes."""
    tc = report.toolchain
    if tc is None or tc.vendor_dir is None or tc.gpu_std.get(report.target) != "build-std":
        return []
    return ["--config", 'source.crates-io.replace-with="offload-ls-std-vendor"',
            "--config", f'source.offload-ls-std-vendor.directory="{tc.vendor_dir}"',
            "--config", "net.offline=true"]


def kernel_manifest(out: Path) -> Path:
    """Where the host metadata pass writes the kernel manifest the device pass reads."""
    return out / "kernels.manifest"


def host_metadata_passes(crate: Crate, report: DoctorReport, out: Path, t: dict[str, float],
                         release: bool = True) -> list[Pass]:
    """Today's native pipeline starts with a host metadata pass that writes the kernel manifest
    (which kernels, which generic instantiations; rust-lang/rust #159566,
    tests/run-make/offload/generic-manifest/rmake.rs). Empty for other pipelines. ``release``:
    as ``build`` compiles (fat LTO), else as a check."""
    tc = report.toolchain
    if report.pipeline != NATIVE or tc is None or not tc.three_pass:
        return []
    manifest = kernel_manifest(out)
    return [Pass(
        "host-metadata", "host metadata",
        (tc.cargo, *(RELEASE_PROFILE if release else ()), "rustc",
         *(("--release",) if release else ("--profile", "check")),
         "--message-format=json", "--manifest-path", str(crate.manifest),
         *_target_args(crate), "--target-dir", str(out / "target-metadata"), "--",
         *facts.host_metadata_args(str(manifest)), facts.CHECK_DEVICE_CFGS),
        _base_env(report), crate.manifest.parent, t["check"], (manifest,))]


def device_pass_label(report: DoctorReport) -> str:
    return f"device {report.target.split('-')[0]} {report.arch}"


def check_plan(crate: Crate, report: DoctorReport, timeouts: dict[str, float] | None = None,
               transfer_plan: bool = True) -> Plan:
    """Passes for check-on-save: device pass (type-check for the GPU target), host pass
    (type-check), and, when ``transfer_plan``, a host pass that emits LLVM IR with the
    offload map types (``-Zoffload=Test``, fat LTO — slower: run after the checks)."""
    t = {**DEFAULT_TIMEOUTS, **(timeouts or {})}
    tc = report.toolchain
    plan = Plan(crate, report.pipeline)
    if tc is None or tc.cargo is None:
        return plan
    env = _base_env(report)
    manifest = ["--manifest-path", str(crate.manifest)]
    out = crate.out_dir
    three_pass = report.pipeline == NATIVE and tc.three_pass
    # today's nightly: the device pass reads the kernel manifest the host metadata pass writes
    plan.passes += host_metadata_passes(crate, report, out, t, release=False)
    native_device = facts.native_device_args(str(kernel_manifest(out))) if three_pass else ()
    if report.pipeline != HOST_ONLY:
        std = tc.gpu_std.get(report.target)
        build_std = ["-Zbuild-std=core"] if std == "build-std" else []
        plan.passes.append(Pass(
            name="device", label=device_pass_label(report),
            argv=(tc.cargo, *device_cargo_config(report), "rustc", "--profile", "check",
                  "--message-format=json", *manifest, *_target_args(crate), "--target", report.target,
                  *build_std, "--target-dir", str(out / "device"), "--", *facts.device_cfg_args(), *native_device),
            env=env, cwd=crate.manifest.parent, timeout=t["check"], concurrent=True, replayable=True))
    plan.passes.append(Pass(
        name="host", label="host",
        argv=(tc.cargo, "rustc", "--profile", "check", "--message-format=json", *manifest,
              *_target_args(crate), "--target-dir", str(out / "host"), "--", facts.CHECK_DEVICE_CFGS,
              *(["-Zoffload=Test", "-Zunstable-options"] if tc.supports_test_mode else [])),
        env=env, cwd=crate.manifest.parent, timeout=t["check"], concurrent=True, replayable=True))
    if transfer_plan and report.pipeline != HOST_ONLY and (tc.supports_test_mode or three_pass) and crate.bin:
        true = shutil.which("true") or "/bin/true"
        mode = ["-Zoffload=Test", "-Zunstable-options"]
        if three_pass:
            # the host pass needs a device image; its IR (the map types) does not depend on it
            placeholder = out / "host-ir" / "placeholder-device.bin"
            plan.passes.append(Pass(
                "placeholder-device-bin", "host",
                (sys.executable, "-c", "import sys, pathlib; p = pathlib.Path(sys.argv[1]); "
                 "p.parent.mkdir(parents=True, exist_ok=True); p.write_bytes(bytes(int(sys.argv[2])))",
                 str(placeholder), str(len(facts.PLACEHOLDER_DEVICE_BIN))),
                {}, crate.manifest.parent, t["tool"], (placeholder,), json=False))
            mode = list(facts.native_host_args(str(placeholder)))
        plan.passes.append(Pass(
            name="host-ir", label="host",
            argv=(tc.cargo, "--config", 'profile.dev.lto="fat"', "--config", 'profile.dev.panic="abort"',
                  "rustc", "--message-format=json", *manifest, *_target_args(crate),
                  "--target-dir", str(out / "host-ir"), "--", *mode, facts.CHECK_DEVICE_CFGS,
                  f"-Clinker={true}", f"--emit=llvm-ir={plan.ir_path}"),
            env=env, cwd=crate.manifest.parent, timeout=t["ir"], emits=(plan.ir_path,),
            needs_clean=True))
    return plan
