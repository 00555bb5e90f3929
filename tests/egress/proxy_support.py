"""Helpers shared by the pinning-proxy tests (no tests here).

It holds plain functions and context managers, not fixtures, so importing
them is explicit.

Every test reaches the proxy with a raw loopback socket (or httpx pointed at
the proxy), which the socket tripwire allows only for the proxy's own port;
the proxy's upstream dials go through pagewarden's pinned path, the only one
the tripwire lets through.
"""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from typing import Any

import anyio

from pagewarden import ReaderConfig
from pagewarden._egress import PinningProxy, ProxySession
from pagewarden._protocols import Resolver
from tests.support.server import FixtureServer
from tests.support.tripwire import SocketTripwire

__all__ = [
    "auth_line",
    "config_for",
    "connect_bytes",
    "exchange",
    "header_map",
    "request_bytes",
    "running_proxy",
    "status_of",
]


def config_for(*servers: FixtureServer, resolver: Resolver | None = None, extra: Iterable[str] = ()) -> ReaderConfig:
    """A config that allows exactly ``servers`` (and ``extra`` entries), with an optional injected resolver."""
    allowed = tuple(server.host_port for server in servers) + tuple(extra)
    return ReaderConfig(unsafe_allow_destinations=allowed, resolver=resolver, timeout=5.0)


def auth_line(creds: PinningProxy | ProxySession | tuple[str, str]) -> str:
    """A ``Proxy-Authorization: Basic`` header line for ``creds``."""
    user, password = creds if isinstance(creds, tuple) else (creds.username, creds.password)
    token = base64.b64encode(f"{user}:{password}".encode()).decode("ascii")
    return f"Proxy-Authorization: Basic {token}"


def request_bytes(method: str, target: str, *lines: str, body: bytes = b"") -> bytes:
    """One HTTP/1.1 request head (plus ``body``) with the given header lines."""
    host = target.split("//", 1)[-1].split("/", 1)[0]
    head = [f"{method} {target} HTTP/1.1", f"Host: {host}", *lines]
    return ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body


def connect_bytes(authority: str, *lines: str) -> bytes:
    """A CONNECT request head for ``authority`` with the given header lines."""
    head = [f"CONNECT {authority} HTTP/1.1", f"Host: {authority}", *lines]
    return ("\r\n".join(head) + "\r\n\r\n").encode("latin-1")


@asynccontextmanager
async def running_proxy(config: ReaderConfig, tripwire: SocketTripwire, **kwargs: Any) -> AsyncIterator[PinningProxy]:
    """A started proxy whose port the test may connect to; closed afterwards."""
    async with PinningProxy(config, **kwargs) as proxy:
        with tripwire.allow("127.0.0.1", proxy.port):
            yield proxy


async def exchange(port: int, data: bytes, *, then: bytes = b"", timeout: float = 5.0) -> bytes:
    """Send ``data`` to the proxy, and ``then`` once a first reply arrived; return everything read until EOF."""
    received = b""
    stream = await anyio.connect_tcp("127.0.0.1", port)
    async with stream:
        with anyio.fail_after(timeout):
            await stream.send(data)
            sent_then = not then
            while True:
                try:
                    chunk = await stream.receive()
                except (anyio.EndOfStream, anyio.BrokenResourceError):
                    break
                received += chunk
                if not sent_then and b"\r\n\r\n" in received:
                    sent_then = True
                    await stream.send(then)
    return received


def status_of(reply: bytes) -> int:
    """The status code of the first response in ``reply`` (0 when there is none)."""
    line = reply.split(b"\r\n", 1)[0].split(b" ")
    return int(line[1]) if len(line) > 1 and line[1].isdigit() else 0


def header_map(reply: bytes) -> dict[str, str]:
    """The first response's headers, names lowercased (repeated names joined with ``, ``)."""
    head = reply.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")[1:]
    headers: dict[str, str] = {}
    for line in head:
        name, _, value = line.partition(":")
        key = name.strip().lower()
        headers[key] = f"{headers[key]}, {value.strip()}" if key in headers else value.strip()
    return headers
