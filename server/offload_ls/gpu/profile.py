"""Kernel profiles: Nsight Compute's figures per launch and the offload runtime's own timings.

Two sources, both parsed from files the tools write:

- Nsight Compute (``ncu``) raw page as CSV (``ncu --import R.ncu-rep --csv --page raw
  --print-units base``): one row per profiled launch, one column per metric; a units row
  follows the header; numbers use thousands separators. The metric names are
  :data:`NCU_METRICS` (Nsight Compute "Metrics Reference"; recorded on an H200 with
  Nsight Compute 2025.3.1: tests/gpu/data/h200_ncu_raw.csv).
- libomptarget's time trace (``LIBOMPTARGET_PROFILE=<file>``, LLVM's ``-ftime-trace`` JSON;
  openmp/docs "LIBOMPTARGET_PROFILE"): its ``Total HostToDev`` / ``Total DevToHost`` /
  ``Total Kernel Target`` events give the count and total microseconds of the program's
  copies and kernel launches, on any device, the Virtual Host Device included.

Peak FLOP/s are not an ncu metric we read: they come from the SM count and clock ncu reports
(``device__attribute_multiprocessor_count``, ``device__attribute_clock_rate`` in kHz) and the
FP32/FP64 results per clock per SM of the compute capability (CUDA C++ Programming Guide,
"Arithmetic Instructions" throughput table: cc 8.0 64/32, 9.0 128/64).
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import asdict, dataclass, field

#: Metrics ``offload-ls profile`` asks ncu for.
NCU_METRICS = (
    "gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum", "dram__bytes.sum.per_second",
    "dram__bytes.sum.peak_sustained", "dram__cycles_elapsed.avg.per_second",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed", "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "launch__registers_per_thread", "launch__grid_size", "launch__block_size", "launch__thread_count",
    "sm__warps_active.avg.pct_of_peak_sustained_active", "sm__maximum_warps_per_active_cycle_pct",
    "sm__sass_thread_inst_executed_op_fadd_pred_on.sum", "sm__sass_thread_inst_executed_op_fmul_pred_on.sum",
    "sm__sass_thread_inst_executed_op_ffma_pred_on.sum", "sm__sass_thread_inst_executed_op_dadd_pred_on.sum",
    "sm__sass_thread_inst_executed_op_dmul_pred_on.sum", "sm__sass_thread_inst_executed_op_dfma_pred_on.sum",
    "smsp__sass_inst_executed_op_local_ld.sum", "smsp__sass_inst_executed_op_local_st.sum",
)

#: FP32 and FP64 results per clock per SM by compute capability (CUDA C++ Programming Guide,
#: "Arithmetic Instructions"); a fused multiply-add counts as two FLOPs.
FLOPS_PER_CLOCK_PER_SM = {(7, 0): (64, 32), (8, 0): (64, 32), (8, 6): (128, 2), (8, 9): (128, 2),
                          (9, 0): (128, 64), (10, 0): (128, 64), (12, 0): (128, 2)}


class ProfileError(ValueError):
    """A profile file that cannot be read (the message says which and why)."""


@dataclass
class KernelProfile:
    """Nsight Compute's figures for one launch.

    Units: ``duration_ns`` nanoseconds; bytes; ``*_per_s`` per second; ``*_pct`` percent;
    ``grid`` / ``block`` (x, y, z) in blocks / threads.
    """

    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    duration_ns: float
    dram_read_bytes: float
    dram_write_bytes: float
    dram_bytes_per_s: float
    peak_dram_bytes_per_s: float | None
    dram_pct: float | None
    sm_pct: float | None
    registers: int | None
    achieved_occupancy_pct: float | None
    theoretical_occupancy_pct: float | None
    flops_f32: float
    flops_f64: float
    local_loads: float
    local_stores: float
    peak_flops_f32: float | None = None
    peak_flops_f64: float | None = None

    @property
    def dram_bytes(self) -> float:
        return self.dram_read_bytes + self.dram_write_bytes

    @property
    def flops(self) -> float:
        return self.flops_f32 + self.flops_f64

    @property
    def flops_per_s(self) -> float:
        return self.flops / (self.duration_ns * 1e-9) if self.duration_ns > 0 else 0.0

    @property
    def intensity(self) -> float | None:
        """FLOPs per DRAM byte (the roofline's x axis); ``None`` without DRAM traffic."""
        return self.flops / self.dram_bytes if self.dram_bytes > 0 else None

    @property
    def bound(self) -> str:
        """``memory`` or ``compute``: which roof caps the kernel at its intensity (``unknown``
        without peaks or traffic)."""
        peak_flops = self.peak_flops_f64 if self.flops_f64 > self.flops_f32 else self.peak_flops_f32
        if self.intensity is None or not peak_flops or not self.peak_dram_bytes_per_s:
            return "unknown"
        return "memory" if self.intensity < peak_flops / self.peak_dram_bytes_per_s else "compute"

    @property
    def spills(self) -> bool:
        return self.local_loads > 0 or self.local_stores > 0


@dataclass
class RuntimeTimes:
    """libomptarget's totals from its time trace: (events, microseconds) of each kind. The
    event count is not the number of copies: LLVM 22's runtime records two ``HostToDev``
    events per copy (measured: 30 for the 15 copies its info log lists)."""

    host_to_device: tuple[int, float] = (0, 0.0)
    device_to_host: tuple[int, float] = (0, 0.0)
    kernel_launches: tuple[int, float] = (0, 0.0)


@dataclass
class ProfileReport:
    """A profile run: per-launch ncu figures (empty without ncu), the runtime's totals, the
    GPU (from ncu), and sentences about what could not be measured."""

    kernels: list[KernelProfile] = field(default_factory=list)
    runtime: RuntimeTimes | None = None
    gpu: str | None = None
    source: str = "runtime log"
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        """JSON: per-launch figures (units as in :class:`KernelProfile`, plus the derived
        ones), the runtime's ``{"events", "microseconds"}`` per kind, notes."""
        out = asdict(self)
        if self.runtime is not None:
            out["runtime"] = {k: {"events": v[0], "microseconds": v[1]} for k, v in asdict(self.runtime).items()}
        for k, src in zip(out["kernels"], self.kernels, strict=True):
            k.update(dram_bytes=src.dram_bytes, flops=src.flops, flops_per_s=src.flops_per_s,
                     intensity=src.intensity, bound=src.bound, spills=src.spills)
        return out


def _number(text: str) -> float | None:
    text = (text or "").strip().replace(",", "")
    if not text or text in ("n/a", "no data"):
        return None
    try:
        return float(text)
    except ValueError:
        return None


def _dims(text: str) -> tuple[int, int, int]:
    parts = [p for p in (text or "").strip("() ").replace(",", " ").split() if p]
    try:
        nums = [int(p) for p in parts][:3]
    except ValueError:
        return (0, 0, 0)
    return tuple(nums + [1] * (3 - len(nums))) if nums else (0, 0, 0)  # type: ignore[return-value]


def parse_ncu_raw(text: str) -> tuple[list[KernelProfile], str | None]:
    """Launches of an ncu raw-page CSV (program output before the header is skipped).

    Returns:
        (one :class:`KernelProfile` per launch in order, the GPU's name or ``None``).

    Raises:
        ProfileError: no CSV header (``"ID",...``) in ``text``.
    """
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID",')), None)
    if start is None:
        raise ProfileError("no Nsight Compute CSV in the output (expected a header line starting with \"ID\")")
    rows = list(csv.reader(io.StringIO("\n".join(lines[start:]))))
    header, data = rows[0], [r for r in rows[1:] if r and r[0].strip().isdigit()]
    out, gpu = [], None
    for row in data:
        rec = dict(zip(header, row, strict=False))

        def num(name: str, default: float | None = 0.0) -> float | None:
            value = _number(rec.get(name, ""))
            return default if value is None else value

        gpu = rec.get("device__attribute_display_name") or gpu
        peak_bw = None
        per_cycle = num("dram__bytes.sum.peak_sustained", None)
        cycles = num("dram__cycles_elapsed.avg.per_second", None)
        if per_cycle and cycles:
            peak_bw = per_cycle * cycles
        flops32 = (num("sm__sass_thread_inst_executed_op_fadd_pred_on.sum")
                   + num("sm__sass_thread_inst_executed_op_fmul_pred_on.sum")
                   + 2 * num("sm__sass_thread_inst_executed_op_ffma_pred_on.sum"))
        flops64 = (num("sm__sass_thread_inst_executed_op_dadd_pred_on.sum")
                   + num("sm__sass_thread_inst_executed_op_dmul_pred_on.sum")
                   + 2 * num("sm__sass_thread_inst_executed_op_dfma_pred_on.sum"))
        regs = num("launch__registers_per_thread", None)
        k = KernelProfile(
            kernel=rec.get("Kernel Name", "?"), grid=_dims(rec.get("Grid Size", "")),
            block=_dims(rec.get("Block Size", "")),
            duration_ns=num("gpu__time_duration.sum"), dram_read_bytes=num("dram__bytes_read.sum"),
            dram_write_bytes=num("dram__bytes_write.sum"), dram_bytes_per_s=num("dram__bytes.sum.per_second"),
            peak_dram_bytes_per_s=peak_bw, dram_pct=num("dram__throughput.avg.pct_of_peak_sustained_elapsed", None),
            sm_pct=num("sm__throughput.avg.pct_of_peak_sustained_elapsed", None),
            registers=int(regs) if regs is not None else None,
            achieved_occupancy_pct=num("sm__warps_active.avg.pct_of_peak_sustained_active", None),
            theoretical_occupancy_pct=num("sm__maximum_warps_per_active_cycle_pct", None),
            flops_f32=flops32, flops_f64=flops64, local_loads=num("smsp__sass_inst_executed_op_local_ld.sum"),
            local_stores=num("smsp__sass_inst_executed_op_local_st.sum"))
        sms, khz = num("device__attribute_multiprocessor_count", None), num("device__attribute_clock_rate", None)
        cc = (int(num("device__attribute_compute_capability_major", 0)),
              int(num("device__attribute_compute_capability_minor", 0)))
        rates = FLOPS_PER_CLOCK_PER_SM.get(cc)
        if sms and khz and rates:
            k.peak_flops_f32 = 2 * rates[0] * sms * khz * 1e3
            k.peak_flops_f64 = 2 * rates[1] * sms * khz * 1e3
        out.append(k)
    return out, gpu


def parse_runtime_profile(text: str) -> RuntimeTimes:
    """Totals from libomptarget's ``LIBOMPTARGET_PROFILE`` time trace.

    Raises:
        ProfileError: not JSON, or no ``traceEvents`` list.
    """
    try:
        events = json.loads(text)["traceEvents"]
    except (ValueError, KeyError, TypeError) as exc:
        raise ProfileError(f"not a libomptarget time trace: {exc}") from None
    totals: dict[str, tuple[int, float]] = {}
    for e in events if isinstance(events, list) else []:
        name = e.get("name", "") if isinstance(e, dict) else ""
        if name.startswith("Total "):
            args = e.get("args") or {}
            totals[name[6:]] = (int(args.get("count", 0)), float(e.get("dur", 0.0)))
    return RuntimeTimes(totals.get("HostToDev", (0, 0.0)), totals.get("DevToHost", (0, 0.0)),
                        totals.get("Kernel Target", (0, 0.0)))


def _si(value: float, unit: str) -> str:
    for factor, prefix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= factor:
            return f"{value / factor:.2f} {prefix}{unit}"
    return f"{value:.0f} {unit}"


def render(report: ProfileReport) -> str:
    """The profile as text (what ``offload-ls profile`` prints)."""
    lines = [f"profile ({report.source}" + (f", {report.gpu}" if report.gpu else "") + ")"]
    for k in report.kernels:
        bw = _si(k.dram_bytes_per_s, "B/s")
        pct = f" ({k.dram_pct:.1f}% of peak DRAM)" if k.dram_pct is not None else ""
        occ = (f", occupancy {k.achieved_occupancy_pct:.1f}% (theoretical {k.theoretical_occupancy_pct:.0f}%)"
               if k.achieved_occupancy_pct is not None and k.theoretical_occupancy_pct is not None else "")
        ai = (f", {k.intensity:.3f} FLOP/B, {k.bound}-bound" if k.intensity is not None and k.flops > 0
              else ", no floating-point operations" if k.flops == 0 else "")
        lines.append(f"  kernel {k.kernel:<16} {k.duration_ns / 1e3:9.2f} us  grid {k.grid} block {k.block}  "
                     f"DRAM {_si(k.dram_bytes, 'B')} at {bw}{pct}"
                     + (f", {_si(k.flops_per_s, 'FLOP/s')}" if k.flops > 0 else "") + f"{ai}, "
                     f"{k.registers} registers{occ}" + (", SPILLS to local memory" if k.spills else ""))
    rt = report.runtime
    if rt is not None:
        lines.append(f"  runtime (libomptarget time trace): kernel launches {rt.kernel_launches[1] / 1e3:.3f} ms, "
                     f"copies host→device {rt.host_to_device[1] / 1e3:.3f} ms, "
                     f"device→host {rt.device_to_host[1] / 1e3:.3f} ms")
    for n in report.notes:
        lines.append(f"  note: {n}")
    return "\n".join(lines)


@dataclass
class KernelSummary:
    """One kernel's launches in a profile, summarised: ``launches`` profiled, the median
    launch's figures (by duration; units as in :class:`KernelProfile`) and whether any
    launch spilled. What the editor shows on the kernel."""

    kernel: str
    launches: int
    median: KernelProfile
    any_spills: bool

    def lens_title(self) -> str:
        """``profile: 93.6 µs · 4.06 TB/s (84.7% of peak) · 14 regs · occupancy 89%``."""
        m = self.median
        parts = [f"profile: {m.duration_ns / 1e3:.1f} µs"
                 + (f" (median of {self.launches})" if self.launches > 1 else "")]
        parts.append(_si(m.dram_bytes_per_s, "B/s")
                     + (f" ({m.dram_pct:.1f}% of peak)" if m.dram_pct is not None else ""))
        if m.registers is not None:
            parts.append(f"{m.registers} regs")
        if m.achieved_occupancy_pct is not None:
            parts.append(f"occupancy {m.achieved_occupancy_pct:.0f}%")
        if self.any_spills:
            parts.append("SPILLS")
        return " · ".join(parts)

    def markdown(self) -> str:
        """The hover text: every figure of the median launch, with the roofline's reading."""
        m = self.median
        rows = [f"median of {self.launches} launch{'es' if self.launches != 1 else ''}: "
                f"{m.duration_ns / 1e3:.2f} µs, grid {m.grid}, block {m.block}",
                f"DRAM {_si(m.dram_bytes, 'B')} at {_si(m.dram_bytes_per_s, 'B/s')}"
                + (f" ({m.dram_pct:.1f}% of the GPU's peak)" if m.dram_pct is not None else "")]
        if m.flops > 0:
            peak = m.peak_flops_f64 if m.flops_f64 > m.flops_f32 else m.peak_flops_f32
            rows.append(f"{_si(m.flops_per_s, 'FLOP/s')}"
                        + (f" ({100 * m.flops_per_s / peak:.1f}% of peak)" if peak else "")
                        + (f", {m.intensity:.3f} FLOP/B: {m.bound}-bound" if m.intensity is not None else ""))
        else:
            rows.append("no floating-point operations")
        occ = (f", occupancy {m.achieved_occupancy_pct:.1f}% (theoretical {m.theoretical_occupancy_pct:.0f}%)"
               if m.achieved_occupancy_pct is not None and m.theoretical_occupancy_pct is not None else "")
        rows.append(f"{m.registers} registers{occ}"
                    + (", spills to local memory" if self.any_spills else ", no spills"))
        return "\n".join(f"- {r}" for r in rows)


def per_kernel(report: ProfileReport) -> dict[str, KernelSummary]:
    """The profile's launches grouped by kernel name (in first-launch order), each with its
    median launch by duration (the lower median for an even count)."""
    groups: dict[str, list[KernelProfile]] = {}
    for k in report.kernels:
        groups.setdefault(k.kernel, []).append(k)
    out = {}
    for name, launches in groups.items():
        ordered = sorted(launches, key=lambda k: k.duration_ns)
        out[name] = KernelSummary(name, len(launches), ordered[(len(ordered) - 1) // 2],
                                  any(k.spills for k in launches))
    return out
