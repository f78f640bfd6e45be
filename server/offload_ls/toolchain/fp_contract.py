"""Floating-point contraction for device code: the build setting ``fp-contract``.

Rust never contracts ``a * b + c`` into a fused multiply-add (FMA): rustc emits plain
``fmul``/``fadd`` without LLVM's ``contract`` fast-math flag, so every product is rounded
before the sum, as on the CPU. nvcc does the opposite by default (``-fmad=true``: "contract
floating-point multiplies and adds/subtracts into floating-point multiply-add operations",
NVIDIA's nvcc documentation, option ``--fmad``), and clang for CUDA defaults to
``-ffp-contract=fast``. A Rust kernel therefore executes up to twice the floating-point
instructions of its CUDA twin, with different rounding (one rounding per FMA instead of two).

``fp-contract = "fast"`` (Cargo.toml ``[package.metadata.offload-ls]`` or ``--fp-contract fast``)
adds ``contract`` to every ``fmul``, ``fadd`` and ``fsub`` of the device IR, which lets LLVM's
instruction selection fuse a multiply into the add that consumes it (LLVM Language Reference,
"Fast-Math Flags": ``contract`` "allow floating-point contraction (e.g. fusing a multiply
followed by an addition into a fused multiply-and-add)"; both instructions must carry it).
Trade-off: results differ from the CPU's in the last bits (usually more accurate, never
bit-identical to the unfused Rust semantics). ``"off"`` (the default) keeps Rust's semantics.

Works on textual IR (``llvm-dis`` output); LLVM IR is not Rust, so reading its instruction
lines with a pattern is fine here. Run as a pipeline pass:
``python -m offload_ls.toolchain.fp_contract IN.ll OUT.ll``.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

#: The values of the setting: ``off`` (Rust's semantics, the default) and ``fast`` (nvcc's
#: default ``-fmad=true``).
FP_CONTRACT_VALUES = ("off", "fast")

# `%x = fmul <flags> <type> ...`: the opcode after an assignment, then optional flags
_FP_OP = re.compile(r"^(\s+%[-\w.$\"]+ = )(fmul|fadd|fsub)((?: (?:fast|nnan|ninf|nsz|arcp|contract|afn|reassoc))*) ")


def contract(ir: str) -> tuple[str, int]:
    """``ir`` with ``contract`` added to each ``fmul``/``fadd``/``fsub`` that has neither it
    nor ``fast``; returns (new IR, number of instructions changed)."""
    changed = 0

    def add(m: re.Match) -> str:
        nonlocal changed
        flags = m.group(3).split()
        if "contract" in flags or "fast" in flags:
            return m.group(0)
        changed += 1
        return f"{m.group(1)}{m.group(2)}{m.group(3)} contract "

    lines = ir.split("\n")
    for i, line in enumerate(lines):
        if " = f" in line:
            lines[i] = _FP_OP.sub(add, line, count=1)
    return "\n".join(lines), changed


def check_value(value: object, where: str) -> str:
    """``value`` when it is one of :data:`FP_CONTRACT_VALUES`.

    Raises:
        ValueError: anything else, with a message naming ``where`` and the allowed values."""
    if value in FP_CONTRACT_VALUES:
        return value  # type: ignore[return-value]
    raise ValueError(f"{where}: fp-contract must be one of {', '.join(map(repr, FP_CONTRACT_VALUES))}, "
                     f"not {json.dumps(value)} (\"fast\" fuses a*b+c into FMA like nvcc's default -fmad=true; "
                     f"\"off\" keeps Rust's unfused semantics)")


def main(argv: list[str] | None = None) -> int:
    """``python -m offload_ls.toolchain.fp_contract IN.ll OUT.ll``: exit 0 and print how many
    instructions got ``contract``; exit 2 on usage or I/O errors."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print("usage: python -m offload_ls.toolchain.fp_contract IN.ll OUT.ll", file=sys.stderr)
        return 2
    n = rewrite_file("fp_contract", args[0], args[1], contract)
    if n is None:
        return 2
    print(f"{n} floating-point instructions may contract")
    return 0


def rewrite_file(name: str, src: str, dst: str, transform) -> int | None:
    """Apply ``transform`` (IR text -> (IR text, count)) to file ``src``, write ``dst``; the
    count, or ``None`` after printing ``name: <error>`` when a file cannot be read or written.
    (The device-IR passes' common body: this module and toolchain/max_registers.py.)"""
    try:
        new, n = transform(Path(src).read_text(encoding="utf-8"))
        Path(dst).write_text(new, encoding="utf-8")
    except OSError as exc:
        print(f"{name}: {exc}", file=sys.stderr)
        return None
    return n


if __name__ == "__main__":
    raise SystemExit(main())
