"""LSP positions <-> UTF-8 byte offsets: the lsp layer's one bridge to
:class:`offload_ls.syntax.text.LineIndex`.

The analysis layer speaks UTF-8 byte offsets (``Span``); an LSP client speaks
(line, character) pairs whose character unit is the *position encoding* negotiated at
``initialize`` (LSP 3.17, ``general.positionEncodings`` / ``ServerCapabilities.positionEncoding``):
UTF-8 code units (bytes), UTF-16 code units (the default every client must support) or
UTF-32 code units (code points). Every conversion in ``lsp/`` goes through this module,
which hands the encoding name (``"utf-8"`` / ``"utf-16"`` / ``"utf-32"``) to ``LineIndex``.
"""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types

from offload_ls.analysis.model import Span
from offload_ls.syntax.text import Encoding, LineIndex

#: Encodings offload-ls supports, most preferred first. UTF-8 comes first because it is
#: what tree-sitter reports (no conversion cost per column); UTF-16 is the LSP default.
PREFERRED_ENCODINGS: tuple[Encoding, ...] = ("utf-8", "utf-16", "utf-32")

_KIND_OF: dict[Encoding, types.PositionEncodingKind] = {
    "utf-8": types.PositionEncodingKind.Utf8,
    "utf-16": types.PositionEncodingKind.Utf16,
    "utf-32": types.PositionEncodingKind.Utf32,
}


def choose_encoding(offered: Sequence[str] | None) -> Encoding:
    """Pick the position encoding from a client's ``general.positionEncodings``.

    Args:
        offered: the encodings the client lists (strings such as ``"utf-8"``), or ``None``
            when the client does not send the capability.

    Returns:
        ``"utf-8"`` if offered, else ``"utf-16"`` if offered, else ``"utf-32"`` if offered,
        else ``"utf-16"`` (LSP: UTF-16 "must always be supported by servers", and a client
        that sends no list speaks UTF-16).
    """
    names = {str(getattr(o, "value", o)).lower() for o in (offered or ())}
    for encoding in PREFERRED_ENCODINGS:
        if encoding in names:
            return encoding
    return "utf-16"


def encoding_kind(encoding: Encoding) -> types.PositionEncodingKind:
    """The lsprotocol enum member for an encoding name (for ServerCapabilities)."""
    return _KIND_OF[encoding]


def to_position(index: LineIndex, offset: int, encoding: Encoding) -> types.Position:
    """UTF-8 byte ``offset`` -> LSP Position in ``encoding`` units (0-based)."""
    line, character = index.position(offset, encoding)
    return types.Position(line=line, character=character)


def to_range(index: LineIndex, span: Span, encoding: Encoding) -> types.Range:
    """UTF-8 byte :class:`Span` ``[start, end)`` -> LSP Range in ``encoding`` units."""
    return types.Range(
        start=to_position(index, span.start, encoding),
        end=to_position(index, span.end, encoding),
    )


def to_offset(index: LineIndex, position: types.Position, encoding: Encoding) -> int:
    """LSP Position (``encoding`` units) -> UTF-8 byte offset into ``index.source``.

    A character past the end of its line clamps to the line's end, a line past the end
    of the text clamps to the end of the text (LSP: "If the character value is greater
    than the line length it defaults back to the line length").
    """
    return index.offset(position.line, position.character, encoding)


def to_span(index: LineIndex, rng: types.Range, encoding: Encoding) -> Span:
    """LSP Range -> UTF-8 byte :class:`Span`; an inverted range becomes empty at its start."""
    start = to_offset(index, rng.start, encoding)
    end = to_offset(index, rng.end, encoding)
    return Span(start, max(start, end))
