"""The offload runtime's log (``LIBOMPTARGET_INFO``) -> kernel launches and copies.

Bits used (LLVM openmp/docs/design/Runtimes.rst, ``LIBOMPTARGET_INFO``): 0x10 "print kernel
information from device plugins" (``Launching kernel K with [g] blocks and [t] threads in
M mode``) and 0x20 "indicate when data is copied to and from the device" (``Copying data
from host to device, ..., Size=N``). Lines as printed by libomptarget 22.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

INFO_BITS = 0x10 | 0x20

_LAUNCH = re.compile(
    r"device (\d+) info: Launching kernel (\S+) with \[([\d,]+)\] blocks and \[([\d,]+)\] threads in (\w+) mode")
_COPY = re.compile(r"device (\d+) info: Copying data from (host to device|device to host),.*Size=(\d+)")

#: Runtime messages worth translating (libomptarget 22 wording).
MANDATORY_FAILURE = "failure of target construct while offloading is mandatory"
MISSING_RUNTIME = "error while loading shared libraries"


@dataclass
class KernelLaunch:
    """One launch as the runtime logged it. Byte counts are the copies attributed to it:
    host->device copies since the previous launch, device->host copies after it."""

    kernel: str
    device: int
    blocks: tuple[int, ...]
    threads: tuple[int, ...]
    #: libomptarget's execution mode as its log prints it (``Generic``, ``SPMD``,
    #: ``Generic-SPMD``, ``BARE``): kept as text, a newer runtime may print another
    mode: str
    h2d_bytes: int = 0
    d2h_bytes: int = 0
    h2d_copies: int = 0
    d2h_copies: int = 0
    #: ran on libomptarget's Virtual Host Device (the host plugin), whose log gives its own
    #: team and thread counts, not the launch's dims (set by gpu/launch.py ``run_binary``)
    on_host: bool = False

    @property
    def total_threads(self) -> int:
        n = 1
        for d in (*self.blocks, *self.threads):
            n *= d
        return n

    @property
    def dims(self) -> str:
        return f"[{','.join(map(str, self.blocks))}]x[{','.join(map(str, self.threads))}]"


@dataclass
class TransferLog:
    """Launches in order, plus copies not attributable to any launch."""

    launches: list[KernelLaunch] = field(default_factory=list)
    stray_h2d_bytes: int = 0
    stray_d2h_bytes: int = 0

    @property
    def h2d_bytes(self) -> int:
        return sum(launch.h2d_bytes for launch in self.launches) + self.stray_h2d_bytes

    @property
    def d2h_bytes(self) -> int:
        return sum(launch.d2h_bytes for launch in self.launches) + self.stray_d2h_bytes

    def per_kernel(self) -> dict[str, dict[str, int]]:
        """Kernel -> {launches, h2d_bytes, d2h_bytes}, in first-launch order."""
        out: dict[str, dict[str, int]] = {}
        for launch in self.launches:
            k = out.setdefault(launch.kernel, {"launches": 0, "h2d_bytes": 0, "d2h_bytes": 0})
            k["launches"] += 1
            k["h2d_bytes"] += launch.h2d_bytes
            k["d2h_bytes"] += launch.d2h_bytes
        return out


def parse_info_log(lines) -> TransferLog:
    """Parse runtime log lines (other lines are ignored)."""
    log = TransferLog()
    pending_h2d: list[int] = []
    last: KernelLaunch | None = None
    after_launch = False
    for line in lines:
        m = _LAUNCH.search(line)
        if m:
            last = KernelLaunch(m.group(2), int(m.group(1)), tuple(int(x) for x in m.group(3).split(",")),
                                tuple(int(x) for x in m.group(4).split(",")), m.group(5),
                                h2d_bytes=sum(pending_h2d), h2d_copies=len(pending_h2d))
            log.launches.append(last)
            pending_h2d = []
            after_launch = True
            continue
        m = _COPY.search(line)
        if not m:
            continue
        size = int(m.group(3))
        if m.group(2) == "host to device":
            pending_h2d.append(size)
            after_launch = False
        elif last is not None and after_launch:
            last.d2h_bytes += size
            last.d2h_copies += 1
        else:
            log.stray_d2h_bytes += size
    log.stray_h2d_bytes += sum(pending_h2d)
    return log
