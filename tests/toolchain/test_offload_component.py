"""doctor and today's nightly: rustup's `offload` component, what it ships, and the exact
command that gives the native pipeline (toolchain/discover.py, toolchain/doctor.py).

Data: tests/toolchain/data/rustup-component-list-nightly-2026-05-19.txt is `rustup component list
--toolchain nightly-x86_64-unknown-linux-gnu` as rustup 1.29.0 printed it on this machine for
nightly 2026-05-19 (which predates the component)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from offload_ls.toolchain import doctor
from offload_ls.toolchain.discover import RustToolchain
from offload_ls.toolchain.rustup import (
    OffloadComponent,
    find_rustup,
    parse_component_list,
    probe_offload_component,
    rustup_toolchain_name,
)

DATA = Path(__file__).parent / "data"
MAY_NIGHTLY = (DATA / "rustup-component-list-nightly-2026-05-19.txt").read_text()


def test_rustups_list_of_a_may_nightly_has_no_offload_component():
    available, installed = parse_component_list(MAY_NIGHTLY)
    assert "offload" not in available
    assert {"cargo", "rustc", "rust-std", "clippy"} <= installed
    assert "rust-src" in available and "rust-src" not in installed
    assert "llvm-bitcode-linker" in available  # host suffix removed


def test_an_installed_component_is_seen():
    text = MAY_NIGHTLY + "offload-x86_64-unknown-linux-gnu (installed)\nrust-src (installed)\n"
    available, installed = parse_component_list(text)
    assert {"offload", "rust-src"} <= installed


@pytest.mark.parametrize("comp, date, want", [
    (OffloadComponent("nightly-x86_64-unknown-linux-gnu", available=False), "2026-05-19",
     "rustup update nightly && rustup component add offload rust-src --toolchain nightly-x86_64-unknown-linux-gnu"),
    (OffloadComponent("nightly-x86_64-unknown-linux-gnu", available=True, rust_src=True), "2026-09-02",
     "rustup component add offload --toolchain nightly-x86_64-unknown-linux-gnu"),
    (OffloadComponent("nightly-2026-10-01-x86_64-unknown-linux-gnu", installed=True, available=True), "2026-10-01",
     "rustup component add rust-src --toolchain nightly-2026-10-01-x86_64-unknown-linux-gnu"),
    (OffloadComponent("nightly-x86_64-unknown-linux-gnu", installed=True, available=True, rust_src=True),
     "2026-10-01", None),
])
def test_the_fix_is_the_exact_rustup_command(comp, date, want):
    assert comp.fix(date) == want


def test_rustup_toolchain_names_come_from_the_path():
    assert rustup_toolchain_name("/home/u/.rustup/toolchains/nightly-x86_64-unknown-linux-gnu/bin/rustc") == \
        "nightly-x86_64-unknown-linux-gnu"
    assert rustup_toolchain_name("/usr/bin/rustc") is None


def test_the_components_runtimes_are_found_in_the_sysroot(tmp_path):
    sysroot = tmp_path / "toolchains" / "nightly-x86_64-unknown-linux-gnu"
    lib = sysroot / "lib" / "rustlib" / "x86_64-unknown-linux-gnu" / "lib"
    lib.mkdir(parents=True)
    for name in ("libRustOffload-23.so", "libomptarget.so", "libompdevice.a", "libomptarget-nvptx.bc",
                 "libstd-1234.rlib"):
        (lib / name).write_bytes(b"")
    tc = RustToolchain(str(sysroot / "bin" / "rustc"), None, "rustup", release="1.100.0-nightly",
                       host="x86_64-unknown-linux-gnu", sysroot=str(sysroot))
    comp = probe_offload_component(tc)
    assert comp is not None and comp.toolchain == "nightly-x86_64-unknown-linux-gnu"
    assert comp.runtimes == ["libRustOffload-23.so", "libomptarget.so", "libompdevice.a", "libomptarget-nvptx.bc"]


def test_doctor_names_the_native_fix_for_a_nightly_without_the_component(monkeypatch):
    nightly = RustToolchain("/r/toolchains/nightly-x86_64-unknown-linux-gnu/bin/rustc", "/r/cargo", "rustup",
                            release="1.97.0-nightly", commit_date="2026-05-19", llvm_major=22,
                            offload_modes=["Host=<Absolute-Path>", "Device", "Test"], native_offload=False)
    debian = RustToolchain("/usr/bin/rustc", "/usr/bin/cargo", "Debian", release="1.96.0", llvm_major=22,
                           offload_modes=["Host=<Absolute-Path>", "Device", "Test"], native_offload=False,
                           native_note="rustc was not built with LLVM Offload support",
                           gpu_std={"nvptx64-nvidia-cuda": "build-std"}, vendor_dir="/v")
    monkeypatch.setattr(doctor, "candidate_toolchains", lambda r, c: [(nightly.rustc, nightly.cargo, "rustup"),
                                                                       (debian.rustc, debian.cargo, "Debian")])
    monkeypatch.setattr(doctor, "probe_toolchain", lambda r, c, o, cache=None: {nightly.rustc: nightly,
                                                                                  debian.rustc: debian}[r])
    monkeypatch.setattr(doctor, "probe_offload_component",
                        lambda tc: OffloadComponent("nightly-x86_64-unknown-linux-gnu", available=False)
                        if tc is nightly else None)
    report = doctor.run_doctor(probe_gpus=False)
    text = doctor.render_text(report)
    assert report.pipeline in (doctor.LLVM_TOOLS, doctor.HOST_ONLY)
    assert report.native_fix == ("rustup update nightly && rustup component add offload rust-src "
                                 "--toolchain nightly-x86_64-unknown-linux-gnu")
    assert "predates the `offload` component" in text and report.native_fix in text
    assert "nightly-x86_64-unknown-linux-gnu" in text and "this nightly predates it" in text


@pytest.mark.skipif(find_rustup() is None or not (Path.home() / ".rustup" / "toolchains").is_dir(),
                    reason="needs rustup with an installed toolchain")
def test_real_rustup_answers_for_an_installed_toolchain():
    from offload_ls.toolchain.discover import probe_toolchain

    toolchains = sorted((Path.home() / ".rustup" / "toolchains").iterdir())
    rustc = next((t / "bin" / "rustc" for t in toolchains if (t / "bin" / "rustc").is_file()), None)
    if rustc is None:
        pytest.skip("no rustup toolchain with a rustc")
    tc = probe_toolchain(str(rustc), shutil.which("cargo"), "rustup")
    comp = probe_offload_component(tc)
    assert comp is not None and comp.error is None, comp
    assert comp.available is not None
    if comp.installed:
        assert comp.runtimes, "an installed component ships runtime libraries into the sysroot"
    else:
        assert "rustup component add offload" in comp.fix(tc.commit_date)
