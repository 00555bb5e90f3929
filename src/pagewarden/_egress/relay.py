"""Moving bytes for the pinning proxy: CONNECT tunnels and plain HTTP forwarding.

Both relays run between the browser's socket (an anyio stream) and an
upstream stream that :class:`~pagewarden._net.pinned.PinnedBackend` opened to
a validated address, and both are bounded:

* a download cap per connection (bytes read from upstream, head included);
  going over it cuts the connection;
* an upload cap per tunnel (bytes the browser sends upstream);
* an idle timeout: a tunnel with no byte in either direction for that long,
  or a plain request whose upstream stays silent that long, is closed.

The overall lifetime (the session's deadline) is the caller's cancel scope.

A tunnel ends as a whole when either side closes: TLS never half-closes in
practice, and ending both sides at once keeps the bookkeeping simple.
Plain HTTP is re-framed by h11 on each side (one request per connection,
``Connection: close`` both ways), so a response whose framing is ambiguous
(``Content-Length`` and ``Transfer-Encoding`` together) reaches the browser
with one unambiguous framing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import anyio
import anyio.abc
import h11
import httpcore

from .._errors import ResponseTooLarge, UpstreamHTTP
from .._net.urls import Target
from .http1 import check_header_bounds, forwardable_headers, header_values

__all__ = ["RelayLimits", "RelayStats", "forward_http", "run_tunnel"]

_CHUNK = 65_536
# Errors that only mean "this side went away".
_GONE = (
    anyio.EndOfStream,
    anyio.BrokenResourceError,
    anyio.ClosedResourceError,
    httpcore.NetworkError,
    httpcore.TimeoutException,
    OSError,
)


@dataclass(frozen=True, slots=True)
class RelayLimits:
    """Bounds of one proxied connection (see the module docstring)."""

    max_download_bytes: int
    max_upload_bytes: int
    idle_timeout: float
    max_header_count: int
    max_header_bytes: int
    max_header_value_bytes: int


@dataclass(slots=True)
class RelayStats:
    """Bytes moved by one connection and, when it was cut, why."""

    bytes_up: int = 0
    bytes_down: int = 0
    cut: str | None = None
    _last: float = field(default=0.0, repr=False)


async def run_tunnel(
    client: anyio.abc.ByteStream,
    upstream: httpcore.AsyncNetworkStream,
    initial: bytes,
    limits: RelayLimits,
) -> RelayStats:
    """Relay bytes both ways until a side closes, a cap is hit or the tunnel idles.

    ``initial`` holds bytes the browser sent after the CONNECT head. The
    returned stats say why the tunnel was cut (``upload_cap``,
    ``download_cap``, ``idle_timeout``), or ``cut=None`` for a normal end.
    """
    stats = RelayStats(_last=anyio.current_time())

    async with anyio.create_task_group() as group:

        def finish(reason: str | None) -> None:
            if stats.cut is None:
                stats.cut = reason
            group.cancel_scope.cancel()

        async def upload(data: bytes) -> bool:
            stats.bytes_up += len(data)
            if stats.bytes_up > limits.max_upload_bytes:
                finish("upload_cap")
                return False
            stats._last = anyio.current_time()
            await upstream.write(data)
            return True

        async def client_to_upstream() -> None:
            try:
                if initial and not await upload(initial):
                    return
                while True:
                    data = await client.receive(_CHUNK)
                    if not await upload(data):
                        return
            except _GONE:
                pass
            finish(None)

        async def upstream_to_client() -> None:
            try:
                while True:
                    data = await upstream.read(_CHUNK)
                    if not data:
                        break
                    stats.bytes_down += len(data)
                    if stats.bytes_down > limits.max_download_bytes:
                        finish("download_cap")
                        return
                    stats._last = anyio.current_time()
                    await client.send(data)
            except _GONE:
                pass
            finish(None)

        async def watchdog() -> None:
            while True:
                left = stats._last + limits.idle_timeout - anyio.current_time()
                if left <= 0:
                    finish("idle_timeout")
                    return
                await anyio.sleep(left)

        group.start_soon(client_to_upstream)
        group.start_soon(upstream_to_client)
        group.start_soon(watchdog)
    return stats


def _upstream_request(request: h11.Request, target: Target) -> h11.Request:
    # Host comes from the validated URL, never from the browser's header;
    # the path and query are the canonical ones our intake built.
    headers = forwardable_headers(request.headers, drop=(b"host", b"content-length"))
    return h11.Request(
        method=request.method,
        target=target.request_target.encode("ascii"),
        headers=[(b"host", target.host_header.encode("ascii")), *headers, (b"connection", b"close")],
    )


async def forward_http(
    client: anyio.abc.ByteStream,
    server: h11.Connection,
    request: h11.Request,
    target: Target,
    upstream: httpcore.AsyncNetworkStream,
    limits: RelayLimits,
) -> RelayStats:
    """Send ``request`` (GET/HEAD, no body, already validated) upstream and stream the answer back.

    Raises (before anything was sent to the browser, so the caller can still
    answer 502):
        UpstreamHTTP: the upstream broke the protocol, closed early or idled.
        ResponseTooLarge: the response head is over the header bounds (or too
            large for the parser), or its declared length is over the download cap.

    After the response head has been sent, failures cut the connection and
    are reported in ``stats.cut`` (``download_cap``, ``upstream_truncated``,
    ``idle_timeout``).
    """
    stats = RelayStats()
    up = h11.Connection(h11.CLIENT, max_incomplete_event_size=limits.max_header_bytes)
    data = up.send(_upstream_request(request, target)) + (up.send(h11.EndOfMessage()) or b"")
    stats.bytes_up = len(data)
    try:
        await upstream.write(data, timeout=limits.idle_timeout)
    except _GONE:
        raise UpstreamHTTP("the upstream did not accept the request", reason="upstream_write_failed") from None

    async def next_event() -> h11.Event | type[h11.PAUSED]:
        while True:
            event = up.next_event()
            if event is not h11.NEED_DATA:
                return event  # type: ignore[return-value]  # narrowed: not NEED_DATA
            chunk = await upstream.read(_CHUNK, timeout=limits.idle_timeout)
            stats.bytes_down += len(chunk)
            if stats.bytes_down > limits.max_download_bytes:
                raise ResponseTooLarge("the response is over the download cap", reason="download_cap")
            up.receive_data(chunk)

    try:
        while True:
            event = await next_event()
            if isinstance(event, h11.InformationalResponse):
                continue  # 1xx: nothing the browser needs from a GET without a body
            if not isinstance(event, h11.Response):
                raise UpstreamHTTP("the upstream closed before answering", reason="upstream_closed")
            break
    except h11.RemoteProtocolError as exc:
        if "buffer too long" in str(exc).lower():
            # h11 gave up on a head larger than max_header_bytes: a size limit, as on the static path.
            raise ResponseTooLarge("the upstream headers are too large", reason="upstream_headers_too_large") from None
        raise UpstreamHTTP("the upstream answer is not valid HTTP/1.1", reason="upstream_protocol_error") from None
    except httpcore.TimeoutException:
        raise UpstreamHTTP("the upstream did not answer in time", reason="upstream_timeout") from None
    except _GONE:
        raise UpstreamHTTP("the upstream connection failed", reason="upstream_closed") from None
    response = event
    if not 200 <= response.status_code <= 599:
        raise UpstreamHTTP("the upstream status is out of range", reason="upstream_bad_status")
    check_header_bounds(
        response.headers,
        max_count=limits.max_header_count,
        max_total=limits.max_header_bytes,
        max_value=limits.max_header_value_bytes,
        reason="upstream_headers_too_large",
    )
    chunked = bool(header_values(response.headers, b"transfer-encoding"))
    for length in header_values(response.headers, b"content-length"):
        if not chunked and length.strip().isdigit() and int(length) > limits.max_download_bytes:
            raise ResponseTooLarge("the declared body is over the download cap", reason="download_cap")
    # With Transfer-Encoding, Content-Length is meaningless (RFC 9112 6.3); drop it.
    drop = (b"content-length",) if chunked else ()
    headers = [*forwardable_headers(response.headers, drop=drop), (b"connection", b"close")]
    head = server.send(h11.Response(status_code=response.status_code, headers=headers, reason=response.reason))
    await _send(client, head or b"", limits)

    try:
        while True:
            event = await next_event()
            if isinstance(event, h11.Data):
                await _send(client, server.send(h11.Data(data=event.data)) or b"", limits)
            elif isinstance(event, h11.EndOfMessage):
                await _send(client, server.send(h11.EndOfMessage()) or b"", limits)
                return stats
            else:
                stats.cut = "upstream_truncated"
                return stats
    except ResponseTooLarge:
        stats.cut = "download_cap"
    except httpcore.TimeoutException:
        stats.cut = "idle_timeout"
    except (h11.RemoteProtocolError, *_GONE):
        stats.cut = "upstream_truncated"
    return stats


async def _send(client: anyio.abc.ByteStream, data: bytes, limits: RelayLimits) -> None:
    # A browser that stops reading must not hold the connection forever.
    with anyio.fail_after(limits.idle_timeout):
        await client.send(data)
