"""The transfer plan the host pass compiled: ``@.offload_sizes.<kernel>`` and
``@.offload_maptypes.<kernel>.{begin,kernel,end}`` globals of the host LLVM IR.

Source: rustc_codegen_llvm's offload lowering (``-Zoffload=Test``/``Host=``) emits one
``[N x i64]`` constant per kernel and phase; values measured with rustc 1.96 are in
docs/offload-notes.md ("What the host pass copies"). Map-type bits: LLVM's
``OpenMPOffloadMappingFlags`` (facts.MAP_TYPE_BITS).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from offload_ls.toolchain import facts

# LLVM IR is not Rust: reading these one-line constant definitions with a pattern is fine.
_GLOBAL = re.compile(
    r"^@\.offload_(sizes|maptypes)\.(?P<kernel>[A-Za-z0-9_$.]+?)(?:\.(?P<phase>begin|kernel|end))?"
    r" = .*?constant \[(?P<n>\d+) x i64\] \[(?P<values>[^\]]*)\]"
)


def decode_map_type(bits: int) -> list[str]:
    """Names of the set bits of a libomptarget map type (``0x301`` -> TO, LITERAL, IMPLICIT)."""
    names = [name for bit, name in facts.MAP_TYPE_BITS.items() if bits & bit]
    rest = bits & ~sum(facts.MAP_TYPE_BITS)
    if rest & 0xFFFF_0000_0000_0000:
        names.append(f"MEMBER_OF({rest >> 48})")
    return names


@dataclass(frozen=True)
class ArgTransfer:
    """What the compiled host code does with one kernel argument.

    Attributes:
        index: argument position. bytes: ``@.offload_sizes`` entry (bytes mapped).
        begin / kernel / end: map types of the data-begin mapper, the kernel launch and the
        data-end mapper.
    """

    index: int
    bytes: int
    begin: int
    kernel: int
    end: int
    #: a by-value kernel parameter that offload-ls's lowering passes by reference (the
    #: kernel entry dereferences it; toolchain/lower.py), so no LITERAL is expected
    value_by_reference: bool = False

    @property
    def literal(self) -> bool:
        return bool((self.begin | self.kernel) & 0x100)

    @property
    def literal_lost(self) -> bool:
        """Mapped by value at the data-begin mapper (LITERAL 0x100) but launched without
        LITERAL (kernel map type 0x20): the kernel receives an address, not the value
        (rustc 1.96's host pass; docs/offload-notes.md)."""
        return bool(self.begin & 0x100) and not self.kernel & 0x100

    @property
    def to_device(self) -> bool:
        return not self.literal and bool(self.begin & 0x1)

    @property
    def from_device(self) -> bool:
        return not self.literal and bool(self.end & 0x2)

    @property
    def direction(self) -> str:
        """``to`` / ``tofrom`` / ``from`` / ``by value`` / ``none``."""
        if self.literal:
            return "by value"
        if self.to_device and self.from_device:
            return "tofrom"
        if self.to_device:
            return "to"
        if self.from_device:
            return "from"
        return "none"

    @property
    def hint(self) -> str:
        """Inlay-hint text: ``→ 4 KiB``, ``⇄ 4 MiB``, ``by value``, ``← 16 B``."""
        if self.literal_lost:
            return "⚠ an address, not the value"
        if self.literal:
            return "by value"
        arrow = {"tofrom": "⇄", "to": "→", "from": "←", "none": "∅"}[self.direction]
        return f"{arrow} {human_bytes(self.bytes)}"


def human_bytes(n: int) -> str:
    """``4096`` -> ``4 KiB``, ``4194304`` -> ``4 MiB``, ``12`` -> ``12 B`` (binary units,
    one decimal where not whole)."""
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size:
            v = n / size
            return f"{v:.0f} {unit}" if v == int(v) else f"{v:.1f} {unit}"
    return f"{n} B"


@dataclass
class KernelTransfers:
    """Per-kernel transfer plan: argument transfers in order."""

    kernel: str
    args: list[ArgTransfer] = field(default_factory=list)

    @property
    def bytes_to_device(self) -> int:
        return sum(a.bytes for a in self.args if a.to_device)

    @property
    def bytes_from_device(self) -> int:
        return sum(a.bytes for a in self.args if a.from_device)


def parse_ir_lines(lines) -> dict[str, KernelTransfers]:
    """Read the globals from an iterable of IR lines; kernel name -> transfers."""
    sizes: dict[str, list[int]] = {}
    maps: dict[tuple[str, str], list[int]] = {}
    for line in lines:
        if not line.startswith("@.offload_"):
            continue
        m = _GLOBAL.match(line)
        if not m:
            continue
        values = [int(v.strip().split()[-1]) for v in m.group("values").split(",") if v.strip()]
        if m.group(1) == "sizes":
            sizes[m.group("kernel")] = values
        elif m.group("phase"):
            maps[(m.group("kernel"), m.group("phase"))] = values
    plan: dict[str, KernelTransfers] = {}
    for kernel, sz in sizes.items():
        kt = KernelTransfers(kernel)
        begin = maps.get((kernel, "begin"), [0] * len(sz))
        launch = maps.get((kernel, "kernel"), [0] * len(sz))
        end = maps.get((kernel, "end"), [0] * len(sz))
        for i, n in enumerate(sz):
            kt.args.append(ArgTransfer(i, n, begin[i] if i < len(begin) else 0,
                                       launch[i] if i < len(launch) else 0, end[i] if i < len(end) else 0))
        plan[kernel] = kt
    return plan


def parse_ir_file(path: Path) -> dict[str, KernelTransfers]:
    """Stream ``path`` (textual LLVM IR, possibly tens of MB after fat LTO) and parse it.

    Raises:
        OSError: the file cannot be read.
    """
    with path.open("r", encoding="utf-8", errors="replace") as fh:
        return parse_ir_lines(fh)


def render_kernel_plan(kt: KernelTransfers, params: Sequence[tuple[str, str]] = ()) -> str:
    """One line for a kernel's compiled transfer plan, e.g.
    ``saxpy(a: &f32 → to 4 B, x: &[f32; N] → to 256 KiB, y: &mut [f32; N] → tofrom 256 KiB):
    512.0 KiB to the device, 256 KiB back``; ``params``: (name, type text) of the kernel's
    parameters in order, when the source is known (else ``arg0``, ``arg1``...)."""
    parts = []
    for a in kt.args:
        name, ty = params[a.index] if a.index < len(params) else (f"arg{a.index}", "")
        what = ("an address, not the value (launch map type lacks LITERAL)" if a.literal_lost
                else "by value" if a.literal else f"{a.direction} {human_bytes(a.bytes)}")
        parts.append(f"{name}: {ty} → {what}" if ty else f"{name} → {what}")
    return (f"{kt.kernel}({', '.join(parts)}): {human_bytes(kt.bytes_to_device)} to the device, "
            f"{human_bytes(kt.bytes_from_device)} back")
