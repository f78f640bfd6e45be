"""Compare what the compiler will copy (host IR map types) with what the source types
imply, per launch site, and word the disagreements the compiler reveals.

Facts (docs/offload-notes.md, measured with rustc 1.96): ``*mut f32`` maps
``size_of::<f32>()`` = 4 bytes, one element of whatever buffer it points into; slice
arguments lose their length (0 bytes mapped, nothing copied) or crash the host pass.
"""

from __future__ import annotations

from dataclasses import dataclass

from offload_ls.analysis.model import Kernel, Launch, LaunchArg, ParamKind, Transfer
from offload_ls.toolchain.transfer_plan import ArgTransfer, KernelTransfers, human_bytes


@dataclass(frozen=True)
class ArgPlan:
    """One launch argument with the compiler's transfer for it.

    Attributes:
        arg: the argument at the launch site (text, byte span). transfer: the compiler's
        map (``None`` when the IR has fewer entries). param_type: the kernel parameter's
        type text where the kernel is known. problem: a sentence when source and compiler
        disagree, else ``None``.
    """

    arg: LaunchArg
    transfer: ArgTransfer | None
    param_type: str | None
    problem: str | None = None


def plan_for_launch(launch: Launch, kernel: Kernel | None, transfers: KernelTransfers) -> list[ArgPlan]:
    """Pair each argument of ``launch`` with the compiler's transfer and check it."""
    out = []
    for i, arg in enumerate(launch.args):
        t = transfers.args[i] if i < len(transfers.args) else None
        param = kernel.params[i] if kernel is not None and i < len(kernel.params) else None
        problem = None
        if t is not None and param is not None:
            problem = _disagreement(arg, t, param.type_text, param.kind, param.elem_bytes, param.transfer,
                                    param.pointee)
        elif t is not None and not t.literal and t.bytes == 0:
            problem = f"the host pass maps 0 bytes for `{arg.text}`: nothing is copied to the device"
        out.append(ArgPlan(arg, t, param.type_text if param else None, problem))
    return out


def _disagreement(arg: LaunchArg, t: ArgTransfer, type_text: str, kind: ParamKind, elem_bytes: int | None,
                  implied: Transfer, pointee: str | None) -> str | None:
    if kind == "scalar" and not t.kernel & 0x100 and not t.value_by_reference:
        # rustc 1.96: begin map type 0x300 (LITERAL|IMPLICIT) but kernel map type 0x20
        # (TARGET_PARAM only), so libomptarget passes the device address of a copy, not the
        # value (examples/offload-kernels/README.md: 2.5f32 arrived as -1.06e-31).
        return (f"by-value `{type_text}` argument `{arg.text}` is passed to the kernel like a pointer "
                f"(kernel map type {t.kernel:#x} lacks LITERAL 0x100): the kernel receives an address, "
                f"not the value; pass a reference (`&{type_text}`) instead")
    if t.literal or kind == "region":
        return None  # a Region's length is stored at run time (its static size entry is 0)
    if t.bytes == 0:
        return (f"the host pass maps 0 bytes for `{arg.text}` (`{type_text}`): nothing is copied; "
                f"slice arguments lose their length with this compiler — pass `&[T; N]` / `&mut [T; N]`")
    if elem_bytes is not None and kind in ("mut_ptr", "const_ptr") and t.bytes == elem_bytes:
        return (f"the host pass maps {t.bytes} bytes for `{arg.text}` (`{type_text}`): ONE `{pointee}`, "
                f"not the buffer it points into; the kernel reads and writes unmapped memory past it")
    wanted = {Transfer.TO: "to", Transfer.TOFROM: "tofrom"}.get(implied)
    if wanted is not None and t.direction != wanted:
        return (f"`{type_text}` implies `{wanted}` but the host pass maps `{arg.text}` as "
                f"`{t.direction}` ({human_bytes(t.bytes)})")
    return None
