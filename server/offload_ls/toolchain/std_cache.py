"""The device pass's ``-Zbuild-std=core`` build, shared across crates and offload-ls runs.

A GPU device pass builds ``core`` (and ``compiler_builtins``) from rust-src for the GPU target:
measured 55 s of a 74 s cold ``offload-ls build --device-image gpu`` on a 2-core machine
(benchmarks/build_time.py). Cargo's fingerprints are relocatable: a crate's device target
directory seeded with a copy of another crate's, built by the same rustc for the same target,
arch and profile, rebuilds only the crate (measured: the device pass took 0.7 s instead of 55 s).

So after a device pass, offload-ls keeps its target directory as a template under
``<cache_dir>/device-std/<key>/`` (:func:`offload_ls.toolchain.cache.cache_dir`), and a crate
whose device target directory does not exist yet starts from a copy of it.

Copies, never hard links: cargo rewrites fingerprint files in place, which would change the
template under every crate. A template is written under a temporary name and renamed into
place, so a concurrent build sees a complete template or none; a failure to read or write the
cache only costs the time it would have saved.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

from offload_ls.toolchain.cache import cache_dir

#: Folders of a target directory not worth keeping (rustc's incremental state of the crate).
_SKIP = ("incremental",)


def _ignore(directory: str, names: list[str]) -> list[str]:
    """What a template leaves out: incremental state, and the crate's own dep-info files
    (``release/<bin>.d``: they name that crate's sources, which offload-ls's freshness check
    reads; core's dep-info lives in ``deps/``)."""
    top = Path(directory).name in ("release", "debug")
    return [n for n in names if n in _SKIP or (top and n.endswith(".d"))]


def template_key(rustc: str, what: str) -> str:
    """The cache key of a device target directory: the rustc binary (real path, size and
    modification time: another build of rustc is another key) and ``what`` it builds (triples,
    arch flags, cargo profile arguments); 16 hex digits."""
    real = os.path.realpath(rustc)
    try:
        st = os.stat(real)
        stamp = [st.st_size, st.st_mtime_ns]
    except OSError:
        stamp = []
    return hashlib.sha256(json.dumps([real, stamp, what]).encode()).hexdigest()[:16]


def _template(key: str) -> Path:
    return cache_dir() / "device-std" / key


def seed(target_dir: Path, key: str) -> bool:
    """Copy the template ``key`` into ``target_dir`` when that does not exist yet.

    Returns:
        True if ``target_dir`` was seeded (False: it existed, no template, or the copy failed,
        in which case nothing half-copied is left behind).
    """
    template = _template(key)
    if target_dir.exists() or not template.is_dir():
        return False
    tmp = target_dir.with_name(target_dir.name + f".seeding-{os.getpid()}")
    try:
        shutil.copytree(template, tmp, symlinks=True, ignore=_ignore)
        tmp.rename(target_dir)
        return True
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
        return False


def save(target_dir: Path, key: str) -> bool:
    """Keep ``target_dir`` (after a successful device pass) as the template ``key`` when there
    is none yet. Returns True if a template was written."""
    template = _template(key)
    if template.exists() or not target_dir.is_dir():
        return False
    try:
        template.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f"{key}.", dir=template.parent))
        shutil.copytree(target_dir, tmp / "t", symlinks=True, ignore=_ignore)
        try:
            (tmp / "t").rename(template)
        except OSError:
            pass  # another build saved it first
        shutil.rmtree(tmp, ignore_errors=True)
        return template.exists()
    except OSError:
        return False


def device_targets(passes) -> dict[Path, str]:
    """Device target directories of ``passes`` (:class:`offload_ls.toolchain.plan.Pass`) that
    build ``core`` from source, each with its template key: the passes writing into one
    directory (their rustc from ``RUSTC``, triples, arch flags and cargo profile arguments)
    make its key."""
    parts: dict[Path, list[str]] = {}
    rustc: dict[Path, str] = {}
    for p in passes:
        argv = list(p.argv)
        if not p.name.startswith("device") or "-Zbuild-std=core" not in argv or "--target-dir" not in argv:
            continue
        target_dir = Path(argv[argv.index("--target-dir") + 1])
        triple = argv[argv.index("--target") + 1] if "--target" in argv else ""
        profile = argv[1:argv.index("rustc")] if "rustc" in argv else []
        profile += [a for a in ("--release", "--profile", "check") if a in argv]
        flags = sorted(v for k, v in p.env.items() if k.endswith("_RUSTFLAGS"))
        parts.setdefault(target_dir, []).append(json.dumps([triple, profile, flags]))
        rustc[target_dir] = p.env.get("RUSTC", "rustc")
    return {d: template_key(rustc[d], "|".join(sorted(v))) for d, v in parts.items()}
