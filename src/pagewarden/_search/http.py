"""A small GET helper for search APIs, over the same SSRF-safe path as page reads.

:func:`api_get` runs one request through the project's transport pieces:
:func:`~pagewarden._net.parse_target` (DNS-free URL policy), one resolution
with the address policy (:func:`~pagewarden._net.resolve_and_check`), an
httpcore connection pinned to the validated addresses
(:class:`~pagewarden._net.pinned.PinnedBackend`, certificate checks never
relaxed), bounded content decoding
(:class:`~pagewarden._net.decode.BodyDecoder`), and the single error
translation boundary (:func:`~pagewarden._net.boundary.map_transport_errors`).

It differs from page fetching in what a JSON API needs: caller-supplied
request headers (an API key), any media type (the caller checks it), no
redirects (a 3xx is returned as is and the caller treats it as an error), and
the body is read only for 2xx answers. The request-side sensitive-query check
of page reads is not applied: the query goes to the search provider the
application configured, which is the point of searching.

Request header values (keys) are never put in an error or a log; failures
carry only the redacted URL (query values elided).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .._config import ReaderConfig
from .._errors import UpstreamHTTP
from .._net.boundary import StageTracker, map_transport_errors
from .._net.decode import BodyDecoder
from .._net.pinned import PinnedBackend
from .._net.resolve import resolve_and_check
from .._net.transport import checked_headers, pinned_pool, pinned_request, time_left
from .._net.urls import parse_target

__all__ = ["ApiResponse", "api_get"]


@dataclass(frozen=True, slots=True)
class ApiResponse:
    """One API answer: status, lower-cased headers, decoded body (empty unless 2xx)."""

    status: int
    headers: tuple[tuple[str, str], ...] = field(repr=False)
    body: bytes = field(repr=False)

    def header(self, name: str) -> str | None:
        """The first value of header ``name`` (lower case), or ``None``."""
        return next((value for key, value in self.headers if key == name), None)


async def api_get(
    url: str,
    *,
    headers: Sequence[tuple[str, str]],
    config: ReaderConfig,
    max_bytes: int,
) -> ApiResponse:
    """GET ``url`` through the safe transport; see the module docstring.

    The caller owns the deadline (wrap in ``anyio.fail_after``); socket
    timeouts follow it.

    Raises:
        UnsafeURL, InvalidInput: the URL or its addresses are refused.
        NetworkError, Timeout, UpstreamHTTP, ResponseTooLarge,
        UnsupportedContentEncoding: transport failures, translated once.
    """
    target = parse_target(url, config)
    addresses = await resolve_and_check(target, config)
    request = pinned_request(
        target,
        [
            (b"User-Agent", config.user_agent.encode("utf-8")),
            (b"Accept-Encoding", b"gzip, deflate, br"),
            *((name.encode("ascii"), value.encode("ascii")) for name, value in headers),
        ],
        time_left(config.timeout),
    )
    pool = pinned_pool(PinnedBackend(target.host, target.port, addresses, proxy=config.upstream_proxy))
    tracker = StageTracker(target.url)
    with map_transport_errors(tracker):
        async with pool:
            response = await pool.handle_async_request(request)
            try:
                tracker.stage = "http"
                decoded = tuple(checked_headers(response.headers, config, target.url))
                body = b""
                if 200 <= response.status < 300:
                    tracker.stage = "body"
                    encodings = [v for k, v in decoded if k == "content-encoding"]
                    if len(encodings) > 1:
                        raise UpstreamHTTP(
                            "the response has several Content-Encoding headers",
                            reason="protocol_error",
                            url=target.url,
                            stage="http",
                        )
                    decoder = BodyDecoder(
                        encodings[0] if encodings else None, max_compressed=max_bytes, max_decoded=max_bytes * 4
                    )
                    async for chunk in response.aiter_stream():
                        decoder.feed(chunk)
                    body = decoder.finish()
            finally:
                await response.aclose()
    return ApiResponse(status=response.status, headers=decoded, body=body)
