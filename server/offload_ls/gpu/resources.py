"""Kernel resources from ``ptxas -v`` (registers, spills, stack, shared and constant memory).

Format of ptxas 13 (CUDA 13.0), per entry function::

    ptxas info    : Compiling entry function 'saxpy' for 'sm_90'
    ptxas info    : Function properties for saxpy
        0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
    ptxas info    : Used 10 registers, used 0 barriers, 368 bytes cmem[0]
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ENTRY = re.compile(r"Compiling entry function '([^']+)' for '([^']+)'")
_PROPS = re.compile(r"Function properties for (\S+)")
_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"Used (\d+) registers")
_SMEM = re.compile(r"(\d+) bytes smem")
_CMEM = re.compile(r"(\d+) bytes cmem\[(\d+)\]")


@dataclass
class KernelResources:
    """Per-kernel figures; memory sizes in bytes."""

    kernel: str
    arch: str
    registers: int = 0
    stack_bytes: int = 0
    spill_store_bytes: int = 0
    spill_load_bytes: int = 0
    shared_bytes: int = 0
    constant_bytes: int = 0

    @property
    def spills(self) -> bool:
        return bool(self.spill_store_bytes or self.spill_load_bytes)

    def summary(self) -> str:
        """One line: ``saxpy (sm_90): 10 registers, 0 B stack, no spills, 0 B shared, 368 B constant``."""
        spill = (f"SPILLS {self.spill_store_bytes} B stores / {self.spill_load_bytes} B loads"
                 if self.spills else "no spills")
        return (f"{self.kernel} ({self.arch}): {self.registers} registers, {self.stack_bytes} B stack, "
                f"{spill}, {self.shared_bytes} B shared, {self.constant_bytes} B constant")


def parse_ptxas_verbose(text: str) -> list[KernelResources]:
    """Entry functions (kernels) of ``ptxas -v`` stderr, in order. Non-entry functions
    (device functions that were not inlined) are ignored."""
    out: list[KernelResources] = []
    current: KernelResources | None = None
    props_for: str | None = None
    for line in text.splitlines():
        m = _ENTRY.search(line)
        if m:
            current = KernelResources(m.group(1), m.group(2))
            out.append(current)
            props_for = None
            continue
        m = _PROPS.search(line)
        if m:
            props_for = m.group(1)
            continue
        if current is None:
            continue
        m = _FRAME.search(line)
        if m and props_for == current.kernel:
            current.stack_bytes, current.spill_store_bytes, current.spill_load_bytes = map(int, m.groups())
            continue
        m = _USED.search(line)
        if m:
            current.registers = int(m.group(1))
            s = _SMEM.search(line)
            current.shared_bytes = int(s.group(1)) if s else 0
            current.constant_bytes = sum(int(c.group(1)) for c in _CMEM.finditer(line))
    return out
