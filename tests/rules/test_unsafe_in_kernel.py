"""unsafe_in_kernel: an unsafe context in a kernel that dereferences a raw pointer where
the ecosystem's kernels take references, or touches a `static mut` that is not shared
memory; nothing for what the ecosystem needs `unsafe` for."""

import logging

import pytest
from helpers import dedent, findings_of, lint, span_text

from offload_ls.analysis.engine import analyze_source
from offload_ls.analysis.model import Level
from offload_ls.analysis.rules import all_rules

RULE = "unsafe_in_kernel"
DEREF = ("take the buffer as a reference (`&[T; N]` / `&mut [T; N]`): no `unsafe`, bounds checks kept, "
         "and the compiler marks it `noalias`")
STATIC = ("pass the value as a kernel argument: a `static mut` is one variable for every GPU thread, "
          "without synchronisation")

CASES = [
    pytest.param(
        """
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn iota(out: *mut [f32; 256]) {
            let i = unsafe { _thread_idx_x() } as usize;
            unsafe { (*out)[i] = i as f32 };
        }
        """,
        [(4, 5, 4, 11, f"unsafe block in kernel `iota`: dereferences raw pointer `out`; {DEREF}")],
        id="thread-index-intrinsic-quiet-deref-reported",
    ),
    pytest.param(
        """
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(p: *mut f32, mut r: *const f32) {
            let q = unsafe { p.add(1) };
            unsafe { q.write(2.0) };
            unsafe { p.add(2).write(*r.offset(3)) };
            let p = 5.0f32;
            unsafe { let x = p; }
        }
        """,
        [
            (4, 5, 4, 11, f"unsafe block in kernel `k`: dereferences raw pointer `q`; {DEREF}"),
            (5, 5, 5, 11, f"unsafe block in kernel `k`: dereferences raw pointer `p`; dereferences raw pointer "
                          f"`r`; {DEREF}"),
        ],
        id="pointer-arithmetic-alone-quiet-locals-and-shadowing",
    ),
    pytest.param(
        """
        static mut COUNTER: u32 = 0;
        unsafe fn bump() {}
        unsafe extern "C" {
            fn workitem_id_x() -> u32;
        }
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(x: &mut [f32; 4]) {
            unsafe {
                COUNTER += 1;
                bump();
                let i = workitem_id_x() as usize;
                core::ptr::write(&mut x[i], 0.0);
                _syncthreads();
                core::arch::asm!("nop");
            }
        }
        """,
        [(8, 5, 8, 11, f"unsafe block in kernel `k`: accesses `static mut COUNTER`; {STATIC}")],
        id="only-the-static-mut-of-many-unsafe-operations",
    ),
    pytest.param(
        """
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(x: &mut f32, xs: &[f32; 4]) {
            unsafe { *x = other::launch_helper(); helper2(); Some(1); }
            unsafe {}
            let v = unsafe { *xs.get_unchecked(0) };
        }
        """,
        [],
        id="references-unsafe-calls-and-methods-quiet",
    ),
    pytest.param(
        """
        use cuda_std::prelude::*;
        #[kernel]
        pub unsafe fn add(a: *const f32, c: *mut f32) {
            let i = thread::index_1d() as usize;
            *c.add(i) = *a.add(i);
            unsafe { *c = 1.0 };
        }
        """,
        [],
        id="rust-cuda-unsafe-fn-and-device-pointers-are-the-idiom",
    ),
    pytest.param(
        """
        use cuda_std::prelude::*;
        static mut CALLS: u32 = 0;
        #[kernel]
        pub unsafe fn k(c: *mut f32) {
            #[address_space(shared)]
            static mut TILE: [f32; 256] = [0.0; 256];
            TILE[thread::thread_idx_x() as usize] = *c;
            unsafe { CALLS += 1; }
        }
        """,
        [(8, 5, 8, 11, f"unsafe block in kernel `k`: accesses `static mut CALLS`; {STATIC}")],
        id="rust-cuda-shared-memory-quiet-plain-static-reported",
    ),
    pytest.param(
        """
        #[rustc_offload_kernel]
        unsafe extern "gpu-kernel" fn k(out: *mut [f32; 4]) {
            let f = |j: usize| (*out)[j] = 0.0;
            fn nested(p: *mut f32) { unsafe { *p = 1.0 } }
        }
        """,
        [(2, 1, 2, 7, f"`unsafe fn` kernel `k`: dereferences raw pointer `out`; {DEREF}")],
        id="closures-inherit-nested-fns-do-not",
    ),
    pytest.param(
        """
        static mut COUNTER: u32 = 0;
        fn host(out: *mut [f32; 256], p: *mut f32) {
            let i = unsafe { _thread_idx_x() } as usize;
            unsafe { (*out)[i] = 1.0; p.add(1).write(2.0); COUNTER += 1; }
        }
        unsafe fn host2(p: *mut f32) { *p = 1.0; }
        """,
        [],
        id="host-code-not-flagged",
    ),
    pytest.param(
        """
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(out: *mut [f32; 4]) {
            let i = ;
            unsafe { (*out)[0] = 1.0 }
        }
        """,
        [(4, 5, 4, 11, f"unsafe block in kernel `k`: dereferences raw pointer `out`; {DEREF}")],
        id="syntax-error-in-body",
    ),
    pytest.param(
        """
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(out: *mut [f32; 4]) {
            // offload-ls: allow(unsafe_in_kernel)
            unsafe { (*out)[0] = 1.0 };
            unsafe { (*out)[1] = 1.0 }; // offload-ls: allow(unsafe_in_kernel)
            unsafe { (*out)[2] = 1.0 }
        }
        """,
        [(6, 5, 6, 11, f"unsafe block in kernel `k`: dereferences raw pointer `out`; {DEREF}")],
        id="suppressed-by-comment",
    ),
    pytest.param(
        """
        use spirv_std::spirv;
        #[spirv(compute(threads(64)))]
        pub fn k(#[spirv(global_invocation_id)] id: UVec3, out: *mut f32) {
            unsafe { *out.add(id.x as usize) = 1.0 };
        }
        """,
        [(4, 5, 4, 11, "unsafe block in kernel `k`: dereferences raw pointer `out`; take the buffer as a "
                       "reference (`&[T]` / `&mut [T]`): no `unsafe`, and bounds checks kept")],
        id="rust-gpu-advice-names-slices",
    ),
    pytest.param(
        """
        use cubecl::prelude::*;
        #[cube(launch_unchecked)]
        fn k(out: *mut f32) {
            unsafe { *out = 1.0 };
        }
        """,
        [(4, 5, 4, 11, "unsafe block in kernel `k`: dereferences raw pointer `out`; take the buffer as a "
                       "reference (`&Array<T>` / `&mut Array<T>`): no `unsafe`, and bounds checks kept")],
        id="cubecl-advice-names-arrays",
    ),
]


@pytest.mark.parametrize(("src", "expected"), CASES)
def test_findings(src, expected):
    assert lint(dedent(src), RULE) == expected


def test_related_locations_point_at_each_purpose():
    src = dedent(
        """
        static mut COUNTER: u32 = 0;
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(out: *mut [f32; 4]) {
            unsafe { (*out)[0] = 1.0; COUNTER += 1; (*out)[1] = 2.0; }
        }
        """
    )
    (finding,) = findings_of(src, RULE)
    data = src.encode()
    assert [(data[r.span.start : r.span.end].decode(), r.message) for r in finding.related] == [
        ("*out", "dereferences raw pointer `out`"),
        ("COUNTER", "accesses `static mut COUNTER`"),
    ]
    assert span_text(src, finding) == "unsafe"
    assert finding.message.endswith(f"{DEREF}; {STATIC}")


def test_broken_file_does_not_make_the_rule_fail(caplog):
    src = dedent(
        """
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(out: *mut [f32; 4]) {
            unsafe { (*out)[0] = 1.0 + ; }
            let x = out.add(;
            unsafe { q.add( }
        }
        """
    )
    with caplog.at_level(logging.ERROR):
        findings = lint(src, RULE)
    assert [r for r in caplog.records if RULE in r.getMessage()] == []
    assert findings == [(3, 5, 3, 11, f"unsafe block in kernel `k`: dereferences raw pointer `out`; {DEREF}")]


def test_default_level_and_configured_allow():
    assert all_rules()[RULE].default_level is Level.WARN
    src = '#[rustc_offload_kernel]\nextern "gpu-kernel" fn k(p: *mut f32) { unsafe { *p = 1.0 } }\n'
    assert [f.level for f in analyze_source(src.encode()).findings if f.rule == RULE] == [Level.WARN]
    assert [f for f in analyze_source(src.encode(), {RULE: Level.ALLOW}).findings if f.rule == RULE] == []
