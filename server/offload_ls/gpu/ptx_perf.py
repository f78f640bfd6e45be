"""Performance facts read from a kernel's compiled PTX, not from its syntax.

What the compiled code says that the source does not:

- **unfused multiply-adds**: an ``add.rn``/``sub.rn`` whose operand comes straight from a
  ``mul.rn`` of the same type. The ``.rn`` rounding modifier forbids ptxas from fusing them
  (PTX ISA, "Floating Point Instructions: add": "add.rn ... instructions are not contracted
  into fma"), so each pair costs two instructions and two roundings where nvcc, whose default is
  ``-fmad=true``, emits one ``fma.rn``. rustc never contracts; the build setting
  ``fp-contract = "fast"`` (toolchain/fp_contract.py) lets LLVM fuse them.
- **64-bit integer multiplies** (``mul.lo.s64``/``mul.lo.u64``/``mad.lo.s64``...): index
  arithmetic in ``usize`` that a 32-bit index would do in one cheaper instruction (the H100/H200
  have no native 64-bit integer multiply: it is emulated with several 32-bit ones).
- **bounds checks left in the kernel**: calls of ``core::panicking::panic_bounds_check`` (each
  an index the compiler could not prove in range, typically one loaded from memory: a zone
  list). Each is a compare and a branch per access, and the live values they keep can raise
  the register count; one guard before the accesses (``if i >= N - 1 - JP { return; }``)
  lets LLVM remove them all.
- instruction counts: floating-point instructions and ``fma`` among them.

PTX is NVIDIA's virtual ISA in text, not Rust: reading its instruction lines with patterns is
fine here. Registers may be redefined (loop accumulators): an operand is matched with its
latest definition in text order within its basic block (LLVM fuses only within a block).
Device functions that llc did not inline (``.func``) are not counted in any kernel.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_ENTRY = re.compile(r"^\.visible \.entry ([\w$.]+)\(")
_FUNC = re.compile(r"^(?:\.visible |\.extern |\.weak )?\.func\b")
_LABEL = re.compile(r"^\$?[\w$.]+:")
_LOC = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+\d+")
_FILE = re.compile(r'^\s*\.file\s+(\d+)\s+"([^"]+)"')
# `op.modifiers  dst, src, ...;`
_INSN = re.compile(r"^\s*(?:@!?%\w+\s+)?([a-z][\w.]*)\s+([^;]*);")
_FP = re.compile(r"^(add|sub|mul|fma|div|neg|abs|min|max|sqrt|rcp|ex2|lg2|sin|cos)\b.*\.f(16|32|64)\b")
_WIDE_INT_MUL = re.compile(r"^(mul|mad)\.lo\.[su]64$")


@dataclass
class PtxKernelPerf:
    """One ``.entry`` of a PTX module.

    Attributes:
        kernel: the entry's name (the kernel's symbol). fp_instructions: floating-point
            instructions (any ``.f16``/``.f32``/``.f64`` arithmetic); fma: those that are
            ``fma``. unfused: (add/sub, mul) pairs that ``fp-contract = "fast"`` would fuse.
        unfused_lines: source lines of those add/subs, ``"file:line"`` from ``.loc`` (empty
            without line tables). wide_int_mul: 64-bit integer multiplies. bounds_checks:
            calls of ``panic_bounds_check`` left in the entry's body.
    """

    kernel: str
    fp_instructions: int = 0
    fma: int = 0
    unfused: int = 0
    unfused_lines: list[str] = field(default_factory=list)
    wide_int_mul: int = 0
    bounds_checks: int = 0

    def summary(self) -> str:
        """One line, e.g. ``saxpy: 2 FP instructions, 0 FMA, 1 multiply-add pair unfused``."""
        pairs = f"{self.unfused} multiply-add pair{'s' if self.unfused != 1 else ''} unfused"
        where = f" (at {', '.join(self.unfused_lines[:4])}{', ..' if len(self.unfused_lines) > 4 else ''})" \
            if self.unfused_lines else ""
        wide = f", {self.wide_int_mul} 64-bit integer multipl{'ies' if self.wide_int_mul != 1 else 'y'}" \
            if self.wide_int_mul else ""
        if self.bounds_checks:
            wide += f", {self.bounds_checks} bounds check{'s' if self.bounds_checks != 1 else ''} left"
        fp = f"{self.fp_instructions} FP instruction{'s' if self.fp_instructions != 1 else ''}"
        return f"{self.kernel}: {fp}, {self.fma} FMA, {pairs}{where}{wide}"

    def advice(self) -> str | None:
        """What to do about the unfused pairs and the bounds checks, or ``None`` when there are
        none."""
        out = []
        if self.bounds_checks:
            out.append(f"{self.bounds_checks} bounds check{'s' if self.bounds_checks != 1 else ''} survived "
                       f"compilation (indexes the compiler could not prove in range): one guard on the index "
                       f"itself before the accesses lets it remove them — for an index loaded from memory, on "
                       f"the loaded value (`let j = idx[i]; if j >= N - k {{ return; }}` for accesses up to "
                       f"`x[j + k - 1]`).")
        if self.unfused:
            out.append(self._fma_advice())
        return " ".join(out) or None

    def _fma_advice(self) -> str:
        many = self.unfused != 1
        return (f"{self.unfused} multiply-add pair{'s are' if many else ' is'} not fused "
                f"(mul.rn + add.rn: Rust never contracts floating point; nvcc fuses them into fma by default). "
                f"Set fp-contract = \"fast\" in [package.metadata.offload-ls] (or --fp-contract fast) to fuse "
                f"them; results then differ from the CPU's in the last bits.")

    def to_json(self) -> dict:
        return {"kernel": self.kernel, "fpInstructions": self.fp_instructions, "fma": self.fma,
                "unfused": self.unfused, "unfusedLines": self.unfused_lines, "wideIntMul": self.wide_int_mul,
                "boundsChecks": self.bounds_checks}


def analyze_ptx(text: str) -> list[PtxKernelPerf]:
    """Every ``.entry`` of PTX module ``text`` with its counts, in module order. Non-entry
    ``.func`` bodies (device functions llc did not inline) are not counted."""
    files: dict[str, str] = {}
    out: list[PtxKernelPerf] = []
    cur: PtxKernelPerf | None = None
    last_def: dict[str, str] = {}  # register -> type suffix of its latest definition by mul.rn ("" otherwise)
    loc = ""
    for line in text.splitlines():
        m = _ENTRY.match(line)
        if m:
            cur = PtxKernelPerf(m.group(1))
            out.append(cur)
            last_def, loc = {}, ""
            continue
        if _FUNC.match(line):
            cur = None
            continue
        m = _FILE.match(line)
        if m:
            files[m.group(1)] = m.group(2)
            continue
        if cur is None:
            continue
        m = _LOC.match(line)
        if m:
            loc = f"{m.group(1)}:{m.group(2)}" if m.group(2) != "0" else loc  # file number until the end
            continue
        if _LABEL.match(line):
            # a new basic block: instruction selection fuses a multiply into an add only within
            # one block, so a pair across blocks (through a branch) is not one fp-contract fuses
            last_def = {}
            continue
        m = _INSN.match(line)
        if m is None:
            continue
        op, operands = m.group(1), [o.strip() for o in m.group(2).split(",")]
        _count(cur, op, operands, last_def, loc)
    for k in out:  # llc writes the `.file` table after the functions
        k.unfused_lines = [f"{files.get(n, '?')}:{line}" for n, _, line in (x.partition(":") for x in k.unfused_lines)]
    return out


def _count(k: PtxKernelPerf, op: str, operands: list[str], last_def: dict[str, str], loc: str) -> None:
    fp = _FP.match(op)
    dst = operands[0] if operands and operands[0].startswith("%") else None
    if fp:
        k.fp_instructions += 1
        kind, bits = fp.group(1), fp.group(2)
        if kind == "fma":
            k.fma += 1
        elif kind in ("add", "sub") and "rn" in op.split(".") and \
                any(last_def.get(o) == bits for o in operands[1:3]):
            k.unfused += 1
            if loc and loc not in k.unfused_lines:
                k.unfused_lines.append(loc)
        if dst is not None:
            last_def[dst] = bits if kind == "mul" and "rn" in op.split(".") else ""
        return
    if _WIDE_INT_MUL.match(op):
        k.wide_int_mul += 1
    if op.startswith("call") and any("panic_bounds_check" in o for o in operands):
        k.bounds_checks += 1
    if dst is not None:
        last_def[dst] = ""


#: the old spelling, which workflow/ imports until it says analyze_ptx
