"""Helpers for the end-to-end LSP tests."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types

RULE = "raw_pointer_kernel_param"
TIMEOUT_S = 20.0


def capabilities(encodings: list[str] | None = None, configuration: bool = True,
                 watch_dynamic: bool = False) -> types.ClientCapabilities:
    """Client capabilities: ``encodings`` as ``general.positionEncodings`` (``None``: not
    sent, i.e. a UTF-16-only client)."""
    return types.ClientCapabilities(
        general=types.GeneralClientCapabilities(position_encodings=encodings) if encodings is not None else None,
        workspace=types.WorkspaceClientCapabilities(
            configuration=configuration,
            workspace_folders=True,
            did_change_configuration=types.DidChangeConfigurationClientCapabilities(),
            did_change_watched_files=types.DidChangeWatchedFilesClientCapabilities(
                dynamic_registration=watch_dynamic),
        ),
        text_document=types.TextDocumentClientCapabilities(
            synchronization=types.TextDocumentSyncClientCapabilities(did_save=True),
            hover=types.HoverClientCapabilities(
                content_format=[types.MarkupKind.Markdown, types.MarkupKind.PlainText]),
            publish_diagnostics=types.PublishDiagnosticsClientCapabilities(
                related_information=True, version_support=True, code_description_support=True),
            code_action=types.CodeActionClientCapabilities(
                code_action_literal_support=types.ClientCodeActionLiteralOptions(
                    code_action_kind=types.ClientCodeActionKindOptions(
                        value_set=[types.CodeActionKind.QuickFix]))),
        ),
    )


async def initialize(client, root: Path, *, encodings: list[str] | None = None,
                     init_options=None, configuration: dict | None = None,
                     watch_dynamic: bool = False,
                     configuration_support: bool = True) -> types.InitializeResult:
    """Initialize the session with ``root`` as the one workspace folder."""
    if configuration is not None:
        client.set_configuration(configuration, section="offload-ls")
    params = types.InitializeParams(
        capabilities=capabilities(encodings, configuration_support, watch_dynamic),
        root_uri=root.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
        initialization_options=init_options,
    )
    return await client.initialize_session(params)


async def wait_for(predicate, what: str, timeout: float = TIMEOUT_S):
    """Poll ``predicate()`` until it returns a truthy value (returned), or fail."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.01)


async def published(client, uri: str, version: int | None = None, after: int = 0
                    ) -> list[types.Diagnostic]:
    """Diagnostics of the first publish for ``uri`` (with ``version``, if given) among
    the publishes received after the first ``after`` ones."""
    def find():
        for p in client.published[after:]:
            if p.uri == uri and (version is None or p.version == version):
                return p
        return None
    p = await wait_for(find, f"publishDiagnostics for {uri} version {version}")
    return list(p.diagnostics)


async def log_line(client, predicate, what: str) -> str:
    """The first window/logMessage text satisfying ``predicate``."""
    def find():
        return next((m.message for m in client.log_messages if predicate(m.message)), None)
    return await wait_for(find, what)


def of_rule(diagnostics) -> list[types.Diagnostic]:
    return [d for d in diagnostics if d.code == RULE]


def rng(l1: int, c1: int, l2: int, c2: int) -> types.Range:
    return types.Range(start=types.Position(line=l1, character=c1),
                       end=types.Position(line=l2, character=c2))


def open_doc(client, uri: str, text: str, version: int = 1) -> None:
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="rust", version=version, text=text)))


def change_doc(client, uri: str, version: int, changes: list) -> None:
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=changes))


def edit(range_: types.Range, text: str) -> types.TextDocumentContentChangePartial:
    return types.TextDocumentContentChangePartial(range=range_, text=text)


def apply_edits(text: str, edits: list[types.TextEdit], encoding: str) -> str:
    """Apply LSP TextEdits (non-overlapping, ranges on ``text``) the way a client does,
    counting columns in ``encoding`` independently of the server's LineIndex."""
    lines = text.split("\n")

    def units(ch: str) -> int:
        if encoding == "utf-8":
            return len(ch.encode("utf-8"))
        if encoding == "utf-16":
            return len(ch.encode("utf-16-le")) // 2
        return 1

    def offset(pos: types.Position) -> int:
        before = sum(len(line) + 1 for line in lines[:pos.line])
        line = lines[pos.line]
        count = 0
        for i, ch in enumerate(line):
            if count >= pos.character:
                return before + i
            count += units(ch)
        return before + len(line)

    out = text
    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        a, b = offset(e.range.start), offset(e.range.end)
        out = out[:a] + e.new_text + out[b:]
    return out
