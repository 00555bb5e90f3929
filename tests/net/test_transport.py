"""The static transport end to end against the loopback fixture server (no internet, ever)."""

from __future__ import annotations

import gzip
import socket
import time

import anyio
import pytest

from pagewarden._config import Limits, ReaderConfig
from pagewarden._errors import (
    NetworkError,
    PagewardenError,
    ResponseTooLarge,
    Timeout,
    UnsafeURL,
    UnsupportedContentEncoding,
    UnsupportedContentType,
    UpstreamHTTP,
)
from pagewarden._net.transport import ACCEPT, FetchedResponse, fetch
from tests.net.bombs import brotli_bomb, gzip_bomb
from tests.support.resolvers import SequenceResolver, StaticResolver
from tests.support.server import FixtureServer

pytestmark = pytest.mark.anyio

HTML = {"Content-Type": "text/html; charset=utf-8"}
PAGE = "<html><head><title>T</title></head><body><p>Grüße</p></body></html>".encode()


def allowed(server: FixtureServer, **options: object) -> ReaderConfig:
    """A config that may reach ``server`` (the only way 127.0.0.1 becomes reachable)."""
    return ReaderConfig(unsafe_allow_destinations=(server.host_port,), **options)  # type: ignore[arg-type]


async def expect(error: type[PagewardenError], url: str, config: ReaderConfig) -> PagewardenError:
    with pytest.raises(error) as info:
        await fetch(url, config)
    return info.value


# -- the happy path and what goes on the wire ---------------------------------------------------
async def test_reads_a_page_and_sends_the_expected_request(fixture_server: FixtureServer) -> None:
    """A 200 HTML page is decoded; the request has our Accept/UA, no fragment, and only GET."""
    fixture_server.add(
        "/page", headers={**HTML, "Content-Language": "de", "ETag": '"v1"', "Set-Cookie": "s=1"}, body=PAGE
    )
    config = allowed(fixture_server, user_agent="pagewarden-test/1")
    response = await fetch(fixture_server.url("/page?x=1#secret-fragment"), config)
    assert isinstance(response, FetchedResponse)
    assert response.status == 200 and response.text == PAGE.decode()
    assert response.content_type == "text/html" and response.charset == "utf-8"
    assert response.final_url == response.requested_url == fixture_server.url("/page?x=1")
    assert response.redirects == 0 and response.compressed_bytes == response.decoded_bytes == len(PAGE)
    assert response.headers == {"content-language": "de", "etag": '"v1"'}
    assert min(response.dns_seconds, response.connect_seconds, response.http_seconds) >= 0
    [request] = fixture_server.requests
    assert request.method == "GET" and request.target == "/page?x=1"
    assert b"secret-fragment" not in request.raw
    assert request.headers["accept"] == ACCEPT
    assert request.headers["accept"].startswith("text/html") and "text/markdown" in request.headers["accept"]
    assert request.headers["accept-encoding"] == "gzip, deflate, br"
    assert request.headers["user-agent"] == "pagewarden-test/1"
    assert request.headers["host"] == fixture_server.host_port


async def test_loopback_needs_the_explicit_allowance(fixture_server: FixtureServer) -> None:
    """Without unsafe_allow_destinations the same loopback URL is UNSAFE_URL and nothing is sent."""
    fixture_server.add("/page", headers=HTML, body=PAGE)
    error = await expect(UnsafeURL, fixture_server.url("/page"), ReaderConfig())
    assert error.reason == "address_loopback"
    other_port = ReaderConfig(unsafe_allow_destinations=(f"127.0.0.1:{fixture_server.port + 1}",))
    await expect(UnsafeURL, fixture_server.url("/page"), other_port)
    assert fixture_server.requests == []


@pytest.mark.parametrize(
    ("encoding", "body"),
    [
        ("gzip", gzip.compress(PAGE)),
        ("br", __import__("brotli").compress(PAGE)),
        ("deflate", __import__("zlib").compress(PAGE)),
    ],
)
async def test_compressed_bodies_are_decoded(fixture_server: FixtureServer, encoding: str, body: bytes) -> None:
    """gzip, br and deflate bodies are decoded; wire and decoded sizes are both reported."""
    fixture_server.add("/c", headers={**HTML, "Content-Encoding": encoding}, body=body)
    response = await fetch(fixture_server.url("/c"), allowed(fixture_server))
    assert response.text == PAGE.decode()
    assert response.compressed_bytes == len(body) and response.decoded_bytes == len(PAGE)


@pytest.mark.parametrize("media", ["text/markdown", "text/plain", "application/xhtml+xml"])
async def test_other_readable_types_are_returned_as_is(fixture_server: FixtureServer, media: str) -> None:
    """Markdown, plain text and XHTML answers are accepted and returned unchanged."""
    fixture_server.add("/m", headers={"Content-Type": media}, body=b"# Title\n\ntext")
    response = await fetch(fixture_server.url("/m"), allowed(fixture_server))
    assert response.content_type == media and response.text == "# Title\n\ntext"


async def test_environment_proxies_are_ignored(fixture_server: FixtureServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """HTTP(S)_PROXY/ALL_PROXY in the environment are never used (no trust_env)."""
    proxy = FixtureServer().start()
    try:
        for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
            monkeypatch.setenv(name, proxy.url("/"))
        monkeypatch.setenv("NO_PROXY", "")
        fixture_server.add("/p", headers=HTML, body=PAGE)
        response = await fetch(fixture_server.url("/p"), allowed(fixture_server))
        assert response.status == 200
        assert proxy.requests == [] and len(fixture_server.requests) == 1
    finally:
        proxy.stop()


# -- redirects --------------------------------------------------------------------------------------
@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
async def test_redirect_chain_is_followed(fixture_server: FixtureServer, status: int) -> None:
    """Relative and absolute redirects are followed, each hop re-validated; the count is reported."""
    fixture_server.redirect("/a", "/b", status)
    fixture_server.redirect("/b", fixture_server.url("/c?n=1"), status)
    fixture_server.add("/c", headers=HTML, body=PAGE)
    response = await fetch(fixture_server.url("/a#frag"), allowed(fixture_server))
    assert response.redirects == 2 and response.final_url == fixture_server.url("/c?n=1")
    assert response.requested_url == fixture_server.url("/a")
    assert fixture_server.paths == ["/a", "/b", "/c?n=1"]


@pytest.mark.parametrize(
    ("routes", "start", "reason"),
    [
        ({"/l1": "/l2", "/l2": "/l1"}, "/l1", "redirect_loop"),
        ({"/self": "/self"}, "/self", "redirect_loop"),
        ({f"/r{i}": f"/r{i + 1}" for i in range(7)}, "/r0", "too_many_redirects"),
    ],
)
async def test_redirect_loops_and_long_chains_stop(
    fixture_server: FixtureServer, routes: dict[str, str], start: str, reason: str
) -> None:
    """A loop is redirect_loop; more than max_redirects (5) is too_many_redirects."""
    for path, location in routes.items():
        fixture_server.redirect(path, location)
    error = await expect(UpstreamHTTP, fixture_server.url(start), allowed(fixture_server))
    assert error.reason == reason and not error.retryable
    assert len(fixture_server.requests) <= 6


async def test_max_redirects_follows_config(fixture_server: FixtureServer) -> None:
    """limits.max_redirects=0 refuses the first redirect."""
    fixture_server.redirect("/a", "/b")
    fixture_server.add("/b", headers=HTML, body=PAGE)
    config = allowed(fixture_server, limits=Limits(max_redirects=0))
    assert (await expect(UpstreamHTTP, fixture_server.url("/a"), config)).reason == "too_many_redirects"


@pytest.mark.parametrize(
    ("location", "reason"),
    [
        ("http://10.0.0.1/", "address_private_10"),
        ("http://169.254.169.254/latest/meta-data/", "address_cloud_metadata"),
        ("http://localhost/", "local_name_localhost"),
        ("http://2130706433/", "ip_literal_ambiguous"),
        ("http://[::ffff:127.0.0.1]/", "address_ipv4_mapped_embeds_loopback"),
        ("http://internal.example/", "address_private_192_168"),
        ("http://8.8.8.8:8080/", "port_not_allowed"),
        ("http://public.example:8080/", "port_not_allowed"),
        ("file:///etc/passwd", "scheme_not_allowed"),
        ("http://user:pw@public.example/", "credentials_in_url"),
        ("https://public.example/?api_key=abc", "sensitive_query_secret"),
    ],
)
async def test_redirect_to_a_refused_target_is_unsafe(
    fixture_server: FixtureServer, location: str, reason: str
) -> None:
    """A redirect to a private, local, ambiguous, non-standard-port or sensitive target is UNSAFE_URL."""
    fixture_server.redirect("/go", location)
    resolver = StaticResolver({"internal.example": ["192.168.1.10"], "public.example": ["93.184.216.34"]})
    config = ReaderConfig(unsafe_allow_destinations=(fixture_server.host_port,), resolver=resolver)
    error = await expect(UnsafeURL, fixture_server.url("/go"), config)
    assert error.reason == reason
    assert fixture_server.paths == ["/go"]


async def test_redirect_to_another_loopback_port_is_refused(fixture_server: FixtureServer) -> None:
    """The allowance names one port: a redirect to the same host on another port is refused."""
    with FixtureServer() as other:
        other.add("/", headers=HTML, body=PAGE)
        fixture_server.redirect("/go", other.url("/"))
        error = await expect(UnsafeURL, fixture_server.url("/go"), allowed(fixture_server))
        assert error.reason == "address_loopback" and other.requests == []


@pytest.mark.parametrize(
    "headers",
    [{"Content-Type": "text/html"}, [("Location", "/a"), ("Location", "/b")], {"Location": "http://[::1"}],
    ids=["missing", "duplicated", "malformed"],
)
async def test_invalid_redirects(fixture_server: FixtureServer, headers: object) -> None:
    """A redirect without exactly one valid Location is UPSTREAM_HTTP invalid_redirect."""
    fixture_server.add("/r", status=302, headers=headers)  # type: ignore[arg-type]
    assert (await expect(UpstreamHTTP, fixture_server.url("/r"), allowed(fixture_server))).reason == "invalid_redirect"


# -- DNS rebinding and pinning ------------------------------------------------------------------
async def test_connection_goes_to_the_checked_answer(fixture_server: FixtureServer) -> None:
    """A name is resolved once by the injected resolver and the connection uses that answer (no system DNS)."""
    fixture_server.add("/page", headers=HTML, body=PAGE)
    resolver = SequenceResolver([["127.0.0.1"], ["169.254.169.254"]])
    config = ReaderConfig(unsafe_allow_destinations=(fixture_server.host_port,), resolver=resolver)
    response = await fetch(f"http://rebind.example:{fixture_server.port}/page", config)
    assert response.status == 200
    assert resolver.calls == ["rebind.example"]
    assert fixture_server.requests[0].headers["host"] == f"rebind.example:{fixture_server.port}"


async def test_rebinding_between_hops_is_caught(fixture_server: FixtureServer) -> None:
    """Each hop resolves exactly once; a second answer pointing at metadata refuses the next hop."""
    fixture_server.redirect("/hop1", "/hop2")
    fixture_server.add("/hop2", headers=HTML, body=PAGE)
    resolver = SequenceResolver([["127.0.0.1"], ["169.254.169.254"]])
    config = ReaderConfig(unsafe_allow_destinations=(fixture_server.host_port,), resolver=resolver)
    error = await expect(UnsafeURL, f"http://rebind.example:{fixture_server.port}/hop1", config)
    assert error.reason == "address_cloud_metadata"
    assert resolver.calls == ["rebind.example", "rebind.example"]
    assert fixture_server.paths == ["/hop1"]


# -- size limits --------------------------------------------------------------------------------------
@pytest.mark.parametrize(("bomb", "encoding"), [(gzip_bomb, "gzip"), (brotli_bomb, "br")], ids=["gzip", "br"])
async def test_bombs_are_too_large(fixture_server: FixtureServer, bomb: object, encoding: str) -> None:
    """A 256 MiB gzip/brotli bomb is RESPONSE_TOO_LARGE after decoding only the cap, quickly."""
    fixture_server.add("/bomb", headers={**HTML, "Content-Encoding": encoding}, body=bomb())  # type: ignore[operator]
    started = time.perf_counter()
    error = await expect(ResponseTooLarge, fixture_server.url("/bomb"), allowed(fixture_server))
    assert error.reason == "decoded_body_too_large"
    assert time.perf_counter() - started < 5.0


async def test_declared_length_over_the_cap_is_refused_before_reading(fixture_server: FixtureServer) -> None:
    """A Content-Length above max_compressed_bytes is refused from the headers alone."""
    raw = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 999999999\r\n\r\n<p>"
    fixture_server.add("/big", raw=raw)
    error = await expect(ResponseTooLarge, fixture_server.url("/big"), allowed(fixture_server))
    assert error.reason == "content_length_too_large"


async def test_undeclared_body_over_the_cap_stops_while_streaming(fixture_server: FixtureServer) -> None:
    """A close-delimited body is cut off as soon as it passes max_compressed_bytes."""
    fixture_server.add("/stream", headers=HTML, chunks=[b"x" * 65_536] * 40)
    config = allowed(fixture_server, limits=Limits(max_compressed_bytes=100_000, max_decoded_bytes=100_000))
    error = await expect(ResponseTooLarge, fixture_server.url("/stream"), config)
    assert error.reason == "compressed_body_too_large"


@pytest.mark.parametrize(
    ("extra_headers", "reason"),
    [
        ([("X-Big", "a" * 200_000)], "header_too_large"),  # beyond h11's own buffer limit
        ([("X-Big", "a" * 70_000)], "header_too_large"),  # beyond max_header_bytes (64 KiB)
        ([(f"X-H{i}", "v") for i in range(150)], "too_many_headers"),
    ],
    ids=["huge", "over-limit", "too-many"],
)
async def test_header_limits(fixture_server: FixtureServer, extra_headers: list[tuple[str, str]], reason: str) -> None:
    """Oversized or too many response headers are RESPONSE_TOO_LARGE, never a raw protocol error."""
    fixture_server.add("/h", headers=[("Content-Type", "text/html"), *extra_headers], body=PAGE)
    error = await expect(ResponseTooLarge, fixture_server.url("/h"), allowed(fixture_server))
    assert error.reason == reason
    assert "aaaa" not in str(error.to_dict())


# -- deadline --------------------------------------------------------------------------------------------
async def test_trickling_server_cannot_outlast_the_deadline(fixture_server: FixtureServer) -> None:
    """A body trickled byte by byte is cut off by the caller's anyio deadline, on time."""
    fixture_server.add("/slow", headers={**HTML, "Content-Length": "100"}, chunks=[b"x"] * 100, delay_per_chunk=0.1)
    started = time.perf_counter()
    with pytest.raises(TimeoutError), anyio.fail_after(0.8):
        await fetch(fixture_server.url("/slow"), allowed(fixture_server))
    assert time.perf_counter() - started < 0.8 + 0.5


async def test_without_a_caller_deadline_config_timeout_applies(fixture_server: FixtureServer) -> None:
    """Called without a deadline, fetch applies config.timeout and raises TIMEOUT."""
    fixture_server.add("/slow", headers=HTML, chunks=[b"x"] * 100, delay_per_chunk=0.1)
    started = time.perf_counter()
    error = await expect(Timeout, fixture_server.url("/slow"), allowed(fixture_server, timeout=0.6))
    assert error.retryable and time.perf_counter() - started < 0.6 + 0.5


async def test_silent_server_times_out(fixture_server: FixtureServer) -> None:
    """A server that never answers cannot hold the read past the deadline."""
    fixture_server.add("/silent", headers=HTML, body=PAGE, delay_before=30)
    with pytest.raises(TimeoutError), anyio.fail_after(0.5):
        await fetch(fixture_server.url("/silent"), allowed(fixture_server))


# -- content types and charsets ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("headers", "reason"),
    [
        ({}, "content_type_missing"),
        ({"Content-Type": "application/json"}, "content_type_not_allowed"),
        ({"Content-Type": "image/png"}, "content_type_not_allowed"),
        ({"Content-Type": "application/octet-stream"}, "content_type_not_allowed"),
    ],
)
async def test_wrong_or_missing_content_type(
    fixture_server: FixtureServer, headers: dict[str, str], reason: str
) -> None:
    """A missing or non-allowed media type is UNSUPPORTED_CONTENT_TYPE."""
    fixture_server.add("/t", headers=headers, body=b"{}")
    error = await expect(UnsupportedContentType, fixture_server.url("/t"), allowed(fixture_server))
    assert error.reason == reason


async def test_allowed_content_types_follow_config(fixture_server: FixtureServer) -> None:
    """allowed_content_types narrows what is accepted."""
    fixture_server.add("/t", headers={"Content-Type": "text/plain"}, body=b"hi")
    config = allowed(fixture_server, allowed_content_types=frozenset({"text/html"}))
    assert (await expect(UnsupportedContentType, fixture_server.url("/t"), config)).reason == "content_type_not_allowed"


@pytest.mark.parametrize(
    ("content_type", "body", "reason"),
    [
        ("text/html; charset=klingon", b"hi", "unknown_charset"),
        ("text/html; charset=utf-7", b"+ADw-script+AD4-", "charset_not_allowed"),
        ("text/html; charset=utf-8", b"caf\xe9", "invalid_bytes_for_charset"),
        ("text/html", b"caf\xe9", "invalid_bytes_for_charset"),
        ("text/html", b'<meta charset="nope-nope">', "unknown_charset"),
    ],
)
async def test_invalid_charsets(fixture_server: FixtureServer, content_type: str, body: bytes, reason: str) -> None:
    """Unknown charsets and bytes invalid in the charset are UNSUPPORTED_CONTENT_ENCODING."""
    fixture_server.add("/cs", headers={"Content-Type": content_type}, body=body)
    error = await expect(UnsupportedContentEncoding, fixture_server.url("/cs"), allowed(fixture_server))
    assert error.reason == reason


async def test_unsupported_content_encoding(fixture_server: FixtureServer) -> None:
    """An unknown Content-Encoding is UNSUPPORTED_CONTENT_ENCODING."""
    fixture_server.add("/z", headers={**HTML, "Content-Encoding": "zstd"}, body=b"x")
    error = await expect(UnsupportedContentEncoding, fixture_server.url("/z"), allowed(fixture_server))
    assert error.reason == "unsupported_content_encoding"


# -- upstream status and protocol failures -------------------------------------------------------------------
@pytest.mark.parametrize(
    ("status", "retryable"),
    [
        (400, False),
        (403, False),
        (404, False),
        (429, True),
        (500, True),
        (502, True),
        (503, True),
        (300, False),
        (304, False),
    ],
)
async def test_non_success_statuses(fixture_server: FixtureServer, status: int, retryable: bool) -> None:
    """4xx/5xx are UPSTREAM_HTTP with the status; only 429 and 5xx are retryable."""
    body = b"" if status == 304 else PAGE
    fixture_server.add("/s", status=status, headers={**HTML, "Retry-After": "7"}, body=body)
    error = await expect(UpstreamHTTP, fixture_server.url("/s"), allowed(fixture_server))
    assert error.status == status and error.retryable is retryable and error.reason == f"http_{status}"
    assert error.retry_after == 7.0


@pytest.mark.parametrize(
    ("raw", "reason", "retryable"),
    [
        (
            b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 100\r\n\r\nonly ten b",
            "body_incomplete",
            True,
        ),
        (b"", "server_disconnected", True),
        (b"NOT HTTP AT ALL\r\n\r\n", "protocol_error", False),
        (b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: abc\r\n\r\nx", "protocol_error", False),
        (
            b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
            "body_incomplete",
            True,
        ),
    ],
    ids=["short-body", "no-answer", "garbage", "bad-length", "bad-chunk"],
)
async def test_protocol_failures(fixture_server: FixtureServer, raw: bytes, reason: str, retryable: bool) -> None:
    """Broken responses become UPSTREAM_HTTP with a named reason, never a raw httpcore/h11 exception."""
    fixture_server.add("/broken", raw=raw)
    error = await expect(UpstreamHTTP, fixture_server.url("/broken"), allowed(fixture_server))
    assert (error.reason, error.retryable) == (reason, retryable)


async def test_refused_connection_is_retryable_network_error() -> None:
    """A closed port is NETWORK_ERROR connect_failed, retryable."""
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    config = ReaderConfig(unsafe_allow_destinations=(f"127.0.0.1:{port}",))
    error = await expect(NetworkError, f"http://127.0.0.1:{port}/", config)
    assert error.reason == "connect_failed" and error.retryable


async def test_sensitive_query_is_refused_before_any_request(fixture_server: FixtureServer) -> None:
    """A URL whose query carries a secret is refused before any connection; the option relaxes it."""
    fixture_server.add("/q", headers=HTML, body=PAGE)
    url = fixture_server.url("/q?password=hunter2")
    assert (await expect(UnsafeURL, url, allowed(fixture_server))).reason == "sensitive_query_secret"
    assert fixture_server.requests == []
    response = await fetch(url, allowed(fixture_server, unsafe_allow_sensitive_query=True))
    assert response.status == 200
