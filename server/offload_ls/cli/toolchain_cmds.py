"""``offload-ls doctor``, ``build`` and ``run``: the toolchain and GPU commands.

Each ``add_*`` function registers a subcommand on the ``main`` parser; each ``*_command``
runs it and returns the exit status (0 success, 1 build/run failure, 2 usage or setup error).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from offload_ls.cli.toolchain_common import (
    EXIT_ERROR,
    EXIT_FAIL,
    EXIT_OK,
    build_settings,
    common_build_args,
    crate_and_doctor,
    err,
    host_image_without_gpu,
    manifest_of,
    note,
    positive_seconds,
    print_build,
    print_diagnostics,
    run_workflow,
)
from offload_ls.toolchain.doctor import render_json, render_text, run_doctor


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


def add_build(sub) -> None:
    p = sub.add_parser("build", help="build the crate's offload binary",
                       description="Build an executable with embedded device images (the pipeline "
                                   "`offload-ls doctor` chose).")
    common_build_args(p)
    p.add_argument("--bundle", metavar="DIR", type=Path,
                   help="also write DIR/ with the binary, the runtime libraries it needs and a `run` "
                        "script, for a GPU machine without LLVM")
    p.add_argument("--force", action="store_true", help="rebuild even if the binary is up to date")


def add_run(sub) -> None:
    p = sub.add_parser("run", help="build if stale, run on the GPU and report launches and copies",
                       description="Build if stale, then run with the offload runtime's log and print a "
                                   "run report (launches, dimensions, bytes copied per kernel). "
                                   "Arguments after `--` go to the program.")
    common_build_args(p)
    p.add_argument("--device", type=int, metavar="N", help="OpenMP device number (OMP_DEFAULT_DEVICE)")
    p.add_argument("--timeout", type=positive_seconds, default=300.0, metavar="SECONDS",
                   help="kill the program after SECONDS (default 300)")
    p.add_argument("--force", action="store_true", help="rebuild even if the binary is up to date")
    p.add_argument("--on", "--run-target", dest="run_target", metavar="NAME",
                   help="run target from Cargo.toml's [package.metadata.offload-ls.run-targets.NAME] "
                        "(an ssh host or a Slurm partition; docs/remote.md); default: run-target there, else local")
    p.epilog = "Arguments after `--` are passed to the program: offload-ls run . --timeout 60 -- 1000"




def _run_target(args):
    """The run target ``--on`` names (or Cargo.toml's ``run-target``), or ``None`` after
    printing why it cannot be used."""
    from offload_ls.gpu.targets import TargetError, select_target

    manifest = manifest_of(args.path)
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
            err(problem)


def build_command(args: argparse.Namespace) -> int:
    from offload_ls.gpu.bundle import BundleError
    from offload_ls.workflow import build_crate

    found = crate_and_doctor(args)
    if found is None:
        return EXIT_ERROR
    manifest, report = found
    outcome, status = run_workflow(build_crate(manifest, report, bin_name=args.bin_name, device_image=args.device_image,
                                            bundle_dir=args.bundle, progress=note, force=args.force,
                                            settings=build_settings(args)), (BundleError,))
    if outcome is None:
        return status
    print_diagnostics(outcome.diagnostics)
    print_build(outcome)
    if not outcome.ok:
        err("build failed" + ("" if outcome.diagnostics else " (no compiler output)"))
        return EXIT_FAIL
    return EXIT_OK


def run_command(args: argparse.Namespace) -> int:
    from offload_ls.gpu.bundle import BundleError
    from offload_ls.workflow import run_crate

    target = _run_target(args)
    if target is None:
        return EXIT_ERROR
    if target.remote and not args.arch and target.gpu_arch:
        args.arch = target.gpu_arch
    found = crate_and_doctor(args)
    if found is None:
        return EXIT_ERROR
    manifest, report = found
    if target.remote:
        device_image = args.device_image or "gpu"  # the GPU is there, not here
        note(f"running on {target.describe()} (run target {target.name})")
    else:
        device_image = host_image_without_gpu(args, report, "")
    outcome, status = run_workflow(run_crate(
        manifest, report, list(getattr(args, "program_args", [])), bin_name=args.bin_name, device=args.device,
        device_image=device_image, timeout=args.timeout, progress=note,
        on_stdout=lambda line: (sys.stdout.write(line + "\n"), sys.stdout.flush()),
        on_stderr=lambda line: None if " info: " in line else note(line), target=target,
        settings=build_settings(args), force=args.force), (BundleError,))
    if outcome is None:
        return status
    print_diagnostics(outcome.build.diagnostics)
    if outcome.report is None:
        err("build failed; nothing was run")
        return EXIT_FAIL
    print_build(outcome.build)
    print(outcome.report.render())
    return EXIT_OK if outcome.report.ok else EXIT_FAIL
