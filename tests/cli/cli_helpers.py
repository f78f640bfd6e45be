"""Constants and helpers shared by the CLI tests."""

from __future__ import annotations

from pathlib import Path

from offload_ls.analysis.rules import all_rules

FIXTURES = Path(__file__).resolve().parent / "fixtures"
RULE = "raw_pointer_kernel_param"

#: The fixture's findings of RULE, as the text format prints them (cwd = fixtures/).
SCALE_X = ("warn_crate/src/lib.rs:6:53: warning[raw_pointer_kernel_param]: kernel `scale` takes "
           "`x: *mut [f32; 4]`, a raw pointer: the kernel needs `unsafe` to use it, the compiler cannot "
           "mark it `noalias`, and the offload runtime copies it to the device and back")
SCALE_X_HELP = "  help: Change `*mut [f32; 4]` to `&mut [f32; 4]`"
SCALE_N = ("warn_crate/src/lib.rs:6:71: warning[raw_pointer_kernel_param]: kernel `scale` takes "
           "`n: *const f32`, a raw pointer to ONE `f32`: the offload runtime copies 4 bytes (a single "
           "element) to the device, not the buffer it points into; pass `&[f32; N]` instead")
FILL_MSG = ("kernel `fill` takes `out: *mut f32`, a raw pointer to ONE `f32`: the offload runtime copies "
            "4 bytes (a single element) to the device and back, not the buffer it points into; pass "
            "`&mut [f32; N]` instead")


def only(rule: str = RULE) -> list[str]:
    """``--allow`` for every rule but ``rule``: exact expectations stay independent of the
    other rules (written concurrently, they may start reporting on the fixtures)."""
    out = []
    for name in all_rules():
        if name != rule:
            out += ["--allow", name]
    return out
