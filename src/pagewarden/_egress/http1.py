"""HTTP/1.1 plumbing of the pinning proxy: bounded heads, header filtering, fixed replies.

Parsing is h11's (already a dependency through httpcore): it rejects
malformed request lines, obsolete line folding, bad header names and
ambiguous framing, and bounds the size of an incomplete head. This module
adds the proxy's own bounds (header count, total and per-value size) and the
header hygiene of a forwarding proxy: hop-by-hop headers, every header named
in ``Connection`` and the proxy's credentials never travel upstream.

Refusal replies are written as fixed bytes rather than through h11, so a
reply can be sent whatever state the parser reached; their bodies are fixed
texts that never echo anything from the request.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

import anyio
import anyio.abc
import h11

from .._errors import InvalidInput, ResponseTooLarge

__all__ = [
    "HOP_BY_HOP",
    "HeaderList",
    "check_header_bounds",
    "forwardable_headers",
    "header_values",
    "read_request_head",
    "refusal_reply",
]

HeaderList = list[tuple[bytes, bytes]]

# RFC 9110 section 7.6.1 plus the historical proxy headers; Chromium still
# sends Proxy-Connection. Transfer-Encoding is re-framed by h11 on each side.
HOP_BY_HOP: Final = frozenset(
    {
        b"connection",
        b"keep-alive",
        b"proxy-authenticate",
        b"proxy-authorization",
        b"proxy-connection",
        b"te",
        b"trailer",
        b"trailers",
        b"transfer-encoding",
        b"upgrade",
    }
)
_READ_CHUNK: Final = 65_536
_REALM: Final = b'Basic realm="pagewarden", charset="UTF-8"'
_PHRASES: Final = {
    400: b"Bad Request",
    403: b"Forbidden",
    405: b"Method Not Allowed",
    407: b"Proxy Authentication Required",
    431: b"Request Header Fields Too Large",
    502: b"Bad Gateway",
    503: b"Service Unavailable",
}
_BODIES: Final = {
    400: b"pagewarden proxy: malformed or unsupported request\n",
    403: b"pagewarden proxy: destination refused by policy\n",
    405: b"pagewarden proxy: only GET and HEAD are forwarded\n",
    407: b"pagewarden proxy: authentication required\n",
    431: b"pagewarden proxy: request headers too large\n",
    502: b"pagewarden proxy: upstream failure\n",
    503: b"pagewarden proxy: busy\n",
}


def header_values(headers: Iterable[tuple[bytes, bytes]], name: bytes) -> list[bytes]:
    """Every value of header ``name`` (lowercase) in ``headers`` (h11 lowercases names)."""
    return [value for key, value in headers if key.lower() == name]


def check_header_bounds(
    headers: Sequence[tuple[bytes, bytes]],
    *,
    max_count: int,
    max_total: int,
    max_value: int,
    reason: str,
) -> None:
    """Raise ``ResponseTooLarge(reason=reason)`` when ``headers`` exceed a bound."""
    total = 0
    if len(headers) > max_count:
        raise ResponseTooLarge("too many headers", reason=reason, stage="proxy")
    for key, value in headers:
        if len(value) > max_value:
            raise ResponseTooLarge("a header value is too large", reason=reason, stage="proxy")
        total += len(key) + len(value) + 4
    if total > max_total:
        raise ResponseTooLarge("the headers are too large", reason=reason, stage="proxy")


def forwardable_headers(headers: Iterable[tuple[bytes, bytes]], *, drop: Iterable[bytes] = ()) -> HeaderList:
    """``headers`` without hop-by-hop headers, headers named in ``Connection`` and ``drop``."""
    pairs = [(key.lower(), value) for key, value in headers]
    named = {
        token.strip().lower()
        for value in header_values(pairs, b"connection")
        for token in value.split(b",")
        if token.strip()
    }
    removed = HOP_BY_HOP | named | {name.lower() for name in drop}
    return [(key, value) for key, value in pairs if key not in removed]


async def read_request_head(stream: anyio.abc.ByteReceiveStream, conn: h11.Connection) -> h11.Request | None:
    """Read one request head into ``conn``; ``None`` if the client closed before sending one.

    The caller bounds the time; h11 bounds the size (its
    ``max_incomplete_event_size``).

    Raises:
        ResponseTooLarge: the head is larger than the parser allows
            (``reason="request_headers_too_large"``).
        InvalidInput: the head is not valid HTTP/1.1 (``reason="malformed_request"``).
    """
    while True:
        try:
            event = conn.next_event()
        except h11.RemoteProtocolError as exc:
            if exc.error_status_hint == 431:
                raise ResponseTooLarge(
                    "the request head is too large", reason="request_headers_too_large", stage="proxy"
                ) from None
            raise InvalidInput("the request is not valid HTTP/1.1", reason="malformed_request", stage="proxy") from None
        if event is h11.NEED_DATA:
            try:
                data = await stream.receive(_READ_CHUNK)
            except (anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError):
                data = b""
            conn.receive_data(data)
            continue
        if isinstance(event, h11.Request):
            return event
        return None  # ConnectionClosed (or anything unexpected): nothing to answer


def refusal_reply(status: int) -> bytes:
    """The complete fixed reply for ``status`` (with ``Proxy-Authenticate`` for 407, ``Allow`` for 405)."""
    body = _BODIES.get(status, _BODIES[502])
    phrase = _PHRASES.get(status, _PHRASES[502])
    lines = [
        b"HTTP/1.1 %d %s" % (status, phrase),
        b"Content-Type: text/plain; charset=utf-8",
        b"Content-Length: %d" % len(body),
        b"Cache-Control: no-store",
        b"Connection: close",
    ]
    if status == 407:
        lines.append(b"Proxy-Authenticate: " + _REALM)
    if status == 405:
        lines.append(b"Allow: GET, HEAD")
    return b"\r\n".join(lines) + b"\r\n\r\n" + body
