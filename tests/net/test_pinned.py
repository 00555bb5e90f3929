"""The pinned backend: only validated addresses are dialled, TLS still verifies the host name."""

from __future__ import annotations

import ipaddress
import ssl
import typing

import httpcore
import pytest

from pagewarden._errors import UnsafeURL
from pagewarden._net.pinned import PINNED_DIAL, PinnedBackend
from pagewarden._net.transport import _ssl_context

pytestmark = pytest.mark.anyio

PUBLIC = ipaddress.ip_address("93.184.216.34")
OTHER = ipaddress.ip_address("93.184.216.35")


class FakeStream(httpcore.AsyncNetworkStream):
    """Pretends to be a connected socket that answers one HTTP response."""

    def __init__(self, peer: tuple[str, int] | None, answer: bytes = b"") -> None:
        self.peer = peer
        self.answer = answer
        self.tls: dict[str, object] = {}
        self.written = b""
        self.closed = False

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        data, self.answer = self.answer[:max_bytes], self.answer[max_bytes:]
        return data

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self.written += buffer

    async def aclose(self) -> None:
        self.closed = True

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.AsyncNetworkStream:
        self.tls = {"server_hostname": server_hostname, "ssl_context": ssl_context}
        return self

    def get_extra_info(self, info: str) -> typing.Any:
        return self.peer if info == "server_addr" else None


class FakeInner(httpcore.AsyncNetworkBackend):
    """Records dials; fails for addresses in ``refuse``; answers with ``stream_for``."""

    def __init__(
        self, peer_override: tuple[str, int] | None = None, refuse: tuple[str, ...] = (), answer: bytes = b""
    ) -> None:
        self.calls: list[tuple[str, int, object]] = []
        self.streams: list[FakeStream] = []
        self.peer_override = peer_override
        self.refuse = refuse
        self.answer = answer

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: object = None,
    ) -> FakeStream:
        self.calls.append((host, port, PINNED_DIAL.get()))
        if host in self.refuse:
            raise httpcore.ConnectError("refused")
        stream = FakeStream(self.peer_override or (host, port), self.answer)
        self.streams.append(stream)
        return stream

    async def sleep(self, seconds: float) -> None:
        return None


async def test_dials_the_pinned_ip_not_the_name() -> None:
    """connect_tcp(name) dials the validated IP, with PINNED_DIAL naming it during the dial only."""
    inner = FakeInner()
    backend = PinnedBackend("example.com", 443, (PUBLIC,), inner=inner)
    await backend.connect_tcp("example.com", 443)
    assert inner.calls == [(str(PUBLIC), 443, (str(PUBLIC), 443))]
    assert PINNED_DIAL.get() is None and backend.connected_address == PUBLIC


@pytest.mark.parametrize(("host", "port"), [("evil.example", 443), ("example.com", 80), ("93.184.216.34", 443)])
async def test_refuses_hosts_it_was_not_told_about(host: str, port: int) -> None:
    """Any host or port other than the pinned one is refused without dialling."""
    inner = FakeInner()
    backend = PinnedBackend("example.com", 443, (PUBLIC,), inner=inner)
    with pytest.raises(UnsafeURL) as info:
        await backend.connect_tcp(host, port)
    assert info.value.reason == "unpinned_destination" and inner.calls == []


async def test_unix_sockets_and_empty_pins_are_refused() -> None:
    """Unix sockets are never used and an empty address list cannot build a backend."""
    with pytest.raises(UnsafeURL):
        await PinnedBackend("example.com", 443, (PUBLIC,), inner=FakeInner()).connect_unix_socket("/tmp/x.sock")
    with pytest.raises(UnsafeURL):
        PinnedBackend("example.com", 443, ())


async def test_peer_mismatch_is_refused_and_closed() -> None:
    """If the connected peer is not the validated address, the stream is closed and the hop refused."""
    inner = FakeInner(peer_override=("10.0.0.1", 443))
    backend = PinnedBackend("example.com", 443, (PUBLIC,), inner=inner)
    with pytest.raises(UnsafeURL) as info:
        await backend.connect_tcp("example.com", 443)
    assert info.value.reason == "peer_mismatch" and inner.streams[0].closed


async def test_falls_back_to_the_next_validated_address() -> None:
    """When one validated address refuses, the next validated one is tried (and nothing else)."""
    inner = FakeInner(refuse=(str(PUBLIC),))
    backend = PinnedBackend("example.com", 443, (PUBLIC, OTHER), inner=inner)
    await backend.connect_tcp("example.com", 443)
    assert [call[0] for call in inner.calls] == [str(PUBLIC), str(OTHER)]
    assert backend.connected_address == OTHER


async def test_all_addresses_failing_raises_connect_error() -> None:
    """If every validated address refuses, httpcore's ConnectError surfaces (mapped later by the boundary)."""
    inner = FakeInner(refuse=(str(PUBLIC),))
    with pytest.raises(httpcore.ConnectError):
        await PinnedBackend("example.com", 443, (PUBLIC,), inner=inner).connect_tcp("example.com", 443)


async def test_tls_uses_the_host_name_for_sni_and_certificate() -> None:
    """Over httpcore, https dials the pinned IP but start_tls gets the host name and a verifying context."""
    inner = FakeInner(answer=b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
    backend = PinnedBackend("example.com", 443, (PUBLIC,), inner=inner)
    async with httpcore.AsyncConnectionPool(network_backend=backend, ssl_context=_ssl_context(), retries=0) as pool:
        response = await pool.request("GET", "https://example.com/", headers={"Host": "example.com"})
    assert response.status == 200
    stream = inner.streams[0]
    assert inner.calls[0][0] == str(PUBLIC)
    assert stream.tls["server_hostname"] == "example.com"
    context = stream.tls["ssl_context"]
    assert isinstance(context, ssl.SSLContext)
    assert context.check_hostname and context.verify_mode == ssl.CERT_REQUIRED
