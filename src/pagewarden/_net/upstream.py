"""An explicit upstream proxy: the tunnel handshakes (the setting is parsed in :mod:`pagewarden._upstream_proxy`).

pagewarden never reads proxies from the environment. When a proxy is
configured, the address policy still decides here: the destination name is
resolved and validated locally, and the proxy is asked for a tunnel to the
*validated IP address* (HTTP ``CONNECT 203.0.113.7:443`` or SOCKS5
``CONNECT`` with an IPv4/IPv6 address), so the proxy cannot resolve the name
to something else. TLS to the destination runs inside the tunnel and still
verifies the host name (SNI and certificate use the name, not the IP).

Schemes: ``http://`` (plain CONNECT), ``https://`` (CONNECT inside TLS to the
proxy, the proxy's certificate verified against its host name),
``socks5://``. ``socks5h://`` (the proxy resolves names) and remote DNS in
general are refused unless ``unsafe_proxy_remote_dns=True``: the proxy then
gets the host *name*, the local address policy can only check the name and
IP literals, and every Document records that limitation. It is what a
``.onion`` address over Tor needs, and nothing else should use it.

Credentials (``user:password@`` in the proxy URL, percent-decoded) are sent
as ``Proxy-Authorization: Basic`` or SOCKS5 username/password; they are kept
out of ``repr()``, messages, logs and records (:attr:`UpstreamProxy.display`
is the proxy without them). Failures are ``NETWORK_ERROR`` with a named
reason (``proxy_unreachable``, ``proxy_auth_failed``, ``proxy_refused``,
``proxy_protocol_error``); a proxy's answer is never quoted.
"""

from __future__ import annotations

import base64
import ipaddress
import ssl
import struct
import typing
from collections.abc import Sequence
from functools import cache
from typing import Final

import certifi
import httpcore

from .._errors import InvalidInput, NetworkError
from .._protocols import IPAddress
from .._upstream_proxy import REMOTE_DNS_LIMITATION, UpstreamProxy, parse_proxy
from .dial_mark import PINNED_DIAL

__all__ = [
    "REMOTE_DNS_LIMITATION",
    "UpstreamProxy",
    "http_connect",
    "open_tunnel",
    "parse_proxy",
    "socks5_connect",
]

MAX_PROXY_HEAD_BYTES = 16_384
# The proxy could not reach this address: another validated address of the same name may work.
_NEXT_ADDRESS_REASONS: Final = frozenset(
    {"proxy_refused", "socks_network_unreachable", "socks_host_unreachable", "socks_connection_refused",
     "socks_ttl_expired", "socks_general_failure"}
)
_SOCKS_REPLIES: Final = {
    1: "socks_general_failure",
    2: "socks_not_allowed",
    3: "socks_network_unreachable",
    4: "socks_host_unreachable",
    5: "socks_connection_refused",
    6: "socks_ttl_expired",
    7: "socks_command_not_supported",
    8: "socks_address_type_not_supported",
}


def _invalid(message: str, reason: str = "invalid_proxy") -> InvalidInput:
    # Never quote the URL or the credentials.
    return InvalidInput(message, reason=reason, stage="config")


def _failure(message: str, reason: str, *, retryable: bool = True) -> NetworkError:
    return NetworkError(message, reason=reason, retryable=retryable, stage="connect")


class _Reader:
    """Exact reads from an httpcore stream during a handshake."""

    def __init__(self, stream: httpcore.AsyncNetworkStream, timeout: float | None) -> None:
        self.stream = stream
        self.timeout = timeout
        self.buffer = b""

    async def exactly(self, count: int) -> bytes:
        while len(self.buffer) < count:
            chunk = await self.stream.read(max(count - len(self.buffer), 1), timeout=self.timeout)
            if not chunk:
                raise _failure("the proxy closed the connection during the handshake", "proxy_protocol_error")
            self.buffer += chunk
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    async def head(self) -> bytes:
        while b"\r\n\r\n" not in self.buffer:
            if len(self.buffer) > MAX_PROXY_HEAD_BYTES:
                raise _failure("the proxy's answer is too large", "proxy_protocol_error", retryable=False)
            chunk = await self.stream.read(4_096, timeout=self.timeout)
            if not chunk:
                raise _failure("the proxy closed the connection during the handshake", "proxy_protocol_error")
            self.buffer += chunk
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        return head


def _authority(host: str | IPAddress, port: int) -> str:
    if isinstance(host, ipaddress.IPv6Address):
        return f"[{host.compressed}]:{port}"
    if isinstance(host, ipaddress.IPv4Address):
        return f"{host.compressed}:{port}"
    return f"{host}:{port}"


async def http_connect(
    stream: httpcore.AsyncNetworkStream,
    proxy: UpstreamProxy,
    destination: str | IPAddress,
    port: int,
    *,
    timeout: float | None,
) -> None:
    """Ask an HTTP proxy for a tunnel to ``destination:port`` (an IP unless remote DNS was allowed)."""
    authority = _authority(destination, port)
    lines = [f"CONNECT {authority} HTTP/1.1", f"Host: {authority}"]
    if proxy.username is not None:
        secret = f"{proxy.username}:{proxy.password or ''}".encode()
        lines.append("Proxy-Authorization: Basic " + base64.b64encode(secret).decode("ascii"))
    await stream.write(("\r\n".join(lines) + "\r\n\r\n").encode("utf-8"), timeout=timeout)
    reader = _Reader(stream, timeout)
    head = await reader.head()
    status_line = head.split(b"\r\n", 1)[0]
    fields = status_line.split(b" ", 2)
    if len(fields) < 2 or not fields[0].startswith(b"HTTP/1.") or not fields[1].isdigit():
        raise _failure("the proxy did not answer HTTP", "proxy_protocol_error", retryable=False)
    status = int(fields[1])
    if status == 407:
        raise _failure("the proxy requires (other) credentials", "proxy_auth_failed", retryable=False)
    if not 200 <= status < 300:
        raise NetworkError(
            f"the proxy refused the tunnel (HTTP {status})",
            reason="proxy_refused",
            status=status,
            retryable=status >= 500,
            stage="connect",
        )
    if reader.buffer:
        raise _failure("the proxy sent data before the tunnel was used", "proxy_protocol_error", retryable=False)


async def socks5_connect(
    stream: httpcore.AsyncNetworkStream,
    proxy: UpstreamProxy,
    destination: str | IPAddress,
    port: int,
    *,
    timeout: float | None,
) -> None:
    """Ask a SOCKS5 proxy (RFC 1928, RFC 1929 credentials) for a connection to ``destination:port``."""
    reader = _Reader(stream, timeout)
    methods = b"\x00\x02" if proxy.username is not None else b"\x00"
    await stream.write(b"\x05" + bytes([len(methods)]) + methods, timeout=timeout)
    version, method = await reader.exactly(2)
    if version != 5:
        raise _failure("the proxy did not answer SOCKS5", "proxy_protocol_error", retryable=False)
    if method == 2 and proxy.username is not None:
        user = proxy.username.encode("utf-8")
        secret = (proxy.password or "").encode("utf-8")
        if len(user) > 255 or len(secret) > 255:
            raise _invalid("the proxy credentials are too long for SOCKS5")
        await stream.write(b"\x01" + bytes([len(user)]) + user + bytes([len(secret)]) + secret, timeout=timeout)
        _, status = await reader.exactly(2)
        if status != 0:
            raise _failure("the proxy rejected the credentials", "proxy_auth_failed", retryable=False)
    elif method != 0:
        raise _failure(
            "the proxy accepts none of the offered authentication methods", "proxy_auth_failed", retryable=False
        )
    if isinstance(destination, ipaddress.IPv4Address):
        address = b"\x01" + destination.packed
    elif isinstance(destination, ipaddress.IPv6Address):
        address = b"\x04" + destination.packed
    else:
        name = destination.encode("ascii")
        address = b"\x03" + bytes([len(name)]) + name
    await stream.write(b"\x05\x01\x00" + address + struct.pack("!H", port), timeout=timeout)
    version, reply, _, kind = await reader.exactly(4)
    if version != 5:
        raise _failure("the proxy did not answer SOCKS5", "proxy_protocol_error", retryable=False)
    if reply != 0:
        reason = _SOCKS_REPLIES.get(reply, "proxy_refused")
        raise _failure(f"the proxy refused the connection ({reason})", reason, retryable=reply in (1, 3, 4, 5, 6))
    if kind == 1:
        await reader.exactly(4 + 2)
    elif kind == 4:
        await reader.exactly(16 + 2)
    elif kind == 3:
        (length,) = await reader.exactly(1)
        await reader.exactly(length + 2)
    else:
        raise _failure("the proxy answered an unknown address type", "proxy_protocol_error", retryable=False)
    if reader.buffer:
        raise _failure("the proxy sent data before the tunnel was used", "proxy_protocol_error", retryable=False)


@cache
def _proxy_ssl_context() -> ssl.SSLContext:
    # TLS to an https:// proxy: verified against the proxy's host name, like any other TLS.
    return ssl.create_default_context(cafile=certifi.where())


async def open_tunnel(
    inner: httpcore.AsyncNetworkBackend,
    proxy: UpstreamProxy,
    destinations: Sequence[str | IPAddress],
    port: int,
    *,
    timeout: float | None,
    socket_options: typing.Iterable[httpcore.SOCKET_OPTION] | None = None,
) -> tuple[httpcore.AsyncNetworkStream, str | IPAddress]:
    """Connect to ``proxy`` and open a tunnel to the first of ``destinations`` it can reach.

    Returns the tunnel (a stream on which the caller starts TLS to the
    destination's host name, or speaks plain HTTP) and the destination used.
    A refusal by the proxy for one address moves on to the next validated
    address; a failure to reach the proxy itself or to authenticate does not.
    """
    last: NetworkError | None = None
    for destination in destinations:
        token = PINNED_DIAL.set((proxy.host, proxy.port))
        try:
            stream = await inner.connect_tcp(proxy.host, proxy.port, timeout=timeout, socket_options=socket_options)
        except (httpcore.ConnectError, httpcore.ConnectTimeout, OSError):
            raise _failure(f"the proxy {proxy.display} could not be reached", "proxy_unreachable") from None
        finally:
            PINNED_DIAL.reset(token)
        try:
            if proxy.scheme == "https":
                stream = await stream.start_tls(_proxy_ssl_context(), server_hostname=proxy.host, timeout=timeout)
            if proxy.scheme == "socks5":
                await socks5_connect(stream, proxy, destination, port, timeout=timeout)
            else:
                await http_connect(stream, proxy, destination, port, timeout=timeout)
        except NetworkError as exc:
            await stream.aclose()
            if exc.reason not in _NEXT_ADDRESS_REASONS:
                raise
            last = exc
            continue
        except (httpcore.ReadError, httpcore.WriteError, httpcore.ReadTimeout, httpcore.WriteTimeout, OSError):
            await stream.aclose()
            raise _failure(
                f"the connection to the proxy {proxy.display} was lost during the handshake", "proxy_protocol_error"
            ) from None
        except BaseException:
            await stream.aclose()
            raise
        return stream, destination
    if last is None:
        raise _failure("there was no destination to ask the proxy for", "proxy_refused", retryable=False)
    raise last
