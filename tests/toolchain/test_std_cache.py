"""The device pass's `core` build shared across crates (toolchain/std_cache.py): a second crate
starts from the first one's device target directory and cargo does not build `core` again."""

from __future__ import annotations

import asyncio
import shutil
import sys
from pathlib import Path

import pytest

from offload_ls.toolchain import std_cache
from offload_ls.toolchain.plan import Pass

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def device_pass(target_dir: Path, triple: str = "nvptx64-nvidia-cuda", cpu: str = "sm_90",
                profile: tuple[str, ...] = ("--release",), rustc: str = sys.executable) -> Pass:
    return Pass(f"device-{triple.split('-')[0]}-{cpu}", "device",
                ("/usr/bin/cargo", "rustc", *profile, "--target", triple, "-Zbuild-std=core",
                 "--target-dir", str(target_dir), "--", "--cfg", "offload_device"),
                {f"CARGO_TARGET_{triple.upper().replace('-', '_')}_RUSTFLAGS": f"-Ctarget-cpu={cpu}", "RUSTC": rustc},
                target_dir.parent, 60.0)


def test_the_key_follows_what_core_is_built_for(tmp_path):
    def key(p: Pass) -> str:
        (found,) = std_cache.device_targets([p]).values()
        return found

    a = key(device_pass(tmp_path / "a" / "target-device"))
    assert key(device_pass(tmp_path / "b" / "target-device")) == a  # another crate, the same core
    assert key(device_pass(tmp_path / "a" / "d", cpu="sm_80")) != a
    assert key(device_pass(tmp_path / "a" / "d", profile=("--profile", "check"))) != a
    other = tmp_path / "rustc"
    other.write_bytes(b"another compiler")
    assert key(device_pass(tmp_path / "a" / "d", rustc=str(other))) != a
    host_only = Pass("device-x86_64-generic", "device", ("/usr/bin/cargo", "rustc", "--target-dir", "x", "--"),
                     {}, tmp_path, 60.0)
    assert std_cache.device_targets([host_only]) == {}


def test_seed_and_save_never_leave_a_half_copy(tmp_path, monkeypatch):
    monkeypatch.setenv("OFFLOAD_LS_CACHE_DIR", str(tmp_path / "cache"))
    built = tmp_path / "a" / "target-device"
    (built / "nvptx64-nvidia-cuda" / "release" / "deps").mkdir(parents=True)
    (built / "nvptx64-nvidia-cuda" / "release" / "deps" / "libcore-0123.rlib").write_bytes(b"core")
    (built / "nvptx64-nvidia-cuda" / "release" / "incremental").mkdir()
    (built / "nvptx64-nvidia-cuda" / "release" / "mycrate.d").write_text("mycrate: /gone/src/main.rs\n")
    (built / "nvptx64-nvidia-cuda" / "release" / "deps" / "core-0123.d").write_text("core deps\n")
    assert std_cache.save(built, "k1") and not std_cache.save(built, "k1")  # the first template stays
    fresh = tmp_path / "b" / "target-device"
    assert std_cache.seed(fresh, "k1")
    assert (fresh / "nvptx64-nvidia-cuda" / "release" / "deps" / "libcore-0123.rlib").read_bytes() == b"core"
    assert not (fresh / "nvptx64-nvidia-cuda" / "release" / "incremental").exists()
    # the first crate's dep-info would make offload-ls's freshness check read its sources
    assert not (fresh / "nvptx64-nvidia-cuda" / "release" / "mycrate.d").exists()
    assert (fresh / "nvptx64-nvidia-cuda" / "release" / "deps" / "core-0123.d").exists()
    assert not std_cache.seed(fresh, "k1")  # an existing target dir is never overwritten
    assert not std_cache.seed(tmp_path / "c" / "target-device", "unknown")
    assert sorted(p.name for p in (tmp_path / "b").iterdir()) == ["target-device"]
    # a copy, not links: cargo rewriting a file in the crate leaves the template alone
    (fresh / "nvptx64-nvidia-cuda" / "release" / "deps" / "libcore-0123.rlib").write_bytes(b"changed")
    template = tmp_path / "cache" / "device-std" / "k1" / "nvptx64-nvidia-cuda" / "release" / "deps"
    assert (template / "libcore-0123.rlib").read_bytes() == b"core"


@pytest.mark.toolchain
def test_a_second_crate_does_not_build_core_again(doctor_report, tmp_path, monkeypatch):
    from offload_ls.workflow import build_crate

    if doctor_report.toolchain.gpu_std.get(doctor_report.target) != "build-std":
        pytest.skip(f"core for {doctor_report.target} is prebuilt here: nothing to share")
    monkeypatch.setenv("OFFLOAD_LS_CACHE_DIR", str(tmp_path / "cache"))
    first, second = tmp_path / "offload-kernels", tmp_path / "upstream-offload"
    for src, dst in ((EXAMPLES / "offload-kernels", first), (EXAMPLES / "upstream-offload", second)):
        shutil.copytree(src, dst, ignore=shutil.ignore_patterns("target", "Cargo.lock"))
    a = asyncio.run(build_crate(first / "Cargo.toml", doctor_report, device_image="gpu"))
    assert a.ok, [d.message for d in a.diagnostics]
    templates = list((tmp_path / "cache" / "device-std").iterdir())
    assert len(templates) == 1
    cores = sorted(templates[0].glob(f"{doctor_report.target}/release/deps/libcore-*.rlib"))
    assert cores, "the template holds the device core"
    b = asyncio.run(build_crate(second / "Cargo.toml", doctor_report, device_image="gpu"))
    assert b.ok, [d.message for d in b.diagnostics]
    seeded = second / "target" / "offload-ls" / "build" / "target-device" / doctor_report.target / "release" / "deps"
    for core in cores:  # cargo kept the copied core: same file, same modification time (not rebuilt)
        mine = seeded / core.name
        assert mine.exists() and mine.stat().st_mtime_ns == core.stat().st_mtime_ns


@pytest.mark.toolchain
def test_a_check_on_save_shares_its_core_too(doctor_report, tmp_path, monkeypatch):
    """`check --compile` (the plan check-on-save runs): its device check's `core` metadata is
    kept too, and the second crate's device check starts from it."""
    import subprocess

    if doctor_report.toolchain.gpu_std.get(doctor_report.target) != "build-std":
        pytest.skip(f"core for {doctor_report.target} is prebuilt here: nothing to share")
    env = {**__import__("os").environ, "OFFLOAD_LS_CACHE_DIR": str(tmp_path / "cache")}
    exe = Path(sys.executable).with_name("offload-ls")
    crates = []
    for name in ("offload-kernels", "upstream-offload"):
        dst = tmp_path / name
        shutil.copytree(EXAMPLES / name, dst, ignore=shutil.ignore_patterns("target", "Cargo.lock"))
        crates.append(dst)
    first = subprocess.run([str(exe), "check", "--compile", str(crates[0])], env=env, capture_output=True,
                           text=True, timeout=900)
    assert first.returncode == 0, first.stdout + first.stderr
    (template,) = list((tmp_path / "cache" / "device-std").iterdir())
    cores = sorted(template.glob(f"{doctor_report.target}/debug/deps/libcore-*.rmeta"))  # check profile
    assert cores
    second = subprocess.run([str(exe), "check", "--compile", str(crates[1])], env=env, capture_output=True,
                            text=True, timeout=900)
    assert second.returncode == 0, second.stdout + second.stderr
    deps = crates[1] / "target" / "offload-ls" / "device" / doctor_report.target / "debug" / "deps"
    for core in cores:
        assert (deps / core.name).stat().st_mtime_ns == core.stat().st_mtime_ns
