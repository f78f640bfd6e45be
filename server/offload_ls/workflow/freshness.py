"""Is a build current? The stamp of a build (its settings and a digest of its inputs, read
from cargo's dep-info files) and the checks :func:`~offload_ls.workflow.build.build_crate` and
:func:`~offload_ls.workflow.assembly.assemble_crate` make before compiling again."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from offload_ls.toolchain import relink
from offload_ls.toolchain.crate import Crate


def build_stamp_path(crate: Crate) -> Path:
    return crate.out_dir / "build" / "stamp.json"


def _dep_info_lines(target_dir: Path, where: str) -> list[str]:
    """The lines of the dep-info files ``<target>/[<triple>/]<where>/*.d`` (unreadable ones
    skipped)."""
    lines: list[str] = []
    for d in [*target_dir.glob(f"{where}/*.d"), *target_dir.glob(f"*/{where}/*.d")]:
        try:
            lines += d.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
    return lines


def dep_info_sources(target_dir: Path) -> list[Path]:
    """Source files cargo's dep-info files (``<target>/[<triple>/]release/<bin>.d``, make
    syntax, spaces escaped as ``\\ ``) list below ``target_dir``: the crate's files and those
    of its path dependencies (the Cargo Book, "Build cache", dep-info files)."""
    out: list[Path] = []
    for line in _dep_info_lines(target_dir, "release"):
        _, sep, deps = line.partition(": ")
        if sep:
            out += [Path(p.replace("\x00", " ")) for p in deps.replace("\\ ", "\x00").split() if p]
    return out


def dep_info_env(target_dir: Path) -> tuple[str, ...]:
    """Environment variables rustc's dep-info files under ``target_dir`` say the build read
    (``# env-dep:NAME=value`` lines, written for ``env!`` / ``option_env!``): rustc's own
    dep-info (``release/deps/*.d``; cargo's ``release/<bin>.d`` has none), those of earlier
    builds too (a name more only costs a rebuild)."""
    return tuple(sorted({line[len("# env-dep:"):].split("=", 1)[0]
                         for line in _dep_info_lines(target_dir, "release/deps") if line.startswith("# env-dep:")}))


def dep_info_inputs(target_dirs: tuple[Path, ...]) -> tuple[list[Path], tuple[str, ...]]:
    """The sources and environment variables cargo's dep-info under ``target_dirs`` names."""
    return ([p for t in target_dirs for p in dep_info_sources(t)],
            tuple(n for t in target_dirs for n in dep_info_env(t)))


def build_inputs_digest(crate: Crate, target_dirs: tuple[Path, ...],
                        inputs: tuple[list[Path], tuple[str, ...]] | None = None) -> str:
    """The content digest of ``crate``'s build inputs (toolchain/relink.py ``source_digest``),
    with the path dependencies and environment reads cargo's dep-info under ``target_dirs``
    names (or ``inputs``, :func:`dep_info_inputs` taken earlier)."""
    sources, env = inputs if inputs is not None else dep_info_inputs(target_dirs)
    return relink.source_digest(crate.manifest.parent, crate.manifest, sources, env)


def stamp_digest(crate: Crate, targets: tuple[Path, ...], before: tuple[list[Path], tuple[str, ...]],
                  digest: str) -> str:
    """The digest a finished build's stamp keeps: the one of its inputs with the dep-info it
    wrote, when nothing changed while it ran (the inputs named at its start digest as they
    did then), else the start's (a file saved meanwhile: the next build builds again)."""
    if build_inputs_digest(crate, targets, before) != digest:
        return digest
    return build_inputs_digest(crate, targets)


def is_fresh(crate: Crate, exe: Path, key: dict, stamp_path: Path | None = None,
             target_dirs: tuple[Path, ...] = ()) -> bool:
    """True if ``exe`` exists and its stamp (``stamp_path``, default the build's) holds the
    same settings ``key`` and the digest of the same build inputs
    (:func:`build_inputs_digest`, taken when that build started: a file saved during a build,
    or an older copy restored, is not taken as built)."""
    try:
        stamp = json.loads((stamp_path or build_stamp_path(crate)).read_text())
    except (OSError, ValueError):
        return False
    if not isinstance(stamp, dict) or not exe.exists():
        return False
    sources = stamp.pop("sources", None)
    if stamp != key or sources is None:
        return False
    return sources == build_inputs_digest(crate, target_dirs)


def forget_cargo_fingerprints(crate: Crate, targets: tuple[Path, ...]) -> None:
    """Make cargo compile the crate itself again (its dependencies stay built): cargo decides
    by file times, so a file put back with an older time, or saved while cargo compiled it,
    would look built to it. offload-ls has already decided by content
    (:func:`build_inputs_digest`) that this build is needed."""
    for target in targets:
        for fp in [*target.glob(f"release/.fingerprint/{crate.name}-*"),
                   *target.glob(f"*/release/.fingerprint/{crate.name}-*")]:
            shutil.rmtree(fp, ignore_errors=True)


