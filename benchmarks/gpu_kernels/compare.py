#!/usr/bin/env python3
"""Compare Nsight Compute (ncu) CSV exports of the Rust offload kernels and the CUDA C++ kernels.

usage: python3 compare.py [--skip-first K] [--threshold T] RUST_CSV CUDA_CSV

Input: the CSV that ``ncu --csv`` prints for a profile taken with
``--metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum`` (run_on_gpu.sh
makes it with ``ncu --import X.ncu-rep --csv --page details --print-units base``). Two layouts
are read:

* long ("details" page, the default): a header row holding ``"Kernel Name"``, ``"Metric Name"``,
  ``"Metric Unit"``, ``"Metric Value"`` (and normally ``"ID"``, ncu's launch number), then one
  row per launch and metric;
* wide (``--page raw``): a header row holding ``"Kernel Name"`` and the metric names as
  columns, a row of units, then one row per launch.

Every field is quoted; lines that are not rows of the table (``==PROF==`` messages, the
program's own output when ncu printed to the same stream) are skipped. Units: durations in
``nsecond``/``usecond``/``msecond``/``second`` (or ns/us/µs/ms/s), bytes in
``byte``/``Kbyte``/``Mbyte``/``Gbyte``/``Tbyte`` (decimal prefixes, as ncu prints them; a
binary ``KiB``/``MiB``/``GiB`` is read as 1024-based). Numbers may carry thousands separators
(``1,234,567.5``); a comma that is not a thousands separator (``9,00`` from a locale with a
decimal comma) is refused: run ncu with ``LC_ALL=C``.

Per kernel: the launches in the order ncu profiled them, the first ``--skip-first`` (default 1:
the warm-up launch both programs make) dropped when more remain; median duration over the
remaining launches; DRAM bytes = median over those launches of
``dram__bytes_read.sum + dram__bytes_write.sum``; DRAM bandwidth = DRAM bytes / median duration
(GB/s = 1e9 bytes per second).

Throughput ratio Rust/CUDA = CUDA median duration / Rust median duration. Both programs do
the same work (same algorithm, same N), so this is the ratio of useful work per second; the
DRAM GB/s columns are shown beside it but are not used for the verdict, because a kernel that
moves extra bytes would look *faster* by DRAM GB/s. Verdict: ratio >= ``--threshold``
(default 0.9).

Kernel names: KERNEL_MAP maps each Rust kernel (``#[unsafe(no_mangle)]`` names in
rust/src/main.rs) to its CUDA counterpart (``extern "C"`` names in cuda/kernels.cu). A name
ncu prints demangled with a parameter list or return type (``void daxpy_cuda(double const*,
...)``) is reduced to the bare function name first.

Exit status: 0 when both files were read and every mapped kernel was found in both, 2 otherwise
(message on stderr). A ratio below the threshold does not change the exit status.
"""

from __future__ import annotations

import argparse
import csv
import re
import statistics
import sys
from dataclasses import dataclass

#: Rust kernel name -> CUDA kernel name (rust/src/main.rs -> cuda/kernels.cu), in table order.
KERNEL_MAP: dict[str, str] = {
    "daxpy": "daxpy_cuda",  # RAJAPerf Stream_DAXPY  y[i] += a * x[i]
    "triad": "triad_cuda",  # RAJAPerf Stream_TRIAD  a[i] = b[i] + alpha * c[i]
    "fir": "fir_cuda",  # RAJAPerf Apps_FIR, 16 taps
}

TIME_METRIC = "gpu__time_duration.sum"
READ_METRIC = "dram__bytes_read.sum"
WRITE_METRIC = "dram__bytes_write.sum"
METRICS = (TIME_METRIC, READ_METRIC, WRITE_METRIC)

#: Seconds per unit of a duration.
TIME_UNITS: dict[str, float] = {
    "nsecond": 1e-9, "ns": 1e-9,
    "usecond": 1e-6, "us": 1e-6, "µs": 1e-6,
    "msecond": 1e-3, "ms": 1e-3,
    "second": 1.0, "s": 1.0,
}
#: Bytes per unit of a byte count (ncu's prefixes are decimal).
BYTE_UNITS: dict[str, float] = {
    "byte": 1.0, "B": 1.0,
    "Kbyte": 1e3, "KB": 1e3, "Mbyte": 1e6, "MB": 1e6, "Gbyte": 1e9, "GB": 1e9,
    "Tbyte": 1e12, "TB": 1e12,
    "KiB": 1024.0, "MiB": 1024.0**2, "GiB": 1024.0**3,
}
#: Per metric: the unit table and the base unit the values are converted to (seconds, bytes).
UNITS: dict[str, dict[str, float]] = {TIME_METRIC: TIME_UNITS, READ_METRIC: BYTE_UNITS, WRITE_METRIC: BYTE_UNITS}

_THOUSANDS = re.compile(r"[+-]?\d{1,3}(,\d{3})+(\.\d*)?([eE][+-]?\d+)?")


class NcuCsvError(ValueError):
    """The text is not an ncu CSV this script can read (message says what is wrong)."""


def parse_number(text: str) -> float:
    """Parse an ncu metric value: ``"1,234,567.5"`` -> 1234567.5, ``"98.3"`` -> 98.3.

    Raises:
        NcuCsvError: empty, ``n/a``, or a comma that is not a thousands separator
            (``"9,00"`` from a decimal-comma locale; run ncu with LC_ALL=C).
    """
    t = text.strip()
    if "," in t:
        if not _THOUSANDS.fullmatch(t):
            raise NcuCsvError(f"metric value {text!r}: comma is not a thousands separator "
                              "(decimal-comma locale?); run ncu with LC_ALL=C")
        t = t.replace(",", "")
    try:
        return float(t)
    except ValueError:
        raise NcuCsvError(f"metric value {text!r} is not a number") from None


def to_base_unit(metric: str, value: str, unit: str) -> float:
    """Convert one metric value to seconds (duration) or bytes (DRAM bytes).

    Raises:
        NcuCsvError: the unit is not one this script knows for ``metric`` (refused rather
            than guessed), or the value is not a number.
    """
    table = UNITS[metric]
    factor = table.get(unit.strip())
    if factor is None:
        raise NcuCsvError(f"{metric}: unknown unit {unit!r} (known: {', '.join(table)})")
    return parse_number(value) * factor


def kernel_base_name(name: str) -> str:
    """The bare function name of an ncu kernel name.

    ``"daxpy"`` -> ``"daxpy"``; ``"void fir_cuda(double const*, double*)"`` -> ``"fir_cuda"``;
    ``"ns::k<int>(int)"`` -> ``"ns::k"``.
    """
    n = name.strip()
    if "(" in n:
        n = n[: n.index("(")]
    if "<" in n:
        n = n[: n.index("<")]
    return n.split()[-1] if n.split() else n


@dataclass
class Launch:
    """One profiled kernel launch: ncu's launch ID, the kernel's bare name, the duration in
    seconds and the DRAM bytes read / written (None when the metric is absent)."""

    launch_id: str
    kernel: str
    seconds: float | None = None
    bytes_read: float | None = None
    bytes_written: float | None = None

    def set(self, metric: str, value: float) -> None:
        """Store a converted metric value (seconds or bytes)."""
        if metric == TIME_METRIC:
            self.seconds = value
        elif metric == READ_METRIC:
            self.bytes_read = value
        elif metric == WRITE_METRIC:
            self.bytes_written = value


def _rows(lines: list[str]) -> list[list[str]]:
    """Each line parsed as one CSV record (ncu quotes every field; no field spans lines)."""
    return [next(csv.reader([line])) if line.strip() else [] for line in lines]


def parse_ncu_csv(text: str) -> list[Launch]:
    """Parse ncu CSV text into launches, in the order ncu lists them.

    Args:
        text: the whole CSV output, possibly with ``==PROF==`` lines and program output around
            or between the rows.

    Returns:
        One Launch per profiled launch (keyed by ``"Process ID"`` and ``"ID"`` when present).

    Raises:
        NcuCsvError: no header row, a launch without ``gpu__time_duration.sum``, an unknown
            unit, or an unparsable number.
    """
    rows = _rows(text.splitlines())
    for h, header in enumerate(rows):
        if "Kernel Name" not in header:
            continue
        if {"Metric Name", "Metric Unit", "Metric Value"} <= set(header):
            launches = _parse_long(header, rows[h + 1:])
            break
        if TIME_METRIC in header:
            launches = _parse_wide(header, rows[h + 1:])
            break
    else:
        raise NcuCsvError('no ncu CSV header ("Kernel Name" with "Metric Name"/"Metric Unit"/'
                          f'"Metric Value", or with a {TIME_METRIC} column) found')
    if not launches:
        raise NcuCsvError("the ncu CSV has a header but no launches")
    for launch in launches:
        if launch.seconds is None:
            raise NcuCsvError(f"launch {launch.launch_id} ({launch.kernel}) has no {TIME_METRIC}")
    return launches


def _launch_key(header: list[str], row: list[str]) -> tuple[str, ...] | None:
    """(process id, launch id) of a data row, or None when the row is not a data row."""
    if len(row) != len(header):
        return None
    key = []
    for col in ("Process ID", "ID"):
        if col in header:
            v = row[header.index(col)].strip()
            if not v.isdigit():
                return None
            key.append(v)
    return tuple(key)


def _parse_long(header: list[str], rows: list[list[str]]) -> list[Launch]:
    kcol, ncol = header.index("Kernel Name"), header.index("Metric Name")
    ucol, vcol = header.index("Metric Unit"), header.index("Metric Value")
    launches: dict[tuple[str, ...], Launch] = {}
    previous: tuple[str, ...] | None = None
    serial = 0
    for row in rows:
        key = _launch_key(header, row)
        if key is None:
            continue
        kernel = kernel_base_name(row[kcol])
        if not key:  # no ID column: a new launch starts when the kernel or a metric repeats
            cur = launches.get(previous) if previous else None
            metric = row[ncol].strip()
            if cur is None or cur.kernel != kernel or (metric in METRICS and _has(cur, metric)):
                serial += 1
            key = (str(serial),)
        launch = launches.setdefault(key, Launch(":".join(key), kernel))
        previous = key
        metric = row[ncol].strip()
        if metric in UNITS:
            launch.set(metric, to_base_unit(metric, row[vcol], row[ucol]))
    return list(launches.values())


def _has(launch: Launch, metric: str) -> bool:
    return {TIME_METRIC: launch.seconds, READ_METRIC: launch.bytes_read,
            WRITE_METRIC: launch.bytes_written}[metric] is not None


def _parse_wide(header: list[str], rows: list[list[str]]) -> list[Launch]:
    kcol = header.index("Kernel Name")
    units: dict[str, str] = {}
    launches: list[Launch] = []
    for row in rows:
        if len(row) != len(header):
            continue
        key = _launch_key(header, row)
        if key is None:
            if not units and not row[kcol].strip():  # the units row follows the header
                units = {m: row[header.index(m)] for m in METRICS if m in header}
            continue
        launch = Launch(":".join(key) or str(len(launches) + 1), kernel_base_name(row[kcol]))
        for m in METRICS:
            if m in header and row[header.index(m)].strip():
                launch.set(m, to_base_unit(m, row[header.index(m)], units.get(m, "")))
        launches.append(launch)
    return launches


@dataclass
class KernelStats:
    """Per-kernel summary: launches used, median duration (s), median DRAM bytes per launch
    (read + written; None if ncu gave no DRAM metrics) and DRAM bandwidth (bytes/s)."""

    kernel: str
    launches: int
    median_seconds: float
    dram_bytes: float | None

    @property
    def bandwidth(self) -> float | None:
        """DRAM bytes per second (median bytes / median duration), None without bytes."""
        if self.dram_bytes is None or self.median_seconds <= 0:
            return None
        return self.dram_bytes / self.median_seconds


def summarize(launches: list[Launch], skip_first: int = 1) -> dict[str, KernelStats]:
    """Per kernel name: drop the first ``skip_first`` launches (when more remain), then medians.

    Raises:
        ValueError: ``skip_first`` is negative.
    """
    if skip_first < 0:
        raise ValueError("skip_first must be >= 0")
    by_kernel: dict[str, list[Launch]] = {}
    for launch in launches:
        by_kernel.setdefault(launch.kernel, []).append(launch)
    stats = {}
    for kernel, ls in by_kernel.items():
        used = ls[skip_first:] if len(ls) > skip_first else ls
        seconds = statistics.median(launch.seconds for launch in used)
        totals = [launch.bytes_read + launch.bytes_written for launch in used
                  if launch.bytes_read is not None and launch.bytes_written is not None]
        stats[kernel] = KernelStats(kernel, len(used), seconds,
                                    statistics.median(totals) if totals else None)
    return stats


@dataclass
class Comparison:
    """One table row: a Rust kernel, its CUDA counterpart, and the throughput ratio
    (CUDA median duration / Rust median duration)."""

    rust: KernelStats
    cuda: KernelStats

    @property
    def ratio(self) -> float:
        return self.cuda.median_seconds / self.rust.median_seconds


def compare(rust: dict[str, KernelStats], cuda: dict[str, KernelStats],
            kernel_map: dict[str, str] = KERNEL_MAP) -> list[Comparison]:
    """Pair the kernels by ``kernel_map``, in its order.

    Raises:
        NcuCsvError: a mapped kernel is missing on either side (lists the names found).
    """
    missing = [f"Rust {r}" for r in kernel_map if r not in rust]
    missing += [f"CUDA {c}" for c in kernel_map.values() if c not in cuda]
    if missing:
        raise NcuCsvError(f"kernels not in the profiles: {', '.join(missing)} "
                          f"(Rust CSV has {sorted(rust)}, CUDA CSV has {sorted(cuda)})")
    return [Comparison(rust[r], cuda[c]) for r, c in kernel_map.items()]


def _fmt(value: float | None, scale: float, digits: int) -> str:
    return "n/a" if value is None else f"{value * scale:.{digits}f}"


def format_table(rows: list[Comparison], threshold: float = 0.9) -> str:
    """A Markdown table (µs, GB/s = 1e9 B/s, ratio to 3 decimals) and one detail line per kernel."""
    out = [f"| kernel | Rust median µs | CUDA median µs | Rust DRAM GB/s | CUDA DRAM GB/s "
           f"| Rust/CUDA throughput | ≥ {threshold:g} |",
           "|---|---:|---:|---:|---:|---:|:---:|"]
    for c in rows:
        out.append(f"| {c.rust.kernel} | {_fmt(c.rust.median_seconds, 1e6, 2)} "
                   f"| {_fmt(c.cuda.median_seconds, 1e6, 2)} | {_fmt(c.rust.bandwidth, 1e-9, 1)} "
                   f"| {_fmt(c.cuda.bandwidth, 1e-9, 1)} | {c.ratio:.3f} "
                   f"| {'yes' if c.ratio >= threshold else 'NO'} |")
    out.append("")
    for c in rows:
        out.append(f"{c.rust.kernel}: Rust {c.rust.launches} launches, "
                   f"{_fmt(c.rust.dram_bytes, 1e-6, 1)} MB DRAM/launch; "
                   f"CUDA {c.cuda.kernel} {c.cuda.launches} launches, "
                   f"{_fmt(c.cuda.dram_bytes, 1e-6, 1)} MB DRAM/launch")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    """Command line entry; returns the exit status (0 ok, 2 unreadable input / missing kernel)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("rust_csv")
    p.add_argument("cuda_csv")
    p.add_argument("--skip-first", type=int, default=1,
                   help="launches per kernel dropped as warm-up (default 1)")
    p.add_argument("--threshold", type=float, default=0.9,
                   help="minimum Rust/CUDA throughput ratio (default 0.9)")
    args = p.parse_args(argv)
    try:
        sides = []
        for path in (args.rust_csv, args.cuda_csv):
            with open(path, encoding="utf-8", errors="replace") as f:
                try:
                    sides.append(summarize(parse_ncu_csv(f.read()), args.skip_first))
                except NcuCsvError as e:
                    raise NcuCsvError(f"{path}: {e}") from None
        rows = compare(*sides)
    except (OSError, NcuCsvError) as e:
        print(f"compare.py: {e}", file=sys.stderr)
        return 2
    print(format_table(rows, args.threshold))
    return 0


if __name__ == "__main__":
    sys.exit(main())
