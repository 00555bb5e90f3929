"""The browser's pinning proxy chains to ReaderConfig(proxy=...): tunnels go through the upstream proxy to the
validated address, and the whole refusal battery still answers 403 without the upstream proxy ever being asked."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from pagewarden import AsyncReader, BrowserConfig, ReaderConfig
from tests.egress.proxy_support import auth_line, connect_bytes, exchange, request_bytes, running_proxy, status_of
from tests.egress.test_connect import REFUSED
from tests.support.resolvers import StaticResolver
from tests.support.server import FixtureServer
from tests.support.tripwire import SocketTripwire
from tests.support.upstream_proxy import UpstreamProxyServer

pytestmark = pytest.mark.anyio

HTML = {"Content-Type": "text/html"}


@pytest.fixture
def upstream() -> Iterator[UpstreamProxyServer]:
    """A started loopback upstream proxy."""
    with UpstreamProxyServer() as server:
        yield server


def chained(upstream: UpstreamProxyServer, scheme: str, *servers: FixtureServer, **kwargs: object) -> ReaderConfig:
    """A config allowing ``servers`` whose connections leave through ``upstream``."""
    return ReaderConfig(
        unsafe_allow_destinations=tuple(s.host_port for s in servers),
        proxy=upstream.url(scheme),
        timeout=5.0,
        **kwargs,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize("scheme", ["http", "socks5"])
async def test_connect_tunnel_leaves_through_the_upstream_proxy(
    scheme: str, socket_tripwire: SocketTripwire, fixture_server: FixtureServer, upstream: UpstreamProxyServer
) -> None:
    """A browser CONNECT is relayed through the upstream proxy, which is asked for the validated address."""
    fixture_server.add("/a", headers=HTML, body=b"<p>chained</p>")
    inner = b"GET /a HTTP/1.1\r\nHost: whatever\r\n\r\n"
    with socket_tripwire.allow("127.0.0.1", fixture_server.port):
        async with running_proxy(chained(upstream, scheme, fixture_server), socket_tripwire) as proxy:
            reply = await exchange(proxy.port, connect_bytes(fixture_server.host_port, auth_line(proxy)), then=inner)
    assert reply.endswith(b"<p>chained</p>")
    assert [(r.host, r.port) for r in upstream.requests] == [("127.0.0.1", fixture_server.port)]


async def test_plain_http_request_leaves_through_the_upstream_proxy(
    socket_tripwire: SocketTripwire, fixture_server: FixtureServer, upstream: UpstreamProxyServer
) -> None:
    """A browser's plain-HTTP request (absolute form) is also sent through the upstream proxy, by name resolved here."""
    fixture_server.add("/b", headers=HTML, body=b"<p>plain</p>")
    resolver = StaticResolver({"site.test": ["127.0.0.1"]})
    config = chained(upstream, "http", fixture_server, resolver=resolver)
    with socket_tripwire.allow("127.0.0.1", fixture_server.port):
        async with running_proxy(config, socket_tripwire) as proxy:
            url = f"http://site.test:{fixture_server.port}/b"
            reply = await exchange(proxy.port, request_bytes("GET", url, auth_line(proxy), "Connection: close"))
    assert status_of(reply) == 200 and reply.endswith(b"<p>plain</p>")
    assert [(r.host, r.port) for r in upstream.requests] == [("127.0.0.1", fixture_server.port)]


@pytest.mark.parametrize(("authority", "reason"), REFUSED, ids=[c[0] for c in REFUSED])
async def test_refusal_battery_holds_with_an_upstream_proxy(
    socket_tripwire: SocketTripwire, upstream: UpstreamProxyServer, authority: str, reason: str
) -> None:
    """Every refused CONNECT is still 403 with its reason, and the upstream proxy is never contacted."""
    resolver = StaticResolver({"public.test": ["93.184.215.14"]})
    config = ReaderConfig(resolver=resolver, proxy=upstream.url("socks5"), timeout=5.0)
    async with running_proxy(config, socket_tripwire) as proxy:
        reply = await exchange(proxy.port, connect_bytes(authority, auth_line(proxy)))
        assert proxy.ledger.by_reason == {reason: 1}
    assert status_of(reply) == 403
    assert upstream.requests == []


async def test_private_answer_is_refused_before_the_upstream_proxy(
    socket_tripwire: SocketTripwire, upstream: UpstreamProxyServer
) -> None:
    """A name that resolves to a private address is refused by the local policy; the upstream proxy sees nothing."""
    resolver = StaticResolver({"intranet.test": ["192.168.1.10"]})
    config = ReaderConfig(resolver=resolver, proxy=upstream.url("http"), timeout=5.0)
    async with running_proxy(config, socket_tripwire) as proxy:
        reply = await exchange(proxy.port, connect_bytes("intranet.test:443", auth_line(proxy)))
    assert status_of(reply) == 403
    assert upstream.requests == []


RENDERED = b"""<!doctype html><html><head><title>chained render</title></head><body><div id="root"></div>
<script>
fetch("/words.json").then(r => r.json()).then(j => {
  document.getElementById("root").innerHTML = "<article><h1>Rendered through two proxies</h1><p>" +
    j.words.repeat(12) + "</p></article>";
});
</script></body></html>"""


@pytest.mark.browser
async def test_rendered_read_leaves_through_the_upstream_proxy(
    socket_tripwire: SocketTripwire, fixture_server: FixtureServer, upstream: UpstreamProxyServer
) -> None:
    """A real Chromium read: the page and its fetch reach the site only through the upstream proxy."""
    fixture_server.add("/", headers=HTML, body=RENDERED)
    fixture_server.add(
        "/words.json", headers={"Content-Type": "application/json"}, body=b'{"words": "Pinned, then proxied. "}'
    )
    config = chained(upstream, "socks5", fixture_server, browser=BrowserConfig(external_sandbox=os.geteuid() == 0))
    with socket_tripwire.allow("127.0.0.1", fixture_server.port):
        async with AsyncReader(config) as reader:
            document = await reader.read(fixture_server.url("/"), render="always")
    assert document.fetch.method == "browser"
    assert "Pinned, then proxied." in document.markdown
    assert len(upstream.requests) >= 2  # the page and its fetch
    assert {(r.host, r.port) for r in upstream.requests} == {("127.0.0.1", fixture_server.port)}
