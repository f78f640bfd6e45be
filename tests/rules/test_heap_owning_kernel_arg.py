"""heap_owning_kernel_arg: kernel parameter types that own or hide host heap memory."""

import pytest
from helpers import dedent, lint

from offload_ls.analysis.engine import analyze_source
from offload_ls.analysis.model import Level
from offload_ls.analysis.rules import all_rules

RULE = "heap_owning_kernel_arg"


def vec_msg(param: str, bad: str, sugg: str, conv: str = "as_slice") -> str:
    return (
        f"kernel `k` takes `{param}`: `{bad}` owns a heap buffer, not flat data: the offload runtime copies "
        f"`size_of::<{bad}>()` bytes (pointer, capacity, length), not the elements, and the device then "
        f"dereferences a host pointer; pass `{sugg}` instead (e.g. `v.{conv}().try_into().unwrap()`)"
    )


def ptr_msg(param: str, bad: str, tail: str) -> str:
    return (
        f"kernel `k` takes `{param}`: `{bad}` points to host heap memory, not flat data: the offload runtime "
        f"copies `size_of::<{bad}>()` bytes (the pointer), not the value, and the device then dereferences "
        f"a host pointer; {tail}"
    )


DYN_MSG = (
    "kernel `k` takes `d: &dyn Shape`: `dyn Shape` is a trait object, not flat data: its size is unknown at "
    "compile time and its vtable holds host code addresses, so the offload runtime cannot copy it; "
    "take a concrete type (a generic parameter or an enum) instead"
)

CASES = [
    pytest.param(
        """
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(v: &Vec<f32>, w: &mut Vec<u32>, x: Vec<f64>) {}
        """,
        [
            (2, 30, 2, 38, vec_msg("v: &Vec<f32>", "Vec<f32>", "&[f32; N]")),
            (2, 48, 2, 56, vec_msg("w: &mut Vec<u32>", "Vec<u32>", "&mut [u32; N]", "as_mut_slice")),
            (2, 61, 2, 69, vec_msg("x: Vec<f64>", "Vec<f64>", "&[f64; N]")),
        ],
        id="vec-by-reference-mut-reference-and-value",
    ),
    pytest.param(
        """
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(a: std::vec::Vec<f32>, b: &alloc::vec::Vec<u8>) {}
        """,
        [
            (2, 29, 2, 47, vec_msg("a: std::vec::Vec<f32>", "std::vec::Vec<f32>", "&[f32; N]")),
            (2, 53, 2, 72, vec_msg("b: &alloc::vec::Vec<u8>", "alloc::vec::Vec<u8>", "&[u8; N]")),
        ],
        id="fully-qualified-paths",
    ),
    pytest.param(
        """
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(s: &String) {}
        """,
        [
            (2, 30, 2, 36, "kernel `k` takes `s: &String`: `String` owns a heap buffer, not flat data: the offload "
             "runtime copies `size_of::<String>()` bytes (pointer, capacity, length), not the elements, and the "
             "device then dereferences a host pointer; pass `&[u8; N]` instead "
             "(e.g. `s.as_bytes().try_into().unwrap()`)"),
        ],
        id="string",
    ),
    pytest.param(
        """
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(b: Box<[f32; 4]>, r: &Rc<f32>, a: Arc<[u32]>, o: Option<Box<f32>>) {}
        """,
        [
            (2, 29, 2, 42, ptr_msg("b: Box<[f32; 4]>", "Box<[f32; 4]>", "pass `&[f32; 4]` instead")),
            (2, 48, 2, 55, ptr_msg("r: &Rc<f32>", "Rc<f32>", "pass `&f32` instead")),
            (2, 60, 2, 70, ptr_msg("a: Arc<[u32]>", "Arc<[u32]>", "pass `&[u32; N]` instead")),
            (2, 82, 2, 90, ptr_msg("o: Option<Box<f32>>", "Box<f32>", "pass `Option<f32>` instead")),
        ],
        id="box-rc-arc-and-nested",
    ),
    pytest.param(
        """
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(d: &dyn Shape, f: Box<dyn Fn(f32) -> f32>) {}
        """,
        [
            (2, 30, 2, 39, DYN_MSG),
            (2, 44, 2, 67, ptr_msg("f: Box<dyn Fn(f32) -> f32>", "Box<dyn Fn(f32) -> f32>",
                                   "take a concrete type instead of `dyn Fn(f32) -> f32` "
                                   "(a generic parameter or an enum)")),
        ],
        id="trait-objects",
    ),
    pytest.param(
        """
        use std::collections::{HashMap, VecDeque};
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(m: &HashMap<u32, f32>, q: &mut VecDeque<u8>, t: &std::collections::BTreeMap<u8, u8>) {}
        """,
        [
            (3, 30, 3, 47, "kernel `k` takes `m: &HashMap<u32, f32>`: `HashMap<u32, f32>` keeps its entries in "
             "host heap memory, not flat data: the offload runtime copies `size_of::<HashMap<u32, f32>>()` bytes "
             "(its header), not the entries, and the device then dereferences host pointers; "
             "pass `&[(u32, f32); N]` instead"),
            (3, 57, 3, 69, "kernel `k` takes `q: &mut VecDeque<u8>`: `VecDeque<u8>` owns a heap buffer, not flat "
             "data: the offload runtime copies `size_of::<VecDeque<u8>>()` bytes (pointer, capacity, head, "
             "length), not the elements, and the device then dereferences a host pointer; "
             "pass `&mut [u8; N]` instead"),
            (3, 75, 3, 109, "kernel `k` takes `t: &std::collections::BTreeMap<u8, u8>`: "
             "`std::collections::BTreeMap<u8, u8>` keeps its entries in host heap memory, not flat data: the "
             "offload runtime copies `size_of::<std::collections::BTreeMap<u8, u8>>()` bytes (its header), "
             "not the entries, and the device then dereferences host pointers; pass `&[(u8, u8); N]` instead"),
        ],
        id="collections",
    ),
    pytest.param(
        """
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(x: &[Vec<f32>; 2], y: &Box<Vec<f32>>) {}
        """,
        [
            (2, 31, 2, 39, "kernel `k` takes `x: &[Vec<f32>; 2]`: `Vec<f32>` owns a heap buffer, not flat data: "
             "the offload runtime copies `size_of::<Vec<f32>>()` bytes (pointer, capacity, length), not the "
             "elements, and the device then dereferences a host pointer; pass `&[[f32; N]; 2]` instead"),
            (2, 49, 2, 62, ptr_msg("y: &Box<Vec<f32>>", "Box<Vec<f32>>", "pass `&[f32; N]` instead")),
        ],
        id="inside-array-and-outermost-only",
    ),
    pytest.param(
        """
        use cuda_std::prelude::*;
        #[kernel]
        pub unsafe fn k(v: Vec<f32>, d: &dyn Shape) {}
        """,
        [
            (3, 20, 3, 28, "kernel `k` takes `v: Vec<f32>`: `Vec<f32>` owns a heap buffer, not flat data: on the "
             "device its pointers are host addresses; pass the data in a device buffer instead"),
            (3, 34, 3, 43, "kernel `k` takes `d: &dyn Shape`: `dyn Shape` is a trait object, not flat data: its "
             "vtable holds host code addresses; take a concrete type (a generic parameter or an enum) instead"),
        ],
        id="rust-cuda-no-copy-claim",
    ),
    pytest.param(
        """
        use heapless::Vec;
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(a: &Vec<f32, 8>, b: &heapless::String<8>, c: &[f32; 4], d: &mut [u32; 8],
                                 e: f32, f: &my::Box<u8>) {}
        """,
        [],
        id="flat-types-and-other-crates-not-flagged",
    ),
    pytest.param(
        """
        fn host(v: &Vec<f32>, s: String, b: Box<dyn Fn()>, m: HashMap<u32, u32>) {}
        unsafe extern "C" {
            fn k(v: &Vec<f32>);
        }
        """,
        [],
        id="host-functions-not-flagged",
    ),
    pytest.param(
        """
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(v: &Vec<f32>) {
            let x = ;
            v[0] +
        }
        """,
        [(2, 30, 2, 38, vec_msg("v: &Vec<f32>", "Vec<f32>", "&[f32; N]"))],
        id="syntax-error-in-body",
    ),
]


@pytest.mark.parametrize(("src", "expected"), CASES)
def test_findings(src, expected):
    assert lint(dedent(src), RULE) == expected


def test_default_level_and_configured_allow():
    assert all_rules()[RULE].default_level is Level.DENY
    src = '#[rustc_offload_kernel]\nextern "gpu-kernel" fn k(v: &Vec<f32>) {}\n'
    assert [f.level for f in analyze_source(src.encode()).findings if f.rule == RULE] == [Level.DENY]
    assert [f for f in analyze_source(src.encode(), {RULE: Level.WARN}).findings
            if f.rule == RULE][0].level is Level.WARN
    assert [f for f in analyze_source(src.encode(), {RULE: Level.ALLOW}).findings if f.rule == RULE] == []
