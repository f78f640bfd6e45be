"""Tests of compare.py on testdata/, a run_on_gpu.sh OUT_DIR in miniature (REPS=2): Nsight Compute
raw-page CSVs in the layout ncu 2025.3 prints (every field quoted, a units row, thousands
separators, program output around the table), a LIBOMPTARGET_INFO log, a LIBOMPTARGET_PROFILE
trace, the CUDA program's stdout and nsys stats CSVs (current and pre-2023.3 report names).
The figures in testdata/ are made up; they are not measurements.

Run: ``python3 -m pytest -q benchmarks/rajaperf/test_compare.py``; the project's pytest run
collects the same tests through tests/test_rajaperf_compare.py.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import sys
from pathlib import Path

import pytest

_HERE = Path(__file__).resolve().parent
DATA = _HERE / "testdata"


def _load():
    name = "rajaperf_compare"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, _HERE / "compare.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look the module up by name
    spec.loader.exec_module(module)
    return module


compare = _load()


def test_parse_number():
    assert compare.parse_number("2,688") == 2688.0
    assert compare.parse_number("40,004,096") == 40004096.0
    assert compare.parse_number(" 85.25 ") == 85.25
    for bad in ("9,00", "", "n/a"):
        with pytest.raises(compare.InputError):
            compare.parse_number(bad)


def test_decimal_comma_names_the_fix():
    with pytest.raises(compare.InputError, match="LC_ALL=C"):
        compare.parse_number("1,5")


def test_kernel_base_name():
    assert compare.kernel_base_name("fir_cuda") == "fir_cuda"
    assert compare.kernel_base_name("void fir_cuda(double *, const double *, const double *)") == "fir_cuda"


def test_parse_ncu_raw_reads_every_launch_in_order():
    launches = compare.parse_ncu_raw((DATA / "rust.csv").read_text())
    assert len(launches) == 13 * 3
    assert [x.kernel for x in launches[:7]] == ["energy1", "energy2", "energy3", "energy4", "energy5", "energy6",
                                                "energy1"]
    first = launches[0]
    assert first.launch_id == "4321:0"
    assert first.seconds == pytest.approx(30000e-9)
    assert first.dram_read == 40_000_000 and first.dram_write == 8_000_000
    assert first.registers == 20 and first.achieved_pct == pytest.approx(80.5) and first.theoretical_pct == 100
    ltimes = next(x for x in launches if x.kernel == "ltimes")
    assert (ltimes.grid, ltimes.block) == ("(1, 8, 244)", "(32, 4, 2)")


def test_parse_ncu_raw_refuses_what_it_cannot_read():
    with pytest.raises(compare.InputError, match="raw-page header"):
        compare.parse_ncu_raw('"ID","Kernel Name","Metric Name"\n"0","fir","x"\n')
    text = (DATA / "rust.csv").read_text().replace('"ns"', '"cycle"')
    with pytest.raises(compare.InputError, match="unknown unit 'cycle'"):
        compare.parse_ncu_raw(text)
    header = next(line for line in (DATA / "rust.csv").read_text().splitlines() if line.startswith('"ID"'))
    with pytest.raises(compare.InputError, match="no launches"):
        compare.parse_ncu_raw(header + "\n")


def test_summarize_skips_the_warm_up_launch():
    stats = compare.summarize(compare.parse_ncu_raw((DATA / "rust.csv").read_text()))
    e1 = stats["energy1"]
    assert e1.launches == 2
    assert e1.seconds == pytest.approx(21000e-9)  # median of 20000 and 22000 ns; 30000 was the warm-up
    assert e1.dram_bytes == pytest.approx(48_000_000 + 4096 * 1.5)  # median of the two launches' read + write
    assert e1.bandwidth == pytest.approx(e1.dram_bytes / 21000e-9)
    assert e1.peak_pct == pytest.approx(100 * e1.bandwidth / 4.8e12)
    kept = compare.summarize(compare.parse_ncu_raw((DATA / "rust.csv").read_text()), skip_first=0)
    assert kept["energy1"].launches == 3 and kept["energy1"].seconds == pytest.approx(22000e-9)


def test_pair_and_ratio():
    rust = compare.summarize(compare.parse_ncu_raw((DATA / "rust.csv").read_text()))
    cuda = compare.summarize(compare.parse_ncu_raw((DATA / "cuda.csv").read_text()))
    rows = compare.pair(rust, cuda)
    assert [r.kernel for r in rows] == list(compare.KERNELS)
    by = {r.kernel: r for r in rows}
    assert by["fir"].ratio == pytest.approx(9900 / 10000)
    assert by["energy1"].ratio == pytest.approx(20000 / 21000)
    assert by["ltimes"].ratio == pytest.approx(45500 / 45000)
    del cuda["vol3d_cuda"]
    with pytest.raises(compare.InputError, match="CUDA vol3d_cuda"):
        compare.pair(rust, cuda)


def test_kernel_table_rows_and_verdicts():
    rust = compare.summarize(compare.parse_ncu_raw((DATA / "rust.csv").read_text()))
    cuda = compare.summarize(compare.parse_ncu_raw((DATA / "cuda.csv").read_text()))
    table = compare.kernel_table(compare.pair(rust, cuda), 0.97)
    fir = next(line for line in table.splitlines() if line.startswith("| fir |"))
    cells = [c.strip() for c in fir.strip("|").split("|")]
    assert cells[:3] == ["fir", "10.00", "9.90"]
    assert cells[7:9] == ["32", "30"]  # registers
    assert cells[9] == "85.2 (100)"  # achieved (theoretical) occupancy
    assert cells[11:13] == ["0.990", "yes"]
    assert "as quoted" in cells[13]
    e1 = next(line for line in table.splitlines() if line.startswith("| energy1 |"))
    assert "| 0.952 | NO |" in e1
    assert "geometric mean" in table and "4.8 TB/s" in table


def test_offload_log_attributes_copies_to_launches():
    log = compare.parse_offload_log((DATA / "rust.stderr").read_text())
    assert log.launches == {"energy1": 3, "fir": 3}
    assert log.total.h2d_copies == 27 and log.total.d2h_copies == 6
    assert log.total.h2d_bytes == 3 * 6 * 8_000_000 + 3 * (8_000_000 + 8_000_120 + 128)
    assert log.per_kernel["energy1"].h2d_bytes == 3 * 6 * 8_000_000
    assert log.per_kernel["fir"].d2h_bytes == 3 * 8_000_000
    assert log.grids["energy1"] == "[3907,1,1]x[256,1,1]"


def test_omptarget_profile_and_cuda_transfers():
    (h2d, d2h) = compare.parse_omptarget_profile((DATA / "rust.omptarget-profile.json").read_text())
    assert h2d == (27, pytest.approx(41.5)) and d2h == (6, pytest.approx(6.25))
    with pytest.raises(compare.InputError):
        compare.parse_omptarget_profile("not json")
    cuda = compare.parse_cuda_transfers((DATA / "cuda.stdout").read_text())
    assert (cuda.h2d_bytes, cuda.h2d_copies, cuda.h2d_ms) == (480e6, 60, 16.0)
    assert (cuda.d2h_bytes, cuda.d2h_ms, cuda.total_ms) == (64e6, 4.5, 20.5)
    with pytest.raises(compare.InputError, match="cuda_transfer_total"):
        compare.parse_cuda_transfers("OK fir_cuda\n")


@pytest.mark.parametrize("stem, reports, h2d_ms, h2d_mb, h2d_n", [
    ("rust", ("cuda_gpu_mem_time_sum", "cuda_gpu_mem_size_sum"), 41.0, 168.0, 27),
    ("cuda", ("gpumemtimesum", "gpumemsizesum"), 15.8, 480.0, 60),
])
def test_nsys_memory_summaries(stem, reports, h2d_ms, h2d_mb, h2d_n):
    c = compare.parse_nsys_mem((DATA / f"{stem}-nsys_{reports[0]}.csv").read_text(),
                               (DATA / f"{stem}-nsys_{reports[1]}.csv").read_text())
    assert c.h2d_ms == pytest.approx(h2d_ms) and c.h2d_copies == h2d_n
    assert c.h2d_bytes == pytest.approx(h2d_mb * 1e6)
    no_sizes = compare.parse_nsys_mem((DATA / f"{stem}-nsys_{reports[0]}.csv").read_text(), None)
    assert no_sizes.h2d_bytes is None  # memsets are not copies; sizes unknown without the size report


def test_report_on_a_results_dir(capsys):
    assert compare.main([str(DATA)]) == 0
    out = capsys.readouterr().out
    assert "## Kernels" in out and "| del_dot_vec_2d |" in out
    assert "Rust offload 46 ms vs RAJA 16 ms (as quoted)" in out
    assert "| Rust (rust) / 3 launches per kernel |" in out
    assert re.search(r"\| CUDA \(cuda\) \| 480\.0 \| 60 \| 16\.00 \|", out)
    assert "| energy1 | 3 | [3907,1,1]x[256,1,1] | 48.0 | 8.0 |" in out


def test_missing_profile_exits_2_but_reports_the_rest(tmp_path, capsys):
    for f in DATA.iterdir():
        if f.name != "cuda.csv":
            shutil.copy(f, tmp_path / f.name)
    assert compare.main([str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert "## Kernels" not in captured.out and "## Host<->device copies" in captured.out
    assert "cuda.csv: missing" in captured.err


def test_variant_stem(tmp_path, capsys):
    for f in DATA.iterdir():
        shutil.copy(f, tmp_path / f.name.replace("rust", "rust-nc", 1))
    assert compare.main(["--rust", "rust-nc", str(tmp_path)]) == 0
    assert "Rust offload (rust-nc)" in capsys.readouterr().out


def test_kernel_names_agree_across_the_benchmark():
    """compare.py's 13 names are the Rust kernels, the CUDA kernels (+ _cuda) and run_on_gpu.sh's
    ncu filter."""
    rust = (_HERE / "rust" / "src" / "kernels.rs").read_text()
    cuda = (_HERE / "cuda" / "rajaperf.cu").read_text()
    script = (_HERE / "run_on_gpu.sh").read_text()
    assert set(re.findall(r"#\[offload_kernel\]\s*pub fn (\w+)", rust)) == set(compare.KERNELS)
    assert set(re.findall(r'extern "C" __global__ void (\w+)_cuda\(', cuda)) == set(compare.KERNELS)
    m = re.search(r"^kernels='([\w|]+)'$", script, re.M)
    assert m and set(m.group(1).split("|")) == set(compare.KERNELS)
