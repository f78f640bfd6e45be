"""Build the example crates with the host image (libomptarget's Virtual Host Device: the
kernels really execute, on the CPU), run them, check their own result checks and the run
report parsed from the runtime's log. CI installs the toolchain; these must not skip there."""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest

from offload_ls.workflow import build_crate, run_crate

pytestmark = pytest.mark.toolchain


def test_offload_kernels_run_on_the_host_device_with_exact_transfers(offload_report, example_copy):
    crate = example_copy("examples/offload-kernels")
    out = asyncio.run(run_crate(crate / "Cargo.toml", offload_report, device_image="host", timeout=120))
    assert out.build.ok, [d.message for d in out.build.diagnostics]
    assert out.build.images == ["x86_64-unknown-linux-gnu generic"]
    rep = out.report
    assert rep.exit_status == 0 and rep.problems == []
    assert rep.stdout.splitlines() == ["OK saxpy: 65536 elements", "OK daxpy: 65536 elements",
                                       "OK triad: 65536 elements", "OK fir: 65536 elements",
                                       "OK hash_u32: 50000 elements"]
    # Byte for byte from the runtime's log (types in examples/offload-kernels/src/main.rs).
    assert [(launch.kernel, launch.h2d_bytes, launch.d2h_bytes, launch.blocks, launch.threads, launch.mode)
            for launch in rep.log.launches] == [
        ("saxpy", 524292, 262144, (1, 1, 1), (1, 1, 1), "Generic"),
        ("daxpy", 1048584, 524288, (1, 1, 1), (1, 1, 1), "Generic"),
        ("triad", 1572872, 524288, (1, 1, 1), (1, 1, 1), "Generic"),
        ("fir", 524352, 262144, (1, 1, 1), (1, 1, 1), "Generic"),
        ("hash_u32", 400000, 200000, (1, 1, 1), (1, 1, 1), "Generic")]
    # A second run finds the binary up to date.
    again = asyncio.run(build_crate(crate / "Cargo.toml", offload_report, device_image="host"))
    assert again.fresh and again.exe == out.build.exe


def test_gpu_benchmark_crate_runs_on_the_host_device(offload_report, example_copy):
    crate = example_copy("benchmarks/gpu_kernels/rust")
    out = asyncio.run(run_crate(crate / "Cargo.toml", offload_report, ["1"], device_image="host", timeout=300))
    assert out.report is not None and out.report.exit_status == 0, out.report and out.report.stderr
    oks = [line for line in out.report.stdout.splitlines() if line.startswith("OK ")]
    assert oks == ["OK daxpy N=16777216 reps=1", "OK triad N=16777216 reps=1", "OK fir N=16777216 reps=1"]
    assert [launch.kernel for launch in out.report.log.launches] == ["daxpy", "daxpy", "triad", "triad", "fir", "fir"]


def test_gpu_image_build_embeds_sm_90_and_reports_kernel_resources(offload_report, example_copy, tmp_path):
    if offload_report.ptxas is None:
        pytest.skip("needs CUDA's ptxas for the sm_90 image")
    crate = example_copy("examples/offload-kernels")
    out = asyncio.run(build_crate(crate / "Cargo.toml", offload_report, device_image="gpu",
                                  bundle_dir=tmp_path / "bundle"))
    assert out.ok, [d.message for d in out.diagnostics]
    assert out.images == ["nvptx64-nvidia-cuda sm_90"]
    assert sorted(r.kernel for r in out.resources) == ["daxpy", "fir", "hash_u32", "saxpy", "triad"]
    assert all(r.registers > 0 and not r.spills for r in out.resources)
    # The bundle: binary, runtime libraries without glibc/driver, a run script.
    b = out.bundle
    assert (b.directory / "run").stat().st_mode & 0o100
    assert "libomptarget.so.22.1" in b.libraries and "libomp.so.5" in b.libraries
    assert not [lib for lib in b.libraries if lib.startswith(("libc.so", "libm.so", "libcuda"))]
    # Without a GPU the bundled binary must fail with the runtime's message, not hang.
    if not offload_report.gpus:
        res = subprocess.run([str(b.directory / "run")], capture_output=True, text=True, timeout=60)
        assert res.returncode != 0
        assert "failure of target construct while offloading is mandatory" in res.stderr


def test_cli_run_on_a_machine_without_gpu_falls_back_to_the_host_image(offload_report, example_copy):
    if offload_report.gpus:
        pytest.skip("this machine has a GPU")
    crate = example_copy("examples/offload-kernels")
    res = subprocess.run([sys.executable, "-m", "offload_ls", "run", str(crate)], capture_output=True,
                         text=True, timeout=600)
    assert res.returncode == 0, res.stderr
    assert "no GPU found: building with --device-image host" in res.stderr
    assert "OK hash_u32: 50000 elements" in res.stdout
    assert "run report: exit status 0, " in res.stdout
    assert "  launch hash_u32             device 0 [1,1,1]x[1,1,1] (host)* Generic  →" in res.stdout
    assert "  * libomptarget's Virtual Host Device: the dims are the host plugin's own team and thread counts" \
        in res.stdout
