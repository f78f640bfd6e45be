"""Byte offsets <-> line/column positions, the one place where encodings are converted.

tree-sitter reports UTF-8 byte offsets. LSP clients count columns in UTF-16 code units
unless they negotiated ``utf-8`` or ``utf-32`` (LSP 3.17 ``general.positionEncodings``);
the CLI prints 1-based columns in Unicode code points like rustc. All of these go through
:class:`LineIndex`.
"""

from __future__ import annotations

import bisect
from typing import Literal

Encoding = Literal["utf-8", "utf-16", "utf-32"]


def decode(source: bytes) -> str:
    """Decode file bytes as UTF-8, replacing invalid sequences (never raises).

    Invalid bytes become U+FFFD; tree-sitter still parses the original bytes, so byte
    offsets into ``source`` stay valid.
    """
    return source.decode("utf-8", errors="replace")


class LineIndex:
    """Maps UTF-8 byte offsets of one text to (line, column) pairs and back.

    Args:
        source: the file's bytes exactly as parsed (UTF-8, possibly invalid).

    Lines are split on ``\\n`` only (a ``\\r`` before it is part of the line's text, as in
    tree-sitter's points). Lines and columns are 0-based here; callers that print 1-based
    positions add one.
    """

    def __init__(self, source: bytes) -> None:
        self.source = source
        self._starts = [0]
        pos = source.find(b"\n")
        while pos != -1:
            self._starts.append(pos + 1)
            pos = source.find(b"\n", pos + 1)

    @property
    def line_count(self) -> int:
        """Number of lines (a trailing newline starts one more, empty, line)."""
        return len(self._starts)

    def line_start(self, line: int) -> int:
        """Byte offset where 0-based ``line`` starts; clamps out-of-range lines."""
        if line < 0:
            return 0
        if line >= len(self._starts):
            return len(self.source)
        return self._starts[line]

    def line_end(self, line: int) -> int:
        """Byte offset of the end of ``line``'s text (before its ``\\n``)."""
        if line + 1 < len(self._starts):
            return self._starts[line + 1] - 1
        return len(self.source)

    def line_of(self, offset: int) -> int:
        """0-based line containing byte ``offset`` (clamped into the text)."""
        offset = max(0, min(offset, len(self.source)))
        return bisect.bisect_right(self._starts, offset) - 1

    def position(self, offset: int, encoding: Encoding = "utf-16") -> tuple[int, int]:
        """Convert a UTF-8 byte offset into a 0-based (line, column) in ``encoding`` units.

        An offset inside a multi-byte character is moved to that character's start.
        """
        offset = max(0, min(offset, len(self.source)))
        line = self.line_of(offset)
        start = self._starts[line]
        back = 0
        while back < 3 and offset > start and offset < len(self.source) and (self.source[offset] & 0xC0) == 0x80:
            offset -= 1
            back += 1
        prefix = self.source[start:offset]
        return line, _units(prefix, encoding)

    def offset(self, line: int, column: int, encoding: Encoding = "utf-16") -> int:
        """Convert a 0-based (line, column in ``encoding`` units) into a UTF-8 byte offset.

        Positions past the end of a line clamp to the line's end (as LSP requires);
        lines past the end clamp to the end of the text.
        """
        if line >= len(self._starts):
            return len(self.source)
        start = self.line_start(line)
        end = self.line_end(line)
        if column <= 0:
            return start
        if encoding == "utf-8":
            return min(start + column, end)
        units = 0
        byte = start
        for nbytes, nunits in _chars(self.source[start:end], encoding):
            if units + nunits > column:
                break
            units += nunits
            byte += nbytes
        return byte


def _chars(data: bytes, encoding: Encoding):
    """Yield (UTF-8 byte length, ``encoding`` code units) per character of ``data``.

    An invalid byte counts as one character of one unit (it decodes to U+FFFD).
    """
    i, n = 0, len(data)
    while i < n:
        lead = data[i]
        size = (1 if lead < 0x80 else 2 if lead >> 5 == 0b110 else 3 if lead >> 4 == 0b1110
                else 4 if lead >> 3 == 0b11110 else 1)
        if size > 1:
            try:
                data[i : i + size].decode("utf-8")
            except UnicodeDecodeError:
                size = 1
        units = 1
        if encoding == "utf-8":
            units = size
        elif encoding == "utf-16" and size == 4:
            units = 2
        yield size, units
        i += size


def _units(prefix: bytes, encoding: Encoding) -> int:
    """Length of ``prefix`` (UTF-8 bytes) in ``encoding`` code units."""
    if encoding == "utf-8":
        return len(prefix)
    return sum(units for _, units in _chars(prefix, encoding))
