"""The SSRF-safe static transport: :func:`fetch` one URL, redirects included.

Every hop runs the same gauntlet from scratch: URL intake
(:func:`~pagewarden._net.urls.parse_target`), the request-side sensitive-data
check, one DNS resolution with the address policy
(:func:`~pagewarden._net.resolve.resolve_and_check`), then a connection that
can only reach the validated addresses (:class:`~pagewarden._net.pinned.PinnedBackend`).

Why httpcore directly rather than an ``httpx.AsyncClient``: everything httpx
adds on top of httpcore (environment proxies, cookies, auth, automatic
redirects, its own URL parser) is either turned off here or a risk. Driving
httpcore (httpx's own connection layer) with the canonical URL built by our
intake removes the second URL parser, so no parser differential can change
the host between "checked" and "dialled"; and httpcore never reads proxy
settings from the environment. Each hop gets a fresh single-connection pool
with ``retries=0`` and HTTP/1.1 only, closed when the hop ends.

Deadline: the caller wraps the read in ``anyio.fail_after``; each hop sets
httpcore's timeouts to the time left until that deadline, so nothing waits
past it, and cancellation propagates unchanged. Called without a deadline,
:func:`fetch` applies ``config.timeout`` itself and raises ``Timeout``.
"""

from __future__ import annotations

import math
import ssl
import time
import urllib.parse
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache

import anyio
import certifi
import httpcore

from .._config import ReaderConfig
from .._errors import (
    InvalidInput,
    ResponseTooLarge,
    Timeout,
    UnsupportedContentType,
    UpstreamHTTP,
)
from .._protocols import IPAddress
from .boundary import StageTracker, map_transport_errors
from .decode import PDF_MEDIA_TYPES, BodyDecoder, decode_text, parse_content_type
from .pinned import PinnedBackend
from .redirects import check_redirect
from .resolve import resolve_and_check
from .sensitive import check_sensitive
from .urls import Target, parse_target

__all__ = [
    "ACCEPT",
    "ACCEPT_ENCODING",
    "REDIRECT_STATUSES",
    "FetchedResponse",
    "checked_headers",
    "fetch",
    "pinned_pool",
    "pinned_request",
    "time_left",
]

ACCEPT = "text/html,application/xhtml+xml;q=0.9,text/markdown;q=0.9,text/plain;q=0.8,application/pdf;q=0.8"
ACCEPT_ENCODING = "gzip, deflate, br"
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
SAFE_HEADERS = ("content-language", "last-modified", "etag")
_MAX_SAFE_HEADER_CHARS = 200


@dataclass(frozen=True, slots=True)
class FetchedResponse:
    """The outcome of a successful :func:`fetch`.

    Attributes:
        requested_url: the canonical requested URL (no fragment).
        final_url: the canonical URL of the last hop (no fragment).
        status: the final HTTP status (2xx).
        content_type: the media type, lowercased, without parameters.
        charset: the Python codec the body was decoded with.
        text: the decoded body.
        compressed_bytes: bytes read from the wire over all hops.
        decoded_bytes: bytes of the final body after content decoding.
        redirects: redirects followed.
        headers: a small safe subset (content-language, last-modified, etag).
        dns_seconds, connect_seconds, http_seconds: where the time went.
    """

    requested_url: str
    final_url: str
    status: int
    content_type: str
    charset: str
    text: str
    compressed_bytes: int
    decoded_bytes: int
    redirects: int
    headers: dict[str, str] = field(default_factory=dict)
    dns_seconds: float = 0.0
    connect_seconds: float = 0.0
    http_seconds: float = 0.0


@dataclass(slots=True)
class _Hop:
    status: int
    headers: list[tuple[str, str]]
    location: str | None = None
    content_type: str = ""
    charset: str = ""
    text: str = ""
    compressed_bytes: int = 0
    decoded_bytes: int = 0
    connect_seconds: float = 0.0
    http_seconds: float = 0.0


@cache
def _ssl_context() -> ssl.SSLContext:
    # Built once: loading the CA bundle costs milliseconds per read otherwise.
    # Verification (hostname and chain) is the default and is never relaxed.
    return ssl.create_default_context(cafile=certifi.where())


def time_left(default: float) -> float:
    """Seconds until the enclosing deadline, or ``default`` when there is none."""
    deadline = anyio.current_effective_deadline()
    if math.isinf(deadline):
        return default
    return max(0.001, deadline - anyio.current_time())


def pinned_request(target: Target, headers: Sequence[tuple[bytes, bytes]], timeout: float) -> httpcore.Request:
    """A GET for ``target`` built from our canonical parts (no second URL parser), with every timeout set."""
    return httpcore.Request(
        b"GET",
        httpcore.URL(
            scheme=target.scheme.encode("ascii"),
            host=target.host.encode("ascii"),
            port=target.port,
            target=target.request_target.encode("ascii"),
        ),
        headers=[(b"Host", target.host_header.encode("ascii")), *headers],
        extensions={"timeout": {"connect": timeout, "read": timeout, "write": timeout, "pool": timeout}},
    )


def pinned_pool(backend: PinnedBackend) -> httpcore.AsyncConnectionPool:
    """A single-connection HTTP/1.1 pool that can only dial through ``backend`` (no retries)."""
    return httpcore.AsyncConnectionPool(
        ssl_context=_ssl_context(),
        max_connections=1,
        http1=True,
        http2=False,
        retries=0,
        network_backend=backend,
    )


def _header_values(headers: list[tuple[str, str]], name: str) -> list[str]:
    return [value for key, value in headers if key == name]


def checked_headers(raw: list[tuple[bytes, bytes]], config: ReaderConfig, url: str) -> list[tuple[str, str]]:
    """The response headers, lower-cased names, refused when over the count or byte limits."""
    limits = config.limits
    if len(raw) > limits.max_header_count:
        raise ResponseTooLarge("the response has too many headers", reason="too_many_headers", url=url, stage="http")
    size = sum(len(key) + len(value) + 4 for key, value in raw)
    if size > limits.max_header_bytes:
        raise ResponseTooLarge("the response headers are too large", reason="header_too_large", url=url, stage="http")
    return [(key.decode("latin-1").lower(), value.decode("latin-1")) for key, value in raw]


async def _read_body(
    response: httpcore.Response, headers: list[tuple[str, str]], config: ReaderConfig, hop: _Hop, url: str
) -> None:
    media, charset = parse_content_type(next(iter(_header_values(headers, "content-type")), None))
    if media is None:
        raise UnsupportedContentType(
            "the response has no Content-Type", reason="content_type_missing", url=url, stage="http"
        )
    if media not in config.allowed_content_types:
        raise UnsupportedContentType(
            "the response's media type is not allowed",
            reason="content_type_not_allowed",
            url=url,
            stage="http",
        )
    limits = config.limits
    # A PDF has size limits of its own (pages of a paper outweigh an article's HTML).
    is_pdf = media in PDF_MEDIA_TYPES
    max_compressed = limits.max_pdf_compressed_bytes if is_pdf else limits.max_compressed_bytes
    max_decoded = limits.max_pdf_decoded_bytes if is_pdf else limits.max_decoded_bytes
    for length in _header_values(headers, "content-length"):
        if not length.strip().isdigit():
            raise UpstreamHTTP(
                "the Content-Length is not a number", reason="invalid_content_length", url=url, stage="http"
            )
        if int(length) > max_compressed:
            raise ResponseTooLarge(
                "the declared body is too large", reason="content_length_too_large", url=url, stage="http"
            )
    encoding = ", ".join(_header_values(headers, "content-encoding")) or None
    decoder = BodyDecoder(encoding, max_compressed=max_compressed, max_decoded=max_decoded)
    try:
        async for chunk in response.aiter_stream():
            decoder.feed(chunk)
    finally:
        hop.compressed_bytes = decoder.compressed_bytes
    body = decoder.finish()
    text, codec = decode_text(body, charset, media)
    hop.content_type, hop.charset, hop.text, hop.decoded_bytes = media, codec, text, len(body)


async def _fetch_hop(target: Target, addresses: tuple[IPAddress, ...], config: ReaderConfig) -> _Hop:
    started = time.perf_counter()
    backend = PinnedBackend(target.host, target.port, addresses, proxy=config.upstream_proxy)
    tracker = StageTracker(target.url)
    headers = [
        (b"Accept", ACCEPT.encode("ascii")),
        (b"Accept-Encoding", ACCEPT_ENCODING.encode("ascii")),
        (b"User-Agent", config.user_agent.encode("utf-8")),
    ]
    request = pinned_request(target, headers, time_left(config.timeout))
    pool = pinned_pool(backend)
    try:
        with map_transport_errors(tracker):
            async with pool:
                response = await pool.handle_async_request(request)
                try:
                    tracker.stage = "http"
                    checked = checked_headers(response.headers, config, target.url)
                    hop = _Hop(status=response.status, headers=checked)
                    if response.status in REDIRECT_STATUSES:
                        locations = _header_values(checked, "location")
                        hop.location = locations[0] if len(locations) == 1 else None
                    elif 200 <= response.status < 300:
                        tracker.stage = "body"
                        await _read_body(response, checked, config, hop, target.url)
                finally:
                    await response.aclose()
    finally:
        hop_seconds = time.perf_counter() - started
    hop.connect_seconds = backend.connect_seconds
    hop.http_seconds = max(0.0, hop_seconds - backend.connect_seconds)
    return hop


def _next_target(hop: _Hop, current: Target, config: ReaderConfig) -> Target:
    if hop.location is None:
        raise UpstreamHTTP(
            "the redirect has no usable Location", reason="invalid_redirect", url=current.url, stage="http"
        )
    try:
        location = hop.location.encode("latin-1").decode("utf-8")
        absolute = urllib.parse.urljoin(current.url, location.strip())
        return parse_target(absolute, config)
    except (UnicodeError, ValueError, InvalidInput):
        raise UpstreamHTTP(
            "the redirect Location is not a valid URL",
            reason="invalid_redirect",
            url=current.url,
            stage="http",
        ) from None


def _status_error(hop: _Hop, url: str) -> UpstreamHTTP:
    retry_after = next(iter(_header_values(hop.headers, "retry-after")), "").strip()
    return UpstreamHTTP(
        f"the server answered HTTP {hop.status}",
        reason=f"http_{hop.status}",
        retryable=hop.status == 429 or hop.status >= 500,
        status=hop.status,
        retry_after=float(retry_after) if retry_after.isdigit() and len(retry_after) < 7 else None,
        url=url,
        stage="http",
    )


async def _fetch(url: str, config: ReaderConfig) -> FetchedResponse:
    requested = target = parse_target(url, config)
    seen = {target.url}
    redirects = 0
    wire = 0
    dns = connect = http = 0.0
    while True:
        check_sensitive(target, config)
        started = time.perf_counter()
        addresses = await resolve_and_check(target, config)
        dns += time.perf_counter() - started
        hop = await _fetch_hop(target, addresses, config)
        wire += hop.compressed_bytes
        connect += hop.connect_seconds
        http += hop.http_seconds
        if hop.status not in REDIRECT_STATUSES:
            break
        following = _next_target(hop, target, config)
        check_redirect(following.url, requested.url)
        if redirects >= config.limits.max_redirects:
            raise UpstreamHTTP("too many redirects", reason="too_many_redirects", url=requested.url, stage="http")
        if following.url in seen:
            raise UpstreamHTTP("the redirects loop", reason="redirect_loop", url=requested.url, stage="http")
        seen.add(following.url)
        redirects += 1
        target = following
    if not 200 <= hop.status < 300:
        raise _status_error(hop, target.url)
    safe = {
        name: values[0][:_MAX_SAFE_HEADER_CHARS]
        for name in SAFE_HEADERS
        if (values := _header_values(hop.headers, name))
    }
    return FetchedResponse(
        requested_url=requested.url,
        final_url=target.url,
        status=hop.status,
        content_type=hop.content_type,
        charset=hop.charset,
        text=hop.text,
        compressed_bytes=wire,
        decoded_bytes=hop.decoded_bytes,
        redirects=redirects,
        headers=safe,
        dns_seconds=dns,
        connect_seconds=connect,
        http_seconds=http,
    )


async def fetch(url: str, config: ReaderConfig) -> FetchedResponse:
    """Fetch ``url`` safely under ``config``; see the module docstring for every rule.

    Raises only :class:`~pagewarden.PagewardenError` subclasses (and the
    caller's own cancellation).
    """
    if not math.isinf(anyio.current_effective_deadline()):
        return await _fetch(url, config)
    try:
        with anyio.fail_after(config.timeout):
            return await _fetch(url, config)
    except TimeoutError:
        raise Timeout("the read did not finish in time", reason="deadline_exceeded", url=url) from None
