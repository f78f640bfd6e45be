"""raw_pointer_kernel_param: exact findings, ranges and quick-fix results."""

import pytest
from helpers import dedent, findings_of, lint

from offload_ls.analysis.engine import analyze_source
from offload_ls.analysis.model import Level
from offload_ls.analysis.rules import all_rules

RULE = "raw_pointer_kernel_param"

MUT_ARRAY = (
    "kernel `k` takes `x: *mut [f32; N]`, a raw pointer: the kernel needs `unsafe` to use it, "
    "the compiler cannot mark it `noalias`, and the offload runtime copies it to the device and back"
)
CONST_ARRAY = (
    "kernel `k` takes `y: *const [f32; N]`, a raw pointer: the kernel needs `unsafe` to use it, "
    "the compiler cannot mark it `noalias`, and the offload runtime copies it to the device"
)


def apply_edits(src: str, edits) -> str:
    """Apply non-overlapping byte-range edits to ``src`` (UTF-8), last first."""
    data = src.encode()
    for e in sorted(edits, key=lambda e: e.span.start, reverse=True):
        data = data[: e.span.start] + e.new_text.encode() + data[e.span.end :]
    return data.decode()


CASES = [
    pytest.param(
        """
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(x: *mut [f32; N]) {}
        """,
        [(2, 29, 2, 42, MUT_ARRAY)],
        id="mut-pointer-to-array",
    ),
    pytest.param(
        """
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(x: &[f32; N], y: *const [f32; N]) {}
        """,
        [(2, 43, 2, 58, CONST_ARRAY)],
        id="const-pointer-to-array",
    ),
    pytest.param(
        """
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(z: *mut f32, w: *const f64) {}
        """,
        [
            (2, 29, 2, 37, "kernel `k` takes `z: *mut f32`, a raw pointer to ONE `f32`: the offload runtime "
             "copies 4 bytes (a single element) to the device and back, not the buffer it points into; "
             "pass `&mut [f32; N]` instead"),
            (2, 42, 2, 52, "kernel `k` takes `w: *const f64`, a raw pointer to ONE `f64`: the offload runtime "
             "copies 8 bytes (a single element) to the device, not the buffer it points into; "
             "pass `&[f64; N]` instead"),
        ],
        id="pointer-to-one-scalar",
    ),
    pytest.param(
        """
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(alpha: *const f32, y: *mut f32, n: *const i32) {
            unsafe { gemv(*alpha, y, *(n)); }
        }
        """,
        [
            (2, 33, 2, 43, "kernel `k` takes `alpha: *const f32`, a raw pointer to ONE `f32`: the offload "
             "runtime copies 4 bytes (a single element) to the device, not the buffer it points into; it is "
             "only dereferenced: take the value as `alpha: f32` instead"),
            (2, 48, 2, 56, "kernel `k` takes `y: *mut f32`, a raw pointer to ONE `f32`: the offload runtime "
             "copies 4 bytes (a single element) to the device and back, not the buffer it points into; for a "
             "buffer pass `&mut [f32; N]`, for one value take `y: &mut f32`"),
            (2, 61, 2, 71, "kernel `k` takes `n: *const i32`, a raw pointer to ONE `i32`: the offload runtime "
             "copies 4 bytes (a single element) to the device, not the buffer it points into; it is only "
             "dereferenced: take the value as `n: i32` instead"),
        ],
        id="pointer-to-one-scalar-only-dereferenced-or-passed-on",
    ),
    pytest.param(
        """
        use cuda_std::prelude::*;
        #[kernel]
        pub unsafe fn add(a: *const f32, out: *mut f32) {}
        """,
        [],
        id="rust-cuda-device-pointers-are-the-idiom",
    ),
    pytest.param(
        """
        #[spirv(compute(threads(64)))]
        pub fn add(a: *const f32, out: *mut f32) {}
        """,
        [
            (2, 15, 2, 25, "kernel `add` takes `a: *const f32`, a raw pointer: the kernel needs `unsafe` "
             "to use it and the compiler cannot mark it `noalias`"),
            (2, 32, 2, 40, "kernel `add` takes `out: *mut f32`, a raw pointer: the kernel needs `unsafe` "
             "to use it and the compiler cannot mark it `noalias`"),
        ],
        id="rust-gpu-no-copy-claim",
    ),
    pytest.param(
        """
        type Real = f64;
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(x: *mut Real) {}
        """,
        [(3, 29, 3, 38, "kernel `k` takes `x: *mut Real`, a raw pointer to ONE `Real`: the offload runtime "
                        "copies 8 bytes (a single element) to the device and back, not the buffer it points "
                        "into; pass `&mut [Real; N]` instead")],
        id="pointer-to-one-scalar-through-a-type-alias",
    ),
    pytest.param(
        """
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(x: &mut [f32; N], y: &[f32; N], n: u32) {}
        """,
        [],
        id="references-are-fine",
    ),
    pytest.param(
        """
        fn host(x: *mut [f32; N], y: *const f32) {
            unsafe { (*x)[0] = *y; }
        }
        unsafe extern "C" {
            fn k(x: *mut [f32; N]);
        }
        """,
        [],
        id="host-functions-and-declarations-not-flagged",
    ),
    pytest.param(
        """
        #[cfg(offload_device)]
        mod device {
            #[rustc_offload_kernel]
            extern "gpu-kernel" fn k(x: *mut [f32; N]) {}
        }
        """,
        [(4, 33, 4, 46, MUT_ARRAY)],
        id="kernel-under-device-cfg",
    ),
    pytest.param(
        """
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(x: *mut [f32; N]) {
            let i = ;
            unsafe { (*x)[i] = 1.0 }
        }
        """,
        [(2, 29, 2, 42, MUT_ARRAY)],
        id="syntax-error-in-body",
    ),
    pytest.param(
        """
        // offload-ls: allow(raw_pointer_kernel_param)
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k(x: *mut [f32; N]) {}
        """,
        [],
        id="suppressed-by-comment",
    ),
]


@pytest.mark.parametrize(("src", "expected"), CASES)
def test_findings(src, expected):
    assert lint(dedent(src), RULE) == expected


KERNEL_AND_DECL = dedent(
    """
    #[rustc_offload_kernel]
    extern "gpu-kernel" fn k(x: *mut [f32; N], y: *const [f32; N]) {
        unsafe { (*x)[0] = (*y)[0]; }
    }
    unsafe extern "C" {
        fn k(x: *mut [f32; N], y: *const [f32; N]);
    }
    """
)

FIX_CASES = [
    pytest.param(
        KERNEL_AND_DECL,
        0,
        "Change `*mut [f32; N]` to `&mut [f32; N]` (kernel and host declaration)",
        KERNEL_AND_DECL.replace("x: *mut [f32; N]", "x: &mut [f32; N]"),
        id="mut-kernel-and-host-declaration",
    ),
    pytest.param(
        KERNEL_AND_DECL,
        1,
        "Change `*const [f32; N]` to `&[f32; N]` (kernel and host declaration)",
        KERNEL_AND_DECL.replace("y: *const [f32; N]", "y: &[f32; N]"),
        id="const-kernel-and-host-declaration",
    ),
    pytest.param(
        dedent(
            """
            #[rustc_offload_kernel]
            extern "gpu-kernel" fn k(x: *mut [u32; 4]) {}
            """
        ),
        0,
        "Change `*mut [u32; 4]` to `&mut [u32; 4]`",
        dedent(
            """
            #[rustc_offload_kernel]
            extern "gpu-kernel" fn k(x: &mut [u32; 4]) {}
            """
        ),
        id="kernel-only",
    ),
    pytest.param(
        dedent(
            """
            #[rustc_offload_kernel]
            extern "gpu-kernel" fn k(x: *mut [f32; N]) {}
            unsafe extern "C" {
                fn k(x: *mut f32);
            }
            """
        ),
        0,
        "Change `*mut [f32; N]` to `&mut [f32; N]`",
        dedent(
            """
            #[rustc_offload_kernel]
            extern "gpu-kernel" fn k(x: &mut [f32; N]) {}
            unsafe extern "C" {
                fn k(x: *mut f32);
            }
            """
        ),
        id="declaration-with-other-type-left-alone",
    ),
]


@pytest.mark.parametrize(("src", "index", "title", "fixed"), FIX_CASES)
def test_fix_rewrites_kernel_and_host_declaration(src, index, title, fixed):
    finding = findings_of(src, RULE)[index]
    assert [f.title for f in finding.fixes] == [title]
    assert apply_edits(src, finding.fixes[0].edits) == fixed


def test_fixed_text_has_no_finding_left():
    src = KERNEL_AND_DECL
    for _ in range(2):
        src = apply_edits(src, findings_of(src, RULE)[0].fixes[0].edits)
    assert lint(src, RULE) == []


@pytest.mark.parametrize(
    "src",
    [
        '#[rustc_offload_kernel]\nextern "gpu-kernel" fn k(z: *mut f32) {}',
        'extern "gpu-kernel" fn k(z: *mut [f32]) {}\n'
        'fn main() { core::intrinsics::offload(k, [1, 1, 1], [1, 1, 1], (z,)) }',
        "#[spirv(compute(threads(64)))]\npub fn k(z: *mut [f32; 4]) {}",
    ],
)
def test_no_fix_where_length_unknown_or_not_offload(src):
    # Pointer to a scalar or a slice: the length is unknown, so no mechanical rewrite.
    # rust-gpu: the runtime copies nothing by type; the binding decides what the kernel sees.
    (finding,) = findings_of(src, RULE)
    assert finding.fixes == ()


@pytest.mark.parametrize("src", [
    # a bare "gpu-kernel" fn in a crate that never uses offload: a HIP / Vulkan / cudarc host
    # passes device addresses (Flakebi/game-of-life-rust-gpu's amdgpu kernels)
    '#[unsafe(no_mangle)]\npub unsafe extern "gpu-kernel" fn k(out: *mut u32, n: u32) {}',
    # "ptx-kernel" is never offload's ABI (cudarc examples/rust-kernel, cuda_min)
    '#[unsafe(no_mangle)]\npub unsafe extern "ptx-kernel" fn k(out: *mut f32, x: *const f32) {}\n'
    'fn main() { core::intrinsics::offload(other, [1, 1, 1], [1, 1, 1], ()) }',
])
def test_driver_launched_kernels_take_device_pointers(src):
    assert lint(src, RULE) == []
    assert lint(src, "unsafe_in_kernel") == []


def test_bare_gpu_kernel_abi_is_offload_where_the_crate_launches_with_offload():
    src = ('extern "gpu-kernel" fn k(z: *mut f32) {}\n'
           'fn main() { core::intrinsics::offload(k, [1, 1, 1], [1, 1, 1], (z,)) }')
    (finding,) = findings_of(src, RULE)
    assert "the offload runtime copies 4 bytes" in finding.message


def test_default_level_and_configured_allow():
    assert all_rules()[RULE].default_level is Level.WARN
    src = '#[rustc_offload_kernel]\nextern "gpu-kernel" fn k(x: *mut [f32; 4]) {}\n'
    assert [f.level for f in analyze_source(src.encode()).findings if f.rule == RULE] == [Level.WARN]
    assert [f for f in analyze_source(src.encode(), {RULE: Level.ALLOW}).findings if f.rule == RULE] == []
