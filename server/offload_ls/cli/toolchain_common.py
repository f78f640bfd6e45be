"""What the toolchain and GPU commands share: argument types and options, the crate and
doctor lookup, running a workflow with its errors turned into messages, printing."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from offload_ls.toolchain.crate import CrateError
from offload_ls.toolchain.doctor import HOST_ONLY, run_doctor
from offload_ls.toolchain.fp_contract import FP_CONTRACT_VALUES
from offload_ls.toolchain.transfer_plan import human_bytes
from offload_ls.workspace.cargo import find_manifest

EXIT_OK, EXIT_FAIL, EXIT_ERROR = 0, 1, 2


def err(msg: str) -> None:
    sys.stderr.write(f"offload-ls: error: {msg}\n")
    sys.stderr.flush()


def note(msg: str) -> None:
    sys.stderr.write(f"{msg}\n")
    sys.stderr.flush()


def positive_seconds(value: str) -> float:
    try:
        n = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {value!r}") from None
    if not n > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0 seconds, got {value}")
    return n


def registers(value: str) -> int:
    """``--max-registers``: an integer from 16 to 255 (toolchain/max_registers.py)."""
    from offload_ls.toolchain.max_registers import MAX_REGISTERS, MIN_REGISTERS

    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {value!r}") from None
    if not MIN_REGISTERS <= n <= MAX_REGISTERS:
        raise argparse.ArgumentTypeError(f"must be from {MIN_REGISTERS} to {MAX_REGISTERS} registers, got {n}")
    return n


def arch_matches(arch: str, target: str) -> str | None:
    """Why ``arch`` cannot be built for ``target`` (``None`` if it can)."""
    if target.startswith("nvptx") and not arch.startswith("sm_"):
        return (f"--arch {arch} is not an NVIDIA arch (sm_XX) for target {target}"
                + ("; for AMD GPUs add --target amdgcn-amd-amdhsa" if arch.startswith("gfx") else ""))
    if target.startswith("amdgcn") and not arch.startswith("gfx"):
        return f"--arch {arch} is not an AMD arch (gfxXXX) for target {target}"
    return None


def common_build_args(p) -> None:
    p.add_argument("path", nargs="?", default=".", help="crate directory or Cargo.toml (default: .)")
    p.add_argument("--arch", help="GPU arch, e.g. sm_90, gfx90a (default: the detected GPU's, else sm_90)")
    p.add_argument("--target", default="nvptx64-nvidia-cuda",
                   choices=("nvptx64-nvidia-cuda", "amdgcn-amd-amdhsa"), help="GPU target triple")
    p.add_argument("--bin", dest="bin_name", metavar="NAME", help="binary target to build")
    p.add_argument("--device-image", choices=("gpu", "host", "both"),
                   help="images to embed: gpu (default when a GPU is present), host (libomptarget's "
                        "Virtual Host Device: kernels run on the CPU), both (warned against)")
    p.add_argument("--fp-contract", choices=FP_CONTRACT_VALUES,
                   help="floating-point contraction in device code: fast fuses a*b+c into FMA like nvcc's "
                        "default -fmad=true (results differ from the CPU's in the last bits); off keeps Rust's "
                        "unfused semantics (default: fp-contract in [package.metadata.offload-ls], else off)")
    p.add_argument("--max-registers", type=registers, metavar="N",
                   help="registers per thread for every kernel (16-255), like nvcc's -maxrregcount: more blocks "
                        "fit on an SM, but below what a kernel needs ptxas spills (default: max-registers in "
                        "[package.metadata.offload-ls], else no limit)")
    p.add_argument("--rustc", help="rustc to use (default: what `offload-ls doctor` chooses)")
    p.add_argument("--cargo", help="cargo beside that rustc")


def crate_and_doctor(args) -> tuple[Path, object] | None:
    """The crate's manifest and the doctor's report for a crate command, or ``None`` after
    the error was printed."""
    manifest = manifest_of(args.path)
    report = doctor_for(args) if manifest else None
    return (manifest, report) if manifest is not None and report is not None else None


def host_image_without_gpu(args, report, what: str) -> str | None:
    """``--device-image``, or ``host`` (with a note) on a machine without a GPU."""
    if args.device_image is None and not report.gpus:
        note(f"no GPU found: building with --device-image host (kernels run on the CPU through "
              f"libomptarget's Virtual Host Device{what})")
        return "host"
    return args.device_image


def run_workflow(coro, errors: tuple[type[Exception], ...] = ()):
    """``asyncio.run(coro)``; ``(outcome, None)``, or ``(None, exit status)`` after printing
    what went wrong (a crate or toolchain problem, or Ctrl-C)."""
    try:
        return asyncio.run(coro), None
    except (CrateError, ValueError, *errors) as exc:
        err(str(exc))
        return None, EXIT_ERROR
    except KeyboardInterrupt:
        err("cancelled")
        return None, EXIT_FAIL


def manifest_of(path: str) -> Path | None:
    p = Path(path)
    if p.is_dir():
        p = find_manifest(p.resolve()) or p / "Cargo.toml"  # the enclosing crate, as cargo finds it
    if p.name != "Cargo.toml" or not p.is_file():
        err(f"{path}: no Cargo.toml here; pass a crate directory or its Cargo.toml")
        return None
    return p.resolve()


def doctor_for(args):
    if args.arch:
        wrong = arch_matches(args.arch, args.target)
        if wrong:
            err(wrong)
            return None
    report = run_doctor(rustc=args.rustc, cargo=args.cargo, arch=args.arch, target=args.target)
    if report.pipeline == HOST_ONLY:
        err("no offload-capable toolchain found; `offload-ls doctor` says:\n  "
             + "\n  ".join(report.missing) + (f"\ninstall with: {report.install}" if report.install else ""))
        return None
    return report


def print_diagnostics(diags) -> None:
    for d in diags:
        where = f"{d.span.file}:{d.span.line}:{d.span.column}: " if d.span else ""
        note(f"{where}{d.level}: {d.message} [{d.source}]")
        for n in d.notes:
            note(f"    {n}")


def build_settings(args: argparse.Namespace):
    """The build settings of the command line (over Cargo.toml's; argparse checked them)."""
    from offload_ls.toolchain.crate import BuildSettings

    return BuildSettings(fp_contract=getattr(args, "fp_contract", None),
                         max_registers=getattr(args, "max_registers", None))


def print_build(outcome) -> None:
    for w in outcome.warnings:
        note(f"warning: {w}")
    if outcome.exe is None:
        return
    state = "up to date" if outcome.fresh else f"built in {outcome.seconds:.1f} s"
    print(f"{outcome.exe} ({state})")
    for img in outcome.images:
        print(f"  image: {img}")
    for r in outcome.resources:
        print(f"  kernel {r.summary()}")
        if r.spills:
            note(f"warning: kernel `{r.kernel}` spills registers to local memory "
                  f"({r.spill_store_bytes} B stores, {r.spill_load_bytes} B loads): slower loads and stores")
    for p in outcome.ptx_perf:
        print(f"  PTX {p.summary()}")
        if p.advice():
            note(f"note: kernel `{p.kernel}`: {p.advice()}")
    if outcome.bundle is not None:
        b = outcome.bundle
        print(f"  bundle: {b.directory} ({human_bytes(b.bytes)}, {len(b.libraries)} libraries); "
              f"run it there with {b.directory / 'run'}")
