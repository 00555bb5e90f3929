"""ReaderConfig(proxy=...): static reads and search APIs go through a real loopback HTTP CONNECT / SOCKS5 proxy,
asking it for the locally validated address, with TLS still verifying the host name."""

from __future__ import annotations

import ssl
from collections.abc import Iterator
from typing import Any

import pytest
import trustme

import pagewarden
import pagewarden._net.transport as transport
import pagewarden._net.upstream as upstream
from pagewarden._net.transport import fetch
from pagewarden._net.upstream import REMOTE_DNS_LIMITATION, parse_proxy
from pagewarden.testing import StaticResolver
from tests.net.test_tls import TLSServer
from tests.support.server import FixtureServer
from tests.support.tripwire import SocketTripwire
from tests.support.upstream_proxy import UpstreamProxyServer

pytestmark = pytest.mark.anyio

HTML = {"Content-Type": "text/html; charset=utf-8"}
PAGE = (
    b"<html><head><title>Proxied</title></head><body><article><h1>Proxied</h1><p>"
    + b"Through the upstream proxy and back again. " * 10
    + b"</p></article></body></html>"
)
USER, PASSWORD = "alice", "s3cr3t-Pa55"


@pytest.fixture
def proxy_server() -> Iterator[UpstreamProxyServer]:
    """A started loopback upstream proxy (HTTP CONNECT and SOCKS5 on one port)."""
    with UpstreamProxyServer() as server:
        yield server


@pytest.fixture
def page(fixture_server: FixtureServer, socket_tripwire: SocketTripwire) -> Iterator[FixtureServer]:
    """The fixture server with one article; the proxy's own connect to it is let through the tripwire."""
    fixture_server.add("/article", headers=HTML, body=PAGE)
    with socket_tripwire.allow("127.0.0.1", fixture_server.port):
        yield fixture_server


def config_for(server: FixtureServer, proxy: str, **kwargs: Any) -> pagewarden.ReaderConfig:
    """A config reaching ``server`` (named destination) through ``proxy``."""
    return pagewarden.ReaderConfig(unsafe_allow_destinations=(server.host_port,), proxy=proxy, **kwargs)


@pytest.mark.parametrize("scheme", ["http", "socks5"])
async def test_static_read_goes_through_the_proxy_to_the_validated_ip(
    scheme: str, page: FixtureServer, proxy_server: UpstreamProxyServer
) -> None:
    """The proxy is asked for the validated IP (not the name), and the page comes back through it."""
    resolver = StaticResolver({"site.test": ["127.0.0.1"]})
    config = config_for(page, proxy_server.url(scheme), resolver=resolver)
    async with pagewarden.AsyncReader(config) as reader:
        document = await reader.read(f"http://site.test:{page.port}/article", render="never")
    assert document.title == "Proxied"
    assert [(r.kind, r.host, r.port) for r in proxy_server.requests] == [
        ("connect" if scheme == "http" else "socks5", "127.0.0.1", page.port)
    ]
    assert page.requests[0].headers["host"] == f"site.test:{page.port}"
    assert REMOTE_DNS_LIMITATION not in document.security.limitations


@pytest.mark.parametrize("scheme", ["http", "socks5"])
async def test_a_name_resolving_to_a_private_address_is_refused_before_the_proxy(
    scheme: str, proxy_server: UpstreamProxyServer
) -> None:
    """The address policy decides locally: the proxy is never contacted for a private answer."""
    config = pagewarden.ReaderConfig(
        proxy=proxy_server.url(scheme), resolver=StaticResolver({"intranet.example": ["10.1.2.3"]})
    )
    with pytest.raises(pagewarden.UnsafeURL) as caught:
        await fetch("http://intranet.example/", config)
    assert caught.value.reason is not None and "private" in caught.value.reason
    with pytest.raises(pagewarden.UnsafeURL):
        await fetch("http://169.254.169.254/latest/meta-data/", config)
    assert proxy_server.requests == []


@pytest.mark.parametrize("scheme", ["http", "socks5"])
async def test_credentials_are_sent_and_never_shown(scheme: str, page: FixtureServer) -> None:
    """Right credentials open the tunnel; wrong ones fail with proxy_auth_failed and no secret in the error."""
    with UpstreamProxyServer(credentials=(USER, PASSWORD)) as proxy:
        good = config_for(page, proxy.url(scheme, user=USER, password=PASSWORD))
        response = await fetch(page.url("/article"), good)
        assert response.status == 200 and proxy.requests[-1].authorized
        bad = config_for(page, proxy.url(scheme, user=USER, password="wrong-Pa55"))
        with pytest.raises(pagewarden.NetworkError) as caught:
            await fetch(page.url("/article"), bad)
    error = caught.value
    assert error.reason == "proxy_auth_failed" and not error.retryable
    shown = " ".join([str(error), repr(error), str(error.to_dict()), repr(good), repr(good.upstream_proxy)])
    for secret in (USER, PASSWORD, "wrong-Pa55"):
        assert secret not in shown
    assert len(page.requests) == 1  # the refused attempt never reached the page


async def test_unreachable_proxy_fails_instead_of_going_direct(
    page: FixtureServer, socket_tripwire: SocketTripwire
) -> None:
    """A proxy that is down is NETWORK_ERROR proxy_unreachable; nothing falls back to a direct connection."""
    with UpstreamProxyServer() as stopped:
        port = stopped.port
    with pytest.raises(pagewarden.NetworkError) as caught:
        await fetch(page.url("/article"), config_for(page, f"http://127.0.0.1:{port}"))
    assert caught.value.reason == "proxy_unreachable" and caught.value.retryable
    assert page.requests == []


@pytest.mark.parametrize("scheme", ["http", "socks5"])
async def test_proxy_refusal_is_typed(scheme: str, page: FixtureServer) -> None:
    """A proxy that refuses the tunnel is NETWORK_ERROR with a named reason."""
    with UpstreamProxyServer(refuse=True) as proxy, pytest.raises(pagewarden.NetworkError) as caught:
        await fetch(page.url("/article"), config_for(page, proxy.url(scheme)))
    assert caught.value.reason in ("proxy_refused", "socks_not_allowed")


async def test_remote_dns_is_unsafe_and_recorded(page: FixtureServer) -> None:
    """socks5h:// needs unsafe_proxy_remote_dns; then the proxy gets the name and every Document says so."""
    with pytest.raises(pagewarden.InvalidInput) as caught:
        pagewarden.ReaderConfig(proxy="socks5h://127.0.0.1:1080")
    assert caught.value.reason == "proxy_remote_dns_needs_unsafe"
    with UpstreamProxyServer(names={"hidden.test": "127.0.0.1"}) as proxy:
        config = config_for(page, proxy.url("socks5h"), unsafe_proxy_remote_dns=True).replace(
            unsafe_allow_destinations=(page.host_port, f"hidden.test:{page.port}")
        )
        async with pagewarden.AsyncReader(config) as reader:
            document = await reader.read(f"http://hidden.test:{page.port}/article", render="never")
            with pytest.raises(pagewarden.UnsafeURL):
                await reader.read("http://10.0.0.1/", render="never")  # literals are still checked locally
    assert [(r.host, r.port) for r in proxy.requests] == [("hidden.test", page.port)]
    assert REMOTE_DNS_LIMITATION in document.security.limitations


async def test_search_api_goes_through_the_proxy(page: FixtureServer, proxy_server: UpstreamProxyServer) -> None:
    """A search provider's API request takes the same proxy."""
    page.add("/search", headers={"Content-Type": "application/json"}, body=b'{"results": []}')
    config = config_for(page, proxy_server.url("socks5"))
    provider = pagewarden.searxng(page.url("/"), config=config)
    async with pagewarden.AsyncReader(config, search=provider) as reader:
        results = await reader.search("tides")
    assert results.hits == ()
    assert [(r.kind, r.port) for r in proxy_server.requests] == [("socks5", page.port)]


@pytest.fixture
def authority() -> trustme.CA:
    """A throwaway certificate authority."""
    return trustme.CA()


@pytest.fixture
def trusting(authority: trustme.CA, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the page transport and the proxy TLS trust the throwaway CA."""
    context = ssl.create_default_context()
    authority.configure_trust(context)
    monkeypatch.setattr(transport, "_ssl_context", lambda: context)
    monkeypatch.setattr(upstream, "_proxy_ssl_context", lambda: context)


@pytest.mark.parametrize("scheme", ["http", "https", "socks5"])
@pytest.mark.usefixtures("trusting")
async def test_tls_inside_the_tunnel_verifies_the_host_name(
    scheme: str, authority: trustme.CA, socket_tripwire: SocketTripwire
) -> None:
    """HTTPS through the tunnel sends SNI for the name and refuses a certificate for another name."""
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("fixture.test").configure_cert(server_context)
    tls_server = TLSServer(server_context)
    tls_server.start()
    port = tls_server.port
    proxy_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("127.0.0.1").configure_cert(proxy_context)
    resolver = StaticResolver({"fixture.test": ["127.0.0.1"], "other.test": ["127.0.0.1"]})
    try:
        with (
            UpstreamProxyServer(tls=proxy_context if scheme == "https" else None) as proxy,
            socket_tripwire.allow("127.0.0.1", tls_server.port),
        ):
            config = pagewarden.ReaderConfig(
                resolver=resolver,
                unsafe_allow_destinations=(f"127.0.0.1:{tls_server.port}",),
                proxy=proxy.url(scheme),
            )
            response = await fetch(f"https://fixture.test:{tls_server.port}/", config)
            with pytest.raises(pagewarden.NetworkError) as caught:
                await fetch(f"https://other.test:{tls_server.port}/", config)
    finally:
        tls_server.sock.close()
    assert response.status == 200
    assert tls_server.server_names[0] == "fixture.test"
    assert caught.value.reason == "tls_failure"
    assert {(r.host, r.port) for r in proxy.requests} == {("127.0.0.1", port)}


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("ftp://proxy.example:21", "invalid_proxy_scheme"),
        ("socks4://proxy.example:1080", "invalid_proxy_scheme"),
        ("http://", "invalid_proxy"),
        ("http://proxy.example:3128/path", "invalid_proxy"),
        ("http://proxy.example:99999", "invalid_proxy"),
        ("socks5h://proxy.example", "proxy_remote_dns_needs_unsafe"),
        ("", "invalid_proxy"),
    ],
)
def test_invalid_proxy_urls(url: str, reason: str) -> None:
    """Malformed or unsupported proxy URLs are INVALID_INPUT with a named reason, without quoting the URL."""
    with pytest.raises(pagewarden.InvalidInput) as caught:
        parse_proxy(url)
    assert caught.value.reason == reason
    if url:
        assert url not in str(caught.value)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://proxy.example:3128", ("http", "proxy.example", 3128, False)),
        ("https://proxy.example", ("https", "proxy.example", 443, False)),
        ("socks5://u%40x:p%3Aw@[::1]:9050", ("socks5", "::1", 9050, False)),
        ("SOCKS5://127.0.0.1", ("socks5", "127.0.0.1", 1080, False)),
    ],
)
def test_proxy_urls_parse(url: str, expected: tuple[str, str, int, bool]) -> None:
    """Scheme, host, default port; credentials percent-decoded and hidden from repr."""
    proxy = parse_proxy(url)
    assert (proxy.scheme, proxy.host, proxy.port, proxy.remote_dns) == expected
    assert "@" not in repr(proxy) and "@" not in proxy.display


def test_credentials_percent_decoded() -> None:
    """user:password in the URL are percent-decoded for the handshake."""
    proxy = parse_proxy("socks5://u%40x:p%3Aw@127.0.0.1:1080")
    assert (proxy.username, proxy.password) == ("u@x", "p:w")


def test_remote_dns_needs_a_proxy() -> None:
    """unsafe_proxy_remote_dns without a proxy is a configuration error."""
    with pytest.raises(pagewarden.InvalidInput):
        pagewarden.ReaderConfig(unsafe_proxy_remote_dns=True)


async def test_onion_names_are_refused_without_remote_dns(page: FixtureServer) -> None:
    """A .onion name is refused before any lookup unless the proxy resolves names; then it goes to the proxy."""
    resolver = StaticResolver({})
    with pytest.raises(pagewarden.UnsafeURL) as caught:
        await fetch("http://exampleonionaddress.onion/", pagewarden.ReaderConfig(resolver=resolver))
    assert caught.value.reason == "onion_needs_remote_dns"
    assert resolver.calls == []
    with UpstreamProxyServer(names={"hiddenservice.onion": "127.0.0.1"}) as proxy:
        config = config_for(page, proxy.url("socks5h"), unsafe_proxy_remote_dns=True)
        with pytest.raises(pagewarden.UnsafeURL) as port:
            await fetch(f"http://hiddenservice.onion:{page.port}/article", config)  # port not named
        assert port.value.reason == "port_not_allowed"
        config = config.replace(unsafe_allow_destinations=(page.host_port, f"hiddenservice.onion:{page.port}"))
        response = await fetch(f"http://hiddenservice.onion:{page.port}/article", config)
    assert response.status == 200
    assert [(r.host, r.port) for r in proxy.requests] == [("hiddenservice.onion", page.port)]
