"""Cargo.toml: crate roots, ``[*.metadata.offload-ls]`` rule levels and run targets."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from offload_ls.analysis.model import Level
from offload_ls.workspace.files import real_path
from offload_ls.workspace.rule_levels import parse_rule_levels


@dataclass
class CargoConfig:
    """Rule levels from Cargo.toml files, and problems found reading them.

    Attributes:
        levels: rule -> level, workspace metadata overridden by package metadata.
        problems: human-readable messages (TOML syntax errors, unknown rules, bad levels),
            each starting with the manifest path.
        manifest: the package's Cargo.toml, if one was found.
    """

    levels: dict[str, Level] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    manifest: Path | None = None


def find_manifest(path: Path, stop: Path | None = None) -> Path | None:
    """The nearest ``Cargo.toml`` at ``path`` (a file or directory) or above it.

    Args:
        stop: do not look above this directory (e.g. the LSP workspace root); a ``path``
            whose links lead out of ``stop`` has no manifest (``None``): nothing outside
            the workspace folder is read through a link. Never raises on link loops.
    """
    path = real_path(path)
    d = path if path.is_dir() else path.parent
    stop = real_path(stop) if stop is not None else None
    if stop is not None and d != stop and stop not in d.parents:
        return None
    while True:
        candidate = d / "Cargo.toml"
        if candidate.is_file():
            return candidate
        if d == stop or d.parent == d:
            return None
        d = d.parent


def _read_toml(path: Path, problems: list[str]) -> dict | None:
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        problems.append(f"{path}: cannot read offload-ls settings: {exc}")
        return None


def load_cargo_config(path: Path, stop: Path | None = None) -> CargoConfig:
    """Rule levels for the crate containing ``path`` (a ``.rs`` file or a directory).

    Reads ``[package.metadata.offload-ls]`` of the nearest Cargo.toml and
    ``[workspace.metadata.offload-ls]`` of the nearest manifest that has a ``[workspace]``
    table (the same file or one above it). Never raises: problems are collected.
    """
    cfg = CargoConfig()
    manifest = find_manifest(path, stop)
    if manifest is None:
        return cfg
    cfg.manifest = manifest
    data = _read_toml(manifest, cfg.problems)
    if data is None:
        return cfg
    for ol, where_path, key in _offload_ls_tables(manifest, data, stop, cfg.problems):
        if isinstance(ol, dict):  # run targets and build settings share the table
            misspelled = {k: near for k in ol if (near := _misspelled_setting(k)) is not None}
            for k, near in misspelled.items():
                cfg.problems.append(f"{where_path}: [{key}.metadata.offload-ls]: unknown key `{k}`; "
                                    f"did you mean the build setting `{near}`?")
            ol = {k: v for k, v in ol.items() if k not in NON_RULE_KEYS and k not in misspelled}
        levels, problems = parse_rule_levels(ol, f"{where_path}: [{key}.metadata.offload-ls]")
        cfg.levels.update(levels)
        cfg.problems += problems
    return cfg


def _misspelled_setting(key: str) -> str | None:
    """The key of :data:`NON_RULE_KEYS` that ``key`` spells differently (``fp_contract``,
    ``maxRegisters``), else ``None``."""
    norm = key.lower().replace("_", "").replace("-", "")
    return next((k for k in NON_RULE_KEYS if k != key and k.replace("-", "") == norm), None)


def _offload_ls_tables(manifest: Path, data: dict, stop: Path | None, problems: list[str]):
    """``(value of [KEY.metadata.offload-ls], the manifest it is in, KEY)`` for the workspace's
    manifest (KEY ``workspace``), then the package's (``package``): the later wins."""
    ws_path, ws_data = _workspace_manifest(manifest, data, stop, problems)
    for table, where_path, key in ((ws_data, ws_path, "workspace"), (data, manifest, "package")):
        if not table:
            continue
        section = table.get(key, {})
        meta = section.get("metadata", {}) if isinstance(section, dict) else {}
        ol = meta.get("offload-ls") if isinstance(meta, dict) else None
        if ol is not None:
            yield ol, where_path, key


#: Keys of ``[*.metadata.offload-ls]`` that are not rule names.
RUN_TARGET_KEYS = ("run-target", "run-targets")
#: Every key of ``[*.metadata.offload-ls]`` that is not a rule name: the run targets, and the
#: build settings ``fp-contract`` and ``max-registers`` (read by toolchain/crate.py from cargo
#: metadata).
NON_RULE_KEYS = (*RUN_TARGET_KEYS, "fp-contract", "max-registers")


@dataclass
class RunTargetTables:
    """Run targets as Cargo.toml defines them, not yet validated (gpu/targets.py does).

    Attributes:
        tables: name -> (table, where it is written, for messages); package tables
            override workspace ones of the same name.
        default: ``run-target``'s value ("" when unset); default_origin: where it is set.
        problems: tables that are not tables, TOML errors.
    """

    tables: dict[str, tuple[object, str]] = field(default_factory=dict)
    default: str = ""
    default_origin: str = ""
    problems: list[str] = field(default_factory=list)


def load_run_targets(path: Path, stop: Path | None = None) -> RunTargetTables:
    """``run-targets`` tables and ``run-target`` of the workspace's and the package's
    ``[*.metadata.offload-ls]`` for the crate containing ``path``. Never raises."""
    out = RunTargetTables()
    manifest = find_manifest(path, stop)
    data = _read_toml(manifest, out.problems) if manifest is not None else None
    if manifest is None or data is None:
        return out
    for ol, where_path, key in _offload_ls_tables(manifest, data, stop, out.problems):
        if not isinstance(ol, dict):
            continue
        where = f"{where_path}: [{key}.metadata.offload-ls]"
        targets = ol.get("run-targets", {})
        if not isinstance(targets, dict):
            out.problems.append(f"{where}: run-targets must be a table of named targets")
            targets = {}
        for name, t in targets.items():
            out.tables[name] = (t, f"{where_path}: [{key}.metadata.offload-ls.run-targets.{name}]")
        default = ol.get("run-target")
        if isinstance(default, str):
            out.default, out.default_origin = default, f"{where} run-target"
        elif default is not None:
            out.problems.append(f"{where}: run-target must be a target's name (a string)")
    return out


def _workspace_manifest(manifest: Path, data: dict, stop: Path | None,
                        problems: list[str]) -> tuple[Path, dict | None]:
    """The manifest holding ``[workspace]``: ``manifest`` itself or the nearest above it."""
    if "workspace" in data:
        return manifest, data
    d = manifest.parent.parent
    stop = real_path(stop) if stop is not None else None
    while d != d.parent:
        candidate = d / "Cargo.toml"
        if candidate.is_file():
            other = _read_toml(candidate, problems)
            if other is not None and "workspace" in other:
                return candidate, other
        if d == stop:
            break
        d = d.parent
    return manifest, None
