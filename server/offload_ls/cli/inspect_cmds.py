"""``offload-ls profile`` and ``asm``: a kernel's profile on the GPU and its device listings.

Registered on the ``main`` parser like :mod:`offload_ls.cli.toolchain_cmds`; exit status 0
success, 1 failure, 2 usage or setup error.
"""

from __future__ import annotations

import argparse

from offload_ls.cli.toolchain_common import (
    EXIT_ERROR,
    EXIT_FAIL,
    EXIT_OK,
    build_settings,
    common_build_args,
    crate_and_doctor,
    err,
    host_image_without_gpu,
    note,
    positive_seconds,
    print_build,
    print_diagnostics,
    run_workflow,
)


def add_profile(sub) -> None:
    p = sub.add_parser("profile", help="build if stale, run and profile the kernels (Nsight Compute when present)",
                       description="Build if stale, run once with the offload runtime's time trace (copy and "
                                   "launch timings, the run report), then, on a machine with an NVIDIA GPU and "
                                   "Nsight Compute (ncu), once under ncu: per launch the duration, DRAM bytes "
                                   "and bandwidth against the GPU's peak, FLOP/s and arithmetic intensity "
                                   "(roofline), registers, occupancy and local-memory spills. Arguments after "
                                   "`--` go to the program.")
    common_build_args(p)
    p.add_argument("--device", type=int, metavar="N", help="OpenMP device number (OMP_DEFAULT_DEVICE)")
    p.add_argument("--timeout", type=positive_seconds, default=300.0, metavar="SECONDS",
                   help="kill the plain run after SECONDS (default 300; the run under ncu gets 10x)")
    p.add_argument("--json", action="store_true", help="print the profile and run report as JSON")


def profile_command(args: argparse.Namespace) -> int:
    import json

    from offload_ls.gpu.profile import render
    from offload_ls.workflow import profile_crate

    found = crate_and_doctor(args)
    if found is None:
        return EXIT_ERROR
    manifest, report = found
    device_image = host_image_without_gpu(args, report, "; only the runtime's timings can be measured")
    outcome, status = run_workflow(profile_crate(manifest, report, list(getattr(args, "program_args", [])),
                                              bin_name=args.bin_name, device=args.device, device_image=device_image,
                                              timeout=args.timeout, progress=note, settings=build_settings(args)))
    if outcome is None:
        return status
    print_diagnostics(outcome.build.diagnostics)
    if outcome.report is None or outcome.profile is None:
        err("build failed; nothing was run")
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
            note(outcome.report.stderr.rstrip("\n"))  # its stderr, the runtime's log lines removed
        print_build(outcome.build)
        print(outcome.report.render())
        print(render(outcome.profile))
    return EXIT_OK if outcome.report.ok else EXIT_FAIL


def add_asm(sub) -> None:
    p = sub.add_parser("asm", help="show the device assembly (PTX, LLVM IR, SASS) of the kernels",
                       description="Compile the crate for the GPU target with line tables and print a "
                                   "kernel's device assembly, each line prefixed with the source line it "
                                   "came from. Files stay under target/offload-ls/asm/.")
    common_build_args(p)
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
    from offload_ls.toolchain.tools import find_cuda_tool

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

    found = crate_and_doctor(args)
    if found is None:
        return EXIT_ERROR
    manifest, report = found
    outcome, status = run_workflow(assemble_crate(manifest, report, bin_name=args.bin_name, progress=note,
                                               force=args.force, settings=build_settings(args)))
    if outcome is None:
        return status
    print_diagnostics(outcome.diagnostics)
    if not outcome.ok:
        err("the device pass failed; no assembly was written")
        return EXIT_FAIL
    fmt = args.asm_format or ("ptx" if "ptx" in outcome.files else "amdgcn")
    if fmt not in outcome.files:
        why = sass_missing(report) if fmt == "sass" else "this target makes " + ", ".join(outcome.files)
        err(f"no {fmt} listing: {why}")
        return EXIT_ERROR
    listing = outcome.listing(fmt)
    root = str(manifest.parent)
    if args.kernel is not None and args.kernel not in listing.functions:
        err(f"no kernel `{args.kernel}` in the {fmt} listing; functions there: "
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
