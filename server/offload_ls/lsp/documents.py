"""The open-document store: the editor's text of each open ``.rs`` file, kept parsed.

Each open document owns a :class:`~offload_ls.syntax.parse.ParsedFile`. ``didChange``
events are applied to it incrementally: every LSP range is converted to UTF-8 byte
offsets *on the text before that change* (LSP: content changes are applied in order,
each to the result of the previous one), then handed to ``ParsedFile.apply`` so
tree-sitter re-parses only what changed. A change without a range replaces the text.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from lsprotocol import types
from pygls.uris import to_fs_path

from offload_ls.analysis.cache import AnalysisCache
from offload_ls.analysis.engine import FileAnalysis
from offload_ls.lsp.positions import to_offset
from offload_ls.syntax.parse import ParsedFile, TextEdit
from offload_ls.syntax.text import Encoding, LineIndex


def uri_path(uri: str) -> Path | None:
    """Filesystem path of a ``file:`` URI (normalised, symlinks not resolved), else ``None``."""
    if not uri.startswith("file:"):
        return None
    fs = to_fs_path(uri)
    return Path(os.path.normpath(fs)) if fs else None


def is_rust_document(uri: str, language_id: str | None = None) -> bool:
    """True for documents offload-ls analyses: language id ``rust`` or a ``.rs`` name."""
    return language_id == "rust" or uri.rsplit("?", 1)[0].endswith(".rs")


@dataclass
class Document:
    """One open document.

    Attributes:
        uri: as the client sent it. path: its file path (``None`` for ``untitled:`` etc.).
        version: the client's version number of the current text.
        parsed: current text (UTF-8 bytes) and tree.
        analysis: the last analysis result, valid for ``parsed.version == analyzed_version``.
        cache: per-item analysis results of this document, so an edit re-analyses only the
            items it changed (``offload_ls.analysis.cache``; bounded, thread-safe).
    """

    uri: str
    path: Path | None
    version: int
    parsed: ParsedFile
    analysis: FileAnalysis | None = None
    analyzed_version: int = -1
    cache: AnalysisCache = field(default_factory=AnalysisCache)

    @property
    def source(self) -> bytes:
        """Current text, UTF-8 bytes."""
        return self.parsed.source

    @property
    def line_index(self) -> LineIndex:
        """Byte offset <-> position map of the current text."""
        return self.parsed.line_index

    def current_analysis(self) -> FileAnalysis | None:
        """The cached analysis if it was computed from the current text, else ``None``."""
        return self.analysis if self.analyzed_version == self.parsed.version else None


def apply_changes(
    parsed: ParsedFile,
    changes: Sequence[types.TextDocumentContentChangeEvent],
    encoding: Encoding,
) -> None:
    """Apply LSP content changes, in order, to ``parsed``.

    Args:
        changes: ``TextDocumentContentChangePartial`` (a range in ``encoding`` units plus
            the new text) or ``TextDocumentContentChangeWholeDocument`` (the full text).
        encoding: the negotiated position encoding.

    Consecutive ranged changes are batched into one ``ParsedFile.apply`` (one re-parse);
    each range is converted on the text left by the previous change, as LSP requires.
    """
    batch: list[TextEdit] = []
    source = parsed.source
    index = parsed.line_index
    for change in changes:
        rng = getattr(change, "range", None)
        if rng is None:
            if batch:
                parsed.apply(batch)
                batch = []
            parsed.replace(change.text.encode("utf-8"))
            source, index = parsed.source, parsed.line_index
            continue
        start = to_offset(index, rng.start, encoding)
        end = max(start, to_offset(index, rng.end, encoding))
        new = change.text.encode("utf-8")
        batch.append(TextEdit(start, end, new))
        source = source[:start] + new + source[end:]
        index = LineIndex(source)
    if batch:
        parsed.apply(batch)


class DocumentStore:
    """Open documents by URI (and by path, to match file-watcher events to them)."""

    def __init__(self) -> None:
        self._docs: dict[str, Document] = {}

    def open(self, uri: str, text: str, version: int) -> Document:
        """Start tracking ``uri`` with the editor's ``text`` (parsed now)."""
        doc = Document(uri, uri_path(uri), version, ParsedFile(text.encode("utf-8")))
        self._docs[uri] = doc
        return doc

    def change(self, uri: str, version: int,
               changes: Sequence[types.TextDocumentContentChangeEvent],
               encoding: Encoding) -> Document | None:
        """Apply ``changes`` to the open document ``uri``; ``None`` if it is not open."""
        doc = self._docs.get(uri)
        if doc is None:
            return None
        apply_changes(doc.parsed, changes, encoding)
        doc.version = version
        return doc

    def close(self, uri: str) -> Document | None:
        """Stop tracking ``uri``; the closed document, or ``None`` if it was not open."""
        return self._docs.pop(uri, None)

    def get(self, uri: str) -> Document | None:
        """The open document ``uri``, or ``None``."""
        return self._docs.get(uri)

    def by_path(self, path: Path) -> Document | None:
        """The open document whose file is ``path`` (compared after normalisation)."""
        want = Path(os.path.normpath(path))
        for doc in self._docs.values():
            if doc.path == want:
                return doc
        return None

    def __iter__(self) -> Iterator[Document]:
        return iter(list(self._docs.values()))

    def __contains__(self, uri: str) -> bool:
        return uri in self._docs
