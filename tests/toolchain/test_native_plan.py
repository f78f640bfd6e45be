"""Today's native three-pass pipeline as data (toolchain/plan.py, toolchain/build.py), compared
with the commands upstream records, for NVIDIA and AMD.

No rustc with the ``offload`` component can be downloaded here, so these plans are compared,
not run. The expected arguments are those of rust-lang/rust
tests/run-make/offload/host-std-device-nostd/rmake.rs and generic-manifest/rmake.rs (read with the
search tool, 2026-12-01):

    rustc example.rs -Zunstable-options -Zoffload=HostMetadata=example.manifest
          -Csymbol-mangling-version=v0 -Clto=fat --emit metadata
    rustc example.rs --cfg device -Zunstable-options -Zoffload=Device=example.manifest
          -Csymbol-mangling-version=v0 -Clto=fat -Cpanic=abort --emit obj
    rustc example.rs -Zunstable-options -Zoffload=Host=<abs device.bin>
          -Csymbol-mangling-version=v0 -Clto=fat --emit obj

and of rustc-dev-guide src/offload/usage.md for the device target:
``RUSTFLAGS="-Ctarget-cpu=gfx90a ..." cargo +offload build -Zunstable-options -r --target
amdgcn-amd-amdhsa -Zbuild-std=core``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from offload_ls.toolchain.build import build_plan
from offload_ls.toolchain.crate import Crate
from offload_ls.toolchain.discover import RustToolchain
from offload_ls.toolchain.doctor import NATIVE, DoctorReport
from offload_ls.toolchain.plan import check_plan
from offload_ls.toolchain.tools import LlvmTools

# (rmake.rs's flags, with the manifest / device.bin placeholders offload-ls fills with absolute paths)
RMAKE = {
    "host-metadata": ["-Zunstable-options", "-Zoffload=HostMetadata={manifest}", "-Csymbol-mangling-version=v0",
                      "-Clto=fat", "--emit=metadata"],
    "device": ["--cfg", "device", "-Zunstable-options", "-Zoffload=Device={manifest}",
               "-Csymbol-mangling-version=v0", "-Clto=fat", "-Cpanic=abort"],
    "host": ["-Zunstable-options", "-Zoffload=Host={device_bin}", "-Csymbol-mangling-version=v0", "-Clto=fat"],
}
TARGETS = {"nvptx64-nvidia-cuda": "sm_90", "amdgcn-amd-amdhsa": "gfx90a"}


def report_for(target: str, tmp_path: Path, modes=("HostMetadata=<Absolute-Path>", "Device=<Absolute-Path>",
                                                    "Host=<Absolute-Path>")) -> DoctorReport:
    tools = {t: f"/opt/llvm/bin/{t}" for t in (*LlvmTools.REQUIRED, *LlvmTools.OPTIONAL)}
    tc = RustToolchain(rustc="/opt/nightly/bin/rustc", cargo="/opt/nightly/bin/cargo", origin="rustup",
                       release="1.100.0-nightly", llvm_major=23, offload_modes=list(modes), native_offload=True,
                       gpu_std={t: "build-std" for t in TARGETS}, vendor_dir="/opt/nightly/vendor")
    return DoctorReport(toolchains=[tc], chosen=0, pipeline=NATIVE,
                        llvm=LlvmTools(23, "/opt/llvm/bin", tools, "/opt/llvm/lib/libomptarget.so"),
                        ptxas=None, gpus=[], target=target, arch=TARGETS[target])


def crate_at(tmp_path: Path) -> Crate:
    (tmp_path / "k").mkdir(exist_ok=True)
    return Crate(manifest=tmp_path / "k" / "Cargo.toml", name="k", root=tmp_path / "k",
                 target_dir=tmp_path / "k" / "target", bin="k", lib=False)


def rustc_args(argv: tuple[str, ...]) -> list[str]:
    return list(argv[argv.index("--") + 1:])


def expect(name: str, **paths: str) -> list[str]:
    return [a.format(**paths) for a in RMAKE[name]]


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_build_runs_the_three_passes_with_rmakes_arguments(tmp_path, target):
    crate = crate_at(tmp_path)
    plan = build_plan(crate, report_for(target, tmp_path), "gpu")
    names = [p.name for p in plan.passes]
    tag = f"{target.split('-')[0]}-{TARGETS[target]}"
    assert names[:2] == ["host-metadata", f"device-{tag}"] and names[-1] == "host", names
    meta, device, host = plan.passes[0], plan.passes[1], plan.passes[-1]
    manifest = str(crate.out_dir / "build" / "kernels.manifest")
    assert Path(manifest).is_absolute() and meta.emits == (Path(manifest),)
    for p, want in ((meta, expect("host-metadata", manifest=manifest)),
                    (device, expect("device", manifest=manifest))):
        args = rustc_args(p.argv)
        missing = [a for a in want if a not in args]
        assert not missing, (p.name, missing, args)
    # the manifest the device pass reads is the one the metadata pass writes
    assert f"-Zoffload=Device={manifest}" in device.argv
    # the device target as usage.md builds it
    assert device.argv[device.argv.index("--target") + 1] == target and "-Zbuild-std=core" in device.argv
    assert device.env[f"CARGO_TARGET_{target.upper().replace('-', '_')}_RUSTFLAGS"] == f"-Ctarget-cpu={TARGETS[target]}"
    # the host pass reads the device image bundled from the device pass's output
    bundle = next(p for p in plan.passes if p.name == "bundle")
    device_bin = str(bundle.emits[0])
    assert Path(device_bin).is_absolute()
    missing = [a for a in expect("host", device_bin=device_bin) if a not in rustc_args(host.argv)]
    assert not missing, missing
    assert not any(a.startswith("-Zoffload=Test") for p in plan.passes for a in p.argv)


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_check_on_save_writes_the_manifest_then_checks_device_and_host(tmp_path, target):
    crate = crate_at(tmp_path)
    plan = check_plan(crate, report_for(target, tmp_path))
    names = [p.name for p in plan.passes]
    assert names == ["host-metadata", "device", "host", "placeholder-device-bin", "host-ir"], names
    meta, device, host, placeholder, host_ir = plan.passes
    manifest = str(crate.out_dir / "kernels.manifest")
    assert not meta.concurrent and device.concurrent and host.concurrent  # device + host together
    assert "--profile" in meta.argv and meta.argv[meta.argv.index("--profile") + 1] == "check"
    for p, want in ((meta, expect("host-metadata", manifest=manifest)), (device, expect("device", manifest=manifest))):
        missing = [a for a in want if a not in rustc_args(p.argv)]
        assert not missing, (p.name, missing)
    # the transfer plan: the host pass's IR with rmake.rs's 8-byte placeholder device image
    device_bin = str(placeholder.emits[0])
    assert placeholder.argv[-1] == "8"
    args = rustc_args(host_ir.argv)
    assert not [a for a in expect("host", device_bin=device_bin) if a not in args]
    assert any(a.startswith("--emit=llvm-ir=") for a in args)


def test_a_two_pass_native_compiler_keeps_its_flags(tmp_path):
    """A self-built rustc from before #159566 (``Device`` / ``Host=`` only): no metadata pass."""
    crate = crate_at(tmp_path)
    report = report_for("nvptx64-nvidia-cuda", tmp_path, modes=("Device", "Host=<Absolute-Path>"))
    plan = build_plan(crate, report, "gpu")
    assert "host-metadata" not in [p.name for p in plan.passes]
    assert "-Zoffload=Device" in plan.passes[0].argv
