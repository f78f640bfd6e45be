"""Kernel discovery (analysis/kernels.py): every marker syntax, parameters with type text and
transfer, spans, and files with syntax errors."""

import pytest
from helpers import dedent

from offload_ls.analysis.kernels import find_kernels
from offload_ls.analysis.model import Ecosystem, Span, Transfer
from offload_ls.syntax.parse import parse

OFF, ABI, CUDA, GPU, CUBE = (Ecosystem.OFFLOAD, Ecosystem.GPU_KERNEL_ABI, Ecosystem.CUDA,
                             Ecosystem.RUST_GPU, Ecosystem.CUBECL)


def kernels(src: str):
    data = src.encode()
    return data, find_kernels(parse(data).root_node)


def text(data: bytes, span: Span | None) -> str | None:
    return None if span is None else data[span.start : span.end].decode()


def summary(src: str):
    """(name, ecosystem, marker, text of span, text of body) per kernel."""
    data, found = kernels(dedent(src))
    return [(k.name, k.ecosystem, k.marker, text(data, k.span), text(data, k.body_span)) for k in found]


MARKERS = [
    pytest.param(
        """
        #[offload_kernel]
        fn saxpy(x: &[f32; 4]) { }
        """,
        [("saxpy", OFF, "#[offload_kernel]", "#[offload_kernel]\nfn saxpy(x: &[f32; 4]) { }", "{ }")],
        id="offload_kernel",
    ),
    pytest.param(
        """
        #[rustc_offload_kernel]
        extern "gpu-kernel" fn k() {}
        """,
        [("k", OFF, "#[rustc_offload_kernel]", '#[rustc_offload_kernel]\nextern "gpu-kernel" fn k() {}', "{}")],
        id="rustc_offload_kernel-on-gpu-kernel-abi",
    ),
    pytest.param(
        """
        #[cfg(offload_device)]
        #[unsafe(no_mangle)]
        #[rustc_offload_kernel]
        pub extern "gpu-kernel" fn k() {}
        """,
        [("k", OFF, "#[rustc_offload_kernel]",
          '#[cfg(offload_device)]\n#[unsafe(no_mangle)]\n#[rustc_offload_kernel]\npub extern "gpu-kernel" fn k() {}',
          "{}")],
        id="under-cfg-span-starts-at-first-attribute",
    ),
    pytest.param(
        """
        #[cfg_attr(offload_device, rustc_offload_kernel)]
        pub extern "gpu-kernel" fn k() {}
        """,
        [("k", OFF, "#[cfg_attr(offload_device, rustc_offload_kernel)]",
          '#[cfg_attr(offload_device, rustc_offload_kernel)]\npub extern "gpu-kernel" fn k() {}', "{}")],
        id="cfg_attr",
    ),
    pytest.param(
        """
        #[cfg_attr(kernel, inline)]
        fn not_a_kernel() {}
        #[cfg_attr(all(offload_device, kernel), inline)]
        fn nor_this() {}
        """,
        [],
        id="cfg_attr-predicate-named-kernel-is-not-a-marker",
    ),
    pytest.param(
        """
        #[kernel]
        pub unsafe fn add(a: *const f32) {}
        #[cuda_std::kernel]
        pub unsafe fn sub() {}
        """,
        [("add", CUDA, "#[kernel]", "#[kernel]\npub unsafe fn add(a: *const f32) {}", "{}"),
         ("sub", CUDA, "#[cuda_std::kernel]", "#[cuda_std::kernel]\npub unsafe fn sub() {}", "{}")],
        id="rust-cuda",
    ),
    pytest.param(
        """
        #[spirv(compute(threads(64)))]
        pub fn main_cs() {}
        #[spirv(vertex)]
        pub fn main_vs() {}
        """,
        [("main_cs", GPU, "#[spirv(compute(threads(64)))]", "#[spirv(compute(threads(64)))]\npub fn main_cs() {}",
          "{}")],
        id="rust-gpu-compute-only",
    ),
    pytest.param(
        """
        #[cube(launch)]
        fn a() {}
        #[cube(launch_unchecked)]
        fn b() {}
        #[cube]
        fn helper() {}
        """,
        [("a", CUBE, "#[cube(launch)]", "#[cube(launch)]\nfn a() {}", "{}"),
         ("b", CUBE, "#[cube(launch_unchecked)]", "#[cube(launch_unchecked)]\nfn b() {}", "{}")],
        id="cubecl-launch-not-plain-cube",
    ),
    pytest.param(
        """
        pub extern "ptx-kernel" fn p() {}
        extern "amdgpu-kernel" fn q() {}
        extern "C" fn host() {}
        fn plain() {}
        extern "gpu-kernel" fn g() {}
        """,
        # "ptx-kernel" / "amdgpu-kernel": launched through the driver API (not offload's ABI)
        [("p", Ecosystem.PTX_KERNEL, 'extern "ptx-kernel"', 'pub extern "ptx-kernel" fn p() {}', "{}"),
         ("q", Ecosystem.PTX_KERNEL, 'extern "amdgpu-kernel"', 'extern "amdgpu-kernel" fn q() {}', "{}"),
         ("g", ABI, 'extern "gpu-kernel"', 'extern "gpu-kernel" fn g() {}', "{}")],
        id="bare-kernel-abi",
    ),
    pytest.param(
        """
        #[cfg(offload_device)]
        mod device {
            impl S {
                /// docs are not part of the span
                #[kernel]
                pub unsafe fn m(&self) {}
            }
        }
        """,
        [("m", CUDA, "#[kernel]", "#[kernel]\n        pub unsafe fn m(&self) {}", "{}")],
        id="nested-in-module-and-impl",
    ),
    pytest.param(
        """
        #[offload_kernel]
        #[kernel]
        fn twice() {}
        """,
        [("twice", OFF, "#[offload_kernel]", "#[offload_kernel]\n#[kernel]\nfn twice() {}", "{}")],
        id="several-markers-reported-once",
    ),
]


@pytest.mark.parametrize(("src", "expected"), MARKERS)
def test_markers(src, expected):
    assert summary(src) == expected


def test_params_with_type_text_and_transfer():
    data, (k,) = kernels(
        '#[rustc_offload_kernel]\n'
        'extern "gpu-kernel" fn k(x: &[f32; N], mut y: &mut [f32; N], p: *mut f32, q: *const [f64; 4],\n'
        '                         n: u32, s: &[f32], v: Vec<f32>) {}\n'
    )
    got = [(p.name, p.type_text, p.transfer, p.kind, p.pointee, p.elem_bytes, text(data, p.span),
            text(data, p.type_span)) for p in k.params]
    assert got == [
        ("x", "&[f32; N]", Transfer.TO, "ref", "[f32; N]", None, "x: &[f32; N]", "&[f32; N]"),
        ("y", "&mut [f32; N]", Transfer.TOFROM, "mut_ref", "[f32; N]", None, "mut y: &mut [f32; N]",
         "&mut [f32; N]"),
        ("p", "*mut f32", Transfer.TOFROM, "mut_ptr", "f32", 4, "p: *mut f32", "*mut f32"),
        ("q", "*const [f64; 4]", Transfer.TO, "const_ptr", "[f64; 4]", None, "q: *const [f64; 4]",
         "*const [f64; 4]"),
        ("n", "u32", Transfer.BY_VALUE, "scalar", None, None, "n: u32", "u32"),
        ("s", "&[f32]", Transfer.TO, "ref", "[f32]", None, "s: &[f32]", "&[f32]"),
        ("v", "Vec<f32>", Transfer.UNKNOWN, "other", None, None, "v: Vec<f32>", "Vec<f32>"),
    ]


def test_params_outside_offload_have_unknown_transfer():
    _, (k,) = kernels("#[kernel]\npub unsafe fn k(a: &[f32], out: *mut f64) {}\n")
    assert [(p.name, p.transfer, p.kind, p.elem_bytes) for p in k.params] == [
        ("a", Transfer.UNKNOWN, "ref", None),
        ("out", Transfer.UNKNOWN, "mut_ptr", 8),
    ]


def test_name_span_fn_start_and_unsafe():
    src = '#[rustc_offload_kernel]\npub unsafe extern "gpu-kernel" fn kern() {}\n'
    data, (k,) = kernels(src)
    assert (text(data, k.name_span), k.fn_start, k.is_unsafe_fn, text(data, k.unsafe_span)) == (
        "kern", 24, True, "unsafe")
    assert k.span == Span(0, 67) and k.body_span == Span(65, 67)
    _, (safe,) = kernels('#[rustc_offload_kernel]\nextern "gpu-kernel" fn k() {}\n')
    assert (safe.is_unsafe_fn, safe.unsafe_span) == (False, None)


def test_file_with_syntax_errors_still_yields_its_kernels():
    src = dedent(
        """
        #[offload_kernel]
        fn first(y: &mut [f32; 4]) {
            let x = ;
        }
        fn broken( {
        #[kernel]
        pub unsafe fn second(out: *mut f32) {}
        """
    )
    data, found = kernels(src)
    assert [(k.name, k.ecosystem, [p.type_text for p in k.params]) for k in found] == [
        ("first", OFF, ["&mut [f32; 4]"]),
        ("second", CUDA, ["*mut f32"]),
    ]
    assert text(data, found[0].body_span) == "{\n    let x = ;\n}"


def test_unicode_before_kernel_spans_are_utf8_bytes():
    src = '// ünïcödé ✓\n#[offload_kernel]\nfn k() {}\n'
    data, (k,) = kernels(src)
    assert k.span.start == len("// ünïcödé ✓\n".encode()) == 19
    assert text(data, k.name_span) == "k"
