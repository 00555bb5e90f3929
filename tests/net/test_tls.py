"""Pinned connections still verify TLS against the host name (SNI and certificate)."""

from __future__ import annotations

import socket
import ssl
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
import trustme

import pagewarden
import pagewarden._net.transport as transport
from pagewarden.testing import StaticResolver

BODY = b"<html><head><title>TLS</title></head><body><article><h1>TLS</h1><p>" + b"Pinned and verified. " * 20 + (
    b"</p></article></body></html>"
)


@dataclass
class TLSServer:
    """A one-response-per-connection HTTPS server on loopback recording the SNI names it was asked for."""

    context: ssl.SSLContext
    sock: socket.socket = field(default_factory=lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM))
    server_names: list[str | None] = field(default_factory=list)

    @property
    def port(self) -> int:
        return int(self.sock.getsockname()[1])

    def start(self) -> None:
        self.context.sni_callback = lambda _sock, name, _ctx: self.server_names.append(name)  # type: ignore[assignment]
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            try:
                with self.context.wrap_socket(conn, server_side=True) as tls:
                    tls.recv(65536)
                    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n"
                    tls.sendall(head + b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(BODY) + BODY)
            except (OSError, ssl.SSLError):
                conn.close()


@pytest.fixture
def authority() -> trustme.CA:
    """A throwaway certificate authority."""
    return trustme.CA()


@pytest.fixture
def tls_server(authority: trustme.CA) -> Iterator[TLSServer]:
    """An HTTPS server whose certificate names fixture.test only."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("fixture.test").configure_cert(context)
    server = TLSServer(context)
    server.start()
    yield server
    server.sock.close()


@pytest.fixture
def trust(authority: trustme.CA, monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the transport's (otherwise certifi-based) context trust the throwaway CA."""
    context = ssl.create_default_context()
    authority.configure_trust(context)
    monkeypatch.setattr(transport, "_ssl_context", lambda: context)


def _reader(server: TLSServer) -> pagewarden.AsyncReader:
    resolver = StaticResolver({"fixture.test": ["127.0.0.1"], "other.test": ["127.0.0.1"]})
    return pagewarden.AsyncReader(resolver=resolver, unsafe_allow_destinations=[f"127.0.0.1:{server.port}"])


@pytest.mark.anyio
@pytest.mark.usefixtures("trust")
async def test_pinned_tls_sends_sni_and_verifies_the_name(tls_server: TLSServer) -> None:
    """The pinned dial goes to the validated IP while TLS uses the URL's host name."""
    async with _reader(tls_server) as reader:
        document = await reader.read(f"https://fixture.test:{tls_server.port}/", render="never")
    assert document.title == "TLS"
    assert tls_server.server_names == ["fixture.test"]


@pytest.mark.anyio
@pytest.mark.usefixtures("trust")
async def test_certificate_for_another_name_is_refused(tls_server: TLSServer) -> None:
    """A certificate that does not name the requested host fails, even though the address is the same."""
    async with _reader(tls_server) as reader:
        with pytest.raises(pagewarden.NetworkError) as caught:
            await reader.read(f"https://other.test:{tls_server.port}/", render="never")
    assert caught.value.reason == "tls_failure"
    assert not caught.value.retryable


@pytest.mark.anyio
async def test_untrusted_authority_is_refused(tls_server: TLSServer) -> None:
    """Without trusting the throwaway CA the default context refuses the certificate."""
    async with _reader(tls_server) as reader:
        with pytest.raises(pagewarden.NetworkError) as caught:
            await reader.read(f"https://fixture.test:{tls_server.port}/", render="never")
    assert caught.value.reason == "tls_failure"
