"""aliased_launch_args: exact findings, ranges and related locations."""

import pytest
from helpers import dedent, doc_rust_blocks, findings_of, lint, located

from offload_ls.analysis.engine import analyze_source
from offload_ls.analysis.model import Level
from offload_ls.analysis.rules import all_rules

RULE = "aliased_launch_args"

NOALIAS = ("the kernel gets two pointers to one buffer while the compiler marks `&mut` parameters `noalias` "
           "(undefined behavior)")
RAW = ("the kernel gets two pointers to one buffer and writes through one of them, so what the other reads "
       "depends on the order the GPU threads run in")
FIX = "; pass the buffer once and let the kernel read and write it through that parameter"


def alias(i, a, j, b, kernel, what, why, maps=None, place="x"):
    of = f"this launch of `{kernel}`" if kernel else "this launch"
    text = f"argument {i} (`{a}`) and argument {j} (`{b}`) of {of} {what}: {why}"
    if maps:
        text += (f", and the offload runtime maps `{place}` twice ({maps}): "
                 "which one wins on the way back to the host is unspecified")
    return text + FIX


TO_TOFROM = 'the "to" copy and the "tofrom" copy'
TOFROM_TO = 'the "tofrom" copy and the "to" copy'
TOFROM_TOFROM = 'two "tofrom" copies'


def cast(text, place):
    return (f"`{text}` casts a shared reference to `{place}` into a mutable pointer: writing through it (as a "
            f"kernel does through a `*mut` parameter) is undefined behavior, because `{place}` is only borrowed "
            f"for reading (with offload, a `&{place}` argument is mapped \"to\" only, never copied back); take "
            f"the pointer from a mutable borrow instead (`&mut {place} as *mut _` or `{place}.as_mut_ptr()`)")


KERNELS = """
#[rustc_offload_kernel]
extern "gpu-kernel" fn k(a: &[f32; 4], b: &mut [f32; 4]) {}
#[rustc_offload_kernel]
extern "gpu-kernel" fn kp(a: *mut f32, b: *const f32) {}
"""

SAME = "are the same buffer `x`"

CASES = [
    pytest.param(
        """
        fn main() {
            let mut x = [0.0f32; 4];
            offload! { kernel = k, workgroup_dim = [1, 1, 1], thread_dim = [4, 1, 1], args = (&x, &mut x) }
        }
        """,
        [(7, 91, 7, 97, alias(1, "&x", 2, "&mut x", "k", SAME, NOALIAS, TO_TOFROM))],
        id="offload-macro-shared-and-mut",
    ),
    pytest.param(
        """
        fn main() {
            let mut x = [0.0f32; 4];
            core::intrinsics::offload(k2, [1, 1, 1], [4, 1, 1], (&mut x, &mut x));
        }
        """,
        [(7, 66, 7, 72, alias(1, "&mut x", 2, "&mut x", "k2", SAME, NOALIAS, TOFROM_TOFROM))],
        id="mut-twice-unknown-kernel",
    ),
    pytest.param(
        """
        fn main() {
            let mut x = [0.0f32; 4];
            core::intrinsics::offload(kp, [1, 1, 1], [4, 1, 1], (x.as_mut_ptr(), x.as_ptr()));
            let p = x.as_mut_ptr();
            core::intrinsics::offload(kp, [1, 1, 1], [4, 1, 1], (p, x.as_ptr()));
        }
        """,
        [
            (7, 74, 7, 84, alias(1, "x.as_mut_ptr()", 2, "x.as_ptr()", "kp", SAME, RAW, TOFROM_TO)),
            (9, 61, 9, 71, alias(1, "p", 2, "x.as_ptr()", "kp", SAME, RAW, TOFROM_TO)),
        ],
        id="as-mut-ptr-and-as-ptr-also-through-a-let",
    ),
    pytest.param(
        """
        fn launch(out: *mut f32, n: u32) {
            core::intrinsics::offload(kp, [1, 1, 1], [4, 1, 1], (out, out));
            core::intrinsics::offload(kp, [1, 1, 1], [4, 1, 1], (r, r));
            core::intrinsics::offload(other, [1, 1, 1], [4, 1, 1], (out, out));
            core::intrinsics::offload(other, [1, 1, 1], [4, 1, 1], (r, r));
            core::intrinsics::offload(other, [1, 1, 1], [4, 1, 1], (n, n));
        }
        """,
        [
            (6, 63, 6, 66, alias(1, "out", 2, "out", "kp", "are the same buffer `out`", RAW, TOFROM_TO, "out")),
            (7, 61, 7, 62, alias(1, "r", 2, "r", "kp", "are the same buffer `r`", RAW, TOFROM_TO, "r")),
            (8, 66, 8, 69, alias(1, "out", 2, "out", "other", "are the same buffer `out`", RAW, TOFROM_TOFROM,
                                 "out")),
        ],
        id="same-pointer-twice-kernel-param-or-declared-type-says-mut",
    ),
    pytest.param(
        """
        fn main() {
            core::intrinsics::offload(k2, (&mut s.a, &s.b));
            core::intrinsics::offload(k2, (&mut s, &s.a));
            core::intrinsics::offload(k2, (&mut x[..], &*x));
        }
        """,
        [
            (7, 44, 7, 48, alias(1, "&mut s", 2, "&s.a", "k2", "overlap (`s` contains `s.a`)", NOALIAS,
                                 TOFROM_TO, "s")),
            (8, 48, 8, 51, alias(1, "&mut x[..]", 2, "&*x", "k2", SAME, NOALIAS, TOFROM_TO)),
        ],
        id="fields-slices-and-derefs",
    ),
    pytest.param(
        """
        #[kernel]
        pub unsafe fn kc(a: *mut f32, b: *const f32) {}
        fn main() {
            launch!(module.kc<<<1, 32, 0, stream>>>(x.as_device_ptr(), x.as_device_ptr()))?;
        }
        """,
        [(8, 64, 8, 81, alias(1, "x.as_device_ptr()", 2, "x.as_device_ptr()", "kc", SAME, RAW))],
        id="rust-cuda-launch-no-map-types",
    ),
    pytest.param(
        """
        fn main() {
            let mut x = [0.0f32; 4];
            let p = &x as *const _ as *mut [f32; 4];
            let q = (&x as *const [f32; 4]).cast_mut();
            offload! { kernel = k, args = (&x, &x as *const _ as *mut _) }
        }
        fn after() {
            let z = &x as *const [f32; 4] as *mut [f32; 4];
        }
        """,
        [
            (7, 13, 7, 44, cast("&x as *const _ as *mut [f32; 4]", "x")),
            (8, 13, 8, 47, cast("(&x as *const [f32; 4]).cast_mut()", "x")),
            (9, 40, 9, 64, alias(1, "&x", 2, "&x as *const _ as *mut _", "k", SAME, NOALIAS, TO_TOFROM)),
            (9, 40, 9, 64, cast("&x as *const _ as *mut _", "x")),
        ],
        id="shared-to-mutable-casts-at-or-before-a-launch",
    ),
    # ---------------------------------------------------------------- not reported
    pytest.param(
        """
        fn main() {
            let mut x = [0.0f32; 4];
            let mut y = [0.0f32; 4];
            core::intrinsics::offload(k, [1, 1, 1], [4, 1, 1], (&x, &mut y));
            core::intrinsics::offload(k, [1, 1, 1], [4, 1, 1], (&x, &x));
            core::intrinsics::offload(kp, [1, 1, 1], [4, 1, 1], (x.as_ptr(), x.as_ptr()));
            core::intrinsics::offload(k2, (&mut s.a, &s.b));
            core::intrinsics::offload(k2, (&mut x, x.len()));
            core::intrinsics::offload(k2, (&mut x, 4, 4));
            let p = &mut x as *mut [f32; 4];
            let q = x.as_mut_ptr() as *const f32 as *mut f32;
        }
        """,
        [],
        id="distinct-or-read-only-arguments",
    ),
    pytest.param(
        """
        fn main() {
            let broken = ;
            offload! { kernel = k, args = (&x, &mut x) }
            core::intrinsics::offload(k, [1, 1, 1], [4, 1, 1], (&x, &mut x));
        }
        fn also_broken( {
        """,
        [
            (7, 40, 7, 46, alias(1, "&x", 2, "&mut x", "k", SAME, NOALIAS, TO_TOFROM)),
            (8, 61, 8, 67, alias(1, "&x", 2, "&mut x", "k", SAME, NOALIAS, TO_TOFROM)),
        ],
        id="syntax-errors-in-the-file",
    ),
    pytest.param(
        """
        fn main() {
            // offload-ls: allow(aliased_launch_args)
            core::intrinsics::offload(k, [1, 1, 1], [4, 1, 1], (&x, &mut x));
        }
        """,
        [],
        id="suppressed-by-comment",
    ),
]


@pytest.mark.parametrize(("src", "expected"), CASES)
def test_findings(src, expected):
    assert lint(KERNELS.lstrip("\n") + dedent(src), RULE) == expected


def test_related_location_is_the_first_argument():
    src = KERNELS.lstrip("\n") + ("fn main() {\n"
                                  "    core::intrinsics::offload(k, [1, 1, 1], [4, 1, 1], (&x, &mut x));\n}\n")
    (finding,) = findings_of(src, RULE)
    assert [(r.message, src.encode()[r.span.start:r.span.end].decode()) for r in finding.related] == [
        ("argument 1: `&x`", "&x")
    ]
    assert located(src, finding.related)[0][:4] == (6, 57, 6, 59)


def test_default_level_and_configured_allow():
    src = "fn main() { core::intrinsics::offload(k, (&x, &mut x)); }\n"
    assert all_rules()[RULE].default_level is Level.DENY
    assert [f.level for f in analyze_source(src.encode()).findings if f.rule == RULE] == [Level.DENY]
    assert [f for f in analyze_source(src.encode(), {RULE: Level.ALLOW}).findings if f.rule == RULE] == []


def test_doc_page_example_is_reported_and_fix_is_not():
    blocks = doc_rust_blocks(RULE)
    example, fixed = blocks[0], blocks[1]
    assert [f[:4] for f in lint(example, RULE)] == [(6, 13, 6, 46), (7, 82, 7, 90)]
    assert lint(fixed, RULE) == []
