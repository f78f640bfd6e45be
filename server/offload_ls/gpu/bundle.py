"""Portable bundles: a binary, the runtime libraries a GPU node may lack, and a ``run``
script — for building on a workstation or login node and running on a GPU node.

Contents (docs/offload-notes.md: 214 MB, 46 MB as .tar.xz for saxpy): the binary,
its ``ldd`` closure minus glibc (libc, libm, libpthread, libdl, librt, ld-linux) and the
GPU driver (libcuda is the node's own), ``libomp.so`` (libomptarget dlopens the
unversioned name), and ``run``, which adds ``libcuda.so -> libcuda.so.1`` where the driver
has only the versioned name. libomptarget's RUNPATH is ``$ORIGIN``, so the libraries only
need to sit together in ``lib/``.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path

from offload_ls.toolchain.process import run

#: Libraries never bundled: the C library family (the node's must match its kernel) and
#: the GPU driver (must match the node's kernel module).
EXCLUDED = re.compile(r"^(libc|libm|libpthread|libdl|librt|libutil|ld-linux[^/]*|libcuda|libnvidia-[^/]*)\.so")

#: A bundle's cache of its files' hashes, written by gpu/remote.py when it is staged
#: (``{path: [size, mtime_ns, sha256]}``): an unchanged bundle is not hashed again.
HASH_CACHE = ".offload-ls-sha256.json"

RUN_SCRIPT = """#!/bin/sh
# Runs {name} with the offload runtime bundled beside it (made by offload-ls build --bundle).
# libomptarget's CUDA plugin dlopen()s "libcuda.so"; driver-only installs often have just
# libcuda.so.1, so provide a libcuda.so link in a temporary directory when needed.
here=$(cd "$(dirname "$0")" && pwd)
extra=
if ! ldconfig -p 2>/dev/null | grep -q 'libcuda\\.so '; then
  for d in $(echo "${{LD_LIBRARY_PATH:-}}" | tr : ' ') /usr/local/nvidia/lib64 /usr/local/nvidia/lib \\
           /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/local/cuda/compat; do
    if [ -e "$d/libcuda.so.1" ] && [ ! -e "$d/libcuda.so" ]; then
      shim=$(mktemp -d); ln -s "$d/libcuda.so.1" "$shim/libcuda.so"; extra=$shim:; break
    fi
  done
fi
: "${{LIBOMPTARGET_INFO:=48}}"; export LIBOMPTARGET_INFO
: "${{OMP_TARGET_OFFLOAD:=MANDATORY}}"; export OMP_TARGET_OFFLOAD
LD_LIBRARY_PATH="$extra$here/lib${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}}" exec "$here/{name}" "$@"
"""


@dataclass
class Bundle:
    """What was written: the directory, its files, the libraries copied, total bytes."""

    directory: Path
    exe: Path
    libraries: list[str] = field(default_factory=list)
    bytes: int = 0


class BundleError(Exception):
    """The bundle cannot be made (message says why and what to do)."""


def sha256_file(path: Path) -> str:
    """The SHA-256 of a file's bytes, hex (read in 1 MiB pieces).

    Raises:
        OSError: the file cannot be read (FileNotFoundError when it went away)."""
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def ldd_closure(exe: Path, timeout: float = 60.0) -> list[Path]:
    """Shared libraries ``exe`` loads, as ``ldd`` resolves them here.

    Raises:
        BundleError: ldd failed, or a library is not found on this machine.
    """
    res = run(["ldd", str(exe)], timeout=timeout)
    if not res.ok:
        raise BundleError(f"ldd {exe} failed: {res.error or res.stderr.strip()}")
    libs, missing = [], []
    for line in res.stdout.splitlines():
        if "=>" not in line:
            continue
        name, _, rest = line.strip().partition(" => ")
        target = rest.split(" (")[0].strip()
        if target == "not found":
            missing.append(name)
        elif target:
            libs.append(Path(target))
    if missing:
        raise BundleError(f"{exe} needs libraries not found here: {', '.join(missing)}")
    return libs


def make_bundle(exe: Path, directory: Path, overwrite: bool = False) -> Bundle:
    """Write a bundle for ``exe`` into ``directory``.

    Raises:
        BundleError: ``directory`` exists and is not a bundle offload-ls made (nothing of
            the user's is ever overwritten), unless ``overwrite``; or ldd fails.
    """
    marker = directory / ".offload-ls-bundle"
    if directory.exists() and not directory.is_dir():
        raise BundleError(f"{directory} is a file, not a directory; choose an empty or new directory for the bundle")
    if directory.exists() and any(directory.iterdir()) and not marker.exists() and not overwrite:
        raise BundleError(f"{directory} exists and was not made by offload-ls; choose an empty or new directory")
    if marker.exists():
        ours = set(marker.read_text().splitlines()[1:])
        extra = sorted(str(p.relative_to(directory)) for p in directory.rglob("*")
                       if p != marker and p.name != HASH_CACHE and (p.is_file() or p.is_symlink())
                       and str(p.relative_to(directory)) not in ours)
        if extra and not overwrite:
            raise BundleError(f"{directory} holds files offload-ls did not write ({', '.join(extra[:3])}"
                              f"{', ...' if len(extra) > 3 else ''}); move them or choose another directory")
    if not overwrite and _up_to_date(directory, exe, marker):
        return _existing(directory, exe)
    libs = ldd_closure(exe)
    if directory.exists() and marker.exists():
        shutil.rmtree(directory)
    (directory / "lib").mkdir(parents=True, exist_ok=True)
    marker.write_text("made by offload-ls build --bundle\n")
    bundle = Bundle(directory, directory / exe.name)
    shutil.copy2(exe, bundle.exe)
    for lib in libs:
        if EXCLUDED.match(lib.name):
            continue
        shutil.copy2(os.path.realpath(lib), directory / "lib" / lib.name)
        bundle.libraries.append(lib.name)
    omp = [lib for lib in bundle.libraries if lib.startswith("libomp.so")]
    if omp and not (directory / "lib" / "libomp.so").exists():
        (directory / "lib" / "libomp.so").symlink_to(omp[0])
    script = directory / "run"
    script.write_text(RUN_SCRIPT.format(name=exe.name))
    script.chmod(script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    bundle.bytes = sum(f.stat().st_size for f in directory.rglob("*") if f.is_file() and not f.is_symlink())
    written = sorted(str(p.relative_to(directory)) for p in directory.rglob("*")
                     if p != marker and (p.is_file() or p.is_symlink()))
    marker.write_text("made by offload-ls build --bundle\n" + "\n".join(written) + "\n")
    return bundle


def _up_to_date(directory: Path, exe: Path, marker: Path) -> bool:
    """Is ``directory`` a bundle offload-ls made of this very binary (same size and
    modification time: ``copy2`` keeps it) with all its files still there?"""
    if not marker.exists():
        return False
    copy = directory / exe.name
    try:
        a, b = exe.stat(), copy.stat()
    except OSError:
        return False
    if (a.st_size, a.st_mtime_ns) != (b.st_size, b.st_mtime_ns):
        return False
    listed = marker.read_text().splitlines()[1:]
    return bool(listed) and all((directory / rel).exists() or (directory / rel).is_symlink() for rel in listed)


def _existing(directory: Path, exe: Path) -> Bundle:
    libs = sorted(p.name for p in (directory / "lib").iterdir()) if (directory / "lib").is_dir() else []
    size = sum(f.stat().st_size for f in directory.rglob("*") if f.is_file() and not f.is_symlink())
    return Bundle(directory, directory / exe.name, libs, size)
