"""unindexed_kernel_write: exact findings and ranges; thread-derived, guarded and host writes
are not reported."""

import pytest
from helpers import dedent, doc_rust_blocks, lint

from offload_ls.analysis.engine import analyze_source
from offload_ls.analysis.model import Level
from offload_ls.analysis.rules import all_rules

RULE = "unindexed_kernel_write"


def msg(place, kernel, param, fix):
    return (
        f"every GPU thread writes `{place}`: the place does not depend on the thread index, so all "
        f"threads of a launch of kernel `{kernel}` store to the same element of `{param}` (a data race: "
        + fix
    )


#: the advice when the kernel reads no thread index anywhere
NO_INDEX = ("the kernel reads no thread index at all, so its threads cannot be told apart: launch it with "
            "one thread, or read the thread index and ")


def plain(place, kernel, param, indexed, reads_index=True):
    if not reads_index:
        return msg(place, kernel, param, f"which thread's value remains is unspecified); {NO_INDEX}index with "
                                         f"it (`{indexed}`)")
    return msg(place, kernel, param,
               f"which thread's value remains is unspecified); index with the thread index (`{indexed}`), "
               f"or let a single thread write (`if i == 0 {{ .. }}`)")


def compound(place, kernel, param, indexed, reads_index=True):
    if not reads_index:
        return msg(place, kernel, param, f"the read-modify-write of one thread overwrites the others', so updates "
                                         f"are lost); {NO_INDEX}index with it (`{indexed}`)")
    return msg(place, kernel, param,
               f"the read-modify-write of one thread overwrites the others', so updates are lost); index "
               f"with the thread index (`{indexed}`), or accumulate with an atomic or a reduction")


SCALAR_SET = msg("*p", "k", "p", "which thread's value remains is unspecified); " + NO_INDEX + "let a single "
                 "thread write")
SCALAR_ADD = msg("*q", "k", "q", "the read-modify-write of one thread overwrites the others', so updates "
                 "are lost); " + NO_INDEX + "let a single thread write")

TID = "let i = unsafe { (_block_idx_x() * _block_dim_x() + _thread_idx_x()) as usize };"

CASES = [
    pytest.param(
        """
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(y: &mut [f32; 4]) {
            y[0] = 1.0;
        }
        """,
        [(3, 5, 3, 9, plain("y[0]", "k", "y", "y[i]", False))],
        id="literal-index",
    ),
    pytest.param(
        """
        const K: usize = 3;
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(x: &[f32; 4], y: &mut [f32; 4]) {
            y[K] += x[0];
            y[K - 1] = 0.0;
        }
        """,
        [
            (4, 5, 4, 9, compound("y[K]", "k", "y", "y[i]", False)),
            (5, 5, 5, 13, plain("y[K - 1]", "k", "y", "y[i]", False)),
        ],
        id="constant-index-and-arithmetic",
    ),
    pytest.param(
        """
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(n: &usize, m: &mut usize, y: &mut [f32; 4]) {
            y[*n] = 1.0;
            y[*m] = 2.0;
        }
        """,
        [(3, 5, 3, 10, plain("y[*n]", "k", "y", "y[i]", False))],
        id="index-read-from-a-shared-reference-parameter",
    ),
    pytest.param(
        f"""
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(x: &[f32; 4], y: &mut [f32; 4], out: &mut f32) {{
            {TID}
            if i < 1 {{ y[0] = x[0]; }}
            if 0 >= i {{ y[1] = x[1]; }}
            if !(i >= 1) {{ y[2] = x[2]; }}
            if i > 0 {{ return; }}
            *out = x[3];
        }}
        """,
        [],
        id="inequalities-that-admit-thread-zero-only",
    ),
    pytest.param(
        """
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(x: &[f32; 1024], y: &mut [f32; 4], done: &mut u32) {
            let t = unsafe { _thread_idx_x() } as usize;
            let i = unsafe { _block_idx_x() * _block_dim_x() } as usize + t;
            let s = x[i % 1024];
            if t == 0 { y[0] += s; }
            if t == 0 { y[1] = s; }
            if t == 0 { *done = 1; }
        }
        """,
        [(6, 17, 6, 21, "one thread of every block writes `y[0]`: the condition picks a thread by its index "
                        "within the block, and kernel `k` reads its block's position (it is written for a launch "
                        "of many blocks), so they all store to the "
                        "same element of `y` (a data race: the read-modify-write of one block overwrites the "
                        "others', so updates are lost); accumulate with an atomic, or write one element per "
                        "block (indexed by the block index) and combine them afterwards"),
         (7, 17, 7, 21, "one thread of every block writes `y[1]`: the condition picks a thread by its index "
                        "within the block, and kernel `k` reads its block's position (it is written for a launch "
                        "of many blocks), so they all store to the "
                        "same element of `y` (a data race: which block's value remains is unspecified); write "
                        "one element per block (indexed by the block index), or let one thread of one block "
                        "write")],
        id="thread-zero-of-every-block",
    ),
    pytest.param(
        """
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(x: &[f32; 256], y: &mut [f32; 4]) {
            let t = unsafe { _thread_idx_x() } as usize;
            if t == 0 { y[0] += x[t]; }
        }
        fn main() {
            let x = [0.0f32; 256];
            let mut y = [0.0f32; 4];
            core::intrinsics::offload(k, [1, 1, 1], [256, 1, 1], (&x, &mut y));
        }
        """,
        [],
        id="thread-zero-of-the-one-block-of-every-launch",
    ),
    pytest.param(
        """
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(out: *mut [f32; 4]) {
            unsafe { (*out)[3] = 2.0; }
        }
        """,
        [(3, 14, 3, 23, plain("(*out)[3]", "k", "out", "(*out)[i]", False))],
        id="raw-pointer-to-array",
    ),
    pytest.param(
        """
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(p: *mut f32, q: &mut f32) {
            unsafe { *p = 1.0; }
            *q += 1.0;
        }
        """,
        [(3, 14, 3, 16, SCALAR_SET), (4, 5, 4, 7, SCALAR_ADD)],
        id="pointer-and-reference-to-one-scalar",
    ),
    pytest.param(
        """
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(y: &mut [f32; 8]) {
            let j = 5;
            let m = j * 2 - 3;
            y[j] += 1.0;
            y[m as usize] = 0.0;
        }
        """,
        [
            (5, 5, 5, 9, compound("y[j]", "k", "y", "y[i]", False)),
            (6, 5, 6, 18, plain("y[m as usize]", "k", "y", "y[i]", False)),
        ],
        id="let-bound-constant-index",
    ),
    pytest.param(
        """
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(y: &mut [f32; 8], n: usize) {
            y[n] = 1.0;
        }
        """,
        [(3, 5, 3, 9, plain("y[n]", "k", "y", "y[i]", False))],
        id="kernel-parameter-is-the-same-for-every-thread",
    ),
    pytest.param(
        """
        #[kernel]
        pub unsafe fn k(out: *mut f32) {
            *out.add(2) = 1.0;
        }
        """,
        [(3, 5, 3, 16, plain("*out.add(2)", "k", "out", "*out.add(i)", False))],
        id="rust-cuda-pointer-offset",
    ),
    pytest.param(
        f"""
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(x: &[f32; 1024], total: &mut f32) {{
            {TID}
            if i < 1024 {{
                *total += x[i];
            }}
        }}
        """,
        [(5, 9, 5, 15, msg("*total", "k", "total", "the read-modify-write of one thread overwrites the "
                           "others', so updates are lost); let a single thread write (`if i == 0 { .. }`), "
                           "or accumulate with an atomic"))],
        id="bounds-guard-still-lets-many-threads-race",
    ),
    pytest.param(
        """
        #[cube(launch)]
        fn k(out: &mut Array<f32>) {
            out[0] = 1.0;
        }
        """,
        [(3, 5, 3, 11, plain("out[0]", "k", "out", "out[i]", False))],
        id="cubecl",
    ),
    # ---------------------------------------------------------------- not reported
    pytest.param(
        f"""
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(y: &mut [f32; 1024], out: *mut [f32; 1024]) {{
            {TID}
            let j = i * 2 + 1;
            y[i] = 1.0;
            y[j / 2] = 2.0;
            unsafe {{ (*out)[i as usize] = 3.0; }}
        }}
        """,
        [],
        id="thread-derived-index",
    ),
    pytest.param(
        """
        #[kernel]
        pub unsafe fn k(out: *mut f32) {
            let i = thread::index_1d() as usize;
            *out.add(i) = 1.0;
        }
        #[cube(launch)]
        fn c(out: &mut Array<f32>) {
            out[ABSOLUTE_POS] = 1.0;
        }
        #[spirv(compute(threads(64)))]
        pub fn s(#[spirv(global_invocation_id)] id: UVec3,
                 #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] out: &mut [f32]) {
            out[id.x as usize] = 1.0;
        }
        """,
        [],
        id="thread-index-of-each-ecosystem",
    ),
    pytest.param(
        f"""
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(y: &mut [f32; 1024], n: usize) {{
            {TID}
            if i == 0 {{
                y[0] = 1.0;
            }}
            if i % 32 == 0 && n > 0 {{
                y[1] = 1.0;
            }}
            match i {{
                3 => y[3] = 1.0,
                _ => {{}}
            }}
        }}
        """,
        [],
        id="single-thread-guard",
    ),
    pytest.param(
        f"""
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(y: &mut [f32; 1024]) {{
            {TID}
            if i != 0 {{
                return;
            }}
            y[0] = 1.0;
        }}
        """,
        [],
        id="after-early-return-of-other-threads",
    ),
    pytest.param(
        """
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(y: &mut [f32; 4]) {
            for_each_index(|i| y[i] = 1.0);
            for_each_index(|i| y[0] = 1.0);
            for k in 0..4 {
                y[k] = 0.0;
            }
        }
        """,
        [],
        id="closure-parameter-loop-variable-and-closure-body",
    ),
    pytest.param(
        """
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(x: &[f32; 4], y: &mut [f32; 4]) {
            let mut j = 0;
            j = x.len() - 1;
            y[j] = 1.0;
            let z = &mut [0.0f32; 4];
            z[0] = 1.0;
            let y = &mut [0.0f32; 4];
            y[0] = 1.0;
        }
        """,
        [],
        id="reassigned-variable-local-array-shadowed-parameter",
    ),
    pytest.param(
        """
        fn helper(y: &mut [f32; 4]) {
            y[0] = 1.0;
        }
        fn host(y: &mut [f32; 4]) {
            y[0] = 1.0;
        }
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(x: &[f32; 4], n: u32) {
            let mut local = [0.0f32; 4];
            local[0] = x[0];
        }
        """,
        [],
        id="host-helper-read-only-and-local",
    ),
    pytest.param(
        """
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(y: &mut [f32; 4]) {
            y[0] = 1.0;
        }
        fn main() {
            let mut y = [0.0f32; 4];
            core::intrinsics::offload(k, [1, 1, 1], [1, 1, 1], (&mut y,));
            offload! { kernel = k, workgroup_dim = [1, 1, 1], thread_dim = [1, 1, 1], args = (&mut y,) }
        }
        """,
        [],
        id="every-launch-is-one-thread",
    ),
    pytest.param(
        """
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(y: &mut [f32; 4]) {
            y[0] = 1.0;
        }
        fn main() {
            let mut y = [0.0f32; 4];
            core::intrinsics::offload(k, [1, 1, 1], [1, 1, 1], (&mut y,));
            core::intrinsics::offload(k, [1, 1, 1], [4, 1, 1], (&mut y,));
        }
        """,
        [(3, 5, 3, 9, plain("y[0]", "k", "y", "y[i]", False))],
        id="one-launch-of-several-threads",
    ),
    pytest.param(
        """
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(y: &mut [f32; 4]) {
            let broken = ;
            y[0] = 1.0;
        }
        """,
        [(4, 5, 4, 9, plain("y[0]", "k", "y", "y[i]", False))],
        id="syntax-error-in-kernel",
    ),
    pytest.param(
        """
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(y: &mut [f32; 4]) {
            y[0] = 1.0; // offload-ls: allow(unindexed_kernel_write)
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
    src = '#[rustc_offload_kernel]\nextern "gpu-kernel" fn k(y: &mut [f32; 4]) { y[0] = 1.0; }\n'
    assert all_rules()[RULE].default_level is Level.WARN
    assert [f.level for f in analyze_source(src.encode()).findings if f.rule == RULE] == [Level.WARN]
    assert [f for f in analyze_source(src.encode(), {RULE: Level.ALLOW}).findings if f.rule == RULE] == []


def test_doc_page_example_is_reported_and_fix_is_not():
    blocks = doc_rust_blocks(RULE)
    example, fixed = blocks[0], blocks[1]
    assert [f[:2] for f in lint(example, RULE)] == [(5, 9)]
    assert lint(fixed, RULE) == []
