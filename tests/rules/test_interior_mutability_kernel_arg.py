"""interior_mutability_kernel_arg: Cell-like types reached through a shared kernel argument."""

import pytest
from helpers import dedent, lint

from offload_ls.analysis.engine import analyze_source
from offload_ls.analysis.model import Level
from offload_ls.analysis.rules import all_rules

RULE = "interior_mutability_kernel_arg"


def msg(param: str, cell: str, name: str | None, sugg: str, via: str = "&") -> str:
    race = (
        f", and every GPU thread gets this same reference although `{name}` is not `Sync` "
        f"(a data race if threads write the same cell)"
        if name else ""
    )
    return (
        f"kernel `k` takes `{param}`: `{cell}` allows writes through a shared reference, but a `{via}` "
        f"argument is mapped to the device only, so those writes never reach the host{race}; "
        f"pass `{sugg}` instead"
    )


CASES = [
    pytest.param(
        """
        use core::cell::{Cell, RefCell};
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(a: &Cell<f32>, b: &[Cell<u32>; N], c: &RefCell<[f32; N]>) {}
        """,
        [
            (3, 30, 3, 39, msg("a: &Cell<f32>", "Cell<f32>", "Cell", "&mut [f32; N]")),
            (3, 46, 3, 55, msg("b: &[Cell<u32>; N]", "Cell<u32>", "Cell", "&mut [u32; N]")),
            (3, 65, 3, 82, msg("c: &RefCell<[f32; N]>", "RefCell<[f32; N]>", "RefCell", "&mut [f32; N]")),
        ],
        id="cell-array-of-cells-refcell",
    ),
    pytest.param(
        """
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(u: &core::cell::UnsafeCell<[f32; 4]>, s: &SyncUnsafeCell<u64>,
                                 m: &std::sync::Mutex<u32>, p: *const OnceCell<u8>) {}
        """,
        [
            (2, 30, 2, 62, msg("u: &core::cell::UnsafeCell<[f32; 4]>", "core::cell::UnsafeCell<[f32; 4]>",
                               "UnsafeCell", "&mut [f32; 4]")),
            (2, 68, 2, 87, msg("s: &SyncUnsafeCell<u64>", "SyncUnsafeCell<u64>", None, "&mut [u64; N]")),
            (3, 30, 3, 51, msg("m: &std::sync::Mutex<u32>", "std::sync::Mutex<u32>", None, "&mut [u32; N]")),
            (3, 63, 3, 75, msg("p: *const OnceCell<u8>", "OnceCell<u8>", "OnceCell", "&mut [u8; N]", via="*const")),
        ],
        id="unsafecell-syncunsafecell-mutex-const-pointer",
    ),
    pytest.param(
        """
        use core::sync::atomic::AtomicU32;
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(a: &AtomicU32, b: &[core::sync::atomic::AtomicU64; 4], c: &mut Cell<f32>,
                                 d: Cell<u32>, e: *mut RefCell<u8>, f: &mut [&Cell<u8>; 2], g: &my::Cell<u8>,
                                 h: &[f32; 4]) {}
        """,
        [],
        id="atomics-mut-by-value-nested-and-other-crates-not-flagged",
    ),
    pytest.param(
        """
        use cuda_std::prelude::*;
        #[kernel]
        pub unsafe fn k(a: &Cell<f32>, m: &Mutex<u32>) {}
        """,
        [
            (3, 21, 3, 30, "kernel `k` takes `a: &Cell<f32>`: every GPU thread gets this same reference although "
             "`Cell` is not `Sync` (a data race if threads write the same cell)"),
        ],
        id="rust-cuda-only-the-race",
    ),
    pytest.param(
        """
        fn host(a: &Cell<f32>, b: &[Cell<u32>; 4], c: &RefCell<Vec<f32>>) {}
        unsafe extern "C" {
            fn k(a: &Cell<f32>);
        }
        """,
        [],
        id="host-functions-not-flagged",
    ),
    pytest.param(
        """
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(a: &Cell<f32>) {
            a.set(a.get() + );
        }
        """,
        [(2, 30, 2, 39, msg("a: &Cell<f32>", "Cell<f32>", "Cell", "&mut [f32; N]"))],
        id="syntax-error-in-body",
    ),
]


@pytest.mark.parametrize(("src", "expected"), CASES)
def test_findings(src, expected):
    assert lint(dedent(src), RULE) == expected


def test_default_level_and_configured_allow():
    assert all_rules()[RULE].default_level is Level.WARN
    src = '#[rustc_offload_kernel]\nextern "gpu-kernel" fn k(a: &Cell<f32>) {}\n'
    assert [f.level for f in analyze_source(src.encode()).findings if f.rule == RULE] == [Level.WARN]
    assert [f for f in analyze_source(src.encode(), {RULE: Level.ALLOW}).findings if f.rule == RULE] == []
