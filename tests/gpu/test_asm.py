"""``offload-ls asm``: the device pass with line tables, the kernel's PTX and LLVM IR and the
line map back to the user's source. Runs the real toolchain (CI installs it)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.toolchain


def _line_of(path, needle: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if needle in line)


def _asm(crate, *extra):
    res = subprocess.run([sys.executable, "-m", "offload_ls", "asm", str(crate), *extra], capture_output=True,
                         text=True, timeout=900)
    return res


def test_cli_prints_a_kernels_ptx_with_its_source_lines(offload_report, example_copy):
    crate = example_copy("examples/offload-kernels")
    res = _asm(crate / "src", "--kernel", "saxpy", "--json")  # from inside the crate, as cargo finds it
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["format"] == "ptx" and out["arch"] == offload_report.arch and out["kernel"] == "saxpy"
    assert out["text"].startswith(".visible .entry saxpy(")
    assert set(out["functions"]) == {"daxpy", "fir", "hash_u32", "saxpy", "triad"}
    src = crate / "src" / "main.rs"
    body = _line_of(src, "y[i] = a * x[i] + y[i];")
    lines = out["text"].splitlines()
    assert out["firstLine"] == out["functions"]["saxpy"][0]
    mapped = {row["line"]: row for row in out["lines"]}  # 0-based lines of `text`
    assert all(0 <= i < len(lines) for i in mapped)
    fp = [i for i, text in enumerate(lines) if text.strip().startswith(("mul.rn.f32", "add.rn.f32", "fma.rn.f32"))]
    assert fp and all(mapped[i]["source"] == "src/main.rs" and mapped[i]["sourceLine"] == body for i in fp)
    # Every mapped line is an instruction of this crate's file.
    assert {row["source"] for row in out["lines"]} == {"src/main.rs"}

    # The LLVM IR of the same build, without recompiling; text form with a source gutter.
    ir = _asm(crate, "--kernel", "saxpy", "--format", "llvm-ir")
    assert ir.returncode == 0, ir.stderr
    assert "the device listings in " in ir.stderr and " are up to date" in ir.stderr
    fmul = [line for line in ir.stdout.splitlines() if " fmul float " in line]
    assert fmul and all(line.split("|")[0].strip() == f"src/main.rs:{body}" for line in fmul)


def test_cli_asm_errors_say_what_to_do(offload_report, example_copy, tmp_path):
    crate = example_copy("examples/offload-kernels")
    res = _asm(crate, "--kernel", "no_such_kernel")
    assert res.returncode == 2
    assert "no kernel `no_such_kernel` in the ptx listing; functions there: daxpy, fir, hash_u32, saxpy, triad" \
        in res.stderr
    from offload_ls.toolchain.tools import find_cuda_tool
    sass = _asm(crate, "--format", "sass")
    if offload_report.ptxas is None:  # CI: no CUDA toolkit
        assert sass.returncode == 2 and "no sass listing: ptxas was not found (install the CUDA toolkit" in sass.stderr
    elif find_cuda_tool("nvdisasm", offload_report.cuda_path, beside=offload_report.ptxas) is None:  # here: ptxas only
        assert sass.returncode == 2 and "no sass listing: nvdisasm was not found beside " in sass.stderr
    nobin = _asm(crate, "--bin", "nope")
    assert nobin.returncode == 2 and "no binary named `nope` (binaries: offload-kernels)" in nobin.stderr
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "Cargo.toml").write_text('[package]\nname = "broken"\nversion = "0.1.0"\nedition = "2021"\n')
    (broken / "src").mkdir()
    main = broken / "src" / "main.rs"
    main.write_text("fn main() { let x: u32 = \"no\"; }\n")
    plain = _asm(broken)  # no kernel at all: nothing is compiled
    assert plain.returncode == 2 and "no rustc-offload kernel here" in plain.stderr
    main.write_text('#![cfg_attr(offload_device, no_std, no_main)]\n#![feature(abi_gpu_kernel, rustc_attrs)]\n'
                    '#![allow(internal_features)]\n'
                    '#[rustc_offload_kernel]\npub extern "gpu-kernel" fn k(x: &mut [f32; 4]) {\n'
                    '    let y: u32 = "no";\n    x[0] = 1.0;\n}\n'
                    '#[cfg(offload_device)]\n#[panic_handler]\nfn p(_: &core::panic::PanicInfo) -> ! { loop {} }\n'
                    '#[cfg(not(offload_device))]\nfn main() {}\n')
    bad = _asm(broken)
    assert bad.returncode == 1, bad.stderr
    assert "mismatched types" in bad.stderr and "the device pass failed; no assembly was written" in bad.stderr


def test_sigterm_stops_the_compile_and_leaves_no_process(offload_report, tmp_path):
    """`timeout` / CI send SIGTERM: handled like Ctrl-C, the compiler's process group goes too."""
    import shutil
    import signal
    import time
    from pathlib import Path

    crate = tmp_path / "sigterm-crate"
    shutil.copytree(Path(__file__).resolve().parents[2] / "examples" / "offload-kernels", crate,
                    ignore=shutil.ignore_patterns("target"))
    # an empty offload-ls cache: the device pass builds `core` (tens of seconds), so the signal
    # arrives while the compiler runs (toolchain/std_cache.py would make the compile short)
    env = {**__import__("os").environ, "OFFLOAD_LS_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.Popen([sys.executable, "-m", "offload_ls", "asm", str(crate)], stderr=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, text=True, env=env)
    first = proc.stderr.readline()
    assert first.startswith("[1/"), first
    time.sleep(1.0)  # cargo and rustc are running now
    proc.send_signal(signal.SIGTERM)
    rest = proc.stderr.read()
    assert proc.wait(timeout=30) == 1
    assert "offload-ls: error: cancelled" in rest and "Traceback" not in rest
    time.sleep(0.5)
    left = subprocess.run(["pgrep", "-f", str(crate)], capture_output=True, text=True).stdout.split()
    assert left == [], subprocess.run(["ps", "-o", "pid,args", "-p", ",".join(left)], capture_output=True,
                                      text=True).stdout


def test_an_edit_in_a_path_dependency_makes_the_listing_stale(offload_report, tmp_path):
    """The freshness check reads cargo's dep-info: a kernel that calls a function of a path
    dependency shows that function's new code after it changed."""
    import os
    import shutil
    from pathlib import Path

    app = tmp_path / "app"
    shutil.copytree(Path(__file__).resolve().parents[2] / "examples" / "offload-kernels", app,
                    ignore=shutil.ignore_patterns("target"))
    helper = tmp_path / "helper"
    (helper / "src").mkdir(parents=True)
    (helper / "Cargo.toml").write_text('[package]\nname = "helper"\nversion = "0.1.0"\nedition = "2021"\n')
    lib = helper / "src" / "lib.rs"
    lib.write_text("#![no_std]\n#[inline(always)]\npub fn scale(v: f32) -> f32 {\n    v * 3.0\n}\n")
    manifest = app / "Cargo.toml"
    manifest.write_text(manifest.read_text().replace(
        "[[bin]]", '[dependencies]\nhelper = { path = "../helper" }\n\n[[bin]]', 1))
    main = app / "src" / "main.rs"
    main.write_text(main.read_text().replace("y[i] = a * x[i] + y[i];", "y[i] = helper::scale(a * x[i]) + y[i];", 1))
    first = _asm(app, "--kernel", "saxpy")
    assert first.returncode == 0, first.stderr
    assert "0f40400000" in first.stdout and "0f40E00000" not in first.stdout  # 3.0, not 7.0
    lib.write_text(lib.read_text().replace("3.0", "7.0"))
    later = os.stat(lib).st_mtime + 2
    os.utime(lib, (later, later))
    second = _asm(app, "--kernel", "saxpy")
    assert second.returncode == 0, second.stderr
    assert "up to date" not in second.stderr
    assert "0f40E00000" in second.stdout and "0f40400000" not in second.stdout
