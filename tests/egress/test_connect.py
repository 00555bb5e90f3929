"""The pinning proxy's CONNECT path: authority checks, port 443 only, pinned tunnels, caps and idling."""

from __future__ import annotations

import time

import anyio
import pytest

from tests.egress.proxy_support import (
    auth_line,
    config_for,
    connect_bytes,
    exchange,
    request_bytes,
    running_proxy,
    status_of,
)
from tests.support.resolvers import StaticResolver
from tests.support.server import FixtureServer
from tests.support.tripwire import SocketTripwire

pytestmark = pytest.mark.anyio

HTML = {"Content-Type": "text/html"}

# (CONNECT authority that is not a plain host:port, expected reason); all answered 400.
BAD_AUTHORITIES = [
    ("public.test", "invalid_connect_authority"),
    ("user@public.test:443", "invalid_connect_authority"),
    ("user:pw@public.test:443", "invalid_connect_authority"),
    ("public.test:443/path", "invalid_connect_authority"),
    ("public.test?x:443", "invalid_connect_authority"),
    ("public.test#x:443", "invalid_connect_authority"),
    ("public.test\\x:443", "invalid_connect_authority"),
    ("public.test%2e:443", "invalid_connect_authority"),
    ("public.test:", "invalid_connect_authority"),
    ("public.test:https", "invalid_connect_authority"),
    ("::1:443", "invalid_connect_authority"),
    ("[::1]", "invalid_connect_authority"),
    ("public.test:99999", "invalid_port"),
]

# (authority, expected reason) refused by policy with 403.
REFUSED = [
    ("10.0.0.1:443", "address_private_10"),
    ("169.254.169.254:443", "address_cloud_metadata"),
    ("[::ffff:a9fe:a9fe]:443", "address_ipv4_mapped_embeds_cloud_metadata"),
    ("[fd00:ec2::254]:443", "address_cloud_metadata"),
    ("127.0.0.1:443", "address_loopback"),
    ("localhost:443", "local_name_localhost"),
    ("0x7f000001:443", "ip_literal_ambiguous"),
    ("public.test:25", "port_not_allowed"),
    ("public.test:80", "port_not_allowed"),
    ("public.test:6379", "port_not_allowed"),
    ("93.184.215.14:22", "port_not_allowed"),
    ("update.googleapis.com:443", "background_host"),
    ("optimizationguide-pa.googleapis.com:443", "background_host"),
    ("r4---sn-abc.gvt1.com:443", "background_host"),
    ("clients2.google.com:443", "background_host"),
]


async def test_connect_tunnels_to_an_allowed_destination(
    socket_tripwire: SocketTripwire, fixture_server: FixtureServer
) -> None:
    """CONNECT to an allowed address answers 200 and relays bytes both ways unchanged."""
    fixture_server.add("/a", headers=HTML, body=b"<p>tunnelled</p>")
    async with running_proxy(config_for(fixture_server), socket_tripwire) as proxy:
        inner = b"GET /a HTTP/1.1\r\nHost: whatever\r\nX-Inner: 1\r\n\r\n"
        reply = await exchange(proxy.port, connect_bytes(fixture_server.host_port, auth_line(proxy)), then=inner)
        assert proxy.requests_forwarded == 1
        assert proxy.ledger.total == 0
    assert reply.startswith(b"HTTP/1.1 200 Connection Established\r\n\r\nHTTP/1.1 200")
    assert reply.endswith(b"<p>tunnelled</p>")
    # The tunnel is opaque: the inner request arrives exactly as sent.
    assert fixture_server.requests[0].raw == inner


async def test_connect_with_bytes_after_the_head_keeps_them(
    socket_tripwire: SocketTripwire, fixture_server: FixtureServer
) -> None:
    """Bytes sent right behind the CONNECT head (before the 200) are relayed, not lost."""
    fixture_server.add("/a", headers=HTML, body=b"<p>early</p>")
    async with running_proxy(config_for(fixture_server), socket_tripwire) as proxy:
        inner = b"GET /a HTTP/1.1\r\nHost: whatever\r\n\r\n"
        reply = await exchange(proxy.port, connect_bytes(fixture_server.host_port, auth_line(proxy)) + inner)
    assert reply.endswith(b"<p>early</p>")


async def test_connect_to_a_name_dials_the_resolved_address_once(
    socket_tripwire: SocketTripwire, fixture_server: FixtureServer
) -> None:
    """CONNECT name:port resolves once with the injected resolver and dials that address (no system lookup)."""
    fixture_server.add("/a", headers=HTML, body=b"<p>named</p>")
    resolver = StaticResolver({"tunnel.test": ["127.0.0.1"]})
    async with running_proxy(config_for(fixture_server, resolver=resolver), socket_tripwire) as proxy:
        inner = b"GET /a HTTP/1.1\r\nHost: tunnel.test\r\n\r\n"
        authority = f"tunnel.test:{fixture_server.port}"
        reply = await exchange(proxy.port, connect_bytes(authority, auth_line(proxy)), then=inner)
    assert reply.endswith(b"<p>named</p>")
    assert resolver.calls == ["tunnel.test"]


@pytest.mark.parametrize(("authority", "reason"), BAD_AUTHORITIES, ids=[c[0] for c in BAD_AUTHORITIES])
async def test_bad_connect_authority_is_refused(socket_tripwire: SocketTripwire, authority: str, reason: str) -> None:
    """A CONNECT authority that is not a plain host:port gets 400 with the reason, before any lookup."""
    resolver = StaticResolver({"public.test": ["93.184.215.14"]})
    async with running_proxy(config_for(resolver=resolver), socket_tripwire) as proxy:
        reply = await exchange(proxy.port, connect_bytes(authority, auth_line(proxy)))
        assert proxy.ledger.by_reason == {reason: 1}
    assert status_of(reply) == 400
    assert resolver.calls == []


@pytest.mark.parametrize(("authority", "reason"), REFUSED, ids=[c[0] for c in REFUSED])
async def test_refused_connect_destinations(socket_tripwire: SocketTripwire, authority: str, reason: str) -> None:
    """CONNECT to a private address, a port other than 443 or a background host gets 403 with the reason."""
    resolver = StaticResolver({"public.test": ["93.184.215.14"]})
    async with running_proxy(config_for(resolver=resolver), socket_tripwire) as proxy:
        reply = await exchange(proxy.port, connect_bytes(authority, auth_line(proxy)))
        assert proxy.ledger.by_reason == {reason: 1}
    assert status_of(reply) == 403
    # Port and background refusals happen before DNS.
    assert resolver.calls == []


async def test_background_host_without_credentials_is_named(socket_tripwire: SocketTripwire) -> None:
    """Chromium's own unauthenticated background traffic gets 403 background_host rather than a challenge."""
    async with running_proxy(config_for(), socket_tripwire) as proxy:
        connect = await exchange(proxy.port, connect_bytes("update.googleapis.com:443"))
        post = await exchange(proxy.port, request_bytes("POST", "http://update.googleapis.com/service/update2/json"))
        assert proxy.ledger.by_reason == {"background_host": 2}
        assert proxy.challenges == 0
    assert (status_of(connect), status_of(post)) == (403, 403)


async def test_connect_to_the_proxy_itself_is_refused(socket_tripwire: SocketTripwire) -> None:
    """Even with all of loopback allowed, the proxy never tunnels to its own port."""
    async with running_proxy(config_for(extra=["127.0.0.0/8"]), socket_tripwire) as proxy:
        reply = await exchange(proxy.port, connect_bytes(f"127.0.0.1:{proxy.port}", auth_line(proxy)))
        plain = await exchange(proxy.port, request_bytes("GET", f"http://127.0.0.1:{proxy.port}/", auth_line(proxy)))
        assert proxy.ledger.by_reason == {"proxy_self": 2}
    assert (status_of(reply), status_of(plain)) == (403, 403)


async def test_upload_cap_cuts_the_tunnel(socket_tripwire: SocketTripwire, fixture_server: FixtureServer) -> None:
    """A tunnel that sends more than the upload cap upstream is cut and recorded as upload_cap."""
    async with running_proxy(config_for(fixture_server), socket_tripwire, max_upload_bytes=1_024) as proxy:
        # No blank line: the fixture keeps reading, so only the cap can end this.
        reply = await exchange(proxy.port, connect_bytes(fixture_server.host_port, auth_line(proxy)), then=b"z" * 4_000)
        assert proxy.ledger.by_reason == {"upload_cap": 1}
    assert reply == b"HTTP/1.1 200 Connection Established\r\n\r\n"
    assert fixture_server.requests == []


async def test_download_cap_cuts_the_tunnel(socket_tripwire: SocketTripwire, fixture_server: FixtureServer) -> None:
    """A tunnel that receives more than the download cap is cut: the browser gets at most the cap."""
    # Paced chunks, so some bytes pass before the cap is reached.
    fixture_server.add("/big", headers=HTML, chunks=[b"d" * 1_500] * 10, delay_per_chunk=0.05)
    async with running_proxy(config_for(fixture_server), socket_tripwire, max_download_bytes=4_096) as proxy:
        inner = b"GET /big HTTP/1.1\r\nHost: x\r\n\r\n"
        reply = await exchange(proxy.port, connect_bytes(fixture_server.host_port, auth_line(proxy)), then=inner)
        assert proxy.ledger.by_reason == {"download_cap": 1}
    tunnelled = reply.split(b"\r\n\r\n", 1)[1]
    assert 0 < len(tunnelled) <= 4_096
    assert tunnelled.count(b"d") < 15_000


async def test_idle_tunnel_is_closed(socket_tripwire: SocketTripwire, fixture_server: FixtureServer) -> None:
    """A tunnel with no traffic either way is closed after the idle timeout, without a ledger entry."""
    async with running_proxy(config_for(fixture_server), socket_tripwire, idle_timeout=0.3) as proxy:
        started = time.monotonic()
        reply = await exchange(proxy.port, connect_bytes(fixture_server.host_port, auth_line(proxy)))
        elapsed = time.monotonic() - started
        assert proxy.ledger.total == 0
    assert reply == b"HTTP/1.1 200 Connection Established\r\n\r\n"
    assert 0.25 <= elapsed < 2.0


async def test_active_tunnel_is_not_idle(socket_tripwire: SocketTripwire) -> None:
    """Traffic in one direction keeps a tunnel open past the idle timeout."""
    received: list[bytes] = []

    async def trickle(stream: anyio.abc.SocketStream) -> None:
        async with stream:
            for _ in range(6):
                await stream.send(b"t")
                await anyio.sleep(0.1)

    listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=0)
    port = listener.extra(anyio.abc.SocketAttribute.local_port)
    async with listener, anyio.create_task_group() as group:
        group.start_soon(listener.serve, trickle)
        async with running_proxy(config_for(extra=[f"127.0.0.1:{port}"]), socket_tripwire, idle_timeout=0.25) as proxy:
            received.append(await exchange(proxy.port, connect_bytes(f"127.0.0.1:{port}", auth_line(proxy))))
        group.cancel_scope.cancel()
    assert received[0] == b"HTTP/1.1 200 Connection Established\r\n\r\n" + b"t" * 6
