"""The device pass's `core` build shared across crates (toolchain/std_cache.py): a second crate
starts from the first one's device target directory and cargo does not build `core` again."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from offload_ls.toolchain import std_cache
from offload_ls.toolchain.plan import Pass

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def device_pass(target_dir: Path, triple: str = "nvptx64-nvidia-cuda", cpu: str = "sm_90",
                profile: tuple[str, ...] = ("--release",)) -> Pass:
    return Pass(f"device-{triple.split('-')[0]}-{cpu}", "device",
                ("/usr/bin/cargo", "rustc", *profile, "--target", triple, "-Zbuild-std=core",
                 "--target-dir", str(target_dir), "--", "--cfg", "offload_device"),
                {f"CARGO_TARGET_{triple.upper().replace('-', '_')}_RUSTFLAGS": f"-Ctarget-cpu={cpu}"},
                target_dir.parent, 60.0)


def test_the_key_follows_what_core_is_built_for(tmp_path):
    key = lambda *ps: std_cache.device_targets(ps, "/usr/bin/rustc", "1.96.0", "2026-04-14")  # noqa: E731
    a = key(device_pass(tmp_path / "a" / "target-device"))
    b = key(device_pass(tmp_path / "b" / "target-device"))
    assert list(a.values()) == list(b.values())  # another crate, the same core
    assert list(key(device_pass(tmp_path / "a" / "d", cpu="sm_80")).values()) != list(a.values())
    assert list(key(device_pass(tmp_path / "a" / "d", profile=("--profile", "check"))).values()) != list(a.values())
    other_rustc = std_cache.device_targets([device_pass(tmp_path / "a" / "d")], "/usr/bin/rustc", "1.97.0", None)
    assert list(other_rustc.values()) != list(a.values())
    host_only = Pass("device-x86_64-generic", "device", ("/usr/bin/cargo", "rustc", "--target-dir", "x", "--"),
                     {}, tmp_path, 60.0)
    assert std_cache.device_targets([host_only], "/usr/bin/rustc", "1.96.0", None) == {}


def test_seed_and_save_never_leave_a_half_copy(tmp_path, monkeypatch):
    monkeypatch.setenv("OFFLOAD_LS_CACHE_DIR", str(tmp_path / "cache"))
    built = tmp_path / "a" / "target-device"
    (built / "nvptx64-nvidia-cuda" / "release" / "deps").mkdir(parents=True)
    (built / "nvptx64-nvidia-cuda" / "release" / "deps" / "libcore-0123.rlib").write_bytes(b"core")
    (built / "nvptx64-nvidia-cuda" / "release" / "incremental").mkdir()
    assert std_cache.save(built, "k1") and not std_cache.save(built, "k1")  # the first template stays
    fresh = tmp_path / "b" / "target-device"
    assert std_cache.seed(fresh, "k1")
    assert (fresh / "nvptx64-nvidia-cuda" / "release" / "deps" / "libcore-0123.rlib").read_bytes() == b"core"
    assert not (fresh / "nvptx64-nvidia-cuda" / "release" / "incremental").exists()
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
    said: list[str] = []
    b = asyncio.run(build_crate(second / "Cargo.toml", doctor_report, device_image="gpu", progress=said.append))
    assert b.ok, [d.message for d in b.diagnostics]
    assert any(m.startswith("device `core` from the cache") for m in said), said
    seeded = second / "target" / "offload-ls" / "build" / "target-device" / doctor_report.target / "release" / "deps"
    for core in cores:  # cargo kept the copied core: same file, same modification time (not rebuilt)
        mine = seeded / core.name
        assert mine.exists() and mine.stat().st_mtime_ns == core.stat().st_mtime_ns
