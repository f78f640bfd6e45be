"""Settings and rule levels as the server sees them.

Sources, lowest precedence first (issue: "Rule levels"):

1. each rule's default level (the rule registry);
2. Cargo.toml ``[workspace.metadata.offload-ls]`` then ``[package.metadata.offload-ls]``
   of the crate containing the file (:func:`offload_ls.workspace.cargo.load_cargo_config`,
   never looking above the workspace folder);
3. the editor's settings: ``initializationOptions`` at start, then the
   ``workspace/configuration`` section ``"offload-ls"`` pulled at ``initialized`` and on
   every ``workspace/didChangeConfiguration``.

Cargo.toml results are cached per manifest and the cache is dropped when any Cargo.toml
changes (file watcher, ``didChangeWatchedFiles`` or ``didSave``).
"""

from __future__ import annotations

import threading
from pathlib import Path

from offload_ls.analysis.model import Level
from offload_ls.settings import SECTION, Settings, parse_settings
from offload_ls.workspace.cargo import CargoConfig, find_manifest, load_cargo_config

__all__ = ["SECTION", "CargoCache", "merge_levels", "parse_client_settings"]


def parse_client_settings(raw, base: Settings | None = None) -> tuple[Settings, list[str]]:
    """Settings from a client's JSON (``initializationOptions``, a configuration item or
    ``didChangeConfiguration.settings``); see :func:`offload_ls.settings.parse_settings`.
    Returns (settings, problems) and never raises."""
    return parse_settings(raw, base)


def merge_levels(cargo: dict[str, Level], editor: dict[str, Level]) -> dict[str, Level]:
    """Rule levels for one file: Cargo.toml metadata overridden by editor settings (the
    engine fills in defaults for rules neither mentions)."""
    return {**cargo, **editor}


class CargoCache:
    """``load_cargo_config`` results cached per manifest; thread-safe (workspace scans
    read it from worker threads).

    Args:
        on_problem: called with each problem message (TOML errors, unknown rules, bad
            levels) the first time a manifest is read after the cache was cleared.
    """

    def __init__(self, on_problem=None) -> None:
        self._lock = threading.Lock()
        self._by_manifest: dict[Path, CargoConfig] = {}
        self._on_problem = on_problem or (lambda message: None)

    def levels_for(self, path: Path | None, root: Path | None) -> dict[str, Level]:
        """Cargo.toml rule levels for the ``.rs`` file ``path`` (``{}`` without a file
        path or a manifest). ``root``: the workspace folder containing ``path``; manifests
        above it are not read."""
        if path is None:
            return {}
        try:
            manifest = find_manifest(path, stop=root)
        except OSError:
            return {}
        if manifest is None:
            return {}
        with self._lock:
            cached = self._by_manifest.get(manifest)
        if cached is not None:
            return dict(cached.levels)
        cfg = load_cargo_config(path, stop=root)
        with self._lock:
            fresh = manifest not in self._by_manifest
            self._by_manifest[manifest] = cfg
        if fresh:
            for problem in cfg.problems:
                self._on_problem(problem)
        return dict(cfg.levels)

    def invalidate(self) -> None:
        """Forget every cached manifest (a Cargo.toml was created, changed or deleted;
        a workspace manifest affects every package below it, so all entries go)."""
        with self._lock:
            self._by_manifest.clear()
