"""The ``fp-contract`` build setting (toolchain/fp_contract.py): ``contract`` on the device IR's
``fmul``/``fadd``/``fsub``, so LLVM fuses a*b+c into FMA like nvcc's default ``-fmad=true``."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from offload_ls.toolchain.fp_contract import check_value, contract, main

ROOT = Path(__file__).resolve().parents[2]

IR = """\
define void @k(ptr %x, double %a) {
  %v = load double, ptr %x
  %m = fmul double %a, %v
  %s = fadd nnan double %m, %v
  %d = fsub fast double %s, %m
  %c = fmul contract float 1.0, 2.0
  %e = fneg double %d
  %vec = fadd <2 x float> zeroinitializer, zeroinitializer
  store double %d, ptr %x
  ret void
}
; a comment: %z = fmul double 1.0, 2.0
"""


def test_contract_flags_each_unfused_instruction_once():
    new, n = contract(IR)
    assert n == 3
    lines = new.splitlines()
    assert "  %m = fmul contract double %a, %v" in lines
    assert "  %s = fadd nnan contract double %m, %v" in lines
    assert "  %d = fsub fast double %s, %m" in lines  # `fast` already allows contraction
    assert "  %c = fmul contract float 1.0, 2.0" in lines
    assert "  %e = fneg double %d" in lines
    assert "  %vec = fadd contract <2 x float> zeroinitializer, zeroinitializer" in lines
    assert lines[-1] == "; a comment: %z = fmul double 1.0, 2.0"
    assert contract(new) == (new, 0)


def test_cli_and_bad_values(tmp_path, capsys):
    src, dst = tmp_path / "in.ll", tmp_path / "out.ll"
    src.write_text(IR)
    assert main([str(src), str(dst)]) == 0
    assert capsys.readouterr().out.strip() == "3 floating-point instructions may contract"
    assert dst.read_text() == contract(IR)[0]
    assert main([str(tmp_path / "missing.ll"), str(dst)]) == 2
    assert main([]) == 2
    assert check_value("fast", "x") == "fast"
    with pytest.raises(ValueError, match=r"Cargo.toml: fp-contract must be one of 'off', 'fast', not \"on\""):
        check_value("on", "Cargo.toml")


def _asm(crate, *extra):
    return subprocess.run([sys.executable, "-m", "offload_ls", "asm", str(crate), "--kernel", "saxpy", "--json",
                           *extra], capture_output=True, text=True, timeout=900)


def _fp_ops(text: str) -> list[str]:
    return [line.split()[0] for line in text.splitlines()
            if line.strip().startswith(("mul.rn.f32", "add.rn.f32", "fma.rn.f32"))]


def _own_copy(tmp_path) -> Path:
    """A copy of examples/offload-kernels of the test's own (these tests change its Cargo.toml
    and build it with other settings: the session's shared copy must not see that)."""
    dst = tmp_path / "offload-kernels"
    shutil.copytree(ROOT / "examples" / "offload-kernels", dst, ignore=shutil.ignore_patterns("target"))
    return dst


@pytest.mark.toolchain
def test_fast_fuses_saxpy_into_one_fma(offload_report, tmp_path):
    crate = _own_copy(tmp_path)
    off = _asm(crate)
    assert off.returncode == 0, off.stderr
    assert _fp_ops(json.loads(off.stdout)["text"]) == ["mul.rn.f32", "add.rn.f32"]  # Rust: no contraction
    fast = _asm(crate, "--fp-contract", "fast")
    assert fast.returncode == 0, fast.stderr
    assert "are up to date" not in fast.stderr  # another setting: compiled again
    assert _fp_ops(json.loads(fast.stdout)["text"]) == ["fma.rn.f32"]
    # the same from Cargo.toml; a bad value is refused with what to write instead
    manifest = crate / "Cargo.toml"
    text = manifest.read_text()
    manifest.write_text(text + '\n[package.metadata.offload-ls]\nfp-contract = "fast"\n')
    again = _asm(crate)
    assert again.returncode == 0, again.stderr
    assert _fp_ops(json.loads(again.stdout)["text"]) == ["fma.rn.f32"]
    check = subprocess.run([sys.executable, "-m", "offload_ls", "check", str(crate)], capture_output=True,
                           text=True, timeout=300)
    assert "fp-contract" not in check.stdout + check.stderr  # not taken for a rule name
    manifest.write_text(text + '\n[package.metadata.offload-ls]\nfp-contract = "yes"\n')
    bad = _asm(crate)
    assert bad.returncode == 2
    assert "[package.metadata.offload-ls]: fp-contract must be one of 'off', 'fast', not \"yes\"" in bad.stderr


@pytest.mark.toolchain
def test_build_reports_unfused_pairs_from_the_ptx_until_fp_contract_fast(offload_report, tmp_path):
    crate = _own_copy(tmp_path)

    def build(*extra):
        res = subprocess.run([sys.executable, "-m", "offload_ls", "build", str(crate), "--device-image", "gpu",
                              *extra], capture_output=True, text=True, timeout=1800)
        assert res.returncode == 0, res.stderr
        return res

    off = build()
    ptx = [line.strip() for line in off.stdout.splitlines() if line.strip().startswith("PTX ")]
    assert ptx == ["PTX daxpy: 2 FP instructions, 0 FMA, 1 multiply-add pair unfused",
                   "PTX fir: 32 FP instructions, 0 FMA, 16 multiply-add pairs unfused",
                   "PTX hash_u32: 0 FP instructions, 0 FMA, 0 multiply-add pairs unfused",
                   "PTX saxpy: 2 FP instructions, 0 FMA, 1 multiply-add pair unfused",
                   "PTX triad: 2 FP instructions, 0 FMA, 1 multiply-add pair unfused"]
    assert "note: kernel `fir`: 16 multiply-add pairs are not fused (mul.rn + add.rn" in off.stderr
    # the entry points keep their pointers' noalias/readonly (toolchain/kernel_abi.py): the
    # loads of the read-only inputs go through the non-coherent cache, as nvcc's do
    module = (crate / "target" / "offload-ls" / "build" / f"device-nvptx64-{offload_report.arch}.ptx").read_text()
    saxpy = module.split(".visible .entry saxpy(", 1)[1].split("\n}", 1)[0]
    assert saxpy.count("ld.global.nc.") == 2 and saxpy.count("ld.global.") == 3  # a and x read-only; y written
    again = build()  # up to date: the figures are those of the build that made the binary
    assert "(up to date)" in again.stdout and [line.strip() for line in again.stdout.splitlines()
                                               if line.strip().startswith("PTX ")] == ptx
    fast = build("--fp-contract", "fast")
    assert [line.strip() for line in fast.stdout.splitlines() if line.strip().startswith("PTX ")] == [
        "PTX daxpy: 1 FP instruction, 1 FMA, 0 multiply-add pairs unfused",
        "PTX fir: 16 FP instructions, 16 FMA, 0 multiply-add pairs unfused",
        "PTX hash_u32: 0 FP instructions, 0 FMA, 0 multiply-add pairs unfused",
        "PTX saxpy: 1 FP instruction, 1 FMA, 0 multiply-add pairs unfused",
        "PTX triad: 1 FP instruction, 1 FMA, 0 multiply-add pairs unfused"]
    assert "not fused" not in fast.stderr


def test_max_registers_marks_each_kernel_entry():
    from offload_ls.toolchain.max_registers import check_value as regs
    from offload_ls.toolchain.max_registers import limit

    ir = ('define dso_local ptx_kernel void @k(ptr %dyn_ptr, ptr noalias %arg0) #1 {\n'
          'define internal void @k.offload_inner(ptr %x) #2 {\n'
          'define dso_local ptx_kernel void @j(ptr %dyn_ptr) #1 !dbg !10 {\n')
    new, n = limit(ir, 48)
    assert n == 2
    assert new.splitlines() == [
        'define dso_local ptx_kernel void @k(ptr %dyn_ptr, ptr noalias %arg0) #1 "nvvm.maxnreg"="48" {',
        'define internal void @k.offload_inner(ptr %x) #2 {',
        'define dso_local ptx_kernel void @j(ptr %dyn_ptr) #1 "nvvm.maxnreg"="48" !dbg !10 {']
    assert limit(new, 32)[0].count('"nvvm.maxnreg"="32"') == 2 and '"48"' not in limit(new, 32)[0]
    assert regs(64, "x") == 64
    for bad in (8, 256, "48", 48.0, True):
        with pytest.raises(ValueError, match=r"x: max-registers must be an integer from 16 to 255"):
            regs(bad, "x")


@pytest.mark.toolchain
def test_max_registers_reaches_the_ptx_from_cargo_toml_and_the_command_line(offload_report, tmp_path):
    crate = _own_copy(tmp_path)
    manifest = crate / "Cargo.toml"
    text = manifest.read_text()
    manifest.write_text(text + '\n[package.metadata.offload-ls]\nmax-registers = 40\n')

    def build(*extra):
        return subprocess.run([sys.executable, "-m", "offload_ls", "build", str(crate), "--device-image", "gpu",
                               *extra], capture_output=True, text=True, timeout=1800)

    res = build()
    assert res.returncode == 0, res.stderr
    ptx = (crate / "target" / "offload-ls" / "build" / f"device-nvptx64-{offload_report.arch}.ptx").read_text()
    assert ptx.count(".maxnreg 40") == 5  # every kernel entry
    # the assembly view (device pass with line tables: `!dbg` on every kernel) keeps the limit too
    asm = subprocess.run([sys.executable, "-m", "offload_ls", "asm", str(crate), "--kernel", "saxpy", "--json"],
                         capture_output=True, text=True, timeout=900)
    assert asm.returncode == 0, asm.stderr
    assert ".maxnreg 40" in json.loads(asm.stdout)["text"]
    over = build("--max-registers", "64")
    assert over.returncode == 0, over.stderr
    ptx = (crate / "target" / "offload-ls" / "build" / f"device-nvptx64-{offload_report.arch}.ptx").read_text()
    assert ptx.count(".maxnreg 64") == 5 and ".maxnreg 40" not in ptx
    if offload_report.ptxas:  # CI has no CUDA toolkit: the build's own ptxas run is skipped there
        low = build("--max-registers", "16")
        assert low.returncode == 0, low.stderr
        assert "warning: ptxas: " in low.stderr and "adjusting per thread register count of 16 to lower bound of" \
            in low.stderr and "(max-registers = 16)" in low.stderr
    bad = build("--max-registers", "8")
    assert bad.returncode == 2 and "argument --max-registers: must be from 16 to 255 registers, got 8" in bad.stderr
    manifest.write_text(text + '\n[package.metadata.offload-ls]\nmax-registers = "lots"\n')
    refused = build()
    assert refused.returncode == 2
    assert "[package.metadata.offload-ls]: max-registers must be an integer from 16 to 255" in refused.stderr
    rescued = build("--max-registers", "48")  # the command line's value: Cargo.toml's is not read
    assert rescued.returncode == 0, rescued.stderr
