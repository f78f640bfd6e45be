"""unsafe_in_kernel: one finding per unsafe context in a kernel, saying what it is for."""

import logging

import pytest
from helpers import dedent, findings_of, lint, span_text

from offload_ls.analysis.engine import analyze_source
from offload_ls.analysis.model import Level
from offload_ls.analysis.rules import all_rules

RULE = "unsafe_in_kernel"

CASES = [
    pytest.param(
        """
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn iota(out: *mut [f32; 256]) {
            let i = unsafe { _thread_idx_x() } as usize;
            unsafe { (*out)[i] = i as f32 };
        }
        """,
        [
            (3, 13, 3, 19, "unsafe block in kernel `iota`: calls thread-index intrinsic `_thread_idx_x`"),
            (4, 5, 4, 11, "unsafe block in kernel `iota`: dereferences raw pointer `out`"),
        ],
        id="iota",
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
            (3, 13, 3, 19, "unsafe block in kernel `k`: offsets raw pointer `p`"),
            (4, 5, 4, 11, "unsafe block in kernel `k`: dereferences raw pointer `q`"),
            (5, 5, 5, 11, "unsafe block in kernel `k`: dereferences raw pointer `p`; dereferences raw pointer `r`"),
            (7, 5, 7, 11, "unsafe block in kernel `k`: no unsafe operation recognised"),
        ],
        id="pointer-arithmetic-locals-and-shadowing",
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
        [
            (8, 5, 8, 11, "unsafe block in kernel `k`: accesses `static mut COUNTER`; calls unsafe function "
             "`bump`; calls thread-index intrinsic `workitem_id_x`; calls unsafe function `ptr::write`; "
             "calls GPU intrinsic `_syncthreads`; contains inline assembly (`asm!`)"),
        ],
        id="static-mut-unsafe-calls-intrinsics-asm",
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
        [
            (3, 5, 3, 11, "unsafe block in kernel `k`: no unsafe operation recognised; it calls "
             "`other::launch_helper`, `helper2`, defined outside this file"),
            (4, 5, 4, 11, "unsafe block in kernel `k`: no unsafe operation recognised"),
            (5, 13, 5, 19, "unsafe block in kernel `k`: calls unsafe method `get_unchecked`"),
        ],
        id="references-unknown-calls-and-unsafe-methods",
    ),
    pytest.param(
        """
        use cuda_std::prelude::*;
        #[kernel]
        pub unsafe fn add(a: *const f32, c: *mut f32) {
            let i = thread::index_1d() as usize;
            *c.add(i) = *a.add(i);
        }
        """,
        [(3, 5, 3, 11, "`unsafe fn` kernel `add`: dereferences raw pointer `c`; dereferences raw pointer `a`")],
        id="rust-cuda-unsafe-fn",
    ),
    pytest.param(
        """
        #[kernel]
        pub unsafe fn k(c: *mut f32) {
            unsafe { *c = 1.0 };
        }
        """,
        [
            (2, 5, 2, 11, "`unsafe fn` kernel `k`: no unsafe operation recognised outside its `unsafe` blocks"),
            (3, 5, 3, 11, "unsafe block in kernel `k`: dereferences raw pointer `c`"),
        ],
        id="unsafe-fn-with-block",
    ),
    pytest.param(
        """
        #[rustc_offload_kernel]
        unsafe extern "gpu-kernel" fn k(out: *mut [f32; 4]) {
            let f = |j: usize| (*out)[j] = 0.0;
            fn nested(p: *mut f32) { unsafe { *p = 1.0 } }
        }
        """,
        [(2, 1, 2, 7, "`unsafe fn` kernel `k`: dereferences raw pointer `out`")],
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
        [(4, 5, 4, 11, "unsafe block in kernel `k`: dereferences raw pointer `out`")],
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
        [(6, 5, 6, 11, "unsafe block in kernel `k`: dereferences raw pointer `out`")],
        id="suppressed-by-comment",
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
    assert findings == [(3, 5, 3, 11, "unsafe block in kernel `k`: dereferences raw pointer `out`"),
                        (5, 5, 5, 11, "unsafe block in kernel `k`: no unsafe operation recognised")]


def test_default_level_and_configured_allow():
    assert all_rules()[RULE].default_level is Level.WARN
    src = '#[rustc_offload_kernel]\nextern "gpu-kernel" fn k(p: *mut f32) { unsafe { *p = 1.0 } }\n'
    assert [f.level for f in analyze_source(src.encode()).findings if f.rule == RULE] == [Level.WARN]
    assert [f for f in analyze_source(src.encode(), {RULE: Level.ALLOW}).findings if f.rule == RULE] == []
