"""What the offload check costs compared with plain ``cargo check``, and whether requests
stay fast while it runs.

For each example crate (copied to a temporary directory so nothing in the checkout is
touched) it prints, in seconds:

- ``cargo check``: plain host check, warm (after one touch of ``src/main.rs``), median of N;
- on-save check: offload-ls's check plan (device pass + host pass, run concurrently, their
  rustc commands replayed without cargo as the server does), warm after a touch, median of
  N; and the same plus the transfer-plan pass (host IR);
- full pipeline (``offload-ls build``, host image): cold (fresh target dir) and warm
  (after a touch).

Then it starts the language server over stdio on one crate (trusted), triggers a check by
saving, and sends hover and code-lens requests while the check runs: p50/p99 latency in ms.

Targets (issue "Offload-aware compiles"): warm on-save check <= 1.5x plain cargo check;
hover/code lens p99 <= 20 ms while a compile runs.

    python3 benchmarks/compile_overhead.py [--runs 5] [--crates offload-kernels,...] [--requests 200]
                                           [--requests-only]

``--requests-only`` measures only the requests while a check runs (no build timings).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))

from offload_ls.toolchain.compile import run_plan  # noqa: E402
from offload_ls.toolchain.crate import load_crate  # noqa: E402
from offload_ls.toolchain.doctor import HOST_ONLY, run_doctor  # noqa: E402
from offload_ls.toolchain.plan import check_plan  # noqa: E402
from offload_ls.toolchain.replay import ReplayCache  # noqa: E402
from offload_ls.workflow import build_crate  # noqa: E402

CRATES = {"offload-kernels": ROOT / "examples" / "offload-kernels",
          "gpu-kernels-bench": ROOT / "benchmarks" / "gpu_kernels" / "rust"}


def touch(crate: Path) -> None:
    main = crate / "src" / "main.rs"
    main.write_bytes(main.read_bytes())
    os.utime(main, None)


def timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def cargo_check(crate: Path, report) -> None:
    env = dict(os.environ, RUSTC=report.toolchain.rustc, RUSTC_BOOTSTRAP="1")
    subprocess.run([report.toolchain.cargo, "check", "--quiet", "--manifest-path", str(crate / "Cargo.toml"),
                    "--target-dir", str(crate / "target" / "plain")], env=env, check=True, timeout=600,
                   capture_output=True)


_REPLAY: dict[Path, ReplayCache] = {}


def offload_check(crate: Path, report, transfer_plan: bool) -> None:
    """What the server does on save: the check plan, with the server's replay cache (the
    rustc command cargo ran last time is replayed without cargo while manifests hold)."""
    c = load_crate(crate / "Cargo.toml", report.toolchain.cargo, env={"RUSTC": report.toolchain.rustc})
    replay = _REPLAY.setdefault(crate, ReplayCache())
    result = asyncio.run(run_plan(check_plan(c, report, transfer_plan=transfer_plan), replay=replay))
    bad = [d.message for d in result.diagnostics if d.level in ("error", "ice")]
    if bad:
        raise SystemExit(f"check of {crate} failed: {bad}")


def warm(fn, crate: Path, runs: int) -> float:
    fn()  # make it warm
    samples = []
    for _ in range(runs):
        touch(crate)
        samples.append(timed(fn))
    return statistics.median(samples)


def bench_crate(name: str, src: Path, report, runs: int, tmp: Path) -> dict:
    crate = tmp / name
    shutil.copytree(src, crate, ignore=shutil.ignore_patterns("target"))
    row = {"crate": name}
    row["cargo_check_warm"] = warm(lambda: cargo_check(crate, report), crate, runs)
    row["onsave_check_warm"] = warm(lambda: offload_check(crate, report, False), crate, runs)
    row["onsave_check_ir_warm"] = warm(lambda: offload_check(crate, report, True), crate, runs)
    row["ratio"] = row["onsave_check_warm"] / row["cargo_check_warm"]
    shutil.rmtree(crate / "target" / "offload-ls" / "build", ignore_errors=True)
    row["build_cold"] = timed(lambda: asyncio.run(build_crate(crate / "Cargo.toml", report, device_image="host",
                                                              force=True)))
    touch(crate)
    row["build_warm"] = timed(lambda: asyncio.run(build_crate(crate / "Cargo.toml", report, device_image="host")))
    return row


async def request_latency(crate: Path, n: int) -> dict:
    """Hover / code lens round trips (ms) while an offload check of ``crate`` runs."""
    from lsprotocol import types
    from pygls.lsp.client import LanguageClient

    client = LanguageClient("bench", "0")
    await client.start_io(sys.executable, "-m", "offload_ls.lsp")
    caps = types.ClientCapabilities(window=types.WindowClientCapabilities(work_done_progress=True))
    await client.initialize_async(types.InitializeParams(
        capabilities=caps, root_uri=crate.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=crate.as_uri(), name=crate.name)],
        initialization_options={"trustedWorkspaces": [str(crate)], "transferPlan": True}))
    client.initialized(types.InitializedParams())
    main = crate / "src" / "main.rs"
    text = main.read_text()
    uri = main.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri=uri, language_id="rust", version=1, text=text)))
    line = next(i for i, text_line in enumerate(text.splitlines()) if "core::intrinsics::offload(" in text_line)
    col = text.splitlines()[line].index("offload(") + 2
    # A fresh target dir: the first check builds `core` for nvptx64 (tens of seconds).
    client.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri=uri)))
    await asyncio.sleep(1.0)
    hover, lens = [], []
    for _ in range(n):
        t = time.perf_counter()
        await client.text_document_hover_async(types.HoverParams(
            types.TextDocumentIdentifier(uri=uri), types.Position(line=line, character=col)))
        hover.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        await client.text_document_code_lens_async(types.CodeLensParams(types.TextDocumentIdentifier(uri=uri)))
        lens.append((time.perf_counter() - t) * 1000)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()

    def pct(xs, q):
        xs = sorted(xs)
        return xs[min(len(xs) - 1, int(q * len(xs)))]
    return {"hover_p50": pct(hover, 0.5), "hover_p99": pct(hover, 0.99),
            "lens_p50": pct(lens, 0.5), "lens_p99": pct(lens, 0.99), "n": n}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--crates", default="offload-kernels")
    ap.add_argument("--requests", type=int, default=200)
    ap.add_argument("--requests-only", action="store_true", help="only the requests while a check runs")
    args = ap.parse_args()
    report = run_doctor(probe_gpus=False)
    if report.pipeline == HOST_ONLY:
        print("needs the offload toolchain: " + "; ".join(report.missing))
        return 2
    with tempfile.TemporaryDirectory(prefix="offload-ls-bench-") as d:
        tmp = Path(d)
        rows = [] if args.requests_only else [bench_crate(n, CRATES[n], report, args.runs, tmp)
                                              for n in args.crates.split(",")]
        print(f"command: python3 benchmarks/compile_overhead.py --runs {args.runs} --crates {args.crates} "
              f"--requests {args.requests}" + (" --requests-only" if args.requests_only else ""))
        print(f"toolchain: {report.toolchain.rustc} {report.toolchain.release}, pipeline {report.pipeline}\n")
        if rows:
            print("| crate | cargo check warm s | on-save check warm s | ratio (target <= 1.5) "
                  "| + transfer plan s | build cold s | build warm s |")
            print("|---|---:|---:|---:|---:|---:|---:|")
        for r in rows:
            print(f"| {r['crate']} | {r['cargo_check_warm']:.2f} | {r['onsave_check_warm']:.2f} | {r['ratio']:.2f} "
                  f"| {r['onsave_check_ir_warm']:.2f} | {r['build_cold']:.1f} | {r['build_warm']:.1f} |")
        lat_crate = tmp / "latency"
        shutil.copytree(CRATES["offload-kernels"], lat_crate, ignore=shutil.ignore_patterns("target"))
        lat = asyncio.run(request_latency(lat_crate, args.requests))
        print(f"\nrequests while a (cold) check runs, n={lat['n']} each: hover p50 {lat['hover_p50']:.1f} ms, "
              f"p99 {lat['hover_p99']:.1f} ms; code lens p50 {lat['lens_p50']:.1f} ms, p99 {lat['lens_p99']:.1f} ms "
              f"(target p99 <= 20 ms)")
        print(json.dumps({"rows": rows, "latency": lat}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
