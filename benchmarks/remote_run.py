"""Runs on ssh and Slurm targets (issue 14), side by side with doing it by hand.

For a crate (default: tests/gpu/fixtures/remote-job, built with the host image so no GPU is
needed), measured with `offload-ls run --on TARGET` as a user runs it:

- cold: an empty work dir on the target; unchanged: the same binary again; edited: a new
  binary (the program's text changed; its rebuild is timed on its own row) -- each with the
  wall time of the whole command (freshness check, bundle, stage, run / queue + run, report)
  and the bytes staged;
- by hand over ssh, what a careful user otherwise does for a new binary: `rsync -a` of the
  bundle directory (not `scp -r`: it copies the `libomp.so -> libomp.so.5` link as a second
  file, and the program then aborts with OpenMP's "Error #15: ... already initialized"), then
  `ssh HOST DIR/run`.

Targets come from a local cluster started here (``--local-cluster``: root, Debian's
slurm-wlm + munge + openssh-server, tests/gpu/local_cluster.py: Slurm and sshd on
localhost) or from the crate's Cargo.toml (``--ssh NAME --slurm NAME``). Times are seconds
of wall clock (``time.perf_counter``); sizes in MiB.

    sudo python3 benchmarks/remote_run.py --local-cluster
    python3 benchmarks/remote_run.py --crate PATH --ssh box --slurm h200
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _project_python  # noqa: E402 - before offload_ls: re-runs under .venv if needed

_project_python.ensure()

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "gpu" / "fixtures" / "remote-job"
_COPYING = re.compile(r"copying (\d+) file\(s\), ([\d.]+) (B|KiB|MiB|GiB)")
_UNIT = {"B": 1 / (1 << 20), "KiB": 1 / 1024, "MiB": 1.0, "GiB": 1024.0}


def offload_ls(args: list[str], env: dict) -> tuple[float, str, str, int]:
    """Run the CLI; (seconds, stdout, stderr, exit status)."""
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "offload_ls", *args], capture_output=True, text=True,
                          timeout=1800, env=env)
    return time.perf_counter() - t0, done.stdout, done.stderr, done.returncode


def staged_mib(stderr: str) -> float:
    m = _COPYING.search(stderr)
    return float(m.group(2)) * _UNIT[m.group(3)] if m else 0.0


_EDITS = [0]


def edit_program(crate: Path) -> None:
    """Change the program's output text (a new, unique binary each call)."""
    _EDITS[0] += 1
    main = crate / "src" / "main.rs"
    text = re.sub(r'println!\("OK double[^"]*: \{N\}"\)', f'println!("OK double (edit {_EDITS[0]}): {{N}}")',
                  main.read_text())
    main.write_text(text)


def measure(crate: Path, target: str, env: dict) -> list[tuple[str, float, float, int]]:
    """cold / unchanged / after an edit (the rebuild timed on its own row, then the run)."""
    rows = []
    base = ["run", "--on", target, "--device-image", "host", str(crate)]
    for label in ("cold", "unchanged", "edited (new binary)"):
        if label.startswith("edited"):
            edit_program(crate)
            seconds, _, err, status = offload_ls(["build", "--device-image", "host", str(crate)], env)
            rows.append(("  (offload-ls build after the edit)", seconds, 0.0, status))
        seconds, out, err, status = offload_ls(base, env)
        if status != 0:
            raise SystemExit(f"`offload-ls {' '.join(base)}` failed ({status}):\n{err[-2000:]}")
        rows.append((f"offload-ls run --on {target}: {label}", seconds, staged_mib(err), status))
    return rows


def by_hand(bundle: Path, host: str, ssh_config: Path | None, env: dict) -> tuple[float, float]:
    """rsync -a the bundle + ssh HOST DIR/run, into a new directory; (seconds, MiB sent)."""
    cfg = ["-F", str(ssh_config)] if ssh_config else []
    remote = f"offload-ls-by-hand-{os.getpid()}"
    t0 = time.perf_counter()
    subprocess.run(["rsync", "-a", "-e", " ".join(["ssh", *cfg]), f"{bundle}/", f"{host}:{remote}/"], check=True,
                   timeout=1800, env=env)
    ran = subprocess.run(["ssh", *cfg, host, f"{remote}/run"], timeout=600, env=env, capture_output=True, text=True)
    if ran.returncode != 0:
        raise SystemExit(f"by hand: {remote}/run failed ({ran.returncode}): {ran.stderr[-1500:]}")
    seconds = time.perf_counter() - t0
    subprocess.run(["ssh", *cfg, host, "rm", "-rf", remote], timeout=600, env=env)
    size = sum(f.stat().st_size for f in bundle.rglob("*") if f.is_file() and not f.is_symlink())
    return seconds, size / (1 << 20)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--crate", type=Path, default=FIXTURE, help="crate to run (copied first)")
    ap.add_argument("--local-cluster", action="store_true", help="start Slurm + sshd on localhost (root)")
    ap.add_argument("--ssh", help="ssh run target of the crate's Cargo.toml")
    ap.add_argument("--slurm", help="Slurm run target of the crate's Cargo.toml")
    args = ap.parse_args(argv)
    env = dict(os.environ)
    cluster = None
    with tempfile.TemporaryDirectory(prefix="offload-ls-remote-bench-") as tmp:
        crate = Path(tmp) / args.crate.name
        shutil.copytree(args.crate, crate, ignore=shutil.ignore_patterns("target"))
        ssh_config = None
        if args.local_cluster:
            sys.path.insert(0, str(ROOT / "tests" / "gpu"))
            from local_cluster import LocalCluster, missing_reason

            why = missing_reason()
            if why:
                raise SystemExit(f"--local-cluster: {why}")
            cluster = LocalCluster(Path(tmp) / "cluster")
            cluster.start()
            env = cluster.env
            ssh_config = cluster.ssh_config
            with (crate / "Cargo.toml").open("a") as fh:
                fh.write(f'\n[package.metadata.offload-ls.run-targets.bench-ssh]\nkind = "ssh"\nhost = "gpunode"\n'
                         f'ssh-config = "{ssh_config}"\nwork-dir = "{tmp}/ssh-work"\n'
                         f'\n[package.metadata.offload-ls.run-targets.bench-slurm]\nkind = "slurm"\n'
                         f'work-dir = "{tmp}/slurm-work"\npartition = "gpu"\ngpus = 1\ntime-limit = "5"\n')
            args.ssh, args.slurm = "bench-ssh", "bench-slurm"
        try:
            rows = []
            t, _, err, status = offload_ls(["run", "--device-image", "host", str(crate)], env)
            rows.append(("offload-ls run (local, binary built)", t, 0.0, status))
            for target in (args.ssh, args.slurm):
                if target:
                    rows += measure(crate, target, env)
            hand = None
            if args.ssh and args.local_cluster:
                bundles = crate / "target" / "offload-ls" / "bundles"  # workflow.remote_bundle: newest = last built
                bundle = max((d for d in bundles.iterdir() if not d.name.startswith(".")),
                             key=lambda d: d.stat().st_mtime)
                hand = by_hand(bundle, "gpunode", ssh_config, env)
        finally:
            if cluster is not None:
                cluster.stop()
    print(f"crate: {args.crate.name} (host image); python {sys.version.split()[0]}, {os.cpu_count()} CPUs")
    print(f"{'measure':<52} {'seconds':>8} {'staged MiB':>11}")
    for label, seconds, mib, _ in rows:
        print(f"{label:<52} {seconds:8.2f} {mib:11.1f}")
    if hand is not None:
        print(f"{'by hand: rsync -a bundle (new dir) + ssh HOST DIR/run':<52} {hand[0]:8.2f} {hand[1]:11.1f}")
    print("\ncommand: python3 benchmarks/remote_run.py " + " ".join(argv if argv is not None else sys.argv[1:]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
