"""Will a bundle load on the target? The newest glibc symbol version its ELF files need,
against the target's C library (``getconf GNU_LIBC_VERSION``)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from offload_ls.gpu.targets import TargetError


def glibc_needed(paths: Sequence[Path]) -> str:
    """The newest ``GLIBC_2.N`` symbol version the given ELF files ask for (``"2.34"``), or
    "" when none does. The version-need strings sit in ``.dynstr`` (the ELF gABI's symbol
    versioning; what ``objdump -T`` lists)."""
    best = (0, 0)
    for p in paths:
        try:
            data = p.read_bytes()
        except OSError:
            continue
        for m in re.finditer(rb"GLIBC_2\.(\d+)(?:\.(\d+))?\x00", data):
            v = (2, int(m.group(1)))
            if v > best:
                best = v
    return f"{best[0]}.{best[1]}" if best != (0, 0) else ""


def version_tuple(v: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", v)[:3])


def check_glibc(bundle: Path, target_glibc: str, where: str) -> None:
    """Raise :class:`TargetError` when the bundle's binary or libraries need a newer glibc
    than the target's (they would fail to load there with "version `GLIBC_2.N' not found")."""
    if not target_glibc:
        return
    files = [p for p in bundle.rglob("*") if p.is_file() and not p.is_symlink() and p.name != "run"]
    need = glibc_needed(files)
    if need and version_tuple(need) > version_tuple(target_glibc):
        raise TargetError(f"the bundle needs glibc {need} but {where} has {target_glibc}: build on a machine with "
                          f"glibc <= {target_glibc} (the login node, or a container of the cluster's OS)")
