"""pygls' protocol with offload-ls's position-encoding choice and a hardened message
lifecycle (malformed JSON-RPC answered, not raised; lsp/wire.py classifies them)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING
from urllib.parse import unquote

import attrs
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.protocol import LanguageServerProtocol
from pygls.protocol.json_rpc import RPCRequest
from pygls.protocol.language_server import lsp_method

from offload_ls.lsp import wire
from offload_ls.lsp.positions import choose_encoding, encoding_kind

if TYPE_CHECKING:
    from offload_ls.lsp.host import Host

log = logging.getLogger(__name__)


class _Undecodable:
    """A message body that is JSON but not a valid message (answered per :func:`wire.classify`)."""

    __slots__ = ("data",)

    def __init__(self, data) -> None:
        self.data = data


class OffloadProtocol(LanguageServerProtocol):
    """pygls' protocol with offload-ls's position-encoding preference and a hardened
    message lifecycle.

    Encoding: pygls picks the first encoding in the client's list that it supports;
    offload-ls prefers UTF-8 whenever the client offers it (no conversion: tree-sitter
    counts bytes), then UTF-16, then UTF-32
    (:func:`offload_ls.lsp.positions.choose_encoding`). The choice is made here, before
    pygls builds its workspace and the ``ServerCapabilities.positionEncoding`` it reports,
    so both agree with it.

    Lifecycle and malformed messages (:mod:`offload_ls.lsp.wire`): every request gets an
    answer — ``-32600`` / ``-32602`` for one that cannot be decoded, ``-32002`` before
    ``initialize``, ``-32600`` for a second ``initialize`` and after ``shutdown``;
    notifications before ``initialize`` (other than ``exit``) are dropped.
    """

    _server: "Host"
    _initialize_seen = False
    #: the client sent `exit` (the session did not end by the pipe closing)
    exit_seen = False

    def structure_message(self, data):
        """pygls' decoding, but a message it cannot decode is kept for an error reply
        instead of raising inside ``json.loads`` (which loses the request id)."""
        if "jsonrpc" in data and wire.bad_envelope(data):
            return _Undecodable(data)
        try:
            return super().structure_message(data)
        except JsonRpcException:
            return _Undecodable(data)

    def _execute_handler(self, msg_id, handler, callback, args=None, kwargs=None):
        """pygls' handler call, minus a leak: pygls files the future of every async or
        generator handler under ``msg_id`` in ``_request_futures`` (for cancellation) but
        removes it only when answering a request. Notifications (a uuid as ``msg_id``)
        and the inner calls of its generator handlers left one future per ``didChange``,
        ``didOpen``, ``didSave``... for the life of the session. Their entries now go when
        their future is done."""
        super()._execute_handler(msg_id, handler, callback, args, kwargs)
        if getattr(callback, "func", None) == self._send_handler_result:
            return  # a request's future: pygls removes it when it answers
        future = self._request_futures.get(msg_id)
        if future is None:
            return
        if future.done():
            self._request_futures.pop(msg_id, None)
        else:
            future.add_done_callback(lambda _f, key=msg_id: self._request_futures.pop(key, None))

    def send_error(self, rid, code: int, message: str) -> None:
        """Send a JSON-RPC error response (``rid`` may be ``None``: ``"id": null``)."""
        self._send_data(wire.error_response(rid, code, message))

    def handle_message(self, message) -> None:
        if isinstance(message, _Undecodable) or not hasattr(message, "jsonrpc"):
            data = message.data if isinstance(message, _Undecodable) else message
            reply = wire.classify(data)
            log.warning("ignored an invalid JSON-RPC message%s",
                        f" (answered {reply[1]}: {reply[2]})" if reply else "")
            if reply is not None:
                self.send_error(*reply)
            elif isinstance(data, dict) and "method" not in data and wire.valid_id(data.get("id")):
                # A client response we cannot decode: fail the request that waits for it.
                future = self._request_futures.pop(data["id"], None)
                if future is not None and not future.done():
                    future.set_exception(JsonRpcException(f"invalid response from the client: {data!r:.200}"))
            return
        method = getattr(message, "method", None)
        if method is None:
            super().handle_message(message)  # a response from the client
            return
        request = isinstance(message, RPCRequest)
        if method == types.EXIT:
            self.exit_seen = True
        if method == types.INITIALIZE:
            if self._initialize_seen:
                self.send_error(message.id, wire.INVALID_REQUEST, "initialize may only be sent once")
                return
            self._initialize_seen = True
        elif not self._initialize_seen and method != types.EXIT:
            if request:
                self.send_error(message.id, wire.SERVER_NOT_INITIALIZED,
                                f"{method} before initialize: the server is not initialized")
            else:
                log.warning("dropped the %s notification sent before initialize", method)
            return
        elif self._shutdown and method != types.EXIT:
            if request:
                self.send_error(message.id, wire.INVALID_REQUEST, f"{method} after shutdown")
            return
        super().handle_message(message)

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams):
        """Choose the encoding, then run pygls' initialize with only that encoding offered."""
        caps = params.capabilities
        general = caps.general or types.GeneralClientCapabilities()
        encoding = choose_encoding(general.position_encodings)
        self._server.session.encoding = encoding
        narrowed = attrs.evolve(caps, general=attrs.evolve(
            general, position_encodings=[encoding_kind(encoding)]))
        result = yield from super().lsp_initialize(attrs.evolve(params, capabilities=narrowed))
        self.client_capabilities = caps  # keep what the client really sent
        return result

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams):
        """pygls' didChange, but a change to a document that was never opened is logged and
        dropped (pygls raised ``KeyError`` and showed "Error in server" to the user)."""
        if unquote(params.text_document.uri) not in self.workspace._text_documents:
            log.warning("didChange for %s, which is not open: ignored", params.text_document.uri)
            return None
        result = yield from super().lsp_text_document__did_change(params)
        return result

    @lsp_method(types.SHUTDOWN)
    def lsp_shutdown(self, *args):
        """pygls' shutdown, after cancelling the pending requests from a copy of their
        table: pygls cancels them while iterating the table itself, and a cancelled
        thread-pool future's callback removes its entry at once (``RuntimeError: dictionary
        changed size during iteration`` answered to the client's ``shutdown``)."""
        current = self.msg_id
        for msg_id, future in list(self._request_futures.items()):
            if msg_id != current and not future.done():
                future.cancel()
        result = yield from super().lsp_shutdown(*args)
        return result
