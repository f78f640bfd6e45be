"""analysis/bounds/: which guards bound which index expressions."""

import pytest

from offload_ls.analysis.bounds import bounded, guards_at
from offload_ls.syntax.parse import parse

THREAD = {"x", "y", "i", "c", "row", "col", "gid"}


def _check(src: str, idx_text: str, length=None, fold=None, buffer=False) -> bool:
    data = src.encode()
    tree = parse(data)
    stack, target = [tree.root_node], None
    while stack:
        n = stack.pop()
        if n.type == "index_expression" and n.named_children[1].text.decode() == idx_text:
            target = n
        stack.extend(n.children)
    assert target is not None, idx_text
    fn = tree.root_node.children[0]
    body = fn.child_by_field_name("body")
    lets = {}
    stack = [body]
    while stack:
        n = stack.pop()
        if n.type == "let_declaration":
            lets[n.child_by_field_name("pattern").text] = n.child_by_field_name("value")
        stack.extend(n.children)
    guards = guards_at(target, body, fold, frozenset({"terminate"}), data)
    return bounded(target.named_children[1], guards, fold, lambda node: lets.get(node.text), length,
                   lambda node: node.text.decode() in THREAD, buffer=target.named_children[0] if buffer else None)


@pytest.mark.parametrize("src, index, expected", [
    ("fn f(){ if i < n { a[i]; } }", "i", True),
    ("fn f(){ if i < n { a[i + 1]; } }", "i + 1", False),
    ("fn f(){ if i < n - 1 { a[i + 1]; } }", "i + 1", True),
    ("fn f(){ if i < stride { a[i + stride]; } }", "i + stride", False),
    ("fn f(){ if i < len { a[i + shift]; } }", "i + shift", False),
    ("fn f(){ if row < m && col < n { a[row * n + col]; } }", "row * n + col", True),
    ("fn f(){ if col < n { a[row * n + col]; } }", "row * n + col", False),
    ("fn f(){ if x > 0 && y > 0 && x < w - 1 && y < h - 1 { let c = y * w + x; a[c - w]; } }", "c - w", True),
    ("fn f(){ if x > 0 && y > 0 && x < w - 1 && y < h - 1 { let c = y * w + x; a[c + w]; } }", "c + w", True),
    ("fn f(){ if i >= n { return; } a[i]; }", "i", True),
    ("fn f(){ if i >= n { terminate!(); } a[i]; }", "i", True),
    ("fn f(){ assert!(i < n); a[i]; }", "i", True),
    ("fn f(){ if let Some(v) = out.get_mut(i) { a[i]; } }", "i", True),
    ("fn f(){ if !(i >= n) { a[i]; } }", "i", True),
    ("fn f(){ if i < n || i > m { a[i]; } }", "i", False),
    ("fn f(){ let mut k = gid; while k < n { a[k]; k += s; } }", "k", True),
    ("fn f(){ for j in 0..taps { if i < nout { a[i + j]; } } }", "i + j", False),
    ("fn f(){ a[i]; }", "i", False),
    ("fn f(){ if i == 0 { a[i]; } }", "i", True),
])
def test_bounded(src, index, expected):
    assert _check(src, index) is expected


def test_constant_bounds_against_a_known_length():
    assert _check("fn f(){ if i < 256 { a[i]; } }", "i", length=256) is True
    assert _check("fn f(){ if i < 1024 { a[i]; } }", "i", length=256) is False
    consts = {"NOUT": 1000, "TAPS": 16}

    def fold(node):
        t = node.text.decode()
        return consts.get(t) if t in consts else (int(t) if t.isdigit() else None)

    src = "fn f(){ if i < NOUT { for j in 0..TAPS { a[i + j]; } } }"
    assert _check(src, "i + j", length=1000 + 16 - 1, fold=fold) is True
    assert _check(src, "i + j", length=1000, fold=fold) is False


def test_an_index_clamped_below_the_buffers_length_is_bounded():
    src = "fn f(){ let n = x.len(); for k in 0..5 { let j = (i + k).saturating_sub(2).min(n - 1); x[j]; } }"
    assert _check(src, "j", buffer=True) is True
    # clamped to another buffer's length: not known to fit `x`
    other = src.replace("let n = x.len();", "let n = y.len();")
    assert _check(other, "j", buffer=True) is False
