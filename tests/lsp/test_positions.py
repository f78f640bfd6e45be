"""Unit tests of the LSP <-> byte-offset bridge and incremental sync (no server)."""

from __future__ import annotations

import pytest
from lsprotocol import types

from offload_ls.analysis.model import Span
from offload_ls.lsp.documents import apply_changes
from offload_ls.lsp.positions import choose_encoding, to_offset, to_range, to_span
from offload_ls.syntax.parse import ParsedFile
from offload_ls.syntax.text import LineIndex

# Line 1: "λ" is 2 UTF-8 bytes / 1 UTF-16 unit, "😀" is 4 bytes / 2 UTF-16 units / 1 code point.
TEXT = "fn a() {}\nlet λ = \"😀\"; x\n"
X_BYTE = TEXT.encode().index(b"; x") + 2


@pytest.mark.parametrize(("offered", "chosen"), [
    (None, "utf-16"),
    ([], "utf-16"),
    (["utf-16"], "utf-16"),
    (["utf-16", "utf-8"], "utf-8"),          # utf-8 wins even when listed second
    (["utf-32", "utf-16"], "utf-16"),
    (["utf-32"], "utf-32"),
    (["latin-1"], "utf-16"),
    ([types.PositionEncodingKind.Utf8], "utf-8"),
])
def test_choose_encoding(offered, chosen):
    assert choose_encoding(offered) == chosen


@pytest.mark.parametrize(("encoding", "column"), [("utf-8", 17), ("utf-16", 14), ("utf-32", 13)])
def test_position_after_non_ascii(encoding, column):
    index = LineIndex(TEXT.encode())
    r = to_range(index, Span(X_BYTE, X_BYTE + 1), encoding)
    assert (r.start.line, r.start.character, r.end.line, r.end.character) == (1, column, 1, column + 1)
    assert to_offset(index, types.Position(line=1, character=column), encoding) == X_BYTE


def test_to_span_clamps_and_orders():
    index = LineIndex(TEXT.encode())
    # past the end of line 0 -> end of line 0 (byte 9); inverted range -> empty
    assert to_span(index, types.Range(start=types.Position(line=0, character=99),
                                      end=types.Position(line=0, character=2)), "utf-16") == Span(9, 9)


def _partial(l1, c1, l2, c2, text):
    return types.TextDocumentContentChangePartial(
        range=types.Range(start=types.Position(line=l1, character=c1),
                          end=types.Position(line=l2, character=c2)), text=text)


@pytest.mark.parametrize(("encoding", "x_col"), [("utf-8", 17), ("utf-16", 14), ("utf-32", 13)])
def test_apply_changes_in_order_each_on_previous_text(encoding, x_col):
    parsed = ParsedFile(TEXT.encode())
    apply_changes(parsed, [
        _partial(1, x_col, 1, x_col + 1, "yz"),   # replace x after the emoji
        _partial(0, 0, 0, 0, "// 😀\n"),           # then insert a line at the top
        _partial(2, x_col + 2, 2, x_col + 2, "!"),  # line 1 is now line 2; after "yz"
    ], encoding)
    assert parsed.source.decode() == "// 😀\nfn a() {}\nlet λ = \"😀\"; yz!\n"
    assert parsed.root.has_error  # "let" at top level: still parsed, with an ERROR node
    fresh = ParsedFile(parsed.source)
    assert str(parsed.root) == str(fresh.root)  # incremental tree == full re-parse


def test_apply_changes_full_text_then_ranged():
    parsed = ParsedFile(b"old")
    apply_changes(parsed, [types.TextDocumentContentChangeWholeDocument(text="fn λ() {}"),
                           _partial(0, 4, 0, 4, "2")], "utf-16")
    assert parsed.source == "fn λ2() {}".encode()
