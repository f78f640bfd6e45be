"""``offload-ls doctor``, ``build`` and ``run``: the toolchain and GPU commands.

Each ``add_*`` function registers a subcommand on the ``main`` parser; each ``*_command``
runs it and returns the exit status (0 success, 1 build/run failure, 2 usage or setup error).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from offload_ls.toolchain.crate import CrateError
from offload_ls.toolchain.doctor import render_json, render_text, run_doctor
from offload_ls.toolchain.fp_contract import FP_CONTRACT_VALUES
from offload_ls.toolchain.transfer_plan import human_bytes
from offload_ls.workspace.cargo import find_manifest

EXIT_OK, EXIT_FAIL, EXIT_ERROR = 0, 1, 2


def _err(msg: str) -> None:
    sys.stderr.write(f"offload-ls: error: {msg}\n")
    sys.stderr.flush()


def _note(msg: str) -> None:
    sys.stderr.write(f"{msg}\n")
    sys.stderr.flush()


def add_doctor(sub) -> None:
    p = sub.add_parser("doctor", help="show what the installed toolchains and GPUs can do",
                       description="Probe rustc/cargo toolchains, LLVM offload tools, libomptarget, ptxas "
                                   "and GPUs; print the pipeline offload-ls will use.")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--rustc", help="rustc to try first (default: RUSTC, rustup, /usr/bin/rustc)")
    p.add_argument("--cargo", help="cargo beside that rustc")


def doctor_command(args: argparse.Namespace) -> int:
    report = run_doctor(rustc=args.rustc, cargo=args.cargo)
    sys.stdout.write((render_json(report) if args.json else render_text(report)) + "\n")
    return EXIT_OK


def _positive_seconds(value: str) -> float:
    try:
        n = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {value!r}") from None
    if not n > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0 seconds, got {value}")
    return n


def _registers(value: str) -> int:
    """``--max-registers``: an integer from 16 to 255 (toolchain/max_registers.py)."""
    from offload_ls.toolchain.max_registers import MAX_REGISTERS, MIN_REGISTERS

    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {value!r}") from None
    if not MIN_REGISTERS <= n <= MAX_REGISTERS:
        raise argparse.ArgumentTypeError(f"must be from {MIN_REGISTERS} to {MAX_REGISTERS} registers, got {n}")
    return n


def _arch_matches(arch: str, target: str) -> str | None:
    """Why ``arch`` cannot be built for ``target`` (``None`` if it can)."""
    if target.startswith("nvptx") and not arch.startswith("sm_"):
        return (f"--arch {arch} is not an NVIDIA arch (sm_XX) for target {target}"
                + ("; for AMD GPUs add --target amdgcn-amd-amdhsa" if arch.startswith("gfx") else ""))
    if target.startswith("amdgcn") and not arch.startswith("gfx"):
        return f"--arch {arch} is not an AMD arch (gfxXXX) for target {target}"
    return None


def _common_build_args(p) -> None:
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
    p.add_argument("--max-registers", type=_registers, metavar="N",
                   help="registers per thread for every kernel (16-255), like nvcc's -maxrregcount: more blocks "
                        "fit on an SM, but below what a kernel needs ptxas spills (default: max-registers in "
                        "[package.metadata.offload-ls], else no limit)")
    p.add_argument("--rustc", help="rustc to use (default: what `offload-ls doctor` chooses)")
    p.add_argument("--cargo", help="cargo beside that rustc")


def add_build(sub) -> None:
    p = sub.add_parser("build", help="build the crate's offload binary",
                       description="Build an executable with embedded device images (the pipeline "
                                   "`offload-ls doctor` chose).")
    _common_build_args(p)
    p.add_argument("--bundle", metavar="DIR", type=Path,
                   help="also write DIR/ with the binary, the runtime libraries it needs and a `run` "
                        "script, for a GPU machine without LLVM")
    p.add_argument("--force", action="store_true", help="rebuild even if the binary is up to date")


def add_run(sub) -> None:
    p = sub.add_parser("run", help="build if stale, run on the GPU and report launches and copies",
                       description="Build if stale, then run with the offload runtime's log and print a "
                                   "run report (launches, dimensions, bytes copied per kernel). "
                                   "Arguments after `--` go to the program.")
    _common_build_args(p)
    p.add_argument("--device", type=int, metavar="N", help="OpenMP device number (OMP_DEFAULT_DEVICE)")
    p.add_argument("--timeout", type=_positive_seconds, default=300.0, metavar="SECONDS",
                   help="kill the program after SECONDS (default 300)")
    p.add_argument("--force", action="store_true", help="rebuild even if the binary is up to date")
    p.add_argument("--on", "--run-target", dest="run_target", metavar="NAME",
                   help="run target from Cargo.toml's [package.metadata.offload-ls.run-targets.NAME] "
                        "(an ssh host or a Slurm partition; docs/remote.md); default: run-target there, else local")
    p.epilog = "Arguments after `--` are passed to the program: offload-ls run . --timeout 60 -- 1000"


def add_profile(sub) -> None:
    p = sub.add_parser("profile", help="build if stale, run and profile the kernels (Nsight Compute when present)",
                       description="Build if stale, run once with the offload runtime's time trace (copy and "
                                   "launch timings, the run report), then, on a machine with an NVIDIA GPU and "
                                   "Nsight Compute (ncu), once under ncu: per launch the duration, DRAM bytes "
                                   "and bandwidth against the GPU's peak, FLOP/s and arithmetic intensity "
                                   "(roofline), registers, occupancy and local-memory spills. Arguments after "
                                   "`--` go to the program.")
    _common_build_args(p)
    p.add_argument("--device", type=int, metavar="N", help="OpenMP device number (OMP_DEFAULT_DEVICE)")
    p.add_argument("--timeout", type=_positive_seconds, default=300.0, metavar="SECONDS",
                   help="kill the plain run after SECONDS (default 300; the run under ncu gets 10x)")
    p.add_argument("--json", action="store_true", help="print the profile and run report as JSON")


def profile_command(args: argparse.Namespace) -> int:
    import json

    from offload_ls.gpu.profile import render
    from offload_ls.workflow import profile_crate

    found = _crate_and_doctor(args)
    if found is None:
        return EXIT_ERROR
    manifest, report = found
    device_image = _host_image_without_gpu(args, report, "; only the runtime's timings can be measured")
    outcome, status = _workflow(profile_crate(manifest, report, list(getattr(args, "program_args", [])),
                                              bin_name=args.bin_name, device=args.device, device_image=device_image,
                                              timeout=args.timeout, progress=_note, settings=_build_settings(args)))
    if outcome is None:
        return status
    _print_diagnostics(outcome.build.diagnostics)
    if outcome.report is None or outcome.profile is None:
        _err("build failed; nothing was run")
        return EXIT_FAIL
    if args.json:
        print(json.dumps({"profile": outcome.profile.to_json(),
                          "run": {**outcome.report.to_json(), "stdout": outcome.report.stdout,
                                  "stderr": outcome.report.stderr},
                          "resources": [vars(r) for r in outcome.build.resources]}, indent=2))
    else:
        if outcome.report.stdout:
            print(outcome.report.stdout.rstrip("\n"))  # the program's own output (of the plain run)
        if outcome.report.stderr.strip():
            _note(outcome.report.stderr.rstrip("\n"))  # its stderr, the runtime's log lines removed
        _print_build(outcome.build)
        print(outcome.report.render())
        print(render(outcome.profile))
    return EXIT_OK if outcome.report.ok else EXIT_FAIL


def add_asm(sub) -> None:
    p = sub.add_parser("asm", help="show the device assembly (PTX, LLVM IR, SASS) of the kernels",
                       description="Compile the crate for the GPU target with line tables and print a "
                                   "kernel's device assembly, each line prefixed with the source line it "
                                   "came from. Files stay under target/offload-ls/asm/.")
    _common_build_args(p)
    p.add_argument("--kernel", metavar="NAME", help="only this kernel's function (default: the whole module)")
    p.add_argument("--format", dest="asm_format", choices=("ptx", "llvm-ir", "sass", "amdgcn"),
                   help="listing: ptx (default for NVIDIA), amdgcn (default for AMD), llvm-ir (optimised "
                        "device IR), sass (needs ptxas and nvdisasm from the CUDA toolkit)")
    p.add_argument("--json", action="store_true",
                   help="print JSON: text, functions and the line map (lines[].line: 0-based in text; firstLine "
                        "and functions: 0-based in the whole module's listing; sourceLine: 1-based)")
    p.add_argument("--force", action="store_true", help="recompile even if the listings are up to date")


def sass_missing(report) -> str:
    """Why there is no SASS listing: which CUDA tool is missing, or that it failed."""
    from offload_ls.toolchain.discover import find_cuda_tool

    if not report.target.startswith("nvptx"):
        return "SASS is NVIDIA's; this target is " + report.target
    if report.ptxas is None:
        return "ptxas was not found (install the CUDA toolkit, or put its bin/ on PATH)"
    if find_cuda_tool("nvdisasm", report.cuda_path, beside=report.ptxas) is None:
        return (f"nvdisasm was not found beside {report.ptxas}, in the CUDA toolkit or on PATH (it ships with the "
                f"CUDA toolkit's binary utilities)")
    return "ptxas -lineinfo or nvdisasm failed (their errors are above); it is retried on the next run"


def asm_command(args: argparse.Namespace) -> int:
    import json

    from offload_ls.workflow import assemble_crate

    found = _crate_and_doctor(args)
    if found is None:
        return EXIT_ERROR
    manifest, report = found
    outcome, status = _workflow(assemble_crate(manifest, report, bin_name=args.bin_name, progress=_note,
                                               force=args.force, settings=_build_settings(args)))
    if outcome is None:
        return status
    _print_diagnostics(outcome.diagnostics)
    if not outcome.ok:
        _err("the device pass failed; no assembly was written")
        return EXIT_FAIL
    fmt = args.asm_format or ("ptx" if "ptx" in outcome.files else "amdgcn")
    if fmt not in outcome.files:
        _err(f"no {fmt} listing: {sass_missing(report) if fmt == 'sass' else 'this target makes ' + ', '.join(outcome.files)}")
        return EXIT_ERROR
    listing = outcome.listing(fmt)
    root = str(manifest.parent)
    if args.kernel is not None and args.kernel not in listing.functions:
        _err(f"no kernel `{args.kernel}` in the {fmt} listing; functions there: "
             + (", ".join(sorted(listing.functions)) or "none")
             + " (a generic kernel, or one without #[no_mangle], has a mangled name there)")
        return EXIT_ERROR
    first, last = listing.functions[args.kernel] if args.kernel else (0, len(listing.lines) - 1)
    rows = []
    for i in range(first, last + 1):
        loc = next((loc for loc in listing.locs[i] if loc.line > 0 and loc.path.startswith(root + "/")), None)
        rows.append((i, loc))
    if args.json:
        # lines of `text` 0-based; `firstLine` / `functions`: 0-based lines of the whole module's
        # listing (`file`); sourceLine: 1-based, as compilers print them
        print(json.dumps({"format": fmt, "arch": outcome.arch, "file": str(outcome.files[fmt]),
                          "kernel": args.kernel, "firstLine": first,
                          "functions": {k: list(v) for k, v in listing.functions.items()},
                          "text": "".join(listing.lines[i] + "\n" for i, _ in rows),
                          "lines": [{"line": i - first, "source": loc.path[len(root) + 1:], "sourceLine": loc.line}
                                    for i, loc in rows if loc is not None]}, indent=2))
        return EXIT_OK
    print(f"// {fmt} for {outcome.arch} from {outcome.files[fmt]}" + (f", kernel {args.kernel}" if args.kernel else ""))
    for i, loc in rows:
        where = f"{loc.path[len(root) + 1:]}:{loc.line}" if loc else ""
        print(f"{where:>18} | {listing.lines[i]}")
    return EXIT_OK


def _crate_and_doctor(args) -> tuple[Path, object] | None:
    """The crate's manifest and the doctor's report for a crate command, or ``None`` after
    the error was printed."""
    manifest = _manifest(args.path)
    report = _doctor_for(args) if manifest else None
    return (manifest, report) if manifest is not None and report is not None else None


def _host_image_without_gpu(args, report, what: str) -> str | None:
    """``--device-image``, or ``host`` (with a note) on a machine without a GPU."""
    if args.device_image is None and not report.gpus:
        _note(f"no GPU found: building with --device-image host (kernels run on the CPU through "
              f"libomptarget's Virtual Host Device{what})")
        return "host"
    return args.device_image


def _workflow(coro, errors: tuple[type[Exception], ...] = ()):
    """``asyncio.run(coro)``; ``(outcome, None)``, or ``(None, exit status)`` after printing
    what went wrong (a crate or toolchain problem, or Ctrl-C)."""
    try:
        return asyncio.run(coro), None
    except (CrateError, ValueError, *errors) as exc:
        _err(str(exc))
        return None, EXIT_ERROR
    except KeyboardInterrupt:
        _err("cancelled")
        return None, EXIT_FAIL


def _manifest(path: str) -> Path | None:
    p = Path(path)
    if p.is_dir():
        p = find_manifest(p.resolve()) or p / "Cargo.toml"  # the enclosing crate, as cargo finds it
    if p.name != "Cargo.toml" or not p.is_file():
        _err(f"{path}: no Cargo.toml here; pass a crate directory or its Cargo.toml")
        return None
    return p.resolve()


def _doctor_for(args):
    if args.arch:
        wrong = _arch_matches(args.arch, args.target)
        if wrong:
            _err(wrong)
            return None
    report = run_doctor(rustc=args.rustc, cargo=args.cargo, arch=args.arch, target=args.target)
    if report.pipeline == "host-only":
        _err("no offload-capable toolchain found; `offload-ls doctor` says:\n  "
             + "\n  ".join(report.missing) + (f"\ninstall with: {report.install}" if report.install else ""))
        return None
    return report


def _print_diagnostics(diags) -> None:
    for d in diags:
        where = f"{d.span.file}:{d.span.line}:{d.span.column}: " if d.span else ""
        _note(f"{where}{d.level}: {d.message} [{d.source}]")
        for n in d.notes:
            _note(f"    {n}")


def _build_settings(args: argparse.Namespace):
    """The build settings of the command line (over Cargo.toml's; argparse checked them)."""
    from offload_ls.toolchain.crate import BuildSettings

    return BuildSettings(fp_contract=getattr(args, "fp_contract", None),
                         max_registers=getattr(args, "max_registers", None))


def _print_build(outcome) -> None:
    for w in outcome.warnings:
        _note(f"warning: {w}")
    if outcome.exe is None:
        return
    state = "up to date" if outcome.fresh else f"built in {outcome.seconds:.1f} s"
    print(f"{outcome.exe} ({state})")
    for img in outcome.images:
        print(f"  image: {img}")
    for r in outcome.resources:
        print(f"  kernel {r.summary()}")
        if r.spills:
            _note(f"warning: kernel `{r.kernel}` spills registers to local memory "
                  f"({r.spill_store_bytes} B stores, {r.spill_load_bytes} B loads): slower loads and stores")
    for p in outcome.ptx_perf:
        print(f"  PTX {p.summary()}")
        if p.advice():
            _note(f"note: kernel `{p.kernel}`: {p.advice()}")
    if outcome.bundle is not None:
        b = outcome.bundle
        print(f"  bundle: {b.directory} ({human_bytes(b.bytes)}, {len(b.libraries)} libraries); "
              f"run it there with {b.directory / 'run'}")


def build_command(args: argparse.Namespace) -> int:
    from offload_ls.gpu.bundle import BundleError
    from offload_ls.workflow import build_crate

    found = _crate_and_doctor(args)
    if found is None:
        return EXIT_ERROR
    manifest, report = found
    outcome, status = _workflow(build_crate(manifest, report, bin_name=args.bin_name, device_image=args.device_image,
                                            bundle_dir=args.bundle, progress=_note, force=args.force,
                                            settings=_build_settings(args)), (BundleError,))
    if outcome is None:
        return status
    _print_diagnostics(outcome.diagnostics)
    _print_build(outcome)
    if not outcome.ok:
        _err("build failed" + ("" if outcome.diagnostics else " (no compiler output)"))
        return EXIT_FAIL
    return EXIT_OK


def _run_target(args):
    """The run target ``--on`` names (or Cargo.toml's ``run-target``), or ``None`` after
    printing why it cannot be used."""
    from offload_ls.gpu.targets import TargetError, select_target

    manifest = _manifest(args.path)
    if manifest is None:
        return None
    problems: list[str] = []
    try:
        return select_target(manifest, args.run_target, problems=problems)
    except TargetError as exc:
        problems.append(str(exc))
        return None
    finally:
        for problem in problems:
            _err(problem)


def run_command(args: argparse.Namespace) -> int:
    from offload_ls.gpu.bundle import BundleError
    from offload_ls.workflow import run_crate

    target = _run_target(args)
    if target is None:
        return EXIT_ERROR
    if target.remote and not args.arch and target.gpu_arch:
        args.arch = target.gpu_arch
    found = _crate_and_doctor(args)
    if found is None:
        return EXIT_ERROR
    manifest, report = found
    if target.remote:
        device_image = args.device_image or "gpu"  # the GPU is there, not here
        _note(f"running on {target.describe()} (run target {target.name})")
    else:
        device_image = _host_image_without_gpu(args, report, "")
    outcome, status = _workflow(run_crate(
        manifest, report, list(getattr(args, "program_args", [])), bin_name=args.bin_name, device=args.device,
        device_image=device_image, timeout=args.timeout, progress=_note,
        on_stdout=lambda line: (sys.stdout.write(line + "\n"), sys.stdout.flush()),
        on_stderr=lambda line: None if " info: " in line else _note(line), target=target,
        settings=_build_settings(args), force=args.force), (BundleError,))
    if outcome is None:
        return status
    _print_diagnostics(outcome.build.diagnostics)
    if outcome.report is None:
        _err("build failed; nothing was run")
        return EXIT_FAIL
    _print_build(outcome.build)
    print(outcome.report.render())
    return EXIT_OK if outcome.report.ok else EXIT_FAIL
