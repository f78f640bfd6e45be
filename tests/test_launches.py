"""Launch discovery (analysis/launches/): offload! (both key spellings), the offload
intrinsic in its 2-, 4-, 5- and 6-argument forms, Rust-CUDA launch!; exact argument spans and
literal dimensions."""

import pytest

from offload_ls.analysis.launches import find_launches
from offload_ls.analysis.model import Span
from offload_ls.syntax.parse import parse


def launches(src: str):
    data = src.encode()
    return data, find_launches(parse(data).root_node, data)


def text(data: bytes, span: Span | None) -> str | None:
    return None if span is None else data[span.start : span.end].decode()


def describe(src: str):
    """Per launch: form, kernel, kernel text, arity, dims, dim texts, total threads, and each
    argument as (text, text at its span, span)."""
    data, found = launches(src)
    out = []
    for launch in found:
        out.append((
            launch.form, launch.kernel, text(data, launch.kernel_span), launch.arity,
            launch.workgroup_dim, launch.thread_dim,
            text(data, launch.workgroup_dim_span), text(data, launch.thread_dim_span), launch.total_threads,
            [(a.text, text(data, a.span), (a.span.start, a.span.end)) for a in launch.args],
        ))
    return out


MACRO = ("fn main() { offload! { kernel = saxpy, workgroup_dim = [4, 1, 1], thread_dim = [256, 1, 1], "
         "args = (&x, &mut y, 3) } }")
MACRO_GRID = ("fn main() { offload!(kernel = kernels::saxpy, grid_dim = (2, 1, 1), block_dim = (N, 1, 1), "
              "args = (&x,)); }")

CASES = [
    pytest.param(
        MACRO,
        [("offload!", "saxpy", "saxpy", 0, (4, 1, 1), (256, 1, 1), "[4, 1, 1]", "[256, 1, 1]", 1024,
          [("&x", "&x", (100, 102)), ("&mut y", "&mut y", (104, 110)), ("3", "3", (112, 113))])],
        id="offload-macro",
    ),
    pytest.param(
        MACRO_GRID,
        [("offload!", "saxpy", "saxpy", 0, (2, 1, 1), (None, 1, 1), "(2, 1, 1)", "(N, 1, 1)", None,
          [("&x", "&x", (99, 101))])],
        id="offload-macro-grid-block-spelling",
    ),
    pytest.param(
        "fn main() { offload! { kernel = k /* c */, args = (/* first */ &mut y, // why\n &x,) } }",
        [("offload!", "k", "k", 0, None, None, None, None, None,
          [("&mut y", "&mut y", (63, 69)), ("&x", "&x", (79, 81))])],
        id="offload-macro-comments-and-trailing-comma",
    ),
    pytest.param(
        "fn f(p: *mut f32) { core::intrinsics::offload(k, (p,)); }",
        [("offload()", "k", "k", 2, None, None, None, None, None, [("p", "p", (50, 51))])],
        id="intrinsic-2-arguments",
    ),
    pytest.param(
        "fn f() { core::intrinsics::offload(k, [1_000, 1, 1], [0x10u32, 1, 1], (&x, &mut y)); }",
        [("offload()", "k", "k", 4, (1000, 1, 1), (16, 1, 1), "[1_000, 1, 1]", "[0x10u32, 1, 1]", 16000,
          [("&x", "&x", (71, 73)), ("&mut y", "&mut y", (75, 81))])],
        id="intrinsic-4-arguments",
    ),
    pytest.param(
        "fn f() { std::intrinsics::offload(k, [1, 1, 1], [1, 1, 1], 0, (p,)); }",
        [("offload()", "k", "k", 5, (1, 1, 1), (1, 1, 1), "[1, 1, 1]", "[1, 1, 1]", 1, [("p", "p", (63, 64))])],
        id="intrinsic-5-arguments",
    ),
    pytest.param(
        "fn f() { intrinsics::offload(m::k, [N as u32 / 256, 1, 1], [256, 1, 1], 0, 0, (p, q)); }",
        [("offload()", "k", "k", 6, (None, 1, 1), (256, 1, 1), "[N as u32 / 256, 1, 1]", "[256, 1, 1]", None,
          [("p", "p", (79, 80)), ("q", "q", (82, 83))])],
        id="intrinsic-6-arguments",
    ),
    pytest.param(
        "use core::intrinsics::offload;\nfn f() { offload(k, [2, 1, 1], [8, 1, 1], ()); offload(f, x); }",
        [("offload()", "k", "k", 4, (2, 1, 1), (8, 1, 1), "[2, 1, 1]", "[8, 1, 1]", 16, [])],
        id="bare-offload-after-use-and-unrelated-offload-fn",
    ),
    pytest.param(
        "fn f() { core::intrinsics::offload::<_, _, ()>(foo, [1, 1, 1], [256, 1, 1], (x,)); }",
        [("offload()", "foo", "foo", 4, (1, 1, 1), (256, 1, 1), "[1, 1, 1]", "[256, 1, 1]", 256,
          [("x", "x", (77, 78))])],
        id="intrinsic-with-turbofish",
    ),
    pytest.param(
        "fn f() { offload::<_, _, ()>(k, (a, b)); other::offload::<u8>(k, (a,)); }",
        [("offload()", "k", "k", 2, None, None, None, None, None, [("a", "a", (33, 34)), ("b", "b", (36, 37))])],
        id="bare-intrinsic-with-turbofish-other-module-ignored",
    ),
    pytest.param(
        "fn f() { other::offload(k, [1, 1, 1], [1, 1, 1], (x,)); }",
        [],
        id="offload-of-another-module-is-not-a-launch",
    ),
    pytest.param(
        "fn f() { unsafe { launch!(module.add<<<grid, 256, 0, stream>>>(a.as_device_ptr(), a.len(), out)) }?; }",
        [("launch!", "add", "add", 0, (None,), (256,), "grid", "256", None,
          [("a.as_device_ptr()", "a.as_device_ptr()", (63, 80)), ("a.len()", "a.len()", (82, 89)),
           ("out", "out", (91, 94))])],
        id="rust-cuda-launch",
    ),
    pytest.param(
        "fn f() { launch!(m.k<<<(2, 2), (16, 16), 0, s>>>())?; }",
        [("launch!", "k", "k", 0, (2, 2), (16, 16), "(2, 2)", "(16, 16)", 1024, [])],
        id="rust-cuda-launch-2d-no-arguments",
    ),
    pytest.param(
        "fn f() { launch!(foo); }",
        [],
        id="launch-macro-without-chevrons-is-not-a-launch",
    ),
]


@pytest.mark.parametrize(("src", "expected"), CASES)
def test_launches(src, expected):
    assert describe(src) == expected


def test_launches_in_document_order_with_spans():
    src = ("fn f() {\n"
           "    launch!(m.k<<<1, 1, 0, s>>>(a));\n"
           "    core::intrinsics::offload(k, [1, 1, 1], [1, 1, 1], (a,));\n"
           "    offload! { kernel = k, args = (a,) }\n"
           "}\n")
    data, found = launches(src)
    assert [(launch.form, text(data, launch.span)) for launch in found] == [
        ("launch!", "launch!(m.k<<<1, 1, 0, s>>>(a))"),
        ("offload()", "core::intrinsics::offload(k, [1, 1, 1], [1, 1, 1], (a,))"),
        ("offload!", "offload! { kernel = k, args = (a,) }"),
    ]


def test_file_with_syntax_errors_still_yields_its_launches():
    src = ("fn broken( {\n"
           "fn main() {\n"
           "    let x = ;\n"
           "    core::intrinsics::offload(k, [4, 1, 1], [64, 1, 1], (&x, &mut y));\n"
           "    offload! { kernel = k, args = (&x,) }\n"
           "}\n")
    assert [(d[0], d[1], d[8], [a[0] for a in d[9]]) for d in describe(src)] == [
        ("offload()", "k", 256, ["&x", "&mut y"]),
        ("offload!", "k", None, ["&x"]),
    ]


def test_multibyte_text_before_macro_arguments_keeps_byte_spans():
    src = 'fn f() { let s = "ü✓"; offload! { kernel = k, args = (&x, &mut y) } }'
    data, (launch,) = launches(src)
    assert [(a.span.start, text(data, a.span)) for a in launch.args] == [(57, "&x"), (61, "&mut y")]
