"""What the pipeline says when things are missing or go wrong: no toolchain, no GPU
target, a hung compiler, a crate without kernels."""

import asyncio
import sys
from pathlib import Path

import pytest

from offload_ls.toolchain import discover, doctor
from offload_ls.toolchain.compile import run_plan
from offload_ls.toolchain.crate import Crate
from offload_ls.toolchain.plan import Pass, Plan


def test_no_toolchain_at_all_gives_host_only_with_install_command(monkeypatch, tmp_path):
    monkeypatch.setattr(doctor, "candidate_toolchains", lambda *a, **k: [])
    report = doctor.run_doctor(probe_gpus=False, cache=discover.ProbeCache(tmp_path / "c.json"))
    assert report.pipeline == doctor.HOST_ONLY
    assert report.chosen is None
    assert report.missing == ["no Rust toolchain with cargo found"]
    assert report.install == ("sudo apt-get update && sudo apt-get install -y rustc-web cargo-web rust-web-src "
                              "clang-22 lld-22 llvm-22 llvm-22-tools llvm-22-dev libomp-22-dev liboffload-22 "
                              "liboffload-22-dev")
    assert "Pipeline: host-only" in doctor.render_text(report)


@pytest.mark.toolchain
def test_toolchain_without_gpu_core_is_named(monkeypatch, tmp_path):
    stable = Path.home() / ".rustup" / "toolchains" / "stable-x86_64-unknown-linux-gnu" / "bin"
    if not (stable / "rustc").is_file():
        pytest.skip("needs a rustup stable toolchain without rust-src")
    monkeypatch.setattr(doctor, "candidate_toolchains",
                        lambda *a, **k: [(str(stable / "rustc"), str(stable / "cargo"), "rustup stable")])
    report = doctor.run_doctor(probe_gpus=False, cache=discover.ProbeCache(tmp_path / "c.json"))
    assert report.pipeline == doctor.HOST_ONLY
    assert report.missing == [f"{stable / 'rustc'} ({report.toolchain.release}): no `core` for "
                              f"nvptx64-nvidia-cuda (install rust-src: rust-web-src on Debian)"]


def test_hung_compiler_is_stopped_at_its_timeout_and_reported(tmp_path):
    crate = Crate(tmp_path / "Cargo.toml", "demo", tmp_path, tmp_path / "target", "demo", False)
    hang = Pass("device", "device nvptx64 sm_90", (sys.executable, "-c", "import time; time.sleep(60)"),
                {}, tmp_path, timeout=1.0)
    after = Pass("host-ir", "host", (sys.executable, "-c", "print('never')"), {}, tmp_path, 10.0, needs_clean=True)
    result = asyncio.run(run_plan(Plan(crate, "llvm-tools", [hang, after])))
    assert [(d.level, d.message, d.span) for d in result.diagnostics] == [
        ("error", "device nvptx64 sm_90 pass timed out after 1 s and was stopped", None)]
    assert [(p.name, p.skipped) for p in result.passes] == [("device", False), ("host-ir", True)]


def test_missing_compiler_binary(tmp_path):
    crate = Crate(tmp_path / "Cargo.toml", "demo", tmp_path, tmp_path / "target", "demo", False)
    gone = Pass("host", "host", ("/nonexistent/cargo", "rustc"), {}, tmp_path, 10.0)
    result = asyncio.run(run_plan(Plan(crate, "llvm-tools", [gone])))
    assert [d.message for d in result.diagnostics] == [
        "host pass could not start: /nonexistent/cargo: No such file or directory"]


def test_crate_without_offload_markers_is_not_compiled(tmp_path):
    from offload_ls.workflow.check import crate_uses_offload

    (tmp_path / "src").mkdir()
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "plain"\nversion = "0.1.0"\n')
    (tmp_path / "src" / "main.rs").write_text('fn main() { println!("hi"); }\n')
    assert not crate_uses_offload(tmp_path / "Cargo.toml")
    (tmp_path / "src" / "k.rs").write_text("pub fn l(x: &mut [f32; 4]) { core::intrinsics::offload(k, (x,)) }\n")
    assert crate_uses_offload(tmp_path / "Cargo.toml")


def test_an_explicit_rustc_wins_over_a_more_capable_one(monkeypatch, tmp_path):
    from offload_ls.toolchain.discover import RustToolchain

    weak = RustToolchain("/opt/weak/rustc", "/opt/weak/cargo", "setting", release="1.95.0", llvm_major=22,
                         offload_modes=["Test"], gpu_std={"nvptx64-nvidia-cuda": "missing"})
    strong = RustToolchain("/usr/bin/rustc", "/usr/bin/cargo", "Debian", release="1.96.0", llvm_major=22,
                           offload_modes=["Test"], native_offload=True, gpu_std={"nvptx64-nvidia-cuda": "prebuilt"})
    cands = {"/opt/weak/rustc": weak, "/usr/bin/rustc": strong}
    monkeypatch.setattr(doctor, "probe_toolchain", lambda r, c, o, cache=None: cands[r])
    monkeypatch.setattr(doctor, "candidate_toolchains",
                        lambda rustc=None, cargo=None: [(r, None, "x")
                                                        for r in ([rustc] if rustc else []) + ["/usr/bin/rustc"]])
    chosen = doctor.run_doctor(rustc="/opt/weak/rustc", probe_gpus=False, cache=discover.ProbeCache(tmp_path / "c"))
    assert (chosen.toolchain.rustc, chosen.pipeline) == ("/opt/weak/rustc", doctor.HOST_ONLY)
    default = doctor.run_doctor(probe_gpus=False, cache=discover.ProbeCache(tmp_path / "c"))
    assert (default.toolchain.rustc, default.pipeline) == ("/usr/bin/rustc", doctor.NATIVE)
