"""A cargo package as the pipeline sees it: manifest, workspace root, target dir, target.

Read with ``cargo metadata --no-deps --offline`` (no build scripts run, but it is still a
cargo process: callers only use this for trusted workspaces).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from offload_ls.toolchain.fp_contract import check_value
from offload_ls.toolchain.max_registers import check_value as check_registers
from offload_ls.toolchain.process import run

METADATA_TIMEOUT = 60.0  # seconds


class CrateError(Exception):
    """The manifest cannot be read by cargo (its message says why)."""


@dataclass(frozen=True)
class Crate:
    """One package.

    Attributes:
        manifest: absolute Cargo.toml path. name: package name. root: cargo workspace root
        (``file_name`` of diagnostics is relative to it). target_dir: cargo's target
        directory; offload-ls writes only below ``target_dir/offload-ls``.
        bin: the binary target passes build (``None``: the library). kinds: target kinds.
        fp_contract: the device code's floating-point contraction, ``off`` or ``fast``
            (toolchain/fp_contract.py), from ``fp-contract`` in ``[package.metadata.offload-ls]``
            or ``[workspace.metadata.offload-ls]``; ``off`` when unset. max_registers: the
            kernels' register limit (toolchain/max_registers.py, ``max-registers``), ``None``: none.
    """

    manifest: Path
    name: str
    root: Path
    target_dir: Path
    bin: str | None
    lib: bool
    #: root files of the package's lib and bin targets (``src/lib.rs``, ``src/main.rs``, a
    #: ``[[bin]] path``), from cargo metadata's ``src_path``
    roots: tuple[Path, ...] = ()
    #: root file of ``bin`` (``None`` when the library is built)
    bin_root: Path | None = None
    #: root file of the library target, if any
    lib_root: Path | None = None
    fp_contract: str = "off"
    max_registers: int | None = None

    @property
    def out_dir(self) -> Path:
        return self.target_dir / "offload-ls"


@dataclass(frozen=True)
class BuildSettings:
    """Build settings given on the command line (or by the editor), over the crate's own
    (Cargo.toml): ``None`` keeps the crate's value. fp_contract: ``off`` / ``fast``
    (toolchain/fp_contract.py); max_registers: registers per thread, 16-255
    (toolchain/max_registers.py)."""

    fp_contract: str | None = None
    max_registers: int | None = None


def load_crate(manifest: Path, cargo: str, bin_name: str | None = None, env: dict | None = None,
               settings: BuildSettings | None = None) -> Crate:
    """Describe the package of ``manifest``.

    Args:
        settings: build settings given on the command line: they win over Cargo.toml's, whose
            values for those keys are then not read (a bad one there does not stop the build).
        bin_name: binary to build; default: the package's only binary, else its library,
            else its first binary.

    Raises:
        CrateError: cargo failed (bad Cargo.toml, missing cargo) — message is cargo's own
            first error line — or the requested binary does not exist.
    """
    res = run([cargo, "metadata", "--no-deps", "--format-version", "1", "--offline",
               "--manifest-path", str(manifest)], timeout=METADATA_TIMEOUT, env=env, cwd=manifest.parent)
    if not res.ok:
        reason = res.error or ("timed out" if res.timed_out else _first_error(res.stderr))
        raise CrateError(f"{manifest}: cargo metadata failed: {reason}")
    try:
        meta = json.loads(res.stdout)
    except ValueError as exc:
        raise CrateError(f"{manifest}: cargo metadata printed invalid JSON: {exc}") from exc
    manifest = manifest.resolve()
    pkg = next((p for p in meta.get("packages", []) if Path(p["manifest_path"]).resolve() == manifest), None)
    if pkg is None:
        raise CrateError(f"{manifest}: a virtual workspace manifest; open or pass a member crate's Cargo.toml")
    bins = [t["name"] for t in pkg["targets"] if "bin" in t["kind"]]
    has_lib = any(k in ("lib", "rlib", "cdylib", "staticlib") for t in pkg["targets"] for k in t["kind"])
    if bin_name is not None and bin_name not in bins:
        raise CrateError(f"{manifest}: no binary named `{bin_name}` (binaries: {', '.join(bins) or 'none'})")
    # cargo's own default: `default-run`, else the binary named like the package
    default = pkg.get("default_run") or (pkg["name"] if pkg["name"] in bins else None)
    chosen = bin_name or default or (bins[0] if len(bins) == 1 or not has_lib and bins else None)
    roots = tuple(Path(t["src_path"]) for t in pkg["targets"] if t.get("src_path")
                  and any(k in ("bin", "lib", "rlib", "cdylib", "staticlib") for k in t["kind"]))
    bin_root = next((Path(t["src_path"]) for t in pkg["targets"] if "bin" in t["kind"] and t["name"] == chosen
                     and t.get("src_path")), None)
    lib_root = next((Path(t["src_path"]) for t in pkg["targets"] if t.get("src_path")
                     and any(k in ("lib", "rlib", "cdylib", "staticlib") for k in t["kind"])), None)
    given = settings or BuildSettings()
    return Crate(manifest=manifest, name=pkg["name"], root=Path(meta["workspace_root"]),
                 target_dir=Path(meta["target_directory"]), bin=chosen, lib=has_lib, roots=roots, bin_root=bin_root,
                 lib_root=lib_root,
                 fp_contract=given.fp_contract or _setting(manifest, pkg, meta, "fp-contract", check_value) or "off",
                 max_registers=given.max_registers or _setting(manifest, pkg, meta, "max-registers", check_registers))


def _setting(manifest: Path, pkg: dict, meta: dict, key: str, check):
    """Build setting ``key`` of ``[package.metadata.offload-ls]``, else of the workspace's
    (cargo metadata's ``metadata``), checked by ``check(value, where)``; ``None`` when unset.

    Raises:
        CrateError: a value ``check`` refuses (its message says what is allowed)."""
    workspace_manifest = Path(meta.get("workspace_root") or manifest.parent) / "Cargo.toml"
    for table, where, path in ((pkg.get("metadata"), "package", manifest),
                               (meta.get("metadata"), "workspace", workspace_manifest)):
        ol = table.get("offload-ls") if isinstance(table, dict) else None
        if isinstance(ol, dict) and key in ol:
            try:
                return check(ol[key], f"{path}: [{where}.metadata.offload-ls]")
            except ValueError as exc:
                raise CrateError(str(exc)) from None
    return None


def _first_error(stderr: str) -> str:
    for line in stderr.splitlines():
        if line.startswith("error"):
            return line.split(":", 1)[-1].strip() if line.startswith("error:") else line
    return stderr.strip().splitlines()[0] if stderr.strip() else "unknown error"
