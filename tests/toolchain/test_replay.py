"""Replaying cargo's rustc command: parsing `-vv` output, stamps, and a real replay."""

import asyncio
import os
from pathlib import Path

import pytest

from offload_ls.toolchain.plan import Pass
from offload_ls.toolchain.replay import ReplayCache, as_cargo_records, parse_running, with_verbose

RUNNING = ("     Running `CARGO=/usr/bin/cargo CARGO_CRATE_NAME=offload_kernels CARGO_PKG_AUTHORS='' "
           "LD_LIBRARY_PATH='/t/deps:/lib' /usr/bin/rustc --crate-name offload_kernels --edition=2024 src/main.rs "
           "--error-format=json --json=diagnostic-rendered-ansi,artifacts,future-incompat --crate-type bin "
           "--check-cfg 'cfg(feature, values())' -Zoffload=Test`")


def test_parse_running_line_with_env_and_quotes():
    other = "     Running `/usr/bin/rustc --crate-name core --error-format=json src/lib.rs`"
    argv, env = parse_running(f"{other}\n{RUNNING}\n    Finished `dev` profile", "offload_kernels")
    assert env == {"CARGO": "/usr/bin/cargo", "CARGO_CRATE_NAME": "offload_kernels", "CARGO_PKG_AUTHORS": "",
                   "LD_LIBRARY_PATH": "/t/deps:/lib"}
    assert argv[:3] == ("/usr/bin/rustc", "--crate-name", "offload_kernels")
    assert "cfg(feature, values())" in argv  # one element, quotes removed
    assert parse_running(other, "offload_kernels") is None


def test_with_verbose_and_records():
    p = Pass("host", "host", ("/usr/bin/cargo", "--config", "x", "rustc", "--profile", "check"), {}, Path("/"), 1.0)
    assert with_verbose(p) == ("/usr/bin/cargo", "--config", "x", "rustc", "-vv", "--profile", "check")
    text = '{"$message_type":"artifact","artifact":"x.rmeta"}\n{"$message_type":"diagnostic","message":"m"}\nnoise'
    assert as_cargo_records(text) == ('{"reason": "compiler-message", '
                                      '"message": {"$message_type": "diagnostic", "message": "m"}}')


def test_manifest_change_invalidates(tmp_path):
    manifest = tmp_path / "Cargo.toml"
    manifest.write_text("[package]\n")
    p = Pass("host", "host", ("cargo", "rustc"), {}, tmp_path, 1.0, replayable=True)
    cache = ReplayCache()
    cache.record(p, manifest, "demo", RUNNING.replace("offload_kernels", "demo"))
    assert cache.get(p, manifest) is not None
    manifest.write_text("[package]\nname = 'x'\n")
    os.utime(manifest, (1, 1))
    assert cache.get(p, manifest) is None


@pytest.mark.toolchain
def test_replayed_check_reports_the_same_device_error(doctor_report, fixture_crate):
    from offload_ls.toolchain.compile import run_plan
    from offload_ls.toolchain.crate import load_crate
    from offload_ls.toolchain.plan import check_plan

    crate = fixture_crate("device-error")
    c = load_crate(crate / "Cargo.toml", doctor_report.toolchain.cargo, env={"RUSTC": doctor_report.toolchain.rustc})
    plan = check_plan(c, doctor_report, transfer_plan=False)
    cache = ReplayCache()
    first = asyncio.run(run_plan(plan, replay=cache))
    os.utime(crate / "src" / "main.rs", None)
    second = asyncio.run(run_plan(plan, replay=cache))
    assert [p.completed.argv[0] for p in second.passes] == [doctor_report.toolchain.rustc] * 2  # no cargo

    def key(r):
        return [(d.source, d.code, d.message, d.span.line, d.span.column)
                for d in r.diagnostics if d.level == "error"]

    assert key(second) == key(first) == [("offload-ls(device nvptx64 sm_90)", "E0599",
                                         "no method named `sin` found for type `f32` in the current scope", 24, 31)]
