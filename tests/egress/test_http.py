"""The pinning proxy's plain-HTTP path: authentication, forwarding, and every refusal."""

from __future__ import annotations

import socket

import httpx
import pytest

from pagewarden._egress import PinningProxy
from tests.egress.proxy_support import (
    auth_line,
    config_for,
    exchange,
    header_map,
    request_bytes,
    running_proxy,
    status_of,
)
from tests.support.resolvers import SequenceResolver, StaticResolver
from tests.support.server import FixtureServer
from tests.support.tripwire import SocketTripwire

pytestmark = pytest.mark.anyio

HTML = {"Content-Type": "text/html"}

# (case, header line factory) for credentials that must be refused.
BAD_CREDENTIALS = [
    ("wrong_password", lambda proxy: auth_line((proxy.username, proxy.password + "x"))),
    ("unknown_user", lambda proxy: auth_line(("pw-0000000000000000", proxy.password))),
    ("empty_password", lambda proxy: auth_line((proxy.username, ""))),
    ("bearer_scheme", lambda proxy: f"Proxy-Authorization: Bearer {proxy.password}"),
    ("not_base64", lambda proxy: "Proxy-Authorization: Basic !!!notbase64!!!"),
]

METHODS_REFUSED = ["POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE"]

BODIES_REFUSED = [
    ("content_length", ["Content-Length: 5"], b"hello"),
    ("chunked", ["Transfer-Encoding: chunked"], b"5\r\nhello\r\n0\r\n\r\n"),
]

# (absolute URL, expected reason): refused before any byte reaches a server.
DESTINATIONS_REFUSED = [
    ("http://10.0.0.1/", "address_private_10"),
    ("http://169.254.169.254/latest/meta-data/", "address_cloud_metadata"),
    ("http://[::1]/", "address_loopback"),
    ("http://[::ffff:127.0.0.1]/", "address_ipv4_mapped_embeds_loopback"),
    ("http://[::ffff:a9fe:a9fe]/", "address_ipv4_mapped_embeds_cloud_metadata"),
    ("http://0x7f000001/", "ip_literal_ambiguous"),
    ("http://2130706433/", "ip_literal_ambiguous"),
    ("http://127.1/", "ip_literal_ambiguous"),
    ("http://0.0.0.0/", "address_this_network"),
    ("http://100.64.0.1/", "address_cgnat"),
    ("http://192.168.1.1/", "address_private_192_168"),
    ("http://localhost/", "local_name_localhost"),
    ("http://metadata.internal/", "local_name_internal"),
    ("http://user:pw@public.test/", "credentials_in_url"),
    ("http://public.test/?key=sk-abcdefghijklmnopqrstuvwxyz0123", "sensitive_query_secret"),
    ("http://public.test:443/", "port_not_allowed"),
    ("http://public.test:8080/", "port_not_allowed"),
]

MALFORMED_TARGETS = [
    ("origin_form", "/just/a/path"),
    ("https_absolute_form", "https://public.test/"),
    ("ftp_scheme", "ftp://public.test/"),
]


def _public_resolver() -> StaticResolver:
    return StaticResolver({"public.test": ["93.184.215.14"]})


async def test_request_without_credentials_is_challenged(
    socket_tripwire: SocketTripwire, fixture_server: FixtureServer
) -> None:
    """No Proxy-Authorization: 407 with a Basic challenge, nothing forwarded, counted as a challenge not a refusal."""
    fixture_server.add("/a", headers=HTML, body=b"<p>hi</p>")
    async with running_proxy(config_for(fixture_server), socket_tripwire) as proxy:
        reply = await exchange(proxy.port, request_bytes("GET", fixture_server.url("/a")))
        assert status_of(reply) == 407
        assert header_map(reply)["proxy-authenticate"].startswith('Basic realm="pagewarden"')
        assert proxy.challenges == 1
        assert proxy.ledger.total == 0
    assert fixture_server.requests == []


@pytest.mark.parametrize(("case", "make_line"), BAD_CREDENTIALS, ids=[c[0] for c in BAD_CREDENTIALS])
async def test_wrong_credentials_are_refused(
    socket_tripwire: SocketTripwire, fixture_server: FixtureServer, case: str, make_line: object
) -> None:
    """Wrong or malformed credentials get 407 and a proxy_auth_failed ledger entry; nothing is forwarded."""
    fixture_server.add("/a", headers=HTML, body=b"<p>hi</p>")
    async with running_proxy(config_for(fixture_server), socket_tripwire) as proxy:
        line = make_line(proxy)  # type: ignore[operator]
        reply = await exchange(proxy.port, request_bytes("GET", fixture_server.url("/a"), line))
        assert status_of(reply) == 407, case
        assert proxy.ledger.by_reason == {"proxy_auth_failed": 1}
    assert fixture_server.requests == []


async def test_revoked_session_credentials_stop_working(
    socket_tripwire: SocketTripwire, fixture_server: FixtureServer
) -> None:
    """A session's credentials work until it is revoked, then get 407."""
    fixture_server.add("/a", headers=HTML, body=b"<p>hi</p>")
    async with running_proxy(config_for(fixture_server), socket_tripwire) as proxy:
        session = proxy.new_session()
        request = request_bytes("GET", fixture_server.url("/a"), auth_line(session))
        assert status_of(await exchange(proxy.port, request)) == 200
        session.revoke()
        assert status_of(await exchange(proxy.port, request)) == 407
    assert len(fixture_server.requests) == 1


async def test_get_is_forwarded_with_hop_by_hop_headers_stripped(
    socket_tripwire: SocketTripwire, fixture_server: FixtureServer
) -> None:
    """GET reaches the pinned upstream without proxy credentials or hop-by-hop headers, both ways."""
    fixture_server.add(
        "/a?q=1",
        headers={**HTML, "Keep-Alive": "timeout=5", "Connection": "X-Upstream-Hop", "X-Upstream-Hop": "1"},
        body=b"<p>hi</p>",
    )
    fixture_server.add("/a", headers={**HTML, "Connection": "X-Upstream-Hop", "X-Upstream-Hop": "1"}, body=b"<p>hi</p>")
    async with running_proxy(config_for(fixture_server), socket_tripwire) as proxy:
        request = request_bytes(
            "GET",
            fixture_server.url("/a?q=1"),
            auth_line(proxy),
            "Proxy-Connection: keep-alive",
            "Keep-Alive: 300",
            "Connection: X-Hop-Secret",
            "X-Hop-Secret: do-not-forward",
            "TE: trailers",
            "Upgrade: websocket",
            "Accept: text/html",
        )
        reply = await exchange(proxy.port, request)
    assert status_of(reply) == 200
    assert reply.endswith(b"<p>hi</p>") or b"<p>hi</p>" in reply
    returned = header_map(reply)
    assert "x-upstream-hop" not in returned
    assert "keep-alive" not in returned
    assert returned["connection"] == "close"
    seen = fixture_server.requests[0]
    assert seen.method == "GET"
    assert seen.target == "/a?q=1"
    assert seen.headers["host"] == fixture_server.host_port
    assert seen.headers["accept"] == "text/html"
    for name in ("proxy-authorization", "proxy-connection", "keep-alive", "x-hop-secret", "te", "upgrade"):
        assert name not in seen.headers, name
    assert seen.headers["connection"] == "close"


async def test_head_is_forwarded(socket_tripwire: SocketTripwire, fixture_server: FixtureServer) -> None:
    """HEAD is forwarded and answered without a body."""
    fixture_server.add("/a", headers=HTML, body=b"")
    async with running_proxy(config_for(fixture_server), socket_tripwire) as proxy:
        reply = await exchange(proxy.port, request_bytes("HEAD", fixture_server.url("/a"), auth_line(proxy)))
    assert status_of(reply) == 200
    assert fixture_server.requests[0].method == "HEAD"


async def test_httpx_client_through_the_proxy(socket_tripwire: SocketTripwire, fixture_server: FixtureServer) -> None:
    """An ordinary HTTP client configured with the proxy and its credentials reads a page through it."""
    fixture_server.add("/a", headers=HTML, body=b"<p>through the proxy</p>")
    async with running_proxy(config_for(fixture_server), socket_tripwire) as proxy:
        client_proxy = httpx.Proxy(proxy.server, auth=(proxy.username, proxy.password))
        async with httpx.AsyncClient(proxy=client_proxy, trust_env=False) as client:
            response = await client.get(fixture_server.url("/a"))
        assert response.status_code == 200
        assert response.text == "<p>through the proxy</p>"
        assert proxy.requests_forwarded == 1


@pytest.mark.parametrize("method", METHODS_REFUSED)
async def test_methods_other_than_get_and_head_are_refused(
    socket_tripwire: SocketTripwire, fixture_server: FixtureServer, method: str
) -> None:
    """Any method but GET/HEAD gets 405 with Allow: GET, HEAD and never reaches the upstream."""
    async with running_proxy(config_for(fixture_server), socket_tripwire) as proxy:
        reply = await exchange(proxy.port, request_bytes(method, fixture_server.url("/a"), auth_line(proxy)))
        assert status_of(reply) == 405
        assert header_map(reply)["allow"] == "GET, HEAD"
        assert proxy.ledger.by_reason == {"method_not_allowed": 1}
    assert fixture_server.requests == []


@pytest.mark.parametrize(("case", "lines", "body"), BODIES_REFUSED, ids=[c[0] for c in BODIES_REFUSED])
async def test_request_body_is_refused(
    socket_tripwire: SocketTripwire, fixture_server: FixtureServer, case: str, lines: list[str], body: bytes
) -> None:
    """A GET carrying a body (by length or chunked) gets 400 and never reaches the upstream."""
    async with running_proxy(config_for(fixture_server), socket_tripwire) as proxy:
        request = request_bytes("GET", fixture_server.url("/a"), auth_line(proxy), *lines, body=body)
        reply = await exchange(proxy.port, request)
        assert status_of(reply) == 400, case
        assert proxy.ledger.by_reason == {"request_body_not_allowed": 1}
    assert fixture_server.requests == []


@pytest.mark.parametrize(("url", "reason"), DESTINATIONS_REFUSED, ids=[c[0] for c in DESTINATIONS_REFUSED])
async def test_refused_destinations(socket_tripwire: SocketTripwire, url: str, reason: str) -> None:
    """The static path's intake and address policy refuse the destination with 403 and the same reason."""
    resolver = _public_resolver()
    async with running_proxy(config_for(resolver=resolver), socket_tripwire) as proxy:
        reply = await exchange(proxy.port, request_bytes("GET", url, auth_line(proxy)))
        assert status_of(reply) == 403
        assert proxy.ledger.by_reason == {reason: 1}
    # Refusals that need no lookup never ask the resolver.
    assert resolver.calls == []


async def test_loopback_port_not_allowed_is_refused(
    socket_tripwire: SocketTripwire, fixture_server: FixtureServer
) -> None:
    """A second loopback port that is not allowed gets 403 and zero hits, while the allowed one works."""
    fixture_server.add("/a", headers=HTML, body=b"<p>ok</p>")
    with FixtureServer() as canary:
        async with running_proxy(config_for(fixture_server), socket_tripwire) as proxy:
            ok = await exchange(proxy.port, request_bytes("GET", fixture_server.url("/a"), auth_line(proxy)))
            refused = await exchange(proxy.port, request_bytes("GET", canary.url("/c"), auth_line(proxy)))
            assert proxy.ledger.by_reason == {"address_loopback": 1}
        assert canary.requests == []
    assert (status_of(ok), status_of(refused)) == (200, 403)


@pytest.mark.parametrize(("case", "target"), MALFORMED_TARGETS, ids=[c[0] for c in MALFORMED_TARGETS])
async def test_non_absolute_http_targets_are_refused(socket_tripwire: SocketTripwire, case: str, target: str) -> None:
    """Origin-form, https:// absolute-form and other schemes are not proxied as plain HTTP (4xx)."""
    async with running_proxy(config_for(resolver=_public_resolver()), socket_tripwire) as proxy:
        reply = await exchange(proxy.port, request_bytes("GET", target, auth_line(proxy)))
        assert proxy.ledger.by_reason == {"request_target_not_absolute": 1}, case
    assert status_of(reply) == 400


async def test_malformed_request_gets_400(socket_tripwire: SocketTripwire) -> None:
    """Bytes that are not an HTTP/1.1 request get 400 and a malformed_request entry."""
    async with running_proxy(config_for(), socket_tripwire) as proxy:
        reply = await exchange(proxy.port, b"\x16\x03\x01 not http at all\r\n\r\n")
        assert status_of(reply) == 400
        assert proxy.ledger.by_reason == {"malformed_request": 1}


async def test_redirect_hop_to_private_address_is_refused(
    socket_tripwire: SocketTripwire, fixture_server: FixtureServer
) -> None:
    """Each redirect hop is a new proxy request: a hop to a non-allowed loopback port or metadata gets 403."""
    with FixtureServer() as canary:
        fixture_server.redirect("/to-canary", canary.url("/stolen"))
        fixture_server.redirect("/to-metadata", "http://169.254.169.254/latest/meta-data/")
        async with running_proxy(config_for(fixture_server), socket_tripwire) as proxy:
            client_proxy = httpx.Proxy(proxy.server, auth=(proxy.username, proxy.password))
            async with httpx.AsyncClient(proxy=client_proxy, trust_env=False, follow_redirects=True) as client:
                first = await client.get(fixture_server.url("/to-canary"))
                second = await client.get(fixture_server.url("/to-metadata"))
            assert proxy.ledger.by_reason == {"address_loopback": 1, "address_cloud_metadata": 1}
        assert canary.requests == []
    assert (first.status_code, second.status_code) == (403, 403)
    assert [r.path for r in fixture_server.requests] == ["/to-canary", "/to-metadata"]


async def test_dns_rebinding_uses_the_pinned_address(
    socket_tripwire: SocketTripwire, fixture_server: FixtureServer
) -> None:
    """Each request resolves exactly once and dials that answer: a rebound private answer is refused."""
    fixture_server.add("/a", headers=HTML, body=b"<p>first</p>")
    resolver = SequenceResolver([["127.0.0.1"], ["10.0.0.7"]])
    url = f"http://rebind.test:{fixture_server.port}/a"
    async with running_proxy(config_for(fixture_server, resolver=resolver), socket_tripwire) as proxy:
        first = await exchange(proxy.port, request_bytes("GET", url, auth_line(proxy)))
        assert resolver.calls == ["rebind.test"]
        second = await exchange(proxy.port, request_bytes("GET", url, auth_line(proxy)))
        assert resolver.calls == ["rebind.test", "rebind.test"]
        assert proxy.ledger.by_reason == {"address_private_10": 1}
    assert (status_of(first), status_of(second)) == (200, 403)
    assert len(fixture_server.requests) == 1
    assert fixture_server.requests[0].headers["host"] == f"rebind.test:{fixture_server.port}"


async def test_mixed_answers_are_refused(socket_tripwire: SocketTripwire, fixture_server: FixtureServer) -> None:
    """A name with one allowed and one private answer is refused as a whole."""
    resolver = StaticResolver({"mixed.test": ["127.0.0.1", "10.0.0.1"]})
    url = f"http://mixed.test:{fixture_server.port}/a"
    async with running_proxy(config_for(fixture_server, resolver=resolver), socket_tripwire) as proxy:
        reply = await exchange(proxy.port, request_bytes("GET", url, auth_line(proxy)))
        assert proxy.ledger.by_reason == {"address_private_10": 1}
    assert status_of(reply) == 403
    assert fixture_server.requests == []


async def test_unreachable_upstream_gets_502(socket_tripwire: SocketTripwire) -> None:
    """An allowed destination where nothing listens gets 502 upstream_connect_failed."""
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    async with running_proxy(config_for(extra=[f"127.0.0.1:{port}"]), socket_tripwire) as proxy:
        reply = await exchange(proxy.port, request_bytes("GET", f"http://127.0.0.1:{port}/", auth_line(proxy)))
        assert proxy.ledger.by_reason == {"upstream_connect_failed": 1}
    assert status_of(reply) == 502


async def test_silent_upstream_gets_502_after_idle_timeout(
    socket_tripwire: SocketTripwire, fixture_server: FixtureServer
) -> None:
    """An upstream that never answers is given up after the idle timeout with 502."""
    fixture_server.add("/slow", headers=HTML, body=b"late", delay_before=3.0)
    async with running_proxy(config_for(fixture_server), socket_tripwire, idle_timeout=0.3) as proxy:
        reply = await exchange(proxy.port, request_bytes("GET", fixture_server.url("/slow"), auth_line(proxy)))
        assert proxy.ledger.by_reason == {"upstream_timeout": 1}
    assert status_of(reply) == 502


async def test_declared_length_over_download_cap_gets_502(
    socket_tripwire: SocketTripwire, fixture_server: FixtureServer
) -> None:
    """A Content-Length over the download cap is refused with 502 before any body byte is relayed."""
    fixture_server.add("/big", headers=HTML, body=b"x" * 10_000)
    async with running_proxy(config_for(fixture_server), socket_tripwire, max_download_bytes=4_096) as proxy:
        reply = await exchange(proxy.port, request_bytes("GET", fixture_server.url("/big"), auth_line(proxy)))
        assert proxy.ledger.by_reason == {"download_cap": 1}
    assert status_of(reply) == 502
    assert b"x" * 100 not in reply


async def test_streamed_body_over_download_cap_cuts_the_connection(
    socket_tripwire: SocketTripwire, fixture_server: FixtureServer
) -> None:
    """A body without a length that grows past the cap is cut: the browser gets a truncated response."""
    # Paced chunks, so the response head is relayed before the cap is reached.
    fixture_server.add("/stream", headers=HTML, chunks=[b"y" * 2_000] * 10, delay_per_chunk=0.05)
    async with running_proxy(config_for(fixture_server), socket_tripwire, max_download_bytes=4_096) as proxy:
        reply = await exchange(proxy.port, request_bytes("GET", fixture_server.url("/stream"), auth_line(proxy)))
        assert proxy.ledger.by_reason == {"download_cap": 1}
        assert proxy.ledger.entries[0].status == 0
    assert status_of(reply) == 200
    assert reply.count(b"y") <= 4_096
    assert not reply.endswith(b"0\r\n\r\n")  # the chunked body never terminates


@pytest.mark.parametrize(
    ("case", "headers"),
    [
        ("too_many", [(f"X-H{i}", "v") for i in range(150)]),
        ("value_too_large", [("X-Big", "v" * 20_000)]),
    ],
)
async def test_upstream_header_bounds(
    socket_tripwire: SocketTripwire, fixture_server: FixtureServer, case: str, headers: list[tuple[str, str]]
) -> None:
    """An upstream response head over the header bounds gets 502 upstream_headers_too_large."""
    fixture_server.add("/h", headers=[("Content-Type", "text/html"), *headers], body=b"<p>x</p>")
    async with running_proxy(config_for(fixture_server), socket_tripwire) as proxy:
        reply = await exchange(proxy.port, request_bytes("GET", fixture_server.url("/h"), auth_line(proxy)))
        assert proxy.ledger.by_reason == {"upstream_headers_too_large": 1}, case
    assert status_of(reply) == 502


@pytest.mark.parametrize(
    ("case", "lines"),
    [
        ("too_many", [f"X-H{i}: v" for i in range(150)]),
        ("value_too_large", ["X-Big: " + "v" * 20_000]),
        ("head_too_large", [f"X-Big{i}: " + "v" * 10_000 for i in range(8)]),
    ],
)
async def test_request_header_bounds(
    socket_tripwire: SocketTripwire, fixture_server: FixtureServer, case: str, lines: list[str]
) -> None:
    """A request head over 100 headers, 16 KiB per value or 64 KiB in total gets 431 and is not forwarded."""
    async with running_proxy(config_for(fixture_server), socket_tripwire) as proxy:
        request = request_bytes("GET", fixture_server.url("/a"), auth_line(proxy), *lines)
        reply = await exchange(proxy.port, request)
        assert proxy.ledger.by_reason == {"request_headers_too_large": 1}, case
    assert status_of(reply) == 431
    assert fixture_server.requests == []


def test_proxy_is_not_started_by_construction() -> None:
    """Building a proxy opens nothing: it has no port and no server URL until started."""
    proxy = PinningProxy(config_for())
    assert proxy.port == 0
    with pytest.raises(Exception, match="not running"):
        _ = proxy.server
