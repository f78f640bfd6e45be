"""Build times users wait for: `offload-ls build` as a user runs it, on copies of the example
crates, with a fresh offload-ls cache (``XDG_CACHE_HOME`` in a temporary folder).

Prints, for each device image (``--device-image gpu`` — what a GPU machine builds — and the
default here, which is ``host`` without a GPU):

- cold, first crate: an empty target dir and an empty offload-ls cache;
- cold, second crate: another crate, empty target dir, the cache the first left;
- warm after a kernel edit: one kernel's body changed in the second crate;
- unchanged: the same command again.

Targets (issue 12, "Builds that do not make the user wait"): second crate cold <= 12 s,
warm <= 5 s, unchanged <= 1 s. Times are wall-clock seconds of the whole command
(``time.perf_counter`` around the process), one run each: a build is long enough that its
noise is small against these targets, and a cold build can only be measured once per cache.

    python3 benchmarks/build_time.py [--image gpu|host|both] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _project_python  # noqa: E402 - before offload_ls: re-runs under .venv if needed

_project_python.ensure()

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
TARGETS = {"cold, second crate": 12.0, "warm after a kernel edit": 5.0, "unchanged": 1.0}
# (crate, a line of one kernel's body, the same line edited: same meaning, new bytes)
CRATES = (
    ("offload-kernels", "y[i] = a * x[i] + y[i];", "y[i] = x[i] * a + y[i];"),
    ("upstream-offload", "y[i] = a * x[i] + y[i];", "y[i] = x[i] * a + y[i];"),
)


def build(crate: Path, image: str | None, env: dict[str, str]) -> tuple[float, int, str]:
    """Seconds, exit status and the last output line of ``offload-ls build``."""
    exe = Path(sys.executable).with_name("offload-ls")
    argv = [str(exe), "build", str(crate)] + (["--device-image", image] if image else [])
    start = time.perf_counter()
    res = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=1800)
    seconds = time.perf_counter() - start
    last = (res.stdout.strip().splitlines() or res.stderr.strip().splitlines() or [""])[-1]
    return seconds, res.returncode, last


def measure(image: str | None, work: Path) -> list[tuple[str, float, int, str]]:
    env = dict(os.environ, XDG_CACHE_HOME=str(work / "cache"))
    rows = []
    crates = []
    for name, _, _ in CRATES:
        dst = work / name
        shutil.copytree(EXAMPLES / name, dst, ignore=shutil.ignore_patterns("target", "Cargo.lock"))
        crates.append(dst)
    rows.append(("cold, first crate", *build(crates[0], image, env)))
    rows.append(("cold, second crate", *build(crates[1], image, env)))
    main = crates[1] / "src" / "main.rs"
    _, old, new = CRATES[1]
    main.write_text(main.read_text().replace(old, new, 1))
    rows.append(("warm after a kernel edit", *build(crates[1], image, env)))
    rows.append(("unchanged", *build(crates[1], image, env)))
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--image", choices=("gpu", "host", "both"), default="both",
                    help="which device image(s) to measure: gpu, the default (host here), or both")
    ap.add_argument("--keep", type=Path, help="work in DIR and keep it (default: a temporary folder)")
    args = ap.parse_args()
    images = {"gpu": ["gpu"], "host": [None], "both": ["gpu", None]}[args.image]
    print(f"offload-ls build times; python {platform.python_version()} on {platform.machine()}, "
          f"{os.cpu_count()} CPUs")
    failed = False
    for image in images:
        with tempfile.TemporaryDirectory(prefix="offload-ls-build-time-") as tmp:
            work = args.keep / (image or "default") if args.keep else Path(tmp)
            work.mkdir(parents=True, exist_ok=True)
            rows = measure(image, work)
        label = f"--device-image {image}" if image else "default device image (host here: no GPU)"
        print(f"\n{label}")
        print(f"  {'measure':<28} {'seconds':>8}  {'target':>8}  status")
        for what, seconds, rc, last in rows:
            target = TARGETS.get(what)
            status = "FAILED: " + last if rc else ("met" if target is None or seconds <= target else "MISSED")
            failed |= rc != 0
            print(f"  {what:<28} {seconds:8.1f}  {('<= %g' % target) if target else '-':>8}  {status}")
    print(f"\ncommand: python3 benchmarks/build_time.py --image {args.image}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
