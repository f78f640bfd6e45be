"""On-disk cache of toolchain probe results, keyed by tool path + mtime.

Location: ``$XDG_CACHE_HOME/offload-ls/probes.json`` (default ``~/.cache``), or the
``OFFLOAD_LS_CACHE_DIR`` directory. A corrupt or unreadable cache is ignored, never fatal.
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

FORMAT = 1  # bump when RustToolchain's fields change


def cache_dir() -> Path:
    if os.environ.get("OFFLOAD_LS_CACHE_DIR"):
        return Path(os.environ["OFFLOAD_LS_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "offload-ls"


class ProbeCache:
    """A JSON dictionary persisted to ``path`` (default: :func:`cache_dir`/probes.json)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or cache_dir() / "probes.json"
        self._lock = threading.Lock()
        self._data: dict | None = None

    def key_for(self, tool: str) -> str | None:
        """``"<realpath>@<mtime_ns>@<size>"``, or ``None`` if the file cannot be stat'ed."""
        try:
            real = os.path.realpath(tool)
            st = os.stat(real)
        except OSError:
            return None
        return f"{real}@{st.st_mtime_ns}@{st.st_size}@v{FORMAT}"

    def _load(self) -> dict:
        if self._data is None:
            try:
                self._data = json.loads(self.path.read_text())
                if not isinstance(self._data, dict):
                    self._data = {}
            except (OSError, ValueError):
                self._data = {}
        return self._data

    def get(self, key: str) -> dict | None:
        with self._lock:
            value = self._load().get(key)
            return value if isinstance(value, dict) else None

    def put(self, key: str, value: dict) -> None:
        with self._lock:
            data = self._load()
            data[key] = value
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                tmp = self.path.with_suffix(".tmp")
                tmp.write_text(json.dumps(data, indent=1, sort_keys=True))
                tmp.replace(self.path)
            except OSError:
                pass  # a read-only home only costs re-probing
