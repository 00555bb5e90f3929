"""The pinned network backend: httpcore may only dial the addresses we validated.

httpcore asks its network backend to ``connect_tcp(host, port)`` with the
request's host *name*. :class:`PinnedBackend` is built per hop with that name,
the port and the addresses :func:`~pagewarden._net.resolve.resolve_and_check`
accepted; it dials those IPs (never the name, so nothing resolves again) and
refuses any other host or port. TLS is untouched: httpcore's ``start_tls``
still gets the host name as ``server_hostname``, so SNI and certificate
verification use the name, not the IP. After connecting, the peer address
of the socket is compared with the address we meant to dial.

With an upstream proxy (``ReaderConfig(proxy=...)``), the backend dials the
proxy instead and asks it for a tunnel to the validated addresses (see
:mod:`pagewarden._net.upstream`); TLS to the destination still starts on top,
with the host name. Only in the ``unsafe_proxy_remote_dns`` mode is the
address list empty and the proxy given the name.

:data:`PINNED_DIAL` (defined in :mod:`.dial_mark`) is set while a pinned dial
is in progress. Nothing in the library reads it; the test suite's socket
tripwire uses it to tell the one legitimate ``connect()`` path from every other.
"""

from __future__ import annotations

import ipaddress
import time
import typing

import httpcore

from .._errors import UnsafeURL
from .._protocols import IPAddress
from .dial_mark import PINNED_DIAL
from .upstream import UpstreamProxy, open_tunnel

__all__ = ["PINNED_DIAL", "PinnedBackend"]

class PinnedBackend(httpcore.AsyncNetworkBackend):
    """An httpcore network backend that only connects to pre-validated addresses.

    Args:
        host: the host name (or literal) httpcore will ask for.
        port: the port httpcore will ask for.
        addresses: the validated addresses, dialled in order until one connects.
        inner: the real backend (httpcore's anyio backend by default).
        proxy: an upstream proxy to tunnel through, or ``None`` to connect directly.
    """

    def __init__(
        self,
        host: str,
        port: int,
        addresses: tuple[IPAddress, ...],
        *,
        inner: httpcore.AsyncNetworkBackend | None = None,
        proxy: UpstreamProxy | None = None,
    ) -> None:
        if not addresses and (proxy is None or not proxy.remote_dns):
            raise UnsafeURL("no validated address to connect to", reason="unpinned_destination", stage="connect")
        self._proxy = proxy
        self._host = host
        self._port = port
        self._addresses = addresses
        self._inner = inner if inner is not None else httpcore.AnyIOBackend()
        self.connect_seconds = 0.0
        self.connected_address: IPAddress | None = None

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: typing.Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        """Dial the pinned addresses for ``host:port``; refuse anything else."""
        if host != self._host or port != self._port:
            raise UnsafeURL(
                "the transport tried to reach a destination that was not validated",
                reason="unpinned_destination",
                stage="connect",
            )
        if self._proxy is not None:
            return await self._connect_proxied(self._proxy, port, timeout, socket_options)
        last_error: httpcore.ConnectError | None = None
        for address in self._addresses:
            token = PINNED_DIAL.set((address.compressed, port))
            started = time.perf_counter()
            try:
                stream = await self._inner.connect_tcp(
                    address.compressed, port, timeout=timeout, socket_options=socket_options
                )
            except httpcore.ConnectError as exc:
                # Another validated address of the same name may still answer.
                last_error = exc
                continue
            finally:
                PINNED_DIAL.reset(token)
                self.connect_seconds += time.perf_counter() - started
            await self._check_peer(stream, address, port)
            self.connected_address = address
            return stream
        if last_error is None:  # unreachable: __init__ refuses an empty address list
            raise UnsafeURL("no validated address to connect to", reason="unpinned_destination", stage="connect")
        raise last_error

    async def _connect_proxied(
        self,
        proxy: UpstreamProxy,
        port: int,
        timeout: float | None,
        socket_options: typing.Iterable[httpcore.SOCKET_OPTION] | None,
    ) -> httpcore.AsyncNetworkStream:
        destinations: tuple[str | IPAddress, ...] = self._addresses if self._addresses else (self._host,)
        started = time.perf_counter()
        try:
            stream, used = await open_tunnel(
                self._inner, proxy, destinations, port, timeout=timeout, socket_options=socket_options
            )
        finally:
            self.connect_seconds += time.perf_counter() - started
        self.connected_address = used if not isinstance(used, str) else None
        return stream

    async def _check_peer(self, stream: httpcore.AsyncNetworkStream, address: IPAddress, port: int) -> None:
        peer = stream.get_extra_info("server_addr")
        try:
            peer_address = ipaddress.ip_address(peer[0])
            peer_port = int(peer[1])
        except (TypeError, ValueError, IndexError):
            peer_address, peer_port = None, None
        if peer_address != address or peer_port != port:
            await stream.aclose()
            raise UnsafeURL("the connected peer is not the validated address", reason="peer_mismatch", stage="connect")

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: typing.Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        """Always refused: reads never use Unix sockets."""
        raise UnsafeURL("Unix sockets are never used", reason="unpinned_destination", stage="connect")

    async def sleep(self, seconds: float) -> None:
        """Delegate to the inner backend."""
        await self._inner.sleep(seconds)
