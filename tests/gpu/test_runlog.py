"""Runtime log parsing, kernel resources, and what the run report says about failures —
no toolchain or GPU needed (recorded logs and stand-in programs)."""

import asyncio
import stat
import sys
from pathlib import Path

from offload_ls.gpu.launch import run_binary
from offload_ls.gpu.resources import KernelResources, parse_ptxas_verbose
from offload_ls.gpu.runlog import parse_info_log

DATA = Path(__file__).parent / "data"


def test_host_device_log_of_offload_kernels():
    # Recorded with LIBOMPTARGET_INFO=48 from examples/offload-kernels built with
    # --device-image host (addresses blanked).
    log = parse_info_log((DATA / "offload_kernels_host_device.log").read_text().splitlines())
    assert [(launch.kernel, launch.device, launch.blocks, launch.threads, launch.mode) for launch in log.launches] == [
        (k, 0, (1, 1, 1), (1, 1, 1), "Generic") for k in ("saxpy", "daxpy", "triad", "fir", "hash_u32")]
    # N = 65536: saxpy maps x, y (2 x 262144) + &a (4); daxpy 2 x 524288 + &a (8); triad
    # a, b, c (3 x 524288) + &q (8); fir input (262144) + 16 taps (64) + output (262144);
    # hash over 50,000 u32 in and out.
    assert [(launch.h2d_bytes, launch.h2d_copies, launch.d2h_bytes, launch.d2h_copies) for launch in log.launches] == [
        (524292, 3, 262144, 1), (1048584, 3, 524288, 1), (1572872, 4, 524288, 1),
        (524352, 3, 262144, 1), (400000, 2, 200000, 1)]
    assert log.h2d_bytes == 524292 + 1048584 + 1572872 + 524352 + 400000
    assert log.per_kernel()["triad"] == {"launches": 1, "h2d_bytes": 1572872, "d2h_bytes": 524288}


def test_h200_launch_lines():
    lines = ['"PluginInterface" device 0 info: Launching kernel hash_u32 with [196,1,1] blocks and '
             '[256,1,1] threads in BARE mode']
    [launch] = parse_info_log(lines).launches
    assert (launch.kernel, launch.blocks, launch.threads, launch.mode, launch.total_threads) == \
        ("hash_u32", (196, 1, 1), (256, 1, 1), "BARE", 50176)
    assert launch.dims == "[196,1,1]x[256,1,1]"


def test_ptxas_resources():
    assert parse_ptxas_verbose((DATA / "ptxas_saxpy_sm90.txt").read_text()) == [
        KernelResources("saxpy", "sm_90", registers=10), KernelResources("iota", "sm_90", registers=10)]
    text = ("ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
            "ptxas info    : Function properties for k\n"
            "    48 bytes stack frame, 40 bytes spill stores, 44 bytes spill loads\n"
            "ptxas info    : Used 255 registers, used 1 barriers, 4096 bytes smem, 372 bytes cmem[0], "
            "8 bytes cmem[2]\n")
    [r] = parse_ptxas_verbose(text)
    assert (r.registers, r.stack_bytes, r.spill_store_bytes, r.spill_load_bytes, r.shared_bytes, r.constant_bytes) \
        == (255, 48, 40, 44, 4096, 380)
    assert r.spills
    assert r.summary() == ("k (sm_90): 255 registers, 48 B stack, SPILLS 40 B stores / 44 B loads, "
                           "4096 B shared, 380 B constant")


def _program(tmp_path: Path, body: str) -> Path:
    exe = tmp_path / "prog"
    exe.write_text(f"#!{sys.executable}\nimport sys, time\n{body}\n")
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    return exe


def test_gpu_only_binary_on_a_machine_without_gpu_says_what_to_do(tmp_path):
    exe = _program(tmp_path, "sys.stderr.write('omptarget fatal error 1: failure of target construct while "
                             "offloading is mandatory\\n'); sys.exit(1)")
    rep = asyncio.run(run_binary(exe, gpu_present=False, images=["nvptx64-nvidia-cuda"]))
    assert rep.exit_status == 1
    assert not rep.ok
    assert rep.problems == [
        "no usable device: the binary holds only GPU images and this machine has no GPU (or no libcuda/driver); "
        "rebuild with --device-image host to run the kernels on the CPU (libomptarget's Virtual Host Device)"]


def test_missing_runtime_library(tmp_path):
    exe = _program(tmp_path, "sys.stderr.write('./x: error while loading shared libraries: libomptarget.so.22.1: "
                             "cannot open shared object file: No such file or directory\\n'); sys.exit(127)")
    rep = asyncio.run(run_binary(exe))
    assert rep.problems == [
        "the offload runtime library libomptarget.so.22.1 is missing on this machine: install liboffload-22 "
        "(Debian) or build with --bundle DIR and run DIR/run"]


def test_hung_program_is_killed_at_the_timeout(tmp_path):
    exe = _program(tmp_path, "print('started', flush=True); time.sleep(60)")
    lines = []
    rep = asyncio.run(run_binary(exe, timeout=1.0, on_stdout=lines.append))
    assert rep.timed_out
    assert lines == ["started"]
    assert rep.problems == ["did not finish within 1 s and was killed (raise the run timeout, or look for a "
                            "kernel that never terminates: a kernel that panics, e.g. on an index out of "
                            "bounds, ends in the crate's #[panic_handler], often `loop {}`)"]
    assert rep.render().startswith("run report: timed out, ")


def test_host_image_chosen_although_gpu_present(tmp_path):
    exe = _program(tmp_path, "sys.stderr.write('\"PluginInterface\" device 0 info: Launching kernel saxpy with "
                             "[1,1,1] blocks and [1,1,1] threads in Generic mode\\n')")
    rep = asyncio.run(run_binary(exe, gpu_present=True, images=["nvptx64-nvidia-cuda", "x86_64-unknown-linux-gnu"]))
    assert rep.exit_status == 0
    assert rep.problems == [
        "kernels saxpy ran with [1,1,1]x[1,1,1] in Generic mode although a GPU is present: the binary embeds an "
        "x86_64 image and the runtime chose the host device; build with --device-image gpu"]


def test_launches_on_the_host_device_are_marked_with_the_plugins_dims(tmp_path):
    # the logged dims of a grid-emulating host entry, as the fresh-user review saw them
    log = ("\"PluginInterface\" device {d} info: Launching kernel jacobi with [1,12,1] blocks and [1,16,1] "
           "threads in Generic mode\\n")
    exe = _program(tmp_path, f"sys.stderr.write('{log.format(d=0)}'); sys.stderr.write('{log.format(d=1)}')")
    images = ["nvptx64-nvidia-cuda", "x86_64-unknown-linux-gnu"]
    alone = asyncio.run(run_binary(exe, gpu_present=False, images=images))
    assert [launch.on_host for launch in alone.log.launches] == [True, True]
    text = alone.render().splitlines()
    assert "[1,12,1]x[1,16,1] (host)*" in text[1]
    assert text[-1].startswith("  * libomptarget's Virtual Host Device: the dims are the host plugin's own")
    assert alone.to_json()["launches"][0]["hostDevice"] is True
    # one sm_90 GPU: it is device 0, the host plugin's device comes after it
    beside = asyncio.run(run_binary(exe, gpu_present=True, gpu_archs=["sm_90"], images=images))
    assert [launch.on_host for launch in beside.log.launches] == [False, True]
    gpu_only = asyncio.run(run_binary(exe, gpu_present=True, gpu_archs=["sm_90"], images=images[:1]))
    assert [launch.on_host for launch in gpu_only.log.launches] == [False, False]
    assert "(host)" not in gpu_only.render()


def test_missing_binary(tmp_path):
    rep = asyncio.run(run_binary(tmp_path / "nope"))
    assert rep.exit_status is None
    assert rep.problems == [f"{tmp_path / 'nope'}: no such binary; build it first"]


def test_device_number_out_of_range(tmp_path):
    # libomptarget 22's words on the H200 (docs/gpu-runs/report.txt), OMP_DEFAULT_DEVICE=7.
    exe = _program(tmp_path, "sys.stderr.write('omptarget fatal error 7: \"invalid value\" device number \\'7\\' "
                             "out of range, only 5 devices available\\n'); sys.exit(134)")
    rep = asyncio.run(run_binary(exe, device=7))
    assert rep.problems == [
        "no such device: device number '7' out of range, only 5 devices available (GPUs and libomptarget's "
        "host devices count); choose another with --device / offload-ls.device, or leave it unset for the first GPU"]


def test_image_for_another_arch(tmp_path):
    # libomptarget 22 on an H200 running an sm_80-only image (docs/gpu-runs.md).
    exe = _program(tmp_path, "sys.stderr.write('omptarget error: Host ptr 0x55bff7f07198 does not have a matching "
                             "target pointer.\\nomptarget fatal error 1: failure of target construct while "
                             "offloading is mandatory\\n'); sys.exit(134)")
    rep = asyncio.run(run_binary(exe, gpu_present=True, images=["nvptx64-nvidia-cuda"],
                                 gpu_archs=["sm_90"], image_archs=["sm_80"]))
    assert rep.problems == ["no usable device: the binary's GPU image is for sm_80 but this machine's GPU is "
                            "sm_90; rebuild with --arch sm_90"]
