"""The offload check pipeline against the real Debian toolchain (rustc-web 1.96, LLVM 22).

These tests build `core` for nvptx64 (about 20 s the first time per crate on 2 cores).
"""

import asyncio

import pytest

from offload_ls.toolchain.compile import run_plan
from offload_ls.toolchain.crate import load_crate
from offload_ls.toolchain.plan import check_plan

pytestmark = pytest.mark.toolchain


def _check(report, crate_dir, passes=None):
    crate = load_crate(crate_dir / "Cargo.toml", report.toolchain.cargo, env={"RUSTC": report.toolchain.rustc})
    plan = check_plan(crate, report)
    if passes is not None:
        plan.passes = [p for p in plan.passes if p.name in passes]
    return asyncio.run(run_plan(plan))


def test_device_only_error_is_labelled_device_and_clears_after_the_fix(doctor_report, fixture_crate):
    crate = fixture_crate("device-error")
    result = _check(doctor_report, crate, passes={"device", "host"})
    errors = [d for d in result.diagnostics if d.level == "error"]
    assert [(d.source, d.code, d.message, d.span.file.name, d.span.line, d.span.column, d.span.end_column)
            for d in errors] == [
        ("offload-ls(device nvptx64 sm_90)", "E0599",
         "no method named `sin` found for type `f32` in the current scope", "main.rs", 24, 31, 34)]
    text = (crate / "src" / "main.rs").read_bytes()
    assert text[errors[0].span.start:errors[0].span.end] == b"sin"
    # Fix: core has no `sin`; use a polynomial. The next check reports no error.
    main = crate / "src" / "main.rs"
    main.write_text(main.read_text().replace("(i as f32).sin()", "(i as f32) * 0.5"))
    again = _check(doctor_report, crate, passes={"device", "host"})
    assert [d for d in again.diagnostics if d.level in ("error", "ice")] == []


def test_transfer_plan_read_from_the_host_ir(doctor_report, fixture_crate):
    crate = fixture_crate("transfer-kinds")
    result = _check(doctor_report, crate, passes={"host", "host-ir"})
    assert [d for d in result.diagnostics if d.level in ("error", "ice")] == []
    mixed = result.transfers["mixed"]
    # &[f32; 1024], &mut [f32; 1024], *mut f32, f32 (docs/offload-notes.md: "What the host pass copies")
    assert [(a.bytes, a.begin, a.kernel, a.end) for a in mixed.args] == [
        (4096, 1, 32, 0), (4096, 1, 32, 2), (4, 1, 32, 2), (4, 0x300, 32, 0)]
    assert [a.hint for a in mixed.args] == ["→ 4 KiB", "⇄ 4 KiB", "⇄ 4 B", "⚠ an address, not the value"]


def test_compiler_crash_is_reported_with_its_first_line(doctor_report, fixture_crate):
    crate = fixture_crate("slice-arg")
    result = _check(doctor_report, crate, passes={"host", "host-ir"})
    ices = [d for d in result.diagnostics if d.level == "ice"]
    assert [(d.source, d.span) for d in ices] == [("offload-ls(host)", None)]
    assert ices[0].message.startswith("internal compiler error: offload does not support Struct [at ")
    assert not list(crate.glob("rustc-ice-*.txt"))  # RUSTC_ICE=0 keeps the crate clean


def test_bad_manifest_is_a_clear_error(doctor_report, tmp_path):
    from offload_ls.toolchain.crate import CrateError

    (tmp_path / "Cargo.toml").write_text("[package\nname = 1\n")
    with pytest.raises(CrateError) as err:
        load_crate(tmp_path / "Cargo.toml", doctor_report.toolchain.cargo)
    assert str(err.value).startswith(f"{tmp_path / 'Cargo.toml'}: cargo metadata failed: ")
