"""Tests of compare.py's ncu CSV parsing and comparison, on small synthetic CSV text in the
layout ncu prints (``ncu --csv`` details page: every field quoted, one row per launch and metric).

Run: ``python3 -m pytest -q benchmarks/gpu_kernels/test_compare.py``; the project's pytest run
collects the same tests through tests/test_gpu_bench_compare.py.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().with_name("compare.py")


def _load():
    name = "gpu_kernels_compare"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, _PATH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look the module up by name
    spec.loader.exec_module(module)
    return module


compare = _load()

HEADER = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream",'
          '"Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit",'
          '"Metric Value"')


def row(launch_id, kernel, metric, unit, value, pid=4242, process="gpu-kernels-bench"):
    """One details-page row as ncu writes it."""
    return (f'"{launch_id}","{pid}","{process}","127.0.0.1","{kernel}","1","7","(256, 1, 1)",'
            f'"(65536, 1, 1)","0","9.0","Command line profiler metrics","{metric}","{unit}",'
            f'"{value}"')


def launch_rows(launch_id, kernel, time, time_unit, read, write, byte_unit="byte", **kw):
    return [row(launch_id, kernel, "dram__bytes_read.sum", byte_unit, read, **kw),
            row(launch_id, kernel, "dram__bytes_write.sum", byte_unit, write, **kw),
            row(launch_id, kernel, "gpu__time_duration.sum", time_unit, time, **kw)]


def test_parse_number_thousands_separators():
    assert compare.parse_number("268,435,456") == 268435456.0
    assert compare.parse_number("1,234.5") == 1234.5
    assert compare.parse_number(" 98.25 ") == 98.25
    assert compare.parse_number("1e3") == 1000.0


@pytest.mark.parametrize("text", ["9,00", "1,23,456", "", "n/a"])
def test_parse_number_refuses(text):
    with pytest.raises(compare.NcuCsvError):
        compare.parse_number(text)


def test_decimal_comma_message_names_the_fix():
    with pytest.raises(compare.NcuCsvError, match="LC_ALL=C"):
        compare.parse_number("9,00")


@pytest.mark.parametrize("unit, value, seconds", [
    ("nsecond", "125,952", 125952e-9),
    ("usecond", "125.95", 125.95e-6),
    ("msecond", "0.5", 0.5e-3),
    ("second", "2", 2.0),
])
def test_time_units(unit, value, seconds):
    assert compare.to_base_unit("gpu__time_duration.sum", value, unit) == pytest.approx(seconds, rel=1e-15)


@pytest.mark.parametrize("unit, value, nbytes", [
    ("byte", "134,217,728", 134217728.0),
    ("Kbyte", "131,072", 131072000.0),
    ("Mbyte", "268.44", 268440000.0),
    ("Gbyte", "0.40", 400000000.0),
])
def test_byte_units_are_decimal(unit, value, nbytes):
    assert compare.to_base_unit("dram__bytes_read.sum", value, unit) == pytest.approx(nbytes, rel=1e-15)


def test_unknown_unit_refused():
    with pytest.raises(compare.NcuCsvError, match="unknown unit 'cycle'"):
        compare.to_base_unit("gpu__time_duration.sum", "100", "cycle")


@pytest.mark.parametrize("name, base", [
    ("daxpy", "daxpy"),
    ("daxpy_cuda(const double *, double *, double)", "daxpy_cuda"),
    ("void fir_cuda(double const*, double*)", "fir_cuda"),
    ("ns::k<int>(int)", "ns::k"),
])
def test_kernel_base_name(name, base):
    assert compare.kernel_base_name(name) == base


def test_parse_long_format_with_profiler_noise():
    text = "\n".join([
        "==PROF== Connected to process 4242 (/opt/bundle/gpu-kernels-bench)",
        "==PROF== Profiling \"daxpy\" - 0: 0%....50%....100% - 1 pass",
        HEADER,
        *launch_rows(0, "daxpy", "130,048", "nsecond", "268,435,456", "134,217,728"),
        "OK daxpy N=16777216 reps=1",  # program output interleaved with the table
        *launch_rows(1, "daxpy", "125.5", "usecond", "268.44", "134.22", byte_unit="Mbyte"),
        *launch_rows(2, "triad", "0.13", "msecond", "0.27", "0.13", byte_unit="Gbyte"),
        "==PROF== Disconnected from process 4242",
    ])
    launches = compare.parse_ncu_csv(text)
    assert [(launch.launch_id, launch.kernel) for launch in launches] == [
        ("4242:0", "daxpy"), ("4242:1", "daxpy"), ("4242:2", "triad")]
    assert launches[0].seconds == pytest.approx(130048e-9, rel=1e-15)
    assert launches[0].bytes_read == 268435456.0
    assert launches[0].bytes_written == 134217728.0
    assert launches[1].seconds == pytest.approx(125.5e-6, rel=1e-15)
    assert launches[1].bytes_read == pytest.approx(268.44e6, rel=1e-15)
    assert launches[2].seconds == pytest.approx(0.13e-3, rel=1e-15)
    assert launches[2].bytes_written == pytest.approx(0.13e9, rel=1e-15)


#: Verbatim from `ncu --import rust.ncu-rep --csv --page details --print-units base`,
#: Nsight Compute 2025.3.1 on an H200 (the validation run of run_on_gpu.sh): with base units
#: the duration unit is "ns", not "nsecond", and there are no thousands separators.
REAL_NCU_2025_3 = """\
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC",\
"Section Name","Metric Name","Metric Unit","Metric Value"
"0","981","gpu-kernels-bench","127.0.0.1","daxpy","1","13","(256, 1, 1)","(65536, 1, 1)","0","9.0",\
"Command line profiler metrics","dram__bytes_read.sum","byte","268444416"
"0","981","gpu-kernels-bench","127.0.0.1","daxpy","1","13","(256, 1, 1)","(65536, 1, 1)","0","9.0",\
"Command line profiler metrics","dram__bytes_write.sum","byte","114286848"
"0","981","gpu-kernels-bench","127.0.0.1","daxpy","1","13","(256, 1, 1)","(65536, 1, 1)","0","9.0",\
"Command line profiler metrics","gpu__time_duration.sum","ns","94720"
"42","981","gpu-kernels-bench","127.0.0.1","fir","1","13","(256, 1, 1)","(65536, 1, 1)","0","9.0",\
"Command line profiler metrics","dram__bytes_read.sum","byte","134231296"
"42","981","gpu-kernels-bench","127.0.0.1","fir","1","13","(256, 1, 1)","(65536, 1, 1)","0","9.0",\
"Command line profiler metrics","dram__bytes_write.sum","byte","111676928"
"42","981","gpu-kernels-bench","127.0.0.1","fir","1","13","(256, 1, 1)","(65536, 1, 1)","0","9.0",\
"Command line profiler metrics","gpu__time_duration.sum","ns","111168"
"""


def test_parse_real_ncu_2025_3_export():
    launches = compare.parse_ncu_csv(REAL_NCU_2025_3)
    assert [(launch.launch_id, launch.kernel, launch.bytes_read, launch.bytes_written) for launch in launches] == [
        ("981:0", "daxpy", 268444416.0, 114286848.0), ("981:42", "fir", 134231296.0, 111676928.0)]
    assert launches[0].seconds == pytest.approx(94720e-9, rel=1e-15)
    assert launches[1].seconds == pytest.approx(111168e-9, rel=1e-15)


def test_parse_long_format_minimal_columns_without_id():
    text = "\n".join([
        '"Kernel Name","Metric Name","Metric Unit","Metric Value"',
        '"fir","gpu__time_duration.sum","nsecond","100"',
        '"fir","dram__bytes_read.sum","byte","10"',
        '"fir","gpu__time_duration.sum","nsecond","300"',
        '"fir","dram__bytes_read.sum","byte","30"',
        '"daxpy","gpu__time_duration.sum","nsecond","50"',
    ])
    launches = compare.parse_ncu_csv(text)
    assert [(launch.kernel, round(launch.seconds * 1e9), launch.bytes_read) for launch in launches] == [
        ("fir", 100, 10.0), ("fir", 300, 30.0), ("daxpy", 50, None)]


def test_parse_wide_raw_page():
    text = "\n".join([
        '"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream",'
        '"Block Size","Grid Size","Device","CC","dram__bytes_read.sum","dram__bytes_write.sum",'
        '"gpu__time_duration.sum"',
        '"","","","","","","","","","","","Mbyte","Mbyte","usecond"',
        '"0","77","cuda-kernels-bench","127.0.0.1","triad_cuda","1","7","(256, 1, 1)",'
        '"(65536, 1, 1)","0","9.0","268.44","134.22","101.25"',
    ])
    [launch] = compare.parse_ncu_csv(text)
    assert launch.kernel == "triad_cuda"
    assert launch.seconds == pytest.approx(101.25e-6, rel=1e-15)
    assert launch.bytes_read + launch.bytes_written == pytest.approx(402.66e6, rel=1e-15)


def test_no_header_refused():
    with pytest.raises(compare.NcuCsvError, match="no ncu CSV header"):
        compare.parse_ncu_csv("==PROF== No kernels were profiled.\n")


def test_launch_without_duration_refused():
    text = "\n".join([HEADER, row(0, "daxpy", "dram__bytes_read.sum", "byte", "8")])
    with pytest.raises(compare.NcuCsvError, match="launch 4242:0 \\(daxpy\\) has no gpu__time_duration.sum"):
        compare.parse_ncu_csv(text)


def _csv(kernel, times_ns, read=268435456, write=134217728, pid=1):
    lines = [HEADER]
    for i, t in enumerate(times_ns):
        lines += launch_rows(i, kernel, f"{t:,}", "nsecond", f"{read:,}", f"{write:,}", pid=pid)
    return "\n".join(lines)


def test_summarize_skips_warmup_and_takes_medians():
    launches = compare.parse_ncu_csv(_csv("daxpy", [900_000, 100_000, 130_000, 120_000]))
    stats = compare.summarize(launches)["daxpy"]
    assert stats.launches == 3
    assert stats.median_seconds == pytest.approx(120e-6, rel=1e-15)
    assert stats.dram_bytes == 402653184.0
    assert stats.bandwidth == pytest.approx(402653184.0 / 120e-6, rel=1e-15)
    # a single launch is kept even though skip_first is 1
    assert compare.summarize(launches[:1])["daxpy"].median_seconds == pytest.approx(900e-6, rel=1e-15)
    assert compare.summarize(launches, skip_first=0)["daxpy"].median_seconds == pytest.approx(125e-6, rel=1e-15)


def _profile(names_times, pid0=100):
    """A CSV with one process per kernel (distinct launch keys), times in ns per launch."""
    lines = [HEADER]
    for k, (kernel, times, read, write) in enumerate(names_times):
        for i, t in enumerate(times):
            lines += launch_rows(i, kernel, f"{t:,}", "nsecond", f"{read:,}", f"{write:,}", pid=pid0 + k)
    return "\n".join(lines)


RUST = _profile([("daxpy", [500_000, 125_000, 125_000, 125_000], 268435456, 134217728),
                 ("triad", [500_000, 100_000, 100_000, 100_000], 268435456, 134217728),
                 ("fir", [500_000, 80_000, 80_000, 80_000], 134217728, 134217728)])
CUDA = _profile([("daxpy_cuda", [400_000, 100_000, 100_000, 100_000], 268435456, 134217728),
                 ("triad_cuda", [400_000, 100_000, 100_000, 100_000], 268435456, 134217728),
                 ("fir_cuda", [400_000, 80_000, 80_000, 80_000], 134217728, 134217728)])


def test_comparison_rows():
    rows = compare.compare(compare.summarize(compare.parse_ncu_csv(RUST)),
                           compare.summarize(compare.parse_ncu_csv(CUDA)))
    assert [(c.rust.kernel, c.cuda.kernel) for c in rows] == [
        ("daxpy", "daxpy_cuda"), ("triad", "triad_cuda"), ("fir", "fir_cuda")]
    assert [c.ratio for c in rows] == [0.8, 1.0, 1.0]
    assert compare.format_table(rows).splitlines() == [
        "| kernel | Rust median µs | CUDA median µs | Rust DRAM GB/s | CUDA DRAM GB/s "
        "| Rust/CUDA throughput | ≥ 0.9 |",
        "|---|---:|---:|---:|---:|---:|:---:|",
        "| daxpy | 125.00 | 100.00 | 3221.2 | 4026.5 | 0.800 | NO |",
        "| triad | 100.00 | 100.00 | 4026.5 | 4026.5 | 1.000 | yes |",
        "| fir | 80.00 | 80.00 | 3355.4 | 3355.4 | 1.000 | yes |",
        "",
        "daxpy: Rust 3 launches, 402.7 MB DRAM/launch; CUDA daxpy_cuda 3 launches, 402.7 MB DRAM/launch",
        "triad: Rust 3 launches, 402.7 MB DRAM/launch; CUDA triad_cuda 3 launches, 402.7 MB DRAM/launch",
        "fir: Rust 3 launches, 268.4 MB DRAM/launch; CUDA fir_cuda 3 launches, 268.4 MB DRAM/launch",
    ]


def test_missing_kernel_named():
    rust = compare.summarize(compare.parse_ncu_csv(RUST))
    cuda = compare.summarize(compare.parse_ncu_csv(CUDA))
    del cuda["fir_cuda"]
    with pytest.raises(compare.NcuCsvError, match=r"kernels not in the profiles: CUDA fir_cuda"):
        compare.compare(rust, cuda)


def test_main_prints_table_and_exit_status(tmp_path, capsys):
    (tmp_path / "rust.csv").write_text(RUST, encoding="utf-8")
    (tmp_path / "cuda.csv").write_text(CUDA, encoding="utf-8")
    assert compare.main([str(tmp_path / "rust.csv"), str(tmp_path / "cuda.csv"), "--threshold", "0.75"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith("| Rust/CUDA throughput | ≥ 0.75 |")
    assert out[2] == "| daxpy | 125.00 | 100.00 | 3221.2 | 4026.5 | 0.800 | yes |"
    (tmp_path / "empty.csv").write_text("==PROF== No kernels were profiled.\n", encoding="utf-8")
    assert compare.main([str(tmp_path / "empty.csv"), str(tmp_path / "cuda.csv")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"compare.py: {tmp_path / 'empty.csv'}: no ncu CSV header")
