"""The kernel assembly view's pipeline (``offload-ls asm`` and ``offload-ls.assembly``): the
device pass with line tables, PTX / AMDGPU assembly, optimised LLVM IR and SASS listings
mapped back to the user's lines."""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

from offload_ls.gpu.listing import (
    Listing,
    SourceLoc,
    parse_asm,
    parse_llvm_ir,
    parse_sass,
)
from offload_ls.toolchain.build import AssemblyPlan, assembly_plan
from offload_ls.toolchain.compile import run_plan
from offload_ls.toolchain.crate import BuildSettings, Crate
from offload_ls.toolchain.diagnostics import CompilerDiagnostic
from offload_ls.toolchain.doctor import DoctorReport
from offload_ls.toolchain.lower import Lowering, lower_for_pipeline
from offload_ls.toolchain.lower_map import LineMapper
from offload_ls.toolchain.process import CancelToken
from offload_ls.workflow.build import Progress, _load_crate
from offload_ls.workflow.freshness import (
    build_inputs_digest,
    dep_info_inputs,
    is_fresh,
    stamp_digest,
)
from offload_ls.workspace.files import FileTooLarge, read_source, rust_files


def crate_has_offload_kernels(root: Path, max_bytes: int = 4 << 20) -> bool:
    """Does some ``.rs`` file below ``root`` (:func:`~offload_ls.workspace.files.rust_files`:
    ``target/`` and the like skipped) define a kernel this project's pipeline compiles (rustc
    offload, or a bare ``extern "gpu-kernel"``)? Files above ``max_bytes`` are not read."""
    from offload_ls.analysis.engine import analyze_source
    from offload_ls.analysis.model import Ecosystem

    for path in rust_files(root):
        try:
            data = read_source(path, max_bytes)
        except (OSError, FileTooLarge):
            continue
        if (b"offload" in data or b"gpu-kernel" in data) and any(
                k.ecosystem in (Ecosystem.OFFLOAD, Ecosystem.GPU_KERNEL_ABI) for k in analyze_source(data).kernels):
            return True
    return False


@dataclass
class AssemblyOutcome:
    """Result of :func:`assemble_crate`: the device listings of a crate's kernels.

    Attributes:
        files: format (``ptx`` / ``amdgcn``, ``llvm-ir``, ``sass``) -> file written under
            ``target/offload-ls/asm/``; only the formats the toolchain could make.
        arch: the GPU arch compiled for (``sm_90``, ``gfx90a``).
    """

    crate: Crate
    arch: str
    files: dict[str, Path] = field(default_factory=dict)
    diagnostics: list[CompilerDiagnostic] = field(default_factory=list)
    seconds: float = 0.0
    fresh: bool = False
    cancelled: bool = False
    lowering: Lowering | None = None

    @property
    def ok(self) -> bool:
        return bool(self.files) and not self.cancelled

    def listing(self, fmt: str) -> Listing:
        """Parse the listing of ``fmt``.

        Raises:
            KeyError: that format was not made (no nvdisasm for ``sass``, or the build failed).
            OSError: the file cannot be read.
        """
        text = self.files[fmt].read_text(encoding="utf-8", errors="replace")
        if fmt == "llvm-ir":
            listing = parse_llvm_ir(text)
        elif fmt == "sass":
            listing = parse_sass(text)
        else:
            listing = parse_asm(text, fmt, str(self.crate.manifest.parent))
        if self.lowering is not None:  # the debug info names the lowered copy: the user's lines
            mapper, base = LineMapper(self.lowering), self.crate.manifest.parent
            for i, chain in enumerate(listing.locs):
                out = []
                for loc in chain:
                    where = Path(loc.path) if os.path.isabs(loc.path) else base / loc.path
                    where = Path(os.path.normpath(where))
                    path, line = (mapper.map(where, loc.line) if loc.line > 0
                                  else (self.lowering.original_path(where), 0))
                    out.append(SourceLoc(str(path), line, loc.column))
                listing.locs[i] = tuple(out)
        return listing


async def assemble_crate(manifest: Path, report: DoctorReport, *, bin_name: str | None = None,
                         cancel: CancelToken | None = None, progress: Progress | None = None, force: bool = False,
                         timeouts: dict[str, float] | None = None,
                         settings: BuildSettings | None = None) -> AssemblyOutcome:
    """Compile ``manifest``'s crate for the GPU target with line tables and return its device
    listings (PTX or AMDGPU assembly, optimised LLVM IR, SASS when nvdisasm exists). Reuses the
    last listings while no source changed.

    Raises:
        CrateError / ValueError: no usable crate or toolchain (the message says what to do).
    """
    say = progress or (lambda m: None)
    tc = report.toolchain
    crate = _load_crate(manifest, report, bin_name, settings)
    crate, lowering = lower_for_pipeline(crate, report, "gpu")
    plan: AssemblyPlan = assembly_plan(crate, report, timeouts)
    plan.lowering = lowering
    img = plan.image
    outcome = AssemblyOutcome(crate, img.arch, lowering=lowering)
    wanted = {"ptx" if img.triple.startswith("nvptx") else "amdgcn": img.asm, "llvm-ir": plan.ir}
    if plan.sass is not None:
        wanted["sass"] = plan.sass
    stamp = crate.out_dir / "asm" / "stamp.json"
    key = {"arch": img.arch, "target": img.triple, "rustc": tc.rustc if tc else None,
           "pipeline": report.pipeline, "formats": sorted(wanted), "bin": crate.bin, "fp_contract": crate.fp_contract,
           "max_registers": crate.max_registers}
    start = time.monotonic()
    asm_targets = (crate.out_dir / "asm" / "target-device",)
    before = dep_info_inputs(asm_targets)
    digest = build_inputs_digest(crate, asm_targets, before)
    if not force and is_fresh(crate, img.asm, key, stamp, asm_targets):
        say(f"the device listings in {img.asm.parent} are up to date")
        outcome.fresh = True
    else:
        # only before compiling: fresh listings were made from these kernels' sources
        if not crate_has_offload_kernels(manifest.parent):
            raise ValueError(f"{manifest.parent}: no rustc-offload kernel here (a function with "
                             f"#[rustc_offload_kernel] / #[offload_kernel] or extern \"gpu-kernel\"), so no device "
                             f"assembly to show; Rust-CUDA, rust-gpu and CubeCL kernels are built by their own tools")
        for path in wanted.values():
            path.unlink(missing_ok=True)
        result = await run_plan(plan, cancel=cancel,
                                on_pass=lambda i, n, p: say(f"[{i + 1}/{n}] {p.name}: {p.label}"))
        outcome.diagnostics, outcome.cancelled = result.diagnostics, result.cancelled
        for p in result.passes:
            if p.name == "nvdisasm" and p.completed is not None and p.completed.ok and plan.sass:
                plan.sass.write_text(p.completed.stdout, encoding="utf-8")
        if not result.cancelled and all(path.exists() for path in wanted.values()):
            # a failed SASS step is retried next time
            stamp.write_text(json.dumps({**key, "sources": stamp_digest(crate, asm_targets, before, digest)}))
    outcome.files = {fmt: path for fmt, path in wanted.items() if path.exists()} if img.asm.exists() else {}
    outcome.seconds = time.monotonic() - start
    return outcome
