"""The session's view of the toolchain: the doctor's report, probed once per toolchain
settings (and cached on disk per tool path + mtime by :mod:`offload_ls.toolchain.cache`),
shared by check-on-save, build, run, profile and the assembly view."""

from __future__ import annotations

import threading
from collections.abc import Callable

from lsprotocol import types

from offload_ls.settings import Settings
from offload_ls.toolchain.doctor import DoctorReport, render_text, run_doctor


class ToolchainState:
    """The doctor's report for the session's current settings.

    Args:
        settings: the session's current settings (``rustc``, ``cargo``, ``gpuArch``,
            ``gpuTarget`` decide), read on each call.
        log: ``(message, type)`` -> one ``window/logMessage`` (any thread).
        show: ``(message, type)`` -> one ``window/showMessage`` (any thread).
    """

    def __init__(self, settings: Callable[[], Settings], log: Callable[..., None], show: Callable[..., None]) -> None:
        self._settings = settings
        self._log = log
        self._show = show
        self._report: DoctorReport | None = None
        self._key: tuple | None = None
        self._lock = threading.Lock()
        self._told_missing = False

    def doctor(self) -> DoctorReport:
        """The doctor's report for the current toolchain settings; the first report (and
        each after a settings change) is logged, and a missing offload toolchain is shown
        once. Blocking (it starts programs): call from a worker thread."""
        s = self._settings()
        key = (s.rustc, s.cargo, s.gpuArch, s.gpuTarget)
        with self._lock:
            if self._report is None or self._key != key:
                self._report = run_doctor(rustc=s.rustc, cargo=s.cargo, fallback_arch=s.gpuArch, target=s.gpuTarget)
                self._key = key
                self._log("offload-ls doctor:\n" + render_text(self._report), types.MessageType.Info)
                if self._report.essential_missing and not self._told_missing:
                    self._told_missing = True
                    self._show("offload-ls: no offload-capable Rust toolchain found, so saves only run the host "
                               f"pass. {'; '.join(self._report.missing[:2])}. Install: {self._report.install}",
                               types.MessageType.Warning)
            return self._report

    def fresh_doctor(self) -> DoctorReport:
        """Probe again (``offload-ls.doctor``): forget the cached report first."""
        with self._lock:
            self._report = None
        return self.doctor()
