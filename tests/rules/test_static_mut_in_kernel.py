"""static_mut_in_kernel: `static mut` read or written in device code."""

import pytest
from helpers import dedent, findings_of, lint

from offload_ls.analysis.engine import analyze_source
from offload_ls.analysis.model import Level
from offload_ls.analysis.rules import all_rules

RULE = "static_mut_in_kernel"


def writes(where: str, name: str) -> str:
    return (
        f"{where} writes `static mut {name}`: every GPU thread writes this one variable without "
        f"synchronisation (a data race), and it is the device's copy, not the host's, so the host never "
        f"sees the writes; return results through a `&mut` kernel argument instead"
    )


def reads(where: str, name: str) -> str:
    return (
        f"{where} reads `static mut {name}`: it is the device's copy, not the host's, so host writes to it "
        f"are not seen here, and a write by another GPU thread would be a data race; pass the value as a "
        f"kernel argument instead"
    )


def uses(where: str, name: str) -> str:
    return (
        f"{where} uses `static mut {name}`: every GPU thread shares this one variable without "
        f"synchronisation (writes are a data race), and it is the device's copy, not the host's, so values "
        f"never flow between them; pass the data as a kernel argument instead"
    )


K = "kernel `k`"

CASES = [
    pytest.param(
        """
        static mut COUNTER: u32 = 0;
        static mut TABLE: [f32; 4] = [0.0; 4];
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(x: &mut [f32; 4]) {
            unsafe {
                COUNTER += 1;
                x[0] = TABLE[1];
                TABLE[2] = x[1];
                crate::COUNTER = 7;
                let p = core::ptr::addr_of_mut!(COUNTER);
                (COUNTER).max(3);
            }
        }
        """,
        [
            (6, 9, 6, 16, writes(K, "COUNTER")),
            (7, 16, 7, 21, reads(K, "TABLE")),
            (8, 9, 8, 14, writes(K, "TABLE")),
            (9, 16, 9, 23, writes(K, "COUNTER")),
            (10, 41, 10, 48, uses(K, "COUNTER")),
            (11, 10, 11, 17, uses(K, "COUNTER")),
        ],
        id="reads-writes-and-uses-in-a-kernel",
    ),
    pytest.param(
        """
        static mut SCALE: f32 = 2.0;
        fn scale(v: f32) -> f32 { unsafe { v * SCALE } }
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(x: &mut [f32; 4]) {
            x[0] = scale(x[0]);
        }
        #[cfg(offload_device)]
        fn device_only() { unsafe { SCALE = 1.0 } }
        fn host() { unsafe { SCALE = 3.0; let s = SCALE; } }
        """,
        [
            (2, 40, 2, 45, reads("device function `scale` (called from kernel `k`)", "SCALE")),
            (8, 29, 8, 34, writes("device function `device_only` (under a device-only #[cfg])", "SCALE")),
        ],
        id="called-and-cfg-device-functions-but-not-host",
    ),
    pytest.param(
        """
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(x: &mut [f32; 4]) {
            static mut HITS: u32 = 0;
            static mut UNUSED: u32 = 0;
            unsafe { HITS += 1 };
        }
        """,
        [
            (4, 16, 4, 22, "kernel `k` declares `static mut UNUSED`: one variable shared by every GPU thread "
             "without synchronisation; use a local variable instead"),
            (5, 14, 5, 18, writes(K, "HITS")),
        ],
        id="declared-inside-the-kernel",
    ),
    pytest.param(
        """
        static mut COUNTER: u32 = 0;
        static LIMIT: u32 = 4;
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(x: &mut [u32; 4]) {
            let COUNTER = 5;
            x[0] = COUNTER + LIMIT;
            x.COUNTER();
        }
        """,
        [],
        id="shadowed-immutable-and-field-not-flagged",
    ),
    pytest.param(
        """
        static mut COUNTER: u32 = 0;
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(x: &mut [u32; 4]) {
            let y = ;
            unsafe { x[0] = COUNTER }
        }
        """,
        [(5, 21, 5, 28, reads(K, "COUNTER"))],
        id="syntax-error-in-body",
    ),
]


@pytest.mark.parametrize(("src", "expected"), CASES)
def test_findings(src, expected):
    assert lint(dedent(src), RULE) == expected


def test_declaration_is_related():
    src = dedent(
        """
        static mut COUNTER: u32 = 0;
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k() { unsafe { COUNTER += 1 } }
        """
    )
    (finding,) = findings_of(src, RULE)
    (related,) = finding.related
    assert (related.span.start, related.span.end) == (11, 18)
    assert src[related.span.start : related.span.end] == "COUNTER"
    assert related.message == "`static mut COUNTER` is declared here"


def test_default_level_and_configured_allow():
    assert all_rules()[RULE].default_level is Level.DENY
    src = 'static mut C: u32 = 0;\n#[rustc_offload_kernel]\nextern "gpu-kernel" fn k() { unsafe { C = 1 } }\n'
    assert [f.level for f in analyze_source(src.encode()).findings if f.rule == RULE] == [Level.DENY]
    assert [f for f in analyze_source(src.encode(), {RULE: Level.ALLOW}).findings if f.rule == RULE] == []
