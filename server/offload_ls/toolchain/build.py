"""The build pipeline: from a crate to an executable with embedded device images.

LLVM-tools pipeline (docs/offload-notes.md "Pipeline without native support",
verified on an NVIDIA H200): device pass(es) to bitcode, kernel ABI fix-up
(:mod:`offload_ls.toolchain.kernel_abi`), ``llvm-offload-binary`` bundle, embed with clang,
host pass ``-Zoffload=Test`` linked through clang-linker-wrapper. Native pipeline: device
pass ``-Zoffload=Device``, host pass ``-Zoffload=Host=<abs bundle>`` (untested here: no
rustc with offload support was available).

Device images (``--device-image``): ``gpu`` embeds only the GPU image; ``host`` only an
x86_64 image for libomptarget's Virtual Host Device (kernels run on the CPU, for machines
without a GPU); ``both`` embeds both — measured on an H200, such a binary ran its kernels
on the host device although the GPU was there (docs/offload-notes.md), so it is warned against.
"""

from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from offload_ls.toolchain import facts
from offload_ls.toolchain.crate import Crate
from offload_ls.toolchain.doctor import HOST_ONLY, NATIVE, DoctorReport
from offload_ls.toolchain.facts import HOST_TRIPLE, DeviceImage
from offload_ls.toolchain.plan import (
    DEFAULT_TIMEOUTS,
    RELEASE_PROFILE,
    Pass,
    Plan,
    _base_env,
    _target_args,
    device_cargo_config,
    host_metadata_passes,
    kernel_manifest,
)
from offload_ls.toolchain.relink import CAPTURE_ARGS
from offload_ls.toolchain.tools import find_cuda_tool


@dataclass(frozen=True)
class Image:
    """One device image: target triple, arch (``sm_90``, ``generic``), and its files."""

    triple: str
    arch: str
    raw_bc: Path
    raw_ll: Path
    fixed_ll: Path
    bc: Path

    @property
    def asm(self) -> Path:
        """Device assembly written by llc: PTX for nvptx64, AMDGPU assembly otherwise."""
        return self.bc.with_suffix(".ptx" if self.triple.startswith("nvptx") else ".s")

    @property
    def tag(self) -> str:
        return f"{self.triple.split('-')[0]}-{self.arch}"


@dataclass
class BuildPlan(Plan):
    """A :class:`Plan` for ``build``, with where its products go."""

    images: tuple[Image, ...] = ()
    exe: Path | None = None
    ptx: Path | None = None
    cubin: Path | None = None




def images_for(device_image: DeviceImage, report: DoctorReport, out: Path) -> tuple[Image, ...]:
    """Images to embed for ``device_image`` = ``gpu`` / ``host`` / ``both``.

    Raises:
        ValueError: any other value (the message says which are allowed)."""
    def image(triple: str, arch: str) -> Image:
        stem = out / f"device-{triple.split('-')[0]}-{arch}"
        return Image(triple, arch, stem.with_suffix(".raw.bc"), stem.with_suffix(".raw.ll"),
                     stem.with_suffix(".ll"), stem.with_suffix(".bc"))
    if device_image not in ("gpu", "host", "both"):
        raise ValueError(f"device image must be gpu, host or both, not {device_image!r}")
    gpu = image(report.target, report.arch)
    host = image(HOST_TRIPLE, "generic")
    return {"gpu": (gpu,), "host": (host,), "both": (gpu, host)}[device_image]


def _require_offload_toolchain(report: DoctorReport) -> None:
    """Raises ValueError (saying what to install) unless ``report`` found a toolchain that can
    compile for a device."""
    if report.pipeline == HOST_ONLY or report.toolchain is None or report.llvm is None:
        raise ValueError("no offload-capable toolchain: " + ("; ".join(report.missing) or "see `offload-ls doctor`")
                         + (f"\ninstall: {report.install}" if report.install else ""))


def build_plan(crate: Crate, report: DoctorReport, device_image: DeviceImage = "gpu",
               timeouts: dict[str, float] | None = None) -> BuildPlan:
    """Passes that build ``crate``'s executable with the chosen device images.

    Raises:
        ValueError: the pipeline is host-only (nothing to build for a device), or the crate
            has no binary target.
    """
    _require_offload_toolchain(report)
    if crate.bin is None:
        raise ValueError(f"{crate.manifest}: no binary target to build (pass --bin NAME)")
    t = {**DEFAULT_TIMEOUTS, **(timeouts or {})}
    tools = report.llvm.tools
    out = crate.out_dir / "build"
    cwd = crate.manifest.parent
    images = images_for(device_image, report, out)
    plan = BuildPlan(crate, report.pipeline, images=images)
    plan.exe = out / "target-host" / "release" / crate.bin
    plan.passes += host_metadata_passes(crate, report, out, t)
    for img in images:
        plan.passes += device_image_passes(crate, report, img, out, t)
        if img.triple.startswith("nvptx") and tools.get("llc"):
            plan.ptx = img.bc.with_suffix(".ptx")
            if report.ptxas:
                plan.cubin = img.bc.with_suffix(".cubin")
                plan.passes.append(Pass("ptxas", "device cubin",
                                        (report.ptxas, "-v", f"-arch={img.arch}", str(plan.ptx), "-o", str(plan.cubin)),
                                        {}, cwd, t["tool"], (plan.cubin,), json=False, needs_clean=True))
    bundle = out / "host.out"
    image_args = [f"--image=file={img.bc},triple={img.triple},arch={img.arch},kind=openmp" for img in images]
    plan.passes.append(Pass("bundle", "link", (tools["llvm-offload-binary"], "-o", str(bundle), *image_args),
                            {}, cwd, t["tool"], (bundle,), json=False, needs_clean=True))
    embed = out / f"offload-image-{{sha:{bundle}}}.o"
    if report.pipeline != NATIVE:
        plan.passes.append(Pass("embed", "link", (tools["clang"], "-c", "-x", "c", "/dev/null", "-Xclang",
                                                  f"-fembed-offload-object={bundle}", "-o", str(embed)),
                                {}, cwd, t["tool"], (), json=False, needs_clean=True))
    plan.passes.append(_host_pass(crate, report, images, bundle, embed, plan.exe, t))
    return plan


def _host_pass(crate: Crate, report: DoctorReport, images: tuple[Image, ...], bundle: Path, embed: Path,
               exe: Path, t: dict[str, float]) -> Pass:
    """The host build: ``cargo rustc --release`` linking the device images (``bundle``,
    embedded as ``embed`` by the LLVM-tools pipeline) through clang-linker-wrapper."""
    tc, llvm = report.toolchain, report.llvm
    clang = llvm.tools["clang"]
    out = crate.out_dir / "build"
    llvm_lib = str(Path(llvm.libomptarget).parent) if llvm.libomptarget else f"/usr/lib/llvm-{llvm.major}/lib"
    gpu_arch = next((img.arch for img in images if img.triple != HOST_TRIPLE), None)
    link = ["-L", f"native={llvm_lib}", "-l", "dylib=omptarget", f"-Clinker={clang}",
            # --offload-link: link through clang-linker-wrapper, which compiles the embedded
            # images and registers them (without it a host-only image is not linked in).
            "-Clink-arg=-fopenmp", "-Clink-arg=--offload-link", "-Clink-arg=-nogpulib", "-Clink-arg=-O3",
            f"-Clink-arg=-Wl,--device-compiler={HOST_TRIPLE}=-fuse-ld=lld", f"-Clink-arg=-Wl,-rpath,{llvm_lib}"]
    if gpu_arch:
        link.insert(6, f"-Clink-arg=--offload-arch={gpu_arch}")
    if gpu_arch and report.cuda_path and report.target.startswith("nvptx"):
        link.append(f"-Clink-arg=--cuda-path={report.cuda_path}")
    host_env = _base_env(report)
    # clang-linker-wrapper finds clang, ld.lld and ptxas on PATH (docs/offload-notes.md).
    path_dirs = [str(Path(clang).parent)] + ([str(Path(report.ptxas).parent)] if report.ptxas else [])
    host_env["PATH"] = ":".join([*path_dirs, os.environ.get("PATH", "")])
    if report.pipeline == NATIVE and tc.three_pass:
        mode = [*facts.native_host_args(str(bundle))]
    elif report.pipeline == NATIVE:
        mode = [f"-Zoffload=Host={bundle}"]
    else:
        # the link command and the LTO'd object are kept for relinking after device-only edits
        mode = ["-Zoffload=Test", f"-Clink-arg={embed}", *CAPTURE_ARGS]
    return Pass(
        "host", "host",
        (tc.cargo, *RELEASE_PROFILE, "rustc", "--release", "--message-format=json", "--manifest-path",
         str(crate.manifest), *_target_args(crate), "--target-dir", str(out / "target-host"), "--", *mode,
         "-Zunstable-options", facts.CHECK_DEVICE_CFGS, *link),
        host_env, crate.manifest.parent, t["build"], (exe,), needs_clean=True)


def device_image_passes(crate: Crate, report: DoctorReport, img: Image, out: Path, t: dict[str, float],
                        line_tables: bool = False) -> list[Pass]:
    """Passes that make ``img.bc`` (the bitcode to embed) and, for nvptx64 with ``llc``,
    ``img.bc.with_suffix(".ptx")`` (PTX for inspection, kernel resources and the assembly view).

    ``line_tables``: compile the device pass with ``-Cdebuginfo=line-tables-only`` so the PTX
    carries ``.loc`` directives (the assembly view's source mapping); LLVM keeps code generation
    independent of debug info, so the instructions are those of a build without it.
    """
    gpu = img.triple != HOST_TRIPLE
    passes = [_device_pass(crate, report, img, out, t, line_tables)]
    passes += _device_ir_passes(crate, report, img, t)
    if gpu and (img.triple.startswith("nvptx") or line_tables) and report.llvm.tools.get("llc"):
        passes += _device_asm_passes(crate, report, img, t)
    return passes


def _device_pass(crate: Crate, report: DoctorReport, img: Image, out: Path, t: dict[str, float],
                 line_tables: bool) -> Pass:
    """``cargo rustc`` for the device target, emitting ``img.raw_bc``."""
    tc = report.toolchain
    gpu = img.triple != HOST_TRIPLE
    dev_env = _base_env(report)
    if gpu:
        # rustc-dev-guide src/offload/usage.md: RUSTFLAGS="-Ctarget-cpu=gfx90a" for the device pass
        dev_env[f"CARGO_TARGET_{img.triple.upper().replace('-', '_')}_RUSTFLAGS"] = f"-Ctarget-cpu={img.arch}"
    build_std = ["-Zbuild-std=core"] if gpu and tc.gpu_std.get(img.triple) == "build-std" else []
    native = []
    if report.pipeline == NATIVE:
        native = (list(facts.native_device_args(str(kernel_manifest(out)))) if tc.three_pass
                  else ["-Zoffload=Device"])
    debug = ["-Cdebuginfo=line-tables-only"] if line_tables else []
    return Pass(
        name=f"device-{img.tag}", label=f"device {img.triple.split('-')[0]} {img.arch}",
        argv=(tc.cargo, *(device_cargo_config(report) if gpu else ()), *RELEASE_PROFILE, "rustc", "--release",
              "--message-format=json", "--manifest-path", str(crate.manifest), *_target_args(crate),
              "--target", img.triple, *build_std, "--target-dir", str(out / "target-device"), "--", *native,
              *facts.device_cfg_args(), *debug, f"-Clinker={shutil.which('true') or '/bin/true'}",
              f"--emit=llvm-bc={img.raw_bc},link"),
        env=dev_env, cwd=crate.manifest.parent, timeout=t["build"], emits=(img.raw_bc,))


def _device_ir_passes(crate: Crate, report: DoctorReport, img: Image, t: dict[str, float]) -> list[Pass]:
    """``img.raw_bc`` -> ``img.bc``: through the textual IR fixes (the kernel ABI for the
    LLVM-tools pipeline, FP contraction, the register limit) when one applies, else a copy."""
    tools = report.llvm.tools
    cwd = crate.manifest.parent
    contract = crate.fp_contract == "fast"
    limit = crate.max_registers if img.triple != HOST_TRIPLE and img.triple.startswith("nvptx") else None
    if not (report.pipeline != NATIVE or contract or limit):
        return [Pass(f"copy-{img.tag}", "device", ("cp", str(img.raw_bc), str(img.bc)),
                     {}, cwd, t["tool"], (img.bc,), json=False, needs_clean=True)]
    dis = Pass(f"llvm-dis-{img.tag}", "device ABI", (tools["llvm-dis"], str(img.raw_bc), "-o", str(img.raw_ll)),
               {}, cwd, t["tool"], (img.raw_ll,), json=False, needs_clean=True)
    # (module, pass name, label, arguments before IN OUT)
    steps: list[tuple[str, str, str, tuple[str, ...]]] = []
    if report.pipeline != NATIVE:
        steps.append(("kernel_abi", "kernel-abi", "device ABI", ()))
    if contract:  # toolchain/fp_contract.py: fp-contract = "fast"
        steps.append(("fp_contract", "fp-contract", "device FP contraction", ()))
    if limit:  # toolchain/max_registers.py: max-registers = N
        steps.append(("max_registers", "max-registers", "device register limit", (str(limit),)))
    passes = [dis]
    src = img.raw_ll
    for j, (module, name, label, extra) in enumerate(steps):
        dst = img.fixed_ll if j == len(steps) - 1 else img.fixed_ll.with_suffix(f".{name}.ll")
        passes.append(Pass(f"{name}-{img.tag}", label,
                           (sys.executable, "-m", f"offload_ls.toolchain.{module}", *extra, str(src), str(dst)),
                           {}, cwd, t["tool"], (dst,), json=False, needs_clean=True))
        src = dst
    passes.append(Pass(f"llvm-as-{img.tag}", "device ABI",
                       (str(Path(tools["llvm-dis"]).with_name("llvm-as")), str(img.fixed_ll), "-o", str(img.bc)),
                       {}, cwd, t["tool"], (img.bc,), json=False, needs_clean=True))
    return passes


def _device_asm_passes(crate: Crate, report: DoctorReport, img: Image, t: dict[str, float]) -> list[Pass]:
    """PTX (or AMD assembly) of ``img.bc``, only for inspection (the linker wrapper compiles
    the embedded bitcode itself): ``opt -O3`` first, as its LTO does, so the kernel entry
    points are inlined as in the real image."""
    tools = report.llvm.tools
    cwd = crate.manifest.parent
    opt_bc = img.bc.with_suffix(".opt.bc")
    label = "device PTX" if img.triple.startswith("nvptx") else "device assembly"
    return [
        Pass(f"opt-{img.tag}", label, (tools["opt"], "-O3", str(img.bc), "-o", str(opt_bc)),
             {}, cwd, t["tool"], (opt_bc,), json=False, needs_clean=True),
        Pass(f"llc-{img.tag}", label,
             (tools["llc"], "-O3", f"-mcpu={img.arch}", str(opt_bc), "-o", str(img.asm)),
             {}, cwd, t["tool"], (img.asm,), json=False, needs_clean=True)]

@dataclass
class AssemblyPlan(Plan):
    """A :class:`Plan` for the assembly view: the GPU image compiled with line tables.

    Attributes:
        image: the GPU image (its ``asm`` is PTX for nvptx64, AMDGPU assembly for amdgcn).
        ir: the optimised device LLVM IR (``opt -O3``, as the linker wrapper's LTO sees it).
        cubin / sass: ``ptxas -lineinfo`` output and ``nvdisasm --print-line-info`` listing,
            when both tools exist (NVIDIA only).
    """

    image: Image | None = None
    ir: Path | None = None
    cubin: Path | None = None
    sass: Path | None = None


def assembly_plan(crate: Crate, report: DoctorReport, timeouts: dict[str, float] | None = None) -> AssemblyPlan:
    """Passes for the assembly view of ``crate``'s kernels, into ``target/offload-ls/asm/``
    (apart from ``build``'s products, which stay without debug info).

    Raises:
        ValueError: no offload-capable toolchain, or no ``llc`` to write device assembly.
    """
    _require_offload_toolchain(report)
    tools = report.llvm.tools
    if not tools.get("llc") or not tools.get("opt"):
        raise ValueError(f"LLVM {report.llvm.major}'s llc and opt are needed for device assembly; "
                         f"install: apt-get install llvm-{report.llvm.major}")
    t = {**DEFAULT_TIMEOUTS, **(timeouts or {})}
    out = crate.out_dir / "asm"
    img = images_for("gpu", report, out)[0]
    plan = AssemblyPlan(crate, report.pipeline, image=img)
    plan.passes = [*host_metadata_passes(crate, report, out, t),
                   *device_image_passes(crate, report, img, out, t, line_tables=True)]
    cwd = crate.manifest.parent
    plan.ir = img.bc.with_suffix(".opt.ll")
    plan.passes.append(Pass(f"llvm-dis-opt-{img.tag}", "device IR",
                            (tools["llvm-dis"], str(img.bc.with_suffix(".opt.bc")), "-o", str(plan.ir)),
                            {}, cwd, t["tool"], (plan.ir,), json=False, needs_clean=True))
    nvdisasm = find_cuda_tool("nvdisasm", report.cuda_path, beside=report.ptxas)
    if img.triple.startswith("nvptx") and report.ptxas and nvdisasm:
        plan.cubin, plan.sass = img.bc.with_suffix(".cubin"), img.bc.with_suffix(".sass")
        nodwarf = img.bc.with_suffix(".lineinfo.ptx")
        plan.passes += [
            # without the DWARF llc adds, or ptxas compiles unoptimised (gpu/listing.py)
            Pass("ptx-for-ptxas", "device cubin",
                 (sys.executable, "-m", "offload_ls.gpu.listing", "ptx-for-ptxas", str(img.asm), str(nodwarf)),
                 {}, cwd, t["tool"], (nodwarf,), json=False, needs_clean=True),
            Pass("ptxas-lineinfo", "device cubin",
                 (report.ptxas, "-lineinfo", f"-arch={img.arch}", str(nodwarf), "-o", str(plan.cubin)),
                 {}, cwd, t["tool"], (plan.cubin,), json=False, needs_clean=True),
            Pass("nvdisasm", "device SASS", (nvdisasm, "--print-line-info", str(plan.cubin)),
                 {}, cwd, t["tool"], (plan.sass,), json=False, needs_clean=True)]
    return plan
