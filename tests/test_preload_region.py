"""The nightly library's data-placement types in analysis and hover: ``Region`` kernel
parameters (mapped like a slice, to the device and back) and ``preload`` / ``preload_mut``
guards (data already on the device at a launch: nothing copied for it there)."""

from __future__ import annotations

from offload_ls.analysis.engine import analyze_source
from offload_ls.analysis.model import Transfer
from offload_ls.analysis.preload import preloaded_args
from offload_ls.lsp.hover import kernel_markdown, launch_markdown
from offload_ls.toolchain.transfer_check import plan_for_launch
from offload_ls.toolchain.transfer_plan import ArgTransfer, KernelTransfers

SRC = """#![feature(gpu_offload, offload)]
use core::offload::{preload, preload_mut, Region};
use strategies::Linear1D;

#[core::offload::offload_kernel]
fn smooth(r: Region<'_, f32, Linear1D>, w: &[f32; 4]) {}

#[core::offload::offload_kernel]
fn step(a: &mut [f32; 1024], b: &[f32; 1024]) {}

fn main() {
    let mut a = [0.0f32; 1024];
    let b = [1.0f32; 1024];
    let w = [0.25f32; 4];
    let mut x = [0.0f32; 64];
    core::offload::offload! { kernel = smooth, args = (Region::<f32, Linear1D>::new(&mut x[..]), &w) }
    let _ = preload(&w);
    let pa = preload_mut(&mut a);
    let pb = preload(&b);
    for _ in 0..10 {
        core::offload::offload! { kernel = step, workgroup_dim = [4, 1, 1], thread_dim = [256, 1, 1], \
args = (&mut a, &b) }
    }
    drop(pb);
    core::offload::offload! { kernel = step, workgroup_dim = [4, 1, 1], thread_dim = [256, 1, 1], args = (&mut a, &b) }
    drop(pa);
    core::offload::offload::offload_sync();
}
"""


def analysis():
    src = SRC.encode()
    a = analyze_source(src)
    return src, a, {k.name: k for k in a.kernels}, list(a.launches)


def test_a_region_parameter_goes_to_the_device_and_back():
    src, a, kernels, _ = analysis()
    r = kernels["smooth"].params[0]
    assert (r.kind, r.transfer) == ("region", Transfer.TOFROM)
    text = kernel_markdown(kernels["smooth"])
    assert "`r: Region<'_, f32, Linear1D>` — ⇄ **tofrom**: a `Region`: its slice (length known at run time)" in text


def test_a_regions_runtime_length_is_no_zero_byte_finding():
    src, a, kernels, launches = analysis()
    smooth = next(la for la in launches if la.kernel == "smooth")
    # region_host.rs: @.offload_sizes = [0, 8], begin [TO, LITERAL|IMPLICIT], end [FROM, 0]
    kt = KernelTransfers("smooth", [ArgTransfer(0, 0, 0x1, 0x20, 0x2), ArgTransfer(1, 8, 0x300, 0x320, 0)])
    plans = plan_for_launch(smooth, kernels["smooth"], kt)
    assert plans[0].problem is None


def test_preloaded_arguments_are_not_copied_at_the_launch():
    src, a, kernels, launches = analysis()
    first, second = [la for la in launches if la.kernel == "step"]
    inside = preloaded_args(src, first)
    assert {i: (g.place, g.guard, g.mutable) for i, g in inside.items()} == {0: ("a", "pa", True),
                                                                              1: ("b", "pb", False)}
    after_drop = preloaded_args(src, second)
    assert {i: g.guard for i, g in after_drop.items()} == {0: "pa"}  # `pb` was dropped before it
    hover = launch_markdown(first, kernels["step"], src)
    line = SRC[:SRC.index("let pa")].count("\n") + 1
    assert (f"- `&mut a` ↦ `a: &mut [f32; 1024]` — already on the device: `preload_mut` (line {line}) copied it "
            "there; nothing is copied for it at this launch, and comes back when `pa` is dropped") in hover
    assert "- `&b` ↦ `b: &[f32; 1024]` — already on the device: `preload`" in hover
    assert "- `&b` ↦ `b: &[f32; 1024]` — → **to**" in launch_markdown(second, kernels["step"], src)


def test_let_underscore_drops_the_guard_at_once():
    src, a, kernels, launches = analysis()
    smooth = next(la for la in launches if la.kernel == "smooth")
    assert preloaded_args(src, smooth) == {}  # before any preload, and `let _ = preload(&w)` keeps nothing
    late = SRC.replace("    let pa = preload_mut", "    core::offload::offload! { kernel = smooth, args = (r, &w) }\n"
                       "    let pa = preload_mut")
    la = next(x for x in analyze_source(late.encode()).launches
              if x.kernel == "smooth" and "r, &w" in x.args[0].text + ", " + x.args[1].text)
    assert preloaded_args(late.encode(), la) == {}
