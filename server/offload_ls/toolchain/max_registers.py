"""A register limit for the kernels: the build setting ``max-registers`` (nvcc's ``-maxrregcount``).

ptxas gives each kernel as many registers as its schedule wants; above a boundary the SM holds
fewer blocks at once (occupancy), which a latency-bound kernel (gathers through an index list)
pays for directly. Measured on an H200 with benchmarks/rajaperf: DEL_DOT_VEC_2D got 50-52
registers from the Rust build against CUDA's 48, so 4 instead of 5 blocks of 256 threads per SM
(theoretical occupancy 50 % vs 62 %) and 0.78-0.92x CUDA's speed.

``max-registers = N`` (Cargo.toml ``[package.metadata.offload-ls]``, or ``--max-registers N``)
adds the function attribute ``"nvvm.maxnreg"="N"`` to every kernel entry point of the device
IR (LLVM's NVPTX back end writes it as the PTX directive ``.maxnreg N``; PTX ISA, "Performance-
Tuning Directives: .maxnreg"), as nvcc's ``-maxrregcount=N`` limits every kernel. Trade-off:
below what the kernel needs, ptxas spills to local memory (slow); the build's resources line
(``ptxas -v``) and the profile's spill figures say whether it did.

Works on textual IR; LLVM IR is not Rust, so reading ``define`` lines with a pattern is fine.
Run as a pipeline pass: ``python -m offload_ls.toolchain.max_registers N IN.ll OUT.ll``.
"""

from __future__ import annotations

import json
import re
import sys

from offload_ls.toolchain.fp_contract import rewrite_file

#: ptxas's range for a register limit (``.maxnreg``; sm_90 has 255 registers per thread).
MIN_REGISTERS, MAX_REGISTERS = 16, 255

_ENTRY = re.compile(r"^define [^@]*\b(ptx_kernel|amdgpu_kernel)\b[^@]*@")


def limit(ir: str, n: int) -> tuple[str, int]:
    """``ir`` with ``"nvvm.maxnreg"="n"`` on every kernel entry's ``define`` line (an existing
    limit is replaced); returns (new IR, number of entries)."""
    count = 0
    lines = ir.split("\n")
    for i, line in enumerate(lines):
        if not _ENTRY.match(line) or not line.rstrip().endswith("{"):
            continue
        line = re.sub(r' "nvvm\.maxnreg"="\d+"', "", line)
        # function attributes come before the metadata attachments (`#1 !dbg !7 {`)
        attr = f' "nvvm.maxnreg"="{n}"'
        meta = re.search(r" !\w+ !\d+", line[line.rindex(")"):]) if ")" in line else None
        if meta is not None:
            at = line.rindex(")") + meta.start()
            lines[i] = line[:at] + attr + line[at:]
        else:
            lines[i] = line.rstrip()[:-1].rstrip() + attr + " {"
        count += 1
    return "\n".join(lines), count


def check_value(value: object, where: str) -> int:
    """``value`` when it is an integer in [16, 255].

    Raises:
        ValueError: anything else, with a message naming ``where`` and the range."""
    if isinstance(value, int) and not isinstance(value, bool) and MIN_REGISTERS <= value <= MAX_REGISTERS:
        return value
    raise ValueError(f"{where}: max-registers must be an integer from {MIN_REGISTERS} to {MAX_REGISTERS} "
                     f"(registers per thread, like nvcc's -maxrregcount), not {json.dumps(value)}")


def main(argv: list[str] | None = None) -> int:
    """``python -m offload_ls.toolchain.max_registers N IN.ll OUT.ll``: exit 0 and print how
    many entries got the limit; exit 2 on usage or I/O errors."""
    args = sys.argv[1:] if argv is None else argv
    try:
        n = check_value(int(args[0]), "max_registers") if len(args) == 3 else None
    except ValueError as exc:
        print(f"max_registers: {exc}", file=sys.stderr)
        return 2
    if n is None:
        print("usage: python -m offload_ls.toolchain.max_registers N IN.ll OUT.ll", file=sys.stderr)
        return 2
    count = rewrite_file("max_registers", args[1], args[2], lambda ir: limit(ir, n))
    if count is None:
        return 2
    print(f"{count} kernel entr{'ies' if count != 1 else 'y'} limited to {n} registers")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
