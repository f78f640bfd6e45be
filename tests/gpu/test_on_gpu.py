"""On a machine with an NVIDIA GPU: the offload-kernels example runs on the GPU itself.

Uses a bundle made elsewhere when ``OFFLOAD_LS_GPU_BUNDLE`` names one (GPU nodes without a
Rust toolchain: `offload-ls build examples/offload-kernels --device-image gpu --bundle DIR`),
else builds here. Skips where no GPU is visible to nvidia-smi."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from offload_ls.gpu.launch import run_binary

pytestmark = pytest.mark.gpu


def _gpu_present() -> bool:
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    res = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=30)
    return res.returncode == 0 and "GPU " in res.stdout


@pytest.fixture(scope="module")
def gpu_binary(tmp_path_factory):
    if not _gpu_present():
        pytest.skip("no NVIDIA GPU visible (nvidia-smi -L)")
    bundle = os.environ.get("OFFLOAD_LS_GPU_BUNDLE")
    if bundle:
        return Path(bundle) / "run"
    from offload_ls.toolchain.doctor import HOST_ONLY, run_doctor
    from offload_ls.workflow import build_crate

    report = run_doctor()
    if report.pipeline == HOST_ONLY:
        pytest.skip("no toolchain here and OFFLOAD_LS_GPU_BUNDLE not set")
    src = Path(__file__).resolve().parents[2] / "examples" / "offload-kernels"
    crate = tmp_path_factory.mktemp("gpu") / "offload-kernels"
    shutil.copytree(src, crate, ignore=shutil.ignore_patterns("target"))
    out = asyncio.run(build_crate(crate / "Cargo.toml", report, device_image="gpu"))
    assert out.ok
    return out.exe


def test_offload_kernels_on_the_gpu(gpu_binary):
    rep = asyncio.run(run_binary(gpu_binary, timeout=120, gpu_present=True, images=["nvptx64-nvidia-cuda"]))
    assert rep.exit_status == 0, rep.stderr
    assert rep.problems == []
    assert [line for line in rep.stdout.splitlines() if line.startswith("OK ")] == [
        "OK saxpy: 65536 elements", "OK daxpy: 65536 elements", "OK triad: 65536 elements",
        "OK fir: 65536 elements", "OK hash_u32: 50000 elements"]
    # One element per GPU thread: the grid the host code asked for, not [1,1,1] Generic.
    assert [(launch.kernel, launch.blocks, launch.threads) for launch in rep.log.launches] == [
        ("saxpy", (256, 1, 1), (256, 1, 1)), ("daxpy", (256, 1, 1), (256, 1, 1)),
        ("triad", (256, 1, 1), (256, 1, 1)), ("fir", (256, 1, 1), (256, 1, 1)),
        ("hash_u32", (196, 1, 1), (256, 1, 1))]
    assert all(launch.mode != "Generic" for launch in rep.log.launches)
    # The same bytes cross the bus as on the Virtual Host Device (test_build_run.py).
    assert [(launch.h2d_bytes, launch.d2h_bytes) for launch in rep.log.launches] == [
        (524292, 262144), (1048584, 524288), (1572872, 524288), (524352, 262144), (400000, 200000)]
