"""``offload-ls doctor``: what the installed toolchains can do, and which pipeline to use.

Pipelines, best first (docs/offload-notes.md):

- ``native``: rustc built with LLVM offload: ``-Zoffload=Device`` then ``-Zoffload=Host=<abs>``.
- ``llvm-tools``: rustc accepts ``-Zoffload=Test``; the device pass emits bitcode, offload-ls
  fixes the kernel ABI and bundles/embeds/links with LLVM tools of the same major version.
- ``host-only``: plain host ``cargo check``; the report says what is missing and the exact
  command that installs it.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from enum import StrEnum

from offload_ls.toolchain import facts
from offload_ls.toolchain.cache import ProbeCache
from offload_ls.toolchain.discover import RustToolchain, candidate_toolchains, probe_toolchain
from offload_ls.toolchain.rustup import OffloadComponent, find_rustup, probe_offload_component
from offload_ls.toolchain.tools import Gpu, LlvmTools, find_cuda_path, find_gpus, find_llvm_tools, find_ptxas


class Pipeline(StrEnum):
    """How a crate's device code is compiled (the module docstring); the value is what
    reports, JSON and build stamps say."""

    NATIVE = "native"
    LLVM_TOOLS = "llvm-tools"
    HOST_ONLY = "host-only"


NATIVE, LLVM_TOOLS, HOST_ONLY = Pipeline.NATIVE, Pipeline.LLVM_TOOLS, Pipeline.HOST_ONLY


@dataclass
class DoctorReport:
    """Everything ``doctor`` found, and the decision.

    Attributes:
        toolchains: every probed rustc. chosen: index into ``toolchains`` (``None`` if no
        usable rustc). pipeline: ``native`` / ``llvm-tools`` / ``host-only``.
        target: the GPU target triple the device pass builds for; arch: e.g. ``sm_90``.
        missing: what keeps a better pipeline from being used (human-readable).
        install: the command that installs what is missing (``None`` if nothing is).
    """

    toolchains: list[RustToolchain]
    chosen: int | None
    pipeline: Pipeline
    llvm: LlvmTools | None
    ptxas: str | None
    gpus: list[Gpu]
    cuda_path: str | None = None
    target: str = "nvptx64-nvidia-cuda"
    arch: str = "sm_90"
    missing: list[str] = field(default_factory=list)
    install: str | None = None
    notes: list[str] = field(default_factory=list)
    #: rustc path -> what rustup says about that toolchain's ``offload`` component
    components: dict[str, OffloadComponent] = field(default_factory=dict)
    #: why this pipeline (one sentence naming the toolchain and what it can do)
    why: str = ""
    #: the command that would give the native pipeline (``None`` when it is in use)
    native_fix: str | None = None

    @property
    def toolchain(self) -> RustToolchain | None:
        return self.toolchains[self.chosen] if self.chosen is not None else None

    @property
    def essential_missing(self) -> bool:
        """True when compiles cannot include the device pass (worth a one-time popup)."""
        return self.pipeline == HOST_ONLY

    def to_json(self) -> dict:
        data = asdict(self)
        data["toolchains"] = [t.to_json() for t in self.toolchains]
        return data


def _llvm_ok(tc: RustToolchain) -> tuple[LlvmTools | None, list[str]]:
    if tc.llvm_major is None:
        return None, ["rustc reports no LLVM version"]
    llvm = find_llvm_tools(tc.llvm_major)
    return llvm, [f"LLVM {tc.llvm_major} {m}" for m in llvm.missing]


def run_doctor(rustc: str | None = None, cargo: str | None = None, arch: str | None = None,
               target: str = "nvptx64-nvidia-cuda", cache: ProbeCache | None = None,
               probe_gpus: bool = True, fallback_arch: str | None = None) -> DoctorReport:
    """Probe candidates and choose the best pipeline.

    Args:
        rustc / cargo: explicit paths (settings); tried first.
        arch: GPU architecture asked for explicitly (``--arch``); wins over everything.
        fallback_arch: the ``gpuArch`` setting: used when no GPU of ``target``'s vendor is
            detected. Order (issue "Build"): explicit, detected GPU, setting, the target's
            default (``sm_90`` / ``gfx90a``).
        target: GPU target triple of the device pass.
    """
    cache = cache or ProbeCache()
    toolchains = [probe_toolchain(r, c, o, cache) for r, c, o in candidate_toolchains(rustc, cargo)]
    gpus, gpu_notes = ([], [])
    ptxas = find_ptxas()

    best, reasons = _choose(toolchains, target, explicit=rustc is not None)
    if probe_gpus:
        device_info = best[2].tools.get("llvm-offload-device-info") if best and best[2] else None
        gpus, gpu_notes = find_gpus(device_info)
    vendor = "amd" if target.startswith("amdgcn") else "nvidia"
    default_arch = next((g.arch for g in gpus if g.arch and g.vendor == vendor), None)
    report = DoctorReport(
        toolchains=toolchains, chosen=best[0] if best else None,
        pipeline=best[1] if best else HOST_ONLY, llvm=best[2] if best else None,
        ptxas=ptxas, gpus=gpus, target=target, cuda_path=find_cuda_path(ptxas),
        arch=arch or default_arch or fallback_arch or facts.GPU_TARGETS.get(target, "sm_90"), notes=gpu_notes,
    )
    if best is None:
        report.missing = ["no Rust toolchain with cargo found"] + reasons
        report.install = facts.install_command()
    elif best[1] == HOST_ONLY:
        report.missing = reasons
        report.install = facts.install_command()
    _pipeline_notes(report)
    _explain(report)
    if not gpus and probe_gpus:
        report.notes.append("no GPU found (nvidia-smi / rocm-smi): builds work; runs need "
                            "--device-image host (libomptarget's Virtual Host Device)")
    return report


#: (index into the toolchains, pipeline, its LLVM tools, what keeps it from a better one)
_Choice = tuple[int, Pipeline, LlvmTools | None, list[str]]


def _choose(toolchains: list[RustToolchain], target: str, explicit: bool) -> tuple[_Choice | None, list[str]]:
    """The best toolchain for ``target`` (``None``: no usable rustc) and, per toolchain that
    falls short, why. ``explicit``: the first candidate is the ``rustc`` setting, used when it
    works even if another could do more."""
    best: _Choice | None = None
    reasons: list[str] = []
    for i, tc in enumerate(toolchains):
        if tc.error or tc.cargo is None:
            reasons.append(f"{tc.rustc}: {tc.error or 'no cargo beside it'}")
            continue
        llvm, llvm_missing = _llvm_ok(tc)
        std = tc.gpu_std.get(target, "missing")
        if tc.native_offload and std != "missing":
            best = (i, NATIVE, llvm, [])
            break
        gaps = []
        if not tc.supports_test_mode:
            gaps.append("-Zoffload=Test not accepted")
        if std == "missing":
            gaps.append(f"no `core` for {target} (install rust-src: rust-web-src on Debian)")
        elif std == "build-std" and tc.vendor_dir is None:
            gaps.append("rust-src has no vendored crates for -Zbuild-std (library/vendor)")
        gaps += llvm_missing
        if not gaps:
            if best is None or best[1] != LLVM_TOOLS:
                best = (i, LLVM_TOOLS, llvm, [])
        else:
            reasons.append(f"{tc.rustc} ({tc.release}): " + "; ".join(gaps))
            if best is None:
                best = (i, HOST_ONLY, llvm, gaps)
        if i == 0 and explicit and best is not None and best[0] == 0:
            break  # an explicitly chosen rustc that works is used, even if another could do more
    return best, reasons


def _pipeline_notes(report: DoctorReport) -> None:
    """Notes on what the chosen device pipeline lacks: ptxas for NVIDIA links, native offload."""
    if report.pipeline != HOST_ONLY and report.target.startswith("nvptx") and report.ptxas is None:
        report.notes.append("ptxas not found: checks work, but linking an NVIDIA GPU binary needs "
                            "CUDA's ptxas (CUDA_PATH, /usr/local/cuda/bin, or PyPI's nvidia-cuda-nvcc)")
    if report.toolchain and report.pipeline != HOST_ONLY and not report.toolchain.native_offload:
        report.notes.append(f"{report.toolchain.rustc}: {report.toolchain.native_note}; "
                            "using the LLVM-tools pipeline")


def _explain(report: DoctorReport) -> None:
    """Fill ``components``, ``why`` and ``native_fix``: which pipeline and why, and the exact
    command that gives the native one (rustup's ``offload`` component on a nightly)."""
    for tc in report.toolchains:
        comp = probe_offload_component(tc) if not tc.error else None
        if comp is not None:
            report.components[tc.rustc] = comp
    tc = report.toolchain
    if tc is None:
        report.why = "no Rust toolchain with cargo was found"
    elif report.pipeline == NATIVE:
        report.why = (f"{tc.rustc} ({tc.release}) compiles offload natively"
                      + (" in three passes (-Zoffload=HostMetadata=, Device=, Host=)" if tc.three_pass else ""))
    elif report.pipeline == LLVM_TOOLS:
        report.why = (f"{tc.rustc} ({tc.release}) accepts -Zoffload=Test but has no LLVM offload: offload-ls "
                      f"compiles the device pass to bitcode and links with LLVM {tc.llvm_major}'s tools")
    else:
        report.why = "no rustc here can compile for a GPU (see missing)"
    if report.pipeline == NATIVE:
        return
    nightlies = [(t, report.components.get(t.rustc)) for t in report.toolchains
                 if not t.error and t.release and "nightly" in t.release]
    with_comp = [(t, c) for t, c in nightlies if c is not None]
    if with_comp:
        t, comp = with_comp[0]
        report.native_fix = comp.fix(t.commit_date)
        if comp.installed:
            report.notes.append(f"{comp.toolchain} has the offload component, "
                                f"but {t.native_note or 'its probe failed'}")
        elif comp.available is False:
            report.notes.append(f"{comp.toolchain} ({t.release}, {t.commit_date}) predates the `offload` component "
                                f"(shipped since {facts.OFFLOAD_COMPONENT_SINCE})")
        elif comp.error:
            report.notes.append(f"{comp.toolchain}: could not ask rustup about its components: {comp.error}")
        else:
            report.notes.append(f"{comp.toolchain} has no `offload` component installed")
    elif find_rustup() is not None:
        report.native_fix = "rustup toolchain install nightly --component offload --component rust-src"
    else:
        report.native_fix = ("install rustup (https://rustup.rs), then: rustup toolchain install nightly "
                             "--component offload --component rust-src")


def render_text(report: DoctorReport) -> str:
    """A readable table of the report (what ``offload-ls doctor`` prints)."""
    lines = ["Rust toolchains:", *_toolchain_table(report), *_tool_lines(report), ""]
    tc = report.toolchain
    lines.append(f"Pipeline: {report.pipeline}" + (f" with {tc.rustc} {tc.release}" if tc else "")
                 + f", device target {report.target} ({report.arch})")
    if report.why:
        lines.append(f"  why: {report.why}")
    for m in report.missing:
        lines.append(f"  missing: {m}")
    if report.install:
        lines.append(f"  install: {report.install}")
    for n in report.notes:
        lines.append(f"  note: {n}")
    if report.native_fix:
        lines.append(f"  native pipeline (today's nightly, three passes): {report.native_fix}")
    return "\n".join(lines)


def _toolchain_table(report: DoctorReport) -> list[str]:
    """One row per probed rustc (``*``: the chosen one), columns as wide as their cells."""
    lines = []
    rows = []
    for i, tc in enumerate(report.toolchains):
        mark = "*" if i == report.chosen else " "
        if tc.error:
            rows.append((mark, str(tc.rustc), f"error: {tc.error}"))
            continue
        modes = ",".join(m.split("=")[0] for m in tc.offload_modes) or "-"
        native = {True: "yes", False: "no", None: "?"}[tc.native_offload]
        std = tc.gpu_std.get(report.target, "missing")
        rows.append((mark, str(tc.rustc), tc.release or "?", tc.llvm_version or "?", modes, native, std))
    header = ("", "rustc", "release", "LLVM", "-Zoffload", "native", "GPU core")
    # each column as wide as its longest cell (a rustup path is longer than /usr/bin/rustc)
    widths = [max(len(r[c]) for r in [header, *rows] if len(r) > c and len(r) > 3) for c in range(len(header))]
    for r in [header, *rows]:
        cells = r if len(r) > 3 else (*r[:2], r[2])
        lines.append("  " + " ".join(cell.ljust(widths[c]) if c < len(cells) - 1 else cell
                                     for c, cell in enumerate(cells)).rstrip())
    return lines


def _tool_lines(report: DoctorReport) -> list[str]:
    """LLVM's tools, rustup's component, ptxas, the AMD linker and the GPUs found."""
    lines = []
    if report.llvm:
        lines.append(f"LLVM {report.llvm.major} tools ({report.llvm.bin_dir or 'not found'}):")
        for tool, path in report.llvm.tools.items():
            lines.append(f"    {tool:<26} {path or 'MISSING'}")
        lines.append(f"    {'libomptarget':<26} {report.llvm.libomptarget or 'MISSING'}"
                     + (f"  (plugins: {', '.join(report.llvm.plugins)})" if report.llvm.plugins else ""))
    if report.components:
        lines.append("rustup `offload` component:")
        releases = {t.rustc: t.release or "" for t in report.toolchains}
        for rustc, comp in report.components.items():
            nightly = "nightly" in releases.get(rustc, "")
            state = ("installed" if comp.installed else "not installed"
                     + ("" if comp.available is not False else
                        " (this nightly predates it)" if nightly else " (nightly only)")
                     + (f" (rustup: {comp.error})" if comp.error else ""))
            lines.append(f"    {comp.toolchain:<40} {state}; runtimes: {', '.join(comp.runtimes) or 'none'}"
                         + ("" if comp.rust_src else "; rust-src missing"))
    lines.append(f"ptxas: {report.ptxas or 'not found'}"
                 + (f"  (CUDA at {report.cuda_path})" if report.cuda_path else ""))
    lld = (report.llvm.tools.get("ld.lld") if report.llvm else None) or next(
        (c.rust_lld for c in report.components.values() if c.rust_lld), None)
    lines.append(f"AMD GPU linker (ld.lld / rust-lld): {lld or 'not found'}")
    if report.gpus:
        lines.append("GPUs:")
        for g in report.gpus:
            lines.append(f"    {g.vendor} {g.name} ({g.arch or 'arch ?'}) via {g.source}")
    else:
        lines.append("GPUs: none found")
    return lines


def render_json(report: DoctorReport) -> str:
    return json.dumps(report.to_json(), indent=2)
