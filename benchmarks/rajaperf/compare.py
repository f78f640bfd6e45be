#!/usr/bin/env python3
"""Compare the Rust offload and CUDA C++ builds of the 13 RAJAPerf kernels (run_on_gpu.sh's results).

usage: python3 compare.py [--rust NAME] [--cuda NAME] [--skip-first K] [--threshold T] RESULTS_DIR

Reads from RESULTS_DIR (NAME defaults: ``rust``, ``cuda``):

* ``NAME.csv``: Nsight Compute raw page, ``ncu --import X.ncu-rep --csv --page raw
  --print-units base`` with LC_ALL=C: a header row (``"ID"``, ``"Kernel Name"``, ...,
  one column per metric), a units row, one row per profiled launch; numbers may carry
  thousands separators (``"2,688"``). Program output before the header is skipped.
* ``rust.stderr``: the Rust program's ``LIBOMPTARGET_INFO=48`` log (every launch and every
  copy with its size); ``rust.omptarget-profile.json``: libomptarget's ``LIBOMPTARGET_PROFILE``
  time trace (``Total HostToDev`` / ``Total DevToHost``: count and microseconds).
* ``cuda.stdout``: the CUDA program's ``cuda_transfer_total`` line (cudaMemcpy bytes and
  milliseconds timed with CUDA events).
* optional ``NAME-nsys_cuda_gpu_mem_time_sum.csv`` / ``..._size_sum.csv`` (or the pre-2023.3
  ``gpumemtimesum`` / ``gpumemsizesum``): Nsight Systems' copy totals.

Prints, per kernel: median duration over the launches after the first (warm-up) one, DRAM
bytes per launch (read + written, median) over the median duration in GB/s (1e9 B/s) and as a
share of the H200's peak, registers per thread, achieved occupancy (theoretical in
parentheses), the Rust/CUDA throughput ratio (CUDA median duration / Rust median duration:
both do the same work, so this is useful work per second; 1 = equal, below 1 = Rust slower)
and whether it reaches the threshold (default 0.97); the paper's figure where it gives one.
Then, per program, the host<->device copies (bytes, count, time) beside the paper's.

Exit status: 0 when both kernel profiles were read and every kernel was found in both; 2
otherwise (the sections that could be made are still printed, the problem on stderr).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import re
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path

#: The 13 kernels (Rust names; the CUDA twin of ``k`` is ``k_cuda``), in table order.
KERNELS = ("energy1", "energy2", "energy3", "energy4", "energy5", "energy6", "fir", "ltimes",
           "matvec_3d_stencil", "pressure1", "pressure2", "vol3d", "del_dot_vec_2d")
CUDA_SUFFIX = "_cuda"

#: NVIDIA H200 peak DRAM bandwidth: 4.8 TB/s of HBM3e (NVIDIA's H200 product page,
#: https://www.nvidia.com/en-us/data-center/h200/ , "GPU Memory Bandwidth 4.8TB/s").
H200_PEAK_BYTES_PER_S = 4.8e12

#: The paper behind rustc offload (arXiv:2608.13759), as quoted by third parties; it measured
#: an H100, not this H200.
PAPER = "arXiv:2608.13759"
PAPER_KERNEL = {
    "fir": "44-46% slower than Base_CUDA, H100 (as quoted)",
    "ltimes": "44-46% slower than Base_CUDA, H100 (as quoted)",
}
PAPER_TRANSFERS = "host<->device transfers: Rust offload 46 ms vs RAJA 16 ms (as quoted)"

TIME = "gpu__time_duration.sum"
READ = "dram__bytes_read.sum"
WRITE = "dram__bytes_write.sum"
REGS = "launch__registers_per_thread"
ACHIEVED = "sm__warps_active.avg.pct_of_peak_sustained_active"
THEORETICAL = "sm__maximum_warps_per_active_cycle_pct"
DRAM_PCT = "dram__throughput.avg.pct_of_peak_sustained_elapsed"

#: Factor to the base unit (seconds, bytes) per unit ncu prints; "" and "%" are plain numbers.
UNITS = {
    "ns": 1e-9, "nsecond": 1e-9, "us": 1e-6, "usecond": 1e-6, "µs": 1e-6, "ms": 1e-3, "msecond": 1e-3,
    "s": 1.0, "second": 1.0,
    "byte": 1.0, "B": 1.0, "Kbyte": 1e3, "KB": 1e3, "Mbyte": 1e6, "MB": 1e6, "Gbyte": 1e9, "GB": 1e9,
    "Tbyte": 1e12, "KiB": 1024.0, "MiB": 1024.0**2, "GiB": 1024.0**3,
    "": 1.0, "%": 1.0, "register/thread": 1.0, "thread": 1.0, "block": 1.0, "warp": 1.0,
}

_THOUSANDS = re.compile(r"[+-]?\d{1,3}(,\d{3})+(\.\d*)?([eE][+-]?\d+)?")


class InputError(ValueError):
    """A results file this script cannot read (the message says which and why)."""


def parse_number(text: str) -> float:
    """``"2,688"`` -> 2688.0, ``"98.3"`` -> 98.3.

    Raises:
        InputError: empty, ``n/a``, or a comma that is not a thousands separator (``"9,00"``
            from a decimal-comma locale: run ncu with LC_ALL=C).
    """
    t = text.strip()
    if "," in t:
        if not _THOUSANDS.fullmatch(t):
            raise InputError(f"value {text!r}: the comma is not a thousands separator (decimal-comma "
                             "locale?); run ncu with LC_ALL=C")
        t = t.replace(",", "")
    try:
        return float(t)
    except ValueError:
        raise InputError(f"value {text!r} is not a number") from None


def kernel_base_name(name: str) -> str:
    """``"fir_cuda"`` -> itself; ``"void fir_cuda(double*, ...)"`` -> ``"fir_cuda"``."""
    n = name.strip()
    for stop in "(<":
        if stop in n:
            n = n[: n.index(stop)]
    parts = n.split()
    return parts[-1] if parts else n


@dataclass
class Launch:
    """One profiled launch: seconds and bytes in base units, None where ncu gave no value."""

    kernel: str
    launch_id: str
    seconds: float
    dram_read: float | None = None
    dram_write: float | None = None
    registers: float | None = None
    achieved_pct: float | None = None
    theoretical_pct: float | None = None
    dram_pct: float | None = None
    grid: str = ""
    block: str = ""


def parse_ncu_raw(text: str) -> list[Launch]:
    """The launches of an ncu raw-page CSV, in ncu's order.

    Raises:
        InputError: no header row with ``"Kernel Name"`` and ``gpu__time_duration.sum``, an
            unknown unit, an unparsable number, or no launches.
    """
    rows = [r for r in csv.reader(io.StringIO(text))]
    start = next((i for i, r in enumerate(rows) if "Kernel Name" in r and TIME in r), None)
    if start is None:
        raise InputError(f'no Nsight Compute raw-page header ("Kernel Name" and {TIME} columns)')
    header = rows[start]
    col = {name: i for i, name in enumerate(header)}
    units = rows[start + 1] if start + 1 < len(rows) else []
    has_units = len(units) == len(header) and not units[col["Kernel Name"]].strip()

    def value(row: list[str], metric: str) -> float | None:
        i = col.get(metric)
        if i is None or not row[i].strip() or row[i].strip().lower() == "n/a":
            return None
        unit = units[i].strip() if has_units else ""
        if unit not in UNITS:
            raise InputError(f"{metric}: unknown unit {unit!r}")
        return parse_number(row[i]) * UNITS[unit]

    out = []
    for row in rows[start + 1 + (1 if has_units else 0):]:
        if len(row) != len(header) or not row[col.get("ID", 0)].strip().isdigit():
            continue  # program output or ==PROF== lines between the rows
        seconds = value(row, TIME)
        if seconds is None:
            raise InputError(f"launch {row[col.get('ID', 0)]} has no {TIME}")
        pid = row[col["Process ID"]].strip() + ":" if "Process ID" in col else ""
        out.append(Launch(
            kernel=kernel_base_name(row[col["Kernel Name"]]), launch_id=pid + row[col.get("ID", 0)].strip(),
            seconds=seconds, dram_read=value(row, READ), dram_write=value(row, WRITE), registers=value(row, REGS),
            achieved_pct=value(row, ACHIEVED), theoretical_pct=value(row, THEORETICAL), dram_pct=value(row, DRAM_PCT),
            grid=row[col["Grid Size"]].strip() if "Grid Size" in col else "",
            block=row[col["Block Size"]].strip() if "Block Size" in col else ""))
    if not out:
        raise InputError("the ncu CSV has a header but no launches")
    return out


def _median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


@dataclass
class KernelStats:
    """One kernel's launches after the warm-up: medians in base units."""

    kernel: str
    launches: int
    seconds: float
    dram_bytes: float | None
    registers: float | None
    achieved_pct: float | None
    theoretical_pct: float | None
    ncu_dram_pct: float | None
    grid: str
    block: str

    @property
    def bandwidth(self) -> float | None:
        """DRAM bytes per second (median bytes over median duration)."""
        return None if self.dram_bytes is None else self.dram_bytes / self.seconds

    @property
    def peak_pct(self) -> float | None:
        """The bandwidth as a percentage of the H200's 4.8 TB/s."""
        return None if self.bandwidth is None else 100.0 * self.bandwidth / H200_PEAK_BYTES_PER_S


def summarize(launches: list[Launch], skip_first: int = 1) -> dict[str, KernelStats]:
    """Per kernel (by base name): the launches in order, the first ``skip_first`` dropped when
    more remain, medians over the rest."""
    by_kernel: dict[str, list[Launch]] = {}
    for launch in launches:
        by_kernel.setdefault(launch.kernel, []).append(launch)
    out = {}
    for kernel, ls in by_kernel.items():
        used = ls[skip_first:] if len(ls) > skip_first else ls
        dram = [x.dram_read + x.dram_write for x in used if x.dram_read is not None and x.dram_write is not None]
        out[kernel] = KernelStats(
            kernel=kernel, launches=len(used), seconds=statistics.median(x.seconds for x in used),
            dram_bytes=_median(dram), registers=_median([x.registers for x in used if x.registers is not None]),
            achieved_pct=_median([x.achieved_pct for x in used if x.achieved_pct is not None]),
            theoretical_pct=_median([x.theoretical_pct for x in used if x.theoretical_pct is not None]),
            ncu_dram_pct=_median([x.dram_pct for x in used if x.dram_pct is not None]),
            grid=used[0].grid, block=used[0].block)
    return out


@dataclass
class Row:
    """A kernel's Rust and CUDA statistics."""

    kernel: str
    rust: KernelStats
    cuda: KernelStats

    @property
    def ratio(self) -> float:
        """Rust/CUDA throughput: CUDA median duration over Rust median duration."""
        return self.cuda.seconds / self.rust.seconds


def pair(rust: dict[str, KernelStats], cuda: dict[str, KernelStats]) -> list[Row]:
    """The 13 kernels in table order.

    Raises:
        InputError: a kernel missing on either side (names found listed).
    """
    missing = [f"Rust {k}" for k in KERNELS if k not in rust]
    missing += [f"CUDA {k}{CUDA_SUFFIX}" for k in KERNELS if k + CUDA_SUFFIX not in cuda]
    if missing:
        raise InputError(f"kernels not in the profiles: {', '.join(missing)} (Rust profile has "
                         f"{sorted(rust)}, CUDA profile has {sorted(cuda)})")
    return [Row(k, rust[k], cuda[k + CUDA_SUFFIX]) for k in KERNELS]


# ------------------------------------------------------------------------------ transfers

_LAUNCH = re.compile(r"info: Launching kernel (\S+) with \[([\d,]+)\] blocks and \[([\d,]+)\] threads")
_COPY = re.compile(r"info: Copying data from (host to device|device to host),.*Size=(\d+)")


@dataclass
class Copies:
    """Host<->device copies: bytes and counts per direction, milliseconds where measured."""

    h2d_bytes: float | None = 0.0
    h2d_copies: int = 0
    d2h_bytes: float | None = 0.0
    d2h_copies: int = 0
    h2d_ms: float | None = None
    d2h_ms: float | None = None

    @property
    def total_ms(self) -> float | None:
        return None if self.h2d_ms is None or self.d2h_ms is None else self.h2d_ms + self.d2h_ms


@dataclass
class OffloadLog:
    """The Rust program's LIBOMPTARGET_INFO log: totals, and per kernel its launches and the
    copies attributed to them (host->device since the previous launch, device->host after)."""

    total: Copies = field(default_factory=Copies)
    launches: dict[str, int] = field(default_factory=dict)
    per_kernel: dict[str, Copies] = field(default_factory=dict)
    grids: dict[str, str] = field(default_factory=dict)


def parse_offload_log(text: str) -> OffloadLog:
    """Launches and copies of a ``LIBOMPTARGET_INFO`` (0x10 | 0x20) log; other lines ignored."""
    log = OffloadLog()
    pending_h2d: list[int] = []
    current: str | None = None
    for line in text.splitlines():
        m = _LAUNCH.search(line)
        if m:
            current = m.group(1)
            log.launches[current] = log.launches.get(current, 0) + 1
            log.grids.setdefault(current, f"[{m.group(2)}]x[{m.group(3)}]")
            k = log.per_kernel.setdefault(current, Copies())
            k.h2d_bytes += sum(pending_h2d)
            k.h2d_copies += len(pending_h2d)
            pending_h2d = []
            continue
        m = _COPY.search(line)
        if not m:
            continue
        size = int(m.group(2))
        if m.group(1) == "host to device":
            log.total.h2d_bytes += size
            log.total.h2d_copies += 1
            pending_h2d.append(size)
        else:
            log.total.d2h_bytes += size
            log.total.d2h_copies += 1
            if current is not None:
                log.per_kernel[current].d2h_bytes += size
                log.per_kernel[current].d2h_copies += 1
    return log


def parse_omptarget_profile(text: str) -> tuple[tuple[int, float], tuple[int, float]]:
    """``((count, ms) host->device, (count, ms) device->host)`` from libomptarget's time trace.

    Raises:
        InputError: not JSON or no ``traceEvents``.
    """
    try:
        events = json.loads(text)["traceEvents"]
    except (ValueError, KeyError, TypeError) as exc:
        raise InputError(f"not a libomptarget time trace: {exc}") from None
    totals = {}
    for e in events if isinstance(events, list) else []:
        if isinstance(e, dict) and str(e.get("name", "")).startswith("Total "):
            args = e.get("args") or {}
            totals[e["name"][6:]] = (int(args.get("count", 0)), float(e.get("dur", 0.0)) / 1e3)
    return totals.get("HostToDev", (0, 0.0)), totals.get("DevToHost", (0, 0.0))


_KV = re.compile(r"(\w+)=([-+\d.eE]+)")


def parse_cuda_transfers(text: str) -> Copies:
    """The ``cuda_transfer_total`` line the CUDA program prints.

    Raises:
        InputError: no such line.
    """
    for line in text.splitlines():
        if line.startswith("cuda_transfer_total "):
            kv = {k: float(v) for k, v in _KV.findall(line)}
            return Copies(h2d_bytes=kv.get("h2d_bytes", 0.0), h2d_copies=int(kv.get("h2d_copies", 0)),
                          d2h_bytes=kv.get("d2h_bytes", 0.0), d2h_copies=int(kv.get("d2h_copies", 0)),
                          h2d_ms=kv.get("h2d_ms"), d2h_ms=kv.get("d2h_ms"))
    raise InputError("no cuda_transfer_total line (did the CUDA program finish?)")


def _direction(operation: str) -> str | None:
    if re.search(r"Host-to-Device|HtoD", operation):
        return "h2d"
    if re.search(r"Device-to-Host|DtoH", operation):
        return "d2h"
    return None


def parse_nsys_mem(time_csv: str, size_csv: str | None) -> Copies:
    """Copy totals from ``nsys stats`` CSVs: the time summary (``Total Time (ns)``, ``Count``
    or ``Operations``, ``Operation``) and, when given, the size summary (``Total (MB)``, MB =
    1e6 bytes; bytes stay None without it or without a unit). Memsets and device-to-device
    copies are left out.

    Raises:
        InputError: no header with ``Operation`` and a total-time column.
    """
    c = Copies(h2d_ms=0.0, d2h_ms=0.0)
    rows = list(csv.reader(io.StringIO(time_csv)))
    start = next((i for i, r in enumerate(rows) if "Operation" in r and any("Total Time" in x for x in r)), None)
    if start is None:
        raise InputError("nsys memory time summary: no header with 'Operation' and 'Total Time'")
    h = rows[start]
    t_col = next(i for i, x in enumerate(h) if "Total Time" in x)
    n_col = next((i for i, x in enumerate(h) if x in ("Count", "Operations")), None)
    scale = 1e-6 if "(ns)" in h[t_col] or "ns" in h[t_col] else 1.0  # to ms
    for r in rows[start + 1:]:
        if len(r) != len(h):
            continue
        d = _direction(r[h.index("Operation")])
        if d is None:
            continue
        ms = parse_number(r[t_col]) * scale
        n = int(parse_number(r[n_col])) if n_col is not None else 0
        if d == "h2d":
            c.h2d_ms += ms
            c.h2d_copies += n
        else:
            c.d2h_ms += ms
            c.d2h_copies += n
    c.h2d_bytes = c.d2h_bytes = None
    if size_csv:
        rows = list(csv.reader(io.StringIO(size_csv)))
        start = next((i for i, r in enumerate(rows) if "Operation" in r and any(x.startswith("Total") for x in r)),
                     None)
        h = rows[start] if start is not None else []
        s_col = next((i for i, x in enumerate(h) if x.startswith("Total")), None)
        units = {"(B)": 1.0, "(KB)": 1e3, "(MB)": 1e6, "(GB)": 1e9}
        factor = next((f for u, f in units.items() if s_col is not None and h[s_col].endswith(u)), None)
        if factor is not None:  # a total without a unit is left out rather than guessed
            c.h2d_bytes = c.d2h_bytes = 0.0
            for r in rows[start + 1:]:
                if len(r) != len(h):
                    continue
                d = _direction(r[h.index("Operation")])
                if d == "h2d":
                    c.h2d_bytes += parse_number(r[s_col]) * factor
                elif d == "d2h":
                    c.d2h_bytes += parse_number(r[s_col]) * factor
    return c


# ------------------------------------------------------------------------------ report

def _f(value: float | None, scale: float = 1.0, digits: int = 1) -> str:
    return "n/a" if value is None else f"{value * scale:.{digits}f}"


def kernel_table(rows: list[Row], threshold: float) -> str:
    """The per-kernel Markdown table, its detail lines and the geometric-mean ratio."""
    out = [f"| kernel | Rust µs | CUDA µs | Rust GB/s | CUDA GB/s | Rust % peak | CUDA % peak | Rust regs "
           f"| CUDA regs | Rust occ. % (theor.) | CUDA occ. % (theor.) | Rust/CUDA | ≥ {threshold:g} | "
           f"paper ({PAPER}) |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|:---:|---|"]
    for r in rows:
        occ = [f"{_f(s.achieved_pct)} ({_f(s.theoretical_pct, digits=0)})" for s in (r.rust, r.cuda)]
        out.append(f"| {r.kernel} | {_f(r.rust.seconds, 1e6, 2)} | {_f(r.cuda.seconds, 1e6, 2)} "
                   f"| {_f(r.rust.bandwidth, 1e-9)} | {_f(r.cuda.bandwidth, 1e-9)} "
                   f"| {_f(r.rust.peak_pct)} | {_f(r.cuda.peak_pct)} "
                   f"| {_f(r.rust.registers, digits=0)} | {_f(r.cuda.registers, digits=0)} | {occ[0]} | {occ[1]} "
                   f"| {r.ratio:.3f} | {'yes' if r.ratio >= threshold else 'NO'} | {PAPER_KERNEL.get(r.kernel, '')} |")
    geo = math.exp(sum(math.log(r.ratio) for r in rows) / len(rows))
    below = [r.kernel for r in rows if r.ratio < threshold]
    out += ["", f"geometric mean Rust/CUDA throughput over the {len(rows)} kernels: {geo:.3f}; below {threshold:g}: "
            + (", ".join(below) if below else "none"),
            f"% peak: DRAM bytes per second over the H200's {H200_PEAK_BYTES_PER_S / 1e12:g} TB/s (HBM3e). "
            "The paper's figures are for an H100 and RAJAPerf's own Base_CUDA, as quoted.", ""]
    for r in rows:
        out.append(f"{r.kernel}: Rust {r.rust.launches} launches grid {r.rust.grid} block {r.rust.block}, "
                   f"{_f(r.rust.dram_bytes, 1e-6)} MB DRAM/launch, ncu DRAM {_f(r.rust.ncu_dram_pct)}% of peak; "
                   f"CUDA {r.cuda.launches} launches grid {r.cuda.grid} block {r.cuda.block}, "
                   f"{_f(r.cuda.dram_bytes, 1e-6)} MB DRAM/launch, ncu DRAM {_f(r.cuda.ncu_dram_pct)}% of peak")
    return "\n".join(out)


def transfer_table(programs: list[tuple[str, Copies | None, str]]) -> str:
    """One row per (program, copies, source); a None row says what was missing."""
    out = ["| program | to device MB | copies | ms | to host MB | copies | ms | total ms | source |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for name, c, source in programs:
        if c is None:
            out.append(f"| {name} | | | | | | | | {source} |")
            continue
        out.append(f"| {name} | {_f(c.h2d_bytes, 1e-6)} | {c.h2d_copies} | {_f(c.h2d_ms, digits=2)} "
                   f"| {_f(c.d2h_bytes, 1e-6)} | {c.d2h_copies} | {_f(c.d2h_ms, digits=2)} "
                   f"| {_f(c.total_ms, digits=2)} "
                   f"| {source} |")
    return "\n".join(out)


def per_launch_copies(log: OffloadLog) -> str:
    """What each Rust launch copies (from the INFO log), per kernel."""
    out = ["| kernel | launches | grid | MB to device per launch | MB to host per launch |", "|---|---:|---|---:|---:|"]
    for k in KERNELS:
        n = log.launches.get(k)
        if not n:
            continue
        c = log.per_kernel[k]
        out.append(f"| {k} | {n} | {log.grids.get(k, '')} "
                   f"| {c.h2d_bytes / n / 1e6:.1f} | {c.d2h_bytes / n / 1e6:.1f} |")
    return "\n".join(out)


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _nsys(results: Path, name: str) -> tuple[str, str | None] | None:
    for time_report, size_report in (("cuda_gpu_mem_time_sum", "cuda_gpu_mem_size_sum"),
                                     ("gpumemtimesum", "gpumemsizesum")):
        t = _read(results / f"{name}-nsys_{time_report}.csv")
        if t is not None:
            return t, _read(results / f"{name}-nsys_{size_report}.csv")
    return None


def report(results: Path, rust: str = "rust", cuda: str = "cuda", skip_first: int = 1,
           threshold: float = 0.97) -> tuple[str, list[str], bool]:
    """The whole report, the problems met (empty: everything was read) and whether the kernel
    table was made (both profiles read, every kernel in both)."""
    problems: list[str] = []
    sections = [f"# RAJAPerf kernels: Rust offload ({rust}) vs CUDA C++ ({cuda}), {results}", ""]
    kernel_section, kernels_ok = _kernel_section(results, rust, cuda, skip_first, threshold, problems)
    sections += kernel_section

    programs: list[tuple[str, Copies | None, str]] = []
    log_text = _read(results / f"{rust}.stderr")
    log = parse_offload_log(log_text) if log_text is not None else None
    if log is None or not log.launches:
        problems.append(f"{results / (rust + '.stderr')}: no LIBOMPTARGET_INFO launches")
    else:
        programs += _rust_copies(results, rust, log, problems)
    nsys = _nsys(results, rust)
    if nsys is not None:
        try:
            programs.append((f"Rust ({rust})", parse_nsys_mem(*nsys), "nsys"))
        except InputError as e:
            problems.append(f"{rust} nsys: {e}")
    cuda_text = _read(results / f"{cuda}.stdout")
    if cuda_text is not None:
        try:
            programs.append((f"CUDA ({cuda})", parse_cuda_transfers(cuda_text),
                             f"{cuda}.stdout (cudaMemcpy, CUDA events)"))
        except InputError as e:
            problems.append(f"{results / (cuda + '.stdout')}: {e}")
    nsys = _nsys(results, cuda)
    if nsys is not None:
        try:
            programs.append((f"CUDA ({cuda})", parse_nsys_mem(*nsys), "nsys"))
        except InputError as e:
            problems.append(f"{cuda} nsys: {e}")
    programs.append((f"paper ({PAPER})", None, PAPER_TRANSFERS))
    sections += ["## Host<->device copies per program (whole run: warm-up + REPS launches of every kernel)", "",
                 "Rust maps every launch's arguments (to the device before it, back after it); the CUDA program "
                 "copies each kernel group's arrays once each way, as RAJAPerf's Base_CUDA does.", "",
                 transfer_table(programs), ""]
    if log is not None and log.launches:
        sections += ["Rust copies per launch (LIBOMPTARGET_INFO):", "", per_launch_copies(log), ""]
    return "\n".join(sections), problems, kernels_ok


def _kernel_section(results: Path, rust: str, cuda: str, skip_first: int, threshold: float,
                    problems: list[str]) -> tuple[list[str], bool]:
    """The kernel table's section (empty unless both profiles were read) and whether it was
    made; what could not be read is appended to ``problems``."""
    profiles = {}
    for side in (rust, cuda):
        text = _read(results / f"{side}.csv")
        if text is None:
            problems.append(f"{results / (side + '.csv')}: missing (did ncu run?)")
            continue
        try:
            profiles[side] = summarize(parse_ncu_raw(text), skip_first)
        except InputError as e:
            problems.append(f"{results / (side + '.csv')}: {e}")
    if len(profiles) == 2:
        try:
            return ["## Kernels (Nsight Compute, first launch of each kernel skipped)", "",
                    kernel_table(pair(profiles[rust], profiles[cuda]), threshold), ""], True
        except InputError as e:
            problems.append(str(e))
    return [], False


def _rust_copies(results: Path, rust: str, log, problems: list[str]) -> list[tuple[str, Copies | None, str]]:
    """The Rust program's rows of the copies table (the whole run, and per launch of every
    kernel when kernels ran more than once); a profile that cannot be read goes to ``problems``."""
    programs: list[tuple[str, Copies | None, str]] = []
    rust_copies = log.total
    source = f"bytes: {rust}.stderr (LIBOMPTARGET_INFO)"
    prof = _read(results / f"{rust}.omptarget-profile.json")
    if prof is not None:
        try:
            (_, rust_copies.h2d_ms), (_, rust_copies.d2h_ms) = parse_omptarget_profile(prof)
            source += f"; ms: {rust}.omptarget-profile.json (LIBOMPTARGET_PROFILE)"
        except InputError as e:
            problems.append(f"{results / (rust + '.omptarget-profile.json')}: {e}")
    programs.append((f"Rust ({rust})", rust_copies, source))
    per_kernel = max(log.launches.values())
    if per_kernel > 1:  # the same copies, once per repetition: what one pass of the suite costs
        programs.append((f"Rust ({rust}) / {per_kernel} launches per kernel", Copies(
            h2d_bytes=rust_copies.h2d_bytes / per_kernel, h2d_copies=round(rust_copies.h2d_copies / per_kernel),
            d2h_bytes=rust_copies.d2h_bytes / per_kernel, d2h_copies=round(rust_copies.d2h_copies / per_kernel),
            h2d_ms=None if rust_copies.h2d_ms is None else rust_copies.h2d_ms / per_kernel,
            d2h_ms=None if rust_copies.d2h_ms is None else rust_copies.d2h_ms / per_kernel),
            "one launch of every kernel (the CUDA program copies once whatever REPS is)"))
    return programs


def main(argv: list[str] | None = None) -> int:
    """Command line entry; returns the exit status (0: both kernel profiles read and paired)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("results", type=Path, help="run_on_gpu.sh's OUT_DIR")
    p.add_argument("--rust", default="rust", help="file name stem of the Rust program's results (default rust)")
    p.add_argument("--cuda", default="cuda", help="file name stem of the CUDA program's results (default cuda)")
    p.add_argument("--skip-first", type=int, default=1, help="launches per kernel dropped as warm-up (default 1)")
    p.add_argument("--threshold", type=float, default=0.97, help="Rust/CUDA throughput to reach (default 0.97)")
    args = p.parse_args(argv)
    text, problems, kernels_ok = report(args.results, args.rust, args.cuda, args.skip_first, args.threshold)
    print(text)
    for problem in problems:
        print(f"compare.py: {problem}", file=sys.stderr)
    return 0 if kernels_ok else 2


if __name__ == "__main__":
    sys.exit(main())
