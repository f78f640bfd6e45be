"""unchecked_thread_index: exact findings and ranges; guarded uses, non-thread indexes and
host code are not reported."""

import pytest
from helpers import dedent, doc_rust_blocks, lint

from offload_ls.analysis.engine import analyze_source
from offload_ls.analysis.model import Level
from offload_ls.analysis.rules import all_rules

RULE = "unchecked_thread_index"

HEAD = ("`{var}` comes from the thread index and is used in `{use}` without a bounds check: when the launch "
        "covers more threads than elements (grid × block > len), the extra threads ")
SAFE = "index past the end and the bounds check panics (on the GPU: a trap that aborts the kernel)"
RAW = "read or write out of bounds without any check (undefined behavior)"
TAIL = "; guard it with `{guard}`{count} or return early when it is out of range"


def tail(guard):
    """The message's advice; a guard on `n` (a buffer without a length) says what `n` is."""
    count = " (`n`: the element count, a kernel argument)" if guard.endswith(" < n { .. }") else ""
    return TAIL.format(guard=guard, count=count)


def safe(var, use, guard):
    return HEAD.format(var=var, use=use) + SAFE + tail(guard)


def raw(var, use, guard):
    return HEAD.format(var=var, use=use) + RAW + tail(guard)


def weak(var, use, check, below, guard, *more):
    """A finding under a check (or checks: ``more``) that do not bound the index enough."""
    if more:
        checks = "`, `".join((check, *more))
        return (f"`{var}` comes from the thread index and is used in `{use}`, and the checks `{checks}` do not "
                f"keep it below {below}: when the launch covers more threads than elements, the extra threads "
                f"that pass the checks " + SAFE + tail(guard))
    return (f"`{var}` comes from the thread index and is used in `{use}`, and the check `{check}` does not keep "
            f"it below {below}: when the launch covers more threads than elements, the extra threads that pass "
            f"the check " + SAFE + tail(guard))


TID = "let i = (_block_idx_x() * _block_dim_x() + _thread_idx_x()) as usize;"
TID_UNSAFE = "let i = unsafe { (_block_idx_x() * _block_dim_x() + _thread_idx_x()) as usize };"

CASES = [
    pytest.param(
        f"""
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(x: &[f32; 1024], y: &mut [f32; 1024]) {{
            {TID_UNSAFE}
            y[i] = 2.0 * x[i];
        }}
        """,
        [
            (4, 7, 4, 8, safe("i", "y[i]", "if i < y.len() { .. }")),
            (4, 20, 4, 21, safe("i", "x[i]", "if i < x.len() { .. }")),
        ],
        id="let-from-unsafe-block",
    ),
    pytest.param(
        f"""
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(out: *mut [f32; 1024], p: *mut f32) {{
            unsafe {{
                {TID}
                (*out)[i] = 1.0;
                *p.add(i) = 2.0;
                *p.offset(i as isize) = 3.0;
            }}
        }}
        """,
        [
            (5, 16, 5, 17, safe("i", "(*out)[i]", "if i < n { .. }")),
            (6, 16, 6, 17, raw("i", "p.add(i)", "if i < n { .. }")),
            (7, 19, 7, 29, raw("i", "p.offset(i as isize)", "if (i as isize) < n { .. }")),
        ],
        id="let-inside-unsafe-raw-pointer-uses",
    ),
    pytest.param(
        """
        #[kernel]
        pub unsafe fn scale(x: *mut f32, s: f32) {
            let i = thread::index_1d() as usize;
            let v = x.get_unchecked(i);
            unsafe { *x.add(i) *= s };
        }
        """,
        [
            (4, 29, 4, 30, raw("i", "x.get_unchecked(i)", "if i < n { .. }")),
            (5, 21, 5, 22, raw("i", "x.add(i)", "if i < n { .. }")),
        ],
        id="rust-cuda-index-1d",
    ),
    pytest.param(
        f"""
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(y: &mut [f32; 1024], n: usize) {{
            {TID}
            let j = i * 2;
            if n > 0 {{
                y[j + 1] = 0.0;
            }}
        }}
        """,
        [(6, 11, 6, 16, safe("j", "y[j + 1]", "if (j + 1) < y.len() { .. }"))],
        id="derived-variable-guard-on-something-else",
    ),
    pytest.param(
        f"""
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(y: &mut [f32; 1024], n: usize) {{
            {TID}
            if i >= n {{
                y[i] = 0.0;
            }}
            if i < n {{
                return;
            }}
            y[i] = 1.0;
        }}
        """,
        [
            (5, 11, 5, 12, safe("i", "y[i]", "if i < y.len() { .. }")),
            (10, 7, 10, 8, safe("i", "y[i]", "if i < y.len() { .. }")),
        ],
        id="wrong-branch-and-wrong-early-exit",
    ),
    pytest.param(
        """
        #[cube(launch_unchecked)]
        fn k(out: &mut Array<f32>) {
            let i = ABSOLUTE_POS;
            out[i] = 1.0;
        }
        """,
        [(4, 9, 4, 10, raw("i", "out[i]", "if i < out.len() { .. }"))],
        id="cubecl-launch-unchecked",
    ),
    pytest.param(
        """
        #[spirv(compute(threads(64)))]
        pub fn k(#[spirv(global_invocation_id)] id: UVec3,
                 #[spirv(storage_buffer, descriptor_set = 0, binding = 0)] out: &mut [f32]) {
            out[id.x as usize] = 1.0;
        }
        """,
        [(4, 9, 4, 22, safe("id", "out[id.x as usize]", "if (id.x as usize) < out.len() { .. }"))],
        id="rust-gpu-builtin-parameter",
    ),
    pytest.param(
        f"""
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(y: &mut [f32; 1024]) {{
            store(y, 1.0);
        }}
        fn store(y: &mut [f32; 1024], v: f32) {{
            {TID}
            y[i] = v;
        }}
        """,
        [(7, 7, 7, 8, safe("i", "y[i]", "if i < y.len() { .. }"))],
        id="called-helper",
    ),
    pytest.param(
        """
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(y: &mut [f32; 64]) {
            let t = unsafe { _thread_idx_x() } as usize;
            let mut tile = [0.0f32; 256];
            tile[t] = 1.0;
            y[t] = tile[t];
        }
        """,
        [],
        id="thread-in-block-index-is-bounded-by-the-block",
    ),
    pytest.param(
        """
        use core::arch::amdgpu::{workgroup_id_x as block_idx_x, workitem_id_x as thread_idx_x};
        #[rustc_offload_kernel]
        pub unsafe extern "gpu-kernel" fn mm(d_a: *const i32, tile: *mut [i32; 256]) {
            unsafe {
                let local = thread_idx_x() as usize;
                let global = (block_idx_x() * 256 + thread_idx_x()) as usize;
                let shared = tile as *mut [i32; 256];
                (*shared)[local] = 0;
                (*shared)[global] = *d_a.add(global);
            }
        }
        """,
        [
            (9, 19, 9, 25, safe("global", "(*shared)[global]", "if global < n { .. }")),
            (9, 38, 9, 44, raw("global", "d_a.add(global)", "if global < n { .. }")),
        ],
        id="amdgpu-aliases-shared-tile",
    ),
    # ---------------------------------------------------------------- guarded: not reported
    pytest.param(
        f"""
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(x: &[f32; 1024], y: &mut [f32; 1024], n: usize) {{
            {TID}
            if i < n {{ y[i] = x[i]; }}
            if i < 1024 {{ y[i] = 1.0; }}
            if n > i {{ y[i] = 2.0; }}
            if i < y.len() && x[i] > 0.0 {{ y[i] = 3.0; }}
            if i >= n {{ }} else {{ y[i] = 4.0; }}
            if !(i >= n) {{ y[i] = 5.0; }}
            if (0..n).contains(&i) {{ y[i] = 6.0; }}
            let ok = i < n && x[i] > 0.0;
        }}
        """,
        [],
        id="if-guards",
    ),
    pytest.param(
        f"""
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(y: &mut [f32; 1024], n: usize) {{
            {TID}
            if i >= n {{
                return;
            }}
            y[i] = 1.0;
            {{
                y[i - 1] = 1.0;
            }}
        }}
        #[kernel]
        pub unsafe fn c(out: *mut f32, n: usize) {{
            let i = thread::index_1d() as usize;
            assert!(i < n, "index out of range");
            *out.add(i) = 1.0;
        }}
        """,
        [],
        id="early-exit-and-assert",
    ),
    pytest.param(
        f"""
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(y: &mut [f32; 1024], n: usize, stride: usize) {{
            {TID}
            if i >= n {{
                return;
            }}
            y[i + 1] = 1.0;
            if i < stride {{ y[i + stride] = 2.0; }}
            if i < n - 1 {{ y[i + 1] = 3.0; }}
        }}
        """,
        [(7, 7, 7, 12, weak("i", "y[i + 1]", "i >= n", "the length of `y` (1024 elements)",
                            "if (i + 1) < y.len() { .. }")),
         # the checks on `i` the sum is computed from are named
         (8, 23, 8, 33, weak("i", "y[i + stride]", "i < stride", "the length of `y` (1024 elements)",
                             "if (i + stride) < y.len() { .. }", "i >= n"))],
        id="a-guard-bounds-the-index-expression-itself",
    ),
    pytest.param(
        """
        #[kernel]
        pub unsafe fn strided(n: usize, x: *mut f32) {
            let stride = (thread::block_dim_x() * thread::grid_dim_x()) as usize;
            let mut i = thread::index_1d() as usize;
            while i < n {
                *x.add(i) = 0.0;
                i += stride;
            }
        }
        """,
        [],
        id="grid-stride-loop",
    ),
    pytest.param(
        f"""
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(x: &[f32; 1024], y: &mut [f32; 1024], n: usize) {{
            {TID}
            if let Some(v) = y.get_mut(i) {{
                *v = 1.0;
            }}
            let a = x.get(i);
            match x.get(i) {{
                Some(v) if i < n => y[i] = *v,
                _ => {{}}
            }}
            y[i % 1024] = 0.0;
            y[i & 1023] = 0.0;
            y[i.min(1023)] = 0.0;
            y[0] = 1.0;
        }}
        """,
        [],
        id="get-match-guard-and-clamped-indexes",
    ),
    pytest.param(
        """
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(y: &mut [f32; 4]) {
            for_each_index(|i| y[i] = 1.0);
            for k in 0..4 {
                y[k] = 0.0;
            }
        }
        fn helper(i: usize, y: &mut [f32; 4]) {
            y[i] = 1.0;
        }
        """,
        [],
        id="closure-loop-and-parameter-indexes",
    ),
    pytest.param(
        f"""
        fn host(y: &mut [f32; 4]) {{
            {TID}
            y[i] = 1.0;
        }}
        #[cube(launch)]
        fn c(out: &mut Array<f32>) {{
            let i = ABSOLUTE_POS;
            out[i] = 1.0;
        }}
        """,
        [],
        id="host-code-and-cubecl-checked-launch",
    ),
    pytest.param(
        f"""
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(y: &mut [f32; 1024]) {{
            {TID}
            let broken = ;
            y[i] = 1.0;
        }}
        """,
        [(5, 7, 5, 8, safe("i", "y[i]", "if i < y.len() { .. }"))],
        id="syntax-error-in-kernel",
    ),
    pytest.param(
        f"""
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(y: &mut [f32; 1024]) {{
            {TID}
            let in_range = i < 1024;
            if in_range {{ y[i] = 1.0; }}
            let too_far = i < 2048;
            if too_far {{ y[i] = 2.0; }}
            let out = !(i < y.len());
            if out {{ return; }}
            y[i] = 3.0;
        }}
        """,
        [(7, 20, 7, 21, weak("i", "y[i]", "i < 2048", "the length of `y` (1024 elements)",
                             "if i < y.len() { .. }"))],
        id="condition-held-in-a-variable",
    ),
    pytest.param(
        f"""
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(y: &mut [f32; 1024]) {{
            {TID}
            match i {{
                0..1024 => y[i] = 1.0,
                _ => {{}}
            }}
            match i {{
                0..=1024 => y[i] = 2.0,
                _ => {{}}
            }}
            match i {{
                0 | 1 => {{}}
                _ => y[i] = 3.0,
            }}
        }}
        """,
        [(9, 23, 9, 24, safe("i", "y[i]", "if i < y.len() { .. }")),
         (14, 16, 14, 17, safe("i", "y[i]", "if i < y.len() { .. }"))],
        id="match-on-a-range-pattern",
    ),
    pytest.param(
        f"""
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(y: &mut [f32; 1024]) {{
            {TID}
            if {{ y[i] = 1.0 }}
        }}
        """,
        [],
        id="use-inside-text-that-does-not-parse",
    ),
    pytest.param(
        f"""
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(y: &mut [f32; 1024]) {{
            {TID}
            if i < 1024 {{ let i = i + 100; y[i] = 1.0; }}
            if i < 924 {{ let i = i + 100; y[i] = 2.0; }}
            let mut k = i;
            if k < 1024 {{ k += 100; y[k] = 3.0; }}
            let mut m = i;
            while m < 1024 {{ y[m] = 4.0; m += 4096; }}
        }}
        """,
        [(4, 38, 4, 39, safe("i", "y[i]", "if i < y.len() { .. }")),
         (7, 31, 7, 32, safe("k", "y[k]", "if k < y.len() { .. }"))],
        id="guard-of-a-shadowed-or-reassigned-variable",
    ),
    pytest.param(
        """
        #[kernel]
        pub fn fill(#[global] y: UnsafeSlice<f32>) {
            let i = kernel.global_id() as usize;
            unsafe { *y.unsafe_index_mut(i) = 1.0; }
        }
        """,
        [(4, 34, 4, 35, raw("i", "y.unsafe_index_mut(i)", "if i < y.len() { .. }"))],
        id="krnl-unsafe-slice-hint-names-its-length",
    ),
]


@pytest.mark.parametrize(("src", "expected"), CASES)
def test_findings(src, expected):
    assert lint(dedent(src), RULE) == expected


def test_default_level_and_configured_allow():
    src = f'#[rustc_offload_kernel]\nextern "gpu-kernel" fn k(y: &mut [f32; 4]) {{ {TID} y[i] = 1.0; }}\n'
    assert all_rules()[RULE].default_level is Level.WARN
    assert [f.level for f in analyze_source(src.encode()).findings if f.rule == RULE] == [Level.WARN]
    assert [f for f in analyze_source(src.encode(), {RULE: Level.ALLOW}).findings if f.rule == RULE] == []


def test_doc_page_example_is_reported_and_fix_is_not():
    blocks = doc_rust_blocks(RULE)
    example, fixed = blocks[1], blocks[2]
    # y[i] = *a * x[i] + y[i]
    assert [f[:4] for f in lint(example, RULE)] == [(4, 7, 4, 8), (4, 19, 4, 20), (4, 26, 4, 27)]
    assert lint(fixed, RULE) == []


def test_pathologically_deep_code_does_not_exhaust_recursion():
    # Rules must not raise on any input; Python's recursion limit is about 1000 frames.
    from offload_ls.analysis.context import FileContext
    from offload_ls.syntax.parse import parse

    lets = "\n".join(f"    let a{k} = a{k - 1} + 1;" for k in range(1, 3000))
    src = dedent(
        f"""
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(y: &mut [f32; 4], n: usize) {{
            let i = (_block_idx_x() * 256 + _thread_idx_x()) as usize;
            let j = {"+".join(["1"] * 3000)};
            y[j] = 1.0;
            if {" && ".join(["n > 0"] * 3000)} {{ y[i] = 1.0; }}
            let a0 = i;
        {lets}
            y[a2999] = 1.0;
        }}
        fn main() {{ core::intrinsics::offload(k, (&mut x, &x{" as *const f32" * 2000}, &s{".a" * 3000})); }}
        """
    ).encode()
    ctx = FileContext(src, parse(src).root_node)
    names = ("aliased_launch_args", "unindexed_kernel_write", "unchecked_thread_index", "host_only_api_in_kernel")
    counts = {name: len(list(all_rules()[name].check(ctx))) for name in names}
    # `y[i]` is reported: the 3000-term `n > 0 && ..` condition never bounds `i` (and walking
    # it stops at the depth limit). The 3000-`let` chain to `a2999` and the 2000 casts are cut
    # at the depth limit, so `y[a2999]` and `&x as ..` are "not known" and not reported.
    assert counts == {"aliased_launch_args": 0, "unindexed_kernel_write": 0,
                      "unchecked_thread_index": 1, "host_only_api_in_kernel": 0}


def test_message_names_a_block_index_and_a_field_buffer():
    """A variable from the block index alone is named as such; a buffer that is a field is
    named by its path, not by the struct (audit I1)."""
    src = dedent("""
        use cuda_std::prelude::*;
        #[repr(C)]
        pub struct Table { pub val: *mut u32, pub len: u64 }
        #[kernel]
        pub unsafe fn k(t: Table, z_stride: u32, n: u64) {
            let x = thread::index_1d() as u64;
            let b = thread::block_idx_y();
            if x < n {
                *t.val.add((x + 1) as usize) = 1;
            }
            *t.val.add((b * z_stride) as usize + x as usize) = 2;
        }
        """)
    msgs = [m for *_, m in lint(src, RULE)]
    assert len(msgs) == 2, msgs
    assert any(m.startswith("`x` comes from the thread index and is used in `t.val.add((x + 1) as usize)`, "
                            "and the check `x < n` does not keep it below the length of `t.val`") for m in msgs), msgs
    assert any(m.startswith("`b` comes from the block index and is used in") for m in msgs), msgs


# ------------------------------------------------------------------ helpers (a thread index passed to a parameter)

HELPER_KERNEL = dedent(
    """
    #[kernel]
    pub unsafe fn fill(out: *mut f32, n: usize) {
        let i = thread::index_1d() as usize;
        put(out, i);
    }

    unsafe fn put(out: *mut f32, i: usize) {
        *out.add(i) = 1.0;
    }
    """
)


def test_a_helper_passed_an_unguarded_thread_index_is_reported_in_the_helper():
    found = lint(HELPER_KERNEL, RULE)
    assert [f[:4] for f in found] == [(8, 14, 8, 15)]  # `i` of `out.add(i)`
    assert "`i` is a parameter of `put`" in found[0][4] and "`put(out, i)` in `fill`" in found[0][4]


@pytest.mark.parametrize("call", [
    "if i < n { put(out, i); }",
    "if i >= n { return; }\n    put(out, i);",
    "put(out, i % n);",
    "put(out, 0);",
    "put(out, thread::thread_idx_x() as usize);",
])
def test_a_helper_called_with_a_checked_or_bounded_index_is_not_reported(call):
    assert lint(HELPER_KERNEL.replace("put(out, i);", call), RULE) == []


def test_a_helper_called_once_with_a_checked_index_is_not_reported():
    other = HELPER_KERNEL + "\n#[kernel]\npub unsafe fn fill_checked(out: *mut f32, n: usize) {\n" \
        "    let i = thread::index_1d() as usize;\n    if i < n { put(out, i); }\n}\n"
    assert lint(other, RULE) == []


def test_an_edit_of_the_caller_rechecks_the_helper_through_the_cache():
    from offload_ls.analysis.cache import AnalysisCache
    from offload_ls.analysis.engine import analyze_tree
    from offload_ls.syntax.parse import parse

    guarded = HELPER_KERNEL.replace("put(out, i);", "if i < n { put(out, i); }")
    cache = AnalysisCache()
    for text, count in ((HELPER_KERNEL, 1), (guarded, 0), (HELPER_KERNEL, 1)):
        src = text.encode()
        found = [f for f in analyze_tree(src, parse(src).root_node, cache=cache).findings if f.rule == RULE]
        assert len(found) == count


def test_message_names_the_variable_that_grows_with_the_grid():
    """In a tiled matmul's `b[(t * 16 + ty) * cols + col]` the thread-in-block `ty` is bounded
    by the block; `col` (block * 16 + tx) is the one that passes the end: the message names it
    (audit N4, a cuda-oxide tiled matmul)."""
    src = dedent("""
        use cuda_std::prelude::*;
        #[kernel]
        pub unsafe fn mm(a: *const f32, b: *const f32, c: *mut f32, n: usize, cols: usize) {
            let tx = thread::thread_idx_x() as usize;
            let ty = thread::thread_idx_y() as usize;
            let col = thread::block_idx_x() as usize * 16 + tx;
            let mut sum = 0.0;
            for t in 0..n / 16 {
                sum += *b.add((t * 16 + ty) * cols + col);
            }
            *c.add(col) = sum;
        }
        """)
    msgs = [m for *_, m in lint(src, RULE)]
    assert msgs and all(m.startswith("`col` comes from the thread index") for m in msgs), msgs
