"""The JSON-RPC wire, hardened: what the server answers to messages a correct client
never sends, and how it finds the next message after bytes that are not one.

pygls 2.1 (the reader loop in ``pygls.io_`` and ``JsonRPCProtocol``) answers nothing to
a request it cannot decode — the client's request then waits forever — and one frame
with a bad ``Content-Length`` header desynchronises the stream for good (every later
header is read glued to the previous body). offload-ls keeps pygls and adds:

- :class:`ResyncStdin`, the stdin given to ``start_io``: a line that carries junk before
  ``Content-Length:`` is split there, so the next well-framed message is read again;
- :func:`classify`, the JSON-RPC 2.0 error for a decoded message that is not a valid
  request, used by ``OffloadProtocol``: ``-32600`` Invalid Request (no/wrong
  ``jsonrpc``, ``method`` not a string, ``id`` not an integer or string, not an object),
  ``-32602`` Invalid params (well-formed envelope, params of the wrong shape);
- the codes for bodies that are not JSON (``-32700`` Parse error, ``id: null``), requests
  before ``initialize`` (``-32002`` ServerNotInitialized, LSP 3.17 "Initialize Request")
  and requests after ``shutdown`` (``-32600``, LSP 3.17 "Shutdown Request").

Sources: https://www.jsonrpc.org/specification ("Error object", "Response object": the
id is ``null`` when it could not be read) and the LSP 3.17 base protocol.
"""

from __future__ import annotations

import logging
from typing import BinaryIO

log = logging.getLogger(__name__)

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
SERVER_NOT_INITIALIZED = -32002

_HEADER = b"Content-Length:"


class ResyncStdin:
    """A binary stdin (``readline`` / ``read``) for pygls' reader loop that recovers from
    junk between messages.

    pygls reads header lines with ``readline`` and ignores lines it does not know. After a
    frame with a bad or missing ``Content-Length``, its body (no newline at its end) is read
    as part of the next line, together with the next frame's ``Content-Length`` header,
    which is then never recognised. This reader splits such a line: the junk before
    ``Content-Length:`` becomes one ignored header line (``X-Offload-Ls-Skipped: <bytes>``)
    and the header is returned by the next ``readline``. A warning names the number of
    bytes skipped (never their content: they may be megabytes).

    Args:
        raw: the real stdin (``sys.stdin.buffer``).
    """

    def __init__(self, raw: BinaryIO) -> None:
        self._raw = raw
        self._pending = b""

    def readline(self) -> bytes:
        """The next header line (bytes, with its line end), or ``b""`` at end of input."""
        if self._pending:
            line, self._pending = self._pending, b""
            return line
        line = self._raw.readline()
        cut = line.find(_HEADER)
        if cut > 0:
            junk, self._pending = line[:cut], line[cut:]
            log.warning("skipped %d bytes of input that were not a JSON-RPC message "
                        "(a bad or missing Content-Length header before them)", len(junk))
            return b"X-Offload-Ls-Skipped: %d\r\n" % len(junk)
        return line

    def read(self, n: int) -> bytes:
        """Exactly ``n`` bytes of a message body (fewer only at end of input).

        A body that is not UTF-8 (LSP 3.17 base protocol: the content is UTF-8) is answered
        with the parse error: Python's ``json.loads`` on bytes decodes with
        ``surrogatepass`` and would accept encoded surrogates (``ED A0 80``), so the first
        offending byte is replaced by ``FF``, which no decoder accepts (same length)."""
        if not self._pending:
            return _strict_utf8(self._raw.read(n))
        head, self._pending = self._pending[:n], self._pending[n:]
        return _strict_utf8(head + (self._raw.read(n - len(head)) if len(head) < n else b""))


def _strict_utf8(body: bytes) -> bytes:
    """``body``, or with its first byte that is not strict UTF-8 replaced by ``FF``."""
    try:
        body.decode("utf-8")
    except UnicodeDecodeError as exc:
        return body[: exc.start] + b"\xff" + body[exc.start + 1 :]
    return body


def valid_id(value) -> bool:
    """LSP ids are integers or strings (``bool`` is not an integer here)."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def bad_envelope(data: dict) -> bool:
    """True if a decoded object cannot be a JSON-RPC 2.0 message whatever its params:
    ``jsonrpc`` is not ``"2.0"``, ``method`` is not a string, or ``id`` is neither an
    integer nor a string."""
    return (data.get("jsonrpc") != "2.0" or ("method" in data and not isinstance(data["method"], str))
            or ("id" in data and not valid_id(data["id"])))


def classify(data) -> tuple[object, int, str] | None:
    """The error response for a decoded JSON value that pygls could not turn into a valid
    message, as ``(id, code, message)``; ``None`` when no response is due (a
    notification, or a response from the client).

    Args:
        data: the decoded JSON value (any type) of one message body.
    """
    if not isinstance(data, dict):
        return None, INVALID_REQUEST, f"a JSON-RPC message must be an object, got {type(data).__name__}"
    rid = data.get("id")
    echo = rid if valid_id(rid) else None
    is_request = "id" in data and "method" in data
    if data.get("jsonrpc") != "2.0":
        if "method" not in data and ("result" in data or "error" in data):
            return None  # a malformed response from the client: never answered
        if "id" in data or "method" not in data:
            return echo, INVALID_REQUEST, 'a JSON-RPC 2.0 message needs "jsonrpc": "2.0"'
        return None
    if "method" in data and not isinstance(data["method"], str):
        return (echo, INVALID_REQUEST, "\"method\" must be a string") if "id" in data else None
    if "id" in data and not valid_id(rid):
        return None, INVALID_REQUEST, "\"id\" must be an integer or a string"
    if is_request:
        return rid, INVALID_PARAMS, f"invalid params for {data['method']}"
    if "method" not in data and "result" not in data and "error" not in data:
        return echo, INVALID_REQUEST, "neither a request, a notification nor a response"
    return None


def error_response(rid, code: int, message: str) -> dict:
    """A JSON-RPC error response (``"id": null`` kept when the id is unknown)."""
    return {"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}}
