"""host_only_api_in_kernel: exact findings and ranges in device code; host code and
`core` APIs are not reported."""

import pytest
from helpers import dedent, doc_rust_blocks, lint

from offload_ls.analysis.engine import analyze_source
from offload_ls.analysis.model import Level
from offload_ls.analysis.rules import all_rules

RULE = "host_only_api_in_kernel"

CORE = "the device pass builds with `core` only (`-Zbuild-std=core`)"


def printing(shown, where, name):
    return (f"`{shown}` {where}: there is no I/O on the GPU — {CORE}, which has no `{name}`; write the "
            f"values into an output buffer and print them on the host after the launch")


def alloc(shown, where, name):
    return (f"`{shown}` {where}: there is no allocator on the GPU — {CORE}, which has no `{name}`; use a "
            f"fixed-size array (`[T; N]`) or write into an output buffer that the host allocates and "
            f"passes to the kernel")


def std(shown, where, instead, build=CORE):
    return (f"`{shown}` {where}: `std` and `alloc` do not exist on the GPU — {build}; use {instead}, and "
            f"keep allocation and I/O on the host")


K = "in kernel `k`"

CASES = [
    pytest.param(
        """
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(x: &[f32; 4]) {
            println!("{}", x[0]);
            print!("a");
            eprintln!("b");
            eprint!("c");
            dbg!(x[0]);
            std::println!("d");
        }
        """,
        [
            (3, 5, 3, 13, printing("println!", K, "println!")),
            (4, 5, 4, 11, printing("print!", K, "print!")),
            (5, 5, 5, 14, printing("eprintln!", K, "eprintln!")),
            (6, 5, 6, 12, printing("eprint!", K, "eprint!")),
            (7, 5, 7, 9, printing("dbg!", K, "dbg!")),
            (8, 5, 8, 18, printing("std::println!", K, "println!")),
        ],
        id="printing-macros",
    ),
    pytest.param(
        """
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(x: &[f32; 4]) {
            let v: Vec<f32> = Vec::new();
            let w = vec![1, 2];
            let s = format!("{}", x[0]);
            let b = Box::new(1);
            let t = String::from("a");
            let c = x.iter().copied().collect::<Vec<_>>();
            let u = x[0].to_string();
            let d = x.to_vec();
            let e = "a".to_owned();
        }
        """,
        [
            (3, 12, 3, 20, alloc("Vec<f32>", K, "Vec")),
            (3, 23, 3, 31, alloc("Vec::new", K, "Vec")),
            (4, 13, 4, 17, alloc("vec!", K, "vec!")),
            (5, 13, 5, 20, alloc("format!", K, "format!")),
            (6, 13, 6, 21, alloc("Box::new", K, "Box")),
            (7, 13, 7, 25, alloc("String::from", K, "String")),
            (8, 41, 8, 47, alloc("Vec<_>", K, "Vec")),
            (9, 18, 9, 27, alloc(".to_string()", K, ".to_string()")),
            (10, 15, 10, 21, alloc(".to_vec()", K, ".to_vec()")),
            (11, 17, 11, 25, alloc(".to_owned()", K, ".to_owned()")),
        ],
        id="allocation",
    ),
    pytest.param(
        """
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(y: &mut [f32; 4]) {
            y[0] = std::f32::consts::PI;
            y[1] = ::std::f32::consts::E;
            let v = std::vec::Vec::<Vec<u8>>::new();
            let m: std::collections::HashMap<u32, u32> = Default::default();
        }
        """,
        [
            (3, 12, 3, 32, std("std::f32::consts::PI", K, "`core::f32::consts::PI` if the item exists in `core`")),
            (4, 12, 4, 33, std("::std::f32::consts::E", K, "`core::f32::consts::E` if the item exists in `core`")),
            (5, 13, 5, 42, alloc("std::vec::Vec::<Vec<u8>>::new", K, "Vec")),
            (6, 12, 6, 47, alloc("std::collections::HashMap<u32, u32>", K, "HashMap")),
        ],
        id="std-paths",
    ),
    pytest.param(
        """
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(y: &mut [f32; 4]) {
            y[0] = helper();
        }
        fn helper() -> f32 {
            let v = vec![1.0f32];
            deeper(&v)
        }
        fn deeper(v: &[f32]) -> f32 {
            println!("deep");
            v[0]
        }
        #[cfg(offload_device)]
        fn dev_only() {
            let s = String::new();
        }
        """,
        [
            (6, 13, 6, 17, alloc("vec!", "in `helper`, called from kernel `k`", "vec!")),
            (10, 5, 10, 13, printing("println!", "in `deeper`, called from device function `helper`", "println!")),
            (15, 13, 15, 24, alloc("String::new", "in `dev_only`, under a device-only #[cfg]", "String")),
        ],
        id="called-functions-and-device-cfg",
    ),
    pytest.param(
        """
        #[kernel]
        pub unsafe fn k(out: *mut f32) {
            cuda_std::println!("{}", 1);
            println!("thread {}", 1);
            let v = vec![1u8];
            *out = std::f32::consts::PI;
        }
        """,
        [(6, 12, 6, 32, std("std::f32::consts::PI", K, "`core::f32::consts::PI` if the item exists in `core`",
                            build="Rust-CUDA kernels are built `#![no_std]`"))],
        id="rust-cuda-has-println-and-an-allocator",
    ),
    # ---------------------------------------------------------------- not reported
    pytest.param(
        """
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(y: &mut [f32; 4], n: usize) {
            if n > 4 {
                panic!("n = {} is too large", n);
            }
            assert!(n <= 4, "n = {}", n);
            debug_assert_eq!(y.len(), 4);
            y[0] = core::f32::consts::PI;
            let m = core::cmp::max(1, 2);
            unreachable_if(n);
        }
        fn unreachable_if(n: usize) {
            if n == 5 { unreachable!("n = {}", n) }
        }
        """,
        [],
        id="core-macros-and-paths",
    ),
    pytest.param(
        """
        fn main() {
            let v: Vec<f32> = vec![0.0; 4];
            println!("{:?}", v);
            let s = String::from("host");
            let p = std::f32::consts::PI;
        }
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(y: &mut [f32; 4]) {}
        """,
        [],
        id="host-code-of-the-same-file",
    ),
    pytest.param(
        """
        struct Vec { x: [f32; 4] }
        macro_rules! vec { () => { 0 } }
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(y: &mut [f32; 4]) {
            let v: Vec = Vec { x: [0.0; 4] };
            let z = vec!();
        }
        """,
        [],
        id="names-defined-in-the-file",
    ),
    pytest.param(
        """
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(y: &mut [f32; 4]) {
            let broken = ;
            println!("x");
        }
        """,
        [(4, 5, 4, 13, printing("println!", K, "println!"))],
        id="syntax-error-in-kernel",
    ),
    pytest.param(
        """
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(y: &mut [f32; 4]) {
            // offload-ls: allow(host_only_api_in_kernel)
            println!("x");
        }
        """,
        [],
        id="suppressed-by-comment",
    ),
]


@pytest.mark.parametrize(("src", "expected"), CASES)
def test_findings(src, expected):
    assert lint(dedent(src), RULE) == expected


def test_default_level_and_configured_allow():
    src = '#[rustc_offload_kernel]\nextern "gpu-kernel" fn k() { println!("x"); }\n'
    assert all_rules()[RULE].default_level is Level.DENY
    assert [f.level for f in analyze_source(src.encode()).findings if f.rule == RULE] == [Level.DENY]
    assert [f for f in analyze_source(src.encode(), {RULE: Level.ALLOW}).findings if f.rule == RULE] == []


def test_doc_page_example_is_reported_and_fix_is_not():
    blocks = doc_rust_blocks(RULE)
    example, fixed = blocks[0], blocks[1]
    assert [f[:4] for f in lint(example, RULE)] == [(5, 16, 5, 24), (5, 29, 5, 35), (6, 9, 6, 17),
                                                    (7, 23, 7, 43)]
    assert lint(fixed, RULE) == []


HOST_TWIN = """
pub const N: usize = 1024;
#[cfg(offload_device)] fn trace(_i: usize) {}
#[cfg(not(offload_device))] fn trace(i: usize) { eprintln!("element {i}"); }
#[cfg(all(unix, not(target_arch = "nvptx64")))] fn note(i: usize) { println!("{i}"); }
#[cfg(not(offload_device))] mod hostonly { pub fn note(i: usize) { println!("{i}"); } }
mod device {
    pub fn weight(x: f32) -> f32 { x * 2.0 }
}
mod host {
    pub fn weight(x: f32) -> f32 { println!("{x}"); x }
}
#[rustc_offload_kernel]
pub extern "gpu-kernel" fn scale(y: &mut [f32; N]) {
    let i = unsafe { _block_idx_x() * _block_dim_x() + _thread_idx_x() } as usize;
    if i < N { trace(i); note(i); y[i] = device::weight(y[i]); }
}
"""


def test_a_host_only_twin_or_another_modules_function_is_not_device_code():
    # the device pass compiles `#[cfg(offload_device)] fn trace`, never the host twin;
    # `device::weight` is not `host::weight`
    assert lint(dedent(HOST_TWIN), RULE) == []


def test_the_same_call_into_an_ungated_function_is_reported():
    src = dedent(HOST_TWIN.replace("#[cfg(not(offload_device))] fn trace", "fn trace")
                 .replace("device::weight(y[i])", "host::weight(y[i])"))
    found = [(line, msg.split(":")[0]) for line, _, _, _, msg in lint(src, RULE)]
    assert found == [(3, "`eprintln!` in `trace`, called from kernel `scale`"),
                     (10, "`println!` in `weight`, called from kernel `scale`")]


def test_a_host_attributed_twin_is_not_device_code():
    """cudars marks the two bodies of one function `#[device]` and `#[host]` (audit I1): the
    kernel's call reaches the device one only."""
    src = dedent("""
        #![no_std]
        #![feature(abi_ptx, stdarch_nvptx)]
        use core::arch::nvptx::*;
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn sum_kernel(x: *const f32, n: usize, out: *mut f32) {
            sum(core::slice::from_raw_parts(x, n), core::slice::from_raw_parts_mut(out, n))
        }
        #[device]
        fn sum(x: &[f32], out: &mut [f32]) {
            let i = (_block_dim_x() * _block_idx_x() + _thread_idx_x()) as usize;
            if i < x.len() { out[i] = x[i]; }
        }
        #[host]
        fn sum(x: &[f32], out: &mut [f32]) {
            println!("host sum {}", x.len());
            out.copy_from_slice(&x.to_vec());
        }
        """)
    assert lint(src, RULE) == []
    without = src.replace("#[host]\n", "")
    assert [msg.split(":")[0] for *_, msg in lint(without, RULE)] == [
        "`println!` in `sum`, called from kernel `sum_kernel`", "`.to_vec()` in `sum`, called from kernel `sum_kernel`"]


def test_a_primitive_types_function_is_not_a_function_of_the_file():
    """`f32::new(0.0)` (CubeCL), `u32::max(a, b)`, `<f32 as Float>::new(1.0)` and
    `SharedMemory::<f32>::new(64)` are other types' functions: a host `impl Engine { fn new }`
    of the file is not called (audit J2)."""
    src = dedent("""
        use cubecl::prelude::*;
        #[cube(launch_unchecked)]
        fn k(buf: &mut Array<f32>) {
            let acc = f32::new(0.0) + f32::from_bits(u32::max(1, 2)) + <f32 as Float>::new(1.0);
            let mut red = SharedMemory::<f32>::new(64);
            red[UNIT_POS as usize] = acc;
            buf[UNIT_POS as usize] = red[0];
        }
        pub struct Engine { v: Vec<f32> }
        impl Engine {
            pub fn new(n: usize) -> Self { Engine { v: vec![0f32; n] } }
            pub fn max(&self) -> f32 { println!("max"); 0.0 }
            pub fn from_bits(b: u32) -> String { b.to_string() }
        }
        """)
    assert lint(src, RULE) == []
    # the same calls through the file's type reach its functions
    called = src.replace("f32::new(0.0)", "Engine::new(4).v[0]")
    assert [msg.split(":")[0] for *_, msg in lint(called, RULE)] == ["`vec!` in `new`, called from kernel `k`"]
