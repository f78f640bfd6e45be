"""Kernel profiles: the parsers on files recorded on the H200 (benchmarks/gpu_record/record.sh;
Nsight Compute 2025.3.1, examples/offload-kernels' GPU bundle), and ``offload-ls profile`` on
this machine (no GPU: the Virtual Host Device and the runtime's time trace)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from offload_ls.gpu.profile import ProfileError, ProfileReport, parse_ncu_raw, parse_runtime_profile, per_kernel, render
from offload_ls.gpu.profile_run import ncu_note

DATA = Path(__file__).parent / "data"


def test_ncu_raw_page_per_launch():
    kernels, gpu = parse_ncu_raw((DATA / "h200_ncu_raw.csv").read_text())
    assert gpu == "NVIDIA H200"
    assert [k.kernel for k in kernels] == ["saxpy", "daxpy", "triad", "fir", "hash_u32"]
    saxpy = kernels[0]
    assert (saxpy.grid, saxpy.block, saxpy.duration_ns, saxpy.registers) == ((256, 1, 1), (256, 1, 1), 2688.0, 16)
    # DRAM: x and y read (2 x 256 KiB) plus a little; y's stores stayed in the 50 MB L2 (0 B
    # written to DRAM during the 2.7 us kernel)
    assert (saxpy.dram_read_bytes, saxpy.dram_write_bytes) == (527616.0, 0.0)
    # one fmul + one fadd per element, 65536 elements
    assert saxpy.flops_f32 == 2 * 65536 and saxpy.flops_f64 == 0
    daxpy = kernels[1]
    assert daxpy.flops_f64 == 2 * 65536 and daxpy.flops_f32 == 0  # one dfma (2 FLOPs) per element
    # Peaks of an H200: 4.7 TB/s DRAM (ncu), 66.9 / 33.5 TFLOP/s FP32 / FP64 (132 SMs x 1.98 GHz)
    assert 4.6e12 < saxpy.peak_dram_bytes_per_s < 4.9e12
    assert saxpy.peak_flops_f32 == 2 * 128 * 132 * 1.98e9 and saxpy.peak_flops_f64 == 2 * 64 * 132 * 1.98e9
    assert saxpy.bound == "memory" and not saxpy.spills
    assert 0 < saxpy.achieved_occupancy_pct < saxpy.theoretical_occupancy_pct == 100
    assert kernels[3].kernel == "fir" and kernels[3].intensity == pytest.approx(7.868, abs=1e-3)
    assert (kernels[4].flops, kernels[4].intensity) == (0.0, 0.0)


def test_runtime_time_trace_totals():
    rt = parse_runtime_profile((DATA / "h200_omptarget_profile.json").read_text())
    assert rt.host_to_device == (30, 730.0) and rt.device_to_host == (5, 532.0) and rt.kernel_launches == (5, 62.0)


def test_rendered_profile_names_every_figure():
    kernels, gpu = parse_ncu_raw((DATA / "h200_ncu_raw.csv").read_text())
    text = render(ProfileReport(kernels, parse_runtime_profile((DATA / "h200_omptarget_profile.json").read_text()),
                                gpu, "ncu"))
    lines = text.splitlines()
    assert lines[0] == "profile (ncu, NVIDIA H200)"
    assert lines[1].startswith("  kernel saxpy                 2.69 us  grid (256, 1, 1) block (256, 1, 1)  DRAM ")
    assert "% of peak DRAM), " in lines[1] and "FLOP/B, memory-bound, 16 registers, occupancy " in lines[1]
    assert "no floating-point operations" in lines[5]
    assert lines[6] == ("  runtime (libomptarget time trace): kernel launches 0.062 ms, copies host→device 0.730 ms, "
                        "device→host 0.532 ms")


def test_per_kernel_figures_for_the_editor():
    """What the editor shows on a kernel after a profile (lsp/profile.py): the median launch."""
    import dataclasses

    kernels, gpu = parse_ncu_raw((DATA / "h200_ncu_raw.csv").read_text())
    # two more saxpy launches, one faster and one slower: the median is the recorded one
    saxpy = kernels[0]
    more = [dataclasses.replace(saxpy, duration_ns=2000.0),
            dataclasses.replace(saxpy, duration_ns=9000.0, local_loads=4)]
    summary = per_kernel(ProfileReport(kernels + more, gpu=gpu))
    assert list(summary) == ["saxpy", "daxpy", "triad", "fir", "hash_u32"]
    s = summary["saxpy"]
    assert (s.launches, s.median.duration_ns, s.any_spills) == (3, 2688.0, True)
    assert s.lens_title() == ("profile: 2.7 µs (median of 3) · 196.29 GB/s (4.2% of peak) · 16 regs · "
                              "occupancy 21% · SPILLS")
    assert s.markdown().splitlines() == [
        "- median of 3 launches: 2.69 µs, grid (256, 1, 1), block (256, 1, 1)",
        "- DRAM 527.62 kB at 196.29 GB/s (4.2% of the GPU's peak)",
        "- 48.76 GFLOP/s (0.1% of peak), 0.248 FLOP/B: memory-bound",
        "- 16 registers, occupancy 20.9% (theoretical 100%), spills to local memory"]
    h = summary["hash_u32"]
    assert h.lens_title() == "profile: 2.6 µs · 77.37 GB/s (1.6% of peak) · 16 regs · occupancy 16%"
    assert "- no floating-point operations" in h.markdown().splitlines()
    assert per_kernel(ProfileReport()) == {}


def test_bad_profile_input_is_a_clear_error():
    nokernel = (DATA / "h200_ncu_nokernel.csv").read_text()
    with pytest.raises(ProfileError, match="no Nsight Compute CSV"):
        parse_ncu_raw(nokernel)
    assert ncu_note(nokernel, "", 0) == ("Nsight Compute profiled no kernel: the program launched none on the GPU "
                                         "(see the run report)")
    # the message NVIDIA documents for restricted counters
    perm = "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters"
    assert "run as root, or load the driver with NVreg_RestrictProfilingToAdminUsers=0" in ncu_note(perm, "", 1)
    assert ncu_note("==ERROR== something else\n", "", 2) == "ncu failed (exit status 2): ==ERROR== something else"
    assert ncu_note("", "", 0) is None
    for bad in ["", "{", "[]", '{"events": []}']:
        with pytest.raises(ProfileError, match="not a libomptarget time trace"):
            parse_runtime_profile(bad)
    assert parse_runtime_profile('{"traceEvents": 3}').kernel_launches == (0, 0.0)
    assert parse_runtime_profile(
        '{"traceEvents": [7, {"name": "Total DevToHost", "dur": 5}]}').device_to_host == (0, 5.0)
    # a truncated CSV row does not crash
    header = (DATA / "h200_ncu_raw.csv").read_text().splitlines()
    cut = next(i for i, line in enumerate(header) if line.startswith('"ID",'))
    kernels, _ = parse_ncu_raw("\n".join(header[cut:cut + 2] + ['"0","1","x","h","k"']))
    assert kernels[0].kernel == "k" and kernels[0].duration_ns == 0.0 and kernels[0].grid == (0, 0, 0)


@pytest.mark.toolchain
def test_cli_profile_without_a_gpu_reports_the_runtime_timings(offload_report, example_copy):
    if offload_report.gpus:
        pytest.skip("this machine has a GPU")
    crate = example_copy("examples/offload-kernels")
    res = subprocess.run([sys.executable, "-m", "offload_ls", "profile", str(crate), "--json"], capture_output=True,
                         text=True, timeout=900)
    assert res.returncode == 0, res.stderr
    assert "no GPU found: building with --device-image host" in res.stderr
    out = json.loads(res.stdout)
    prof = out["profile"]
    assert prof["kernels"] == [] and prof["source"] == "runtime log"
    launches, launch_us = prof["runtime"]["kernel_launches"].values()
    events, h2d_us = prof["runtime"]["host_to_device"].values()
    assert launches == len(out["run"]["launches"]) == 5 and launch_us > 0
    # two HostToDev events per copy the runtime's info log counted (15)
    assert events == 30 and h2d_us > 0
    assert prof["notes"] == ["no GPU here: kernel durations, DRAM bandwidth and occupancy need an NVIDIA GPU and "
                             "Nsight Compute; the kernels ran on libomptarget's Virtual Host Device"]
    text = subprocess.run([sys.executable, "-m", "offload_ls", "profile", str(crate)], capture_output=True, text=True,
                          timeout=900)
    assert text.returncode == 0
    assert "\nprofile (runtime log)\n  runtime (libomptarget time trace): kernel launches " in text.stdout


def test_a_program_killed_by_a_signal_is_named_in_the_run_report():
    from offload_ls.gpu.launch import RunReport, diagnose
    from offload_ls.gpu.runlog import TransferLog

    aborted = RunReport("/x/prog", -6, 0.1, TransferLog(), stderr="thread 'main' panicked at src/main.rs:3:5:\nboom")
    assert diagnose(aborted, None, 10, False, []) == [
        "the program was killed by SIGABRT (exit status -6); a panic or abort: its message is in the program's stderr"]
    assert diagnose(RunReport("/x/prog", -9, 0.1, TransferLog()), None, 10, False, []) == [
        "the program was killed by SIGKILL (exit status -9)"]
    assert diagnose(RunReport("/x/prog", 3, 0.1, TransferLog()), None, 10, False, []) == [
        "the program exited with status 3"]
