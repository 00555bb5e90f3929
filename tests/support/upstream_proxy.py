"""A small upstream proxy on 127.0.0.1 for tests: HTTP CONNECT and SOCKS5 (RFC 1928/1929) on one port.

It records every tunnel request (kind, destination as asked, whether the
credentials matched) and relays bytes both ways. Destinations that are
names (only in the remote-DNS tests) are looked up in ``names``, never in
DNS. The proxy's own connect to the destination is a raw socket connect, so
a test wraps its use in ``socket_tripwire.allow(...)`` for that destination.
"""

from __future__ import annotations

import base64
import ipaddress
import select
import socket
import ssl
import struct
import threading
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["TunnelRequest", "UpstreamProxyServer"]


@dataclass(frozen=True)
class TunnelRequest:
    """One tunnel the proxy was asked for."""

    kind: str  # "connect" (HTTP) or "socks5"
    host: str
    port: int
    authorized: bool
    proxy_authorization: str | None = None


class UpstreamProxyServer:
    """Start with :meth:`start`, stop with :meth:`stop` (or use as a context manager)."""

    def __init__(
        self,
        *,
        credentials: tuple[str, str] | None = None,
        names: Mapping[str, str] | None = None,
        refuse: bool = False,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        self.tls = tls
        self.credentials = credentials
        self.names = dict(names or {})
        self.refuse = refuse
        self.requests: list[TunnelRequest] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._listener: socket.socket | None = None
        self._threads: list[threading.Thread] = []
        self.port = 0

    def url(self, scheme: str = "http", *, user: str | None = None, password: str | None = None) -> str:
        """The proxy URL for ``ReaderConfig(proxy=...)``."""
        auth = f"{user}:{password}@" if user is not None else ""
        return f"{scheme}://{auth}127.0.0.1:{self.port}"

    def start(self) -> UpstreamProxyServer:
        """Listen on an ephemeral loopback port and serve in a thread."""
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen(32)
        listener.settimeout(0.1)
        self._listener = listener
        self.port = listener.getsockname()[1]
        thread = threading.Thread(target=self._serve, daemon=True)
        thread.start()
        self._threads.append(thread)
        return self

    def stop(self) -> None:
        """Stop serving and wait for the threads."""
        self._stopping.set()
        for thread in list(self._threads):
            thread.join(timeout=5)
        if self._listener is not None:
            self._listener.close()

    def __enter__(self) -> UpstreamProxyServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _serve(self) -> None:
        assert self._listener is not None
        while not self._stopping.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            thread = threading.Thread(target=self._handle, args=(conn,), daemon=True)
            thread.start()
            self._threads.append(thread)

    def _record(self, request: TunnelRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def _handle(self, conn: socket.socket) -> None:
        conn.settimeout(5)
        try:
            if self.tls is not None:
                conn = self.tls.wrap_socket(conn, server_side=True)
                first = b"C"  # an https:// proxy speaks HTTP CONNECT inside TLS
            else:
                first = conn.recv(1, socket.MSG_PEEK)
            upstream = self._socks5(conn) if first == b"\x05" else self._http_connect(conn)
            if upstream is not None:
                self._relay(conn, upstream)
        except (OSError, ssl.SSLError):
            pass
        finally:
            conn.close()

    def _dial(self, host: str, port: int) -> socket.socket:
        address = self.names.get(host, host)
        ipaddress.ip_address(address)  # never DNS
        return socket.create_connection((address, port), timeout=5)

    def _http_connect(self, conn: socket.socket) -> socket.socket | None:
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(4096)
            if not chunk:
                return None
            data += chunk
        head = data.split(b"\r\n\r\n", 1)[0].decode("latin-1")
        lines = head.split("\r\n")
        method, authority, _ = lines[0].split(" ", 2)
        headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
        host, _, port = authority.rpartition(":")
        host = host.strip("[]")
        given = headers.get("proxy-authorization")
        authorized = self._http_authorized(given)
        self._record(TunnelRequest("connect", host, int(port), authorized, given))
        if method != "CONNECT":
            conn.sendall(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
            return None
        if not authorized:
            conn.sendall(b'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="t"\r\n'
                         b"Content-Length: 0\r\n\r\n")
            return None
        if self.refuse:
            conn.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
            return None
        upstream = self._dial(host, int(port))
        conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        return upstream

    def _http_authorized(self, given: str | None) -> bool:
        if self.credentials is None:
            return True
        expected = base64.b64encode(":".join(self.credentials).encode()).decode()
        return given == f"Basic {expected}"

    def _exactly(self, conn: socket.socket, count: int) -> bytes:
        data = b""
        while len(data) < count:
            chunk = conn.recv(count - len(data))
            if not chunk:
                raise OSError("closed")
            data += chunk
        return data

    def _socks5(self, conn: socket.socket) -> socket.socket | None:
        _, count = self._exactly(conn, 2)
        methods = self._exactly(conn, count)
        authorized = True
        if self.credentials is not None:
            if 2 not in methods:
                conn.sendall(b"\x05\xff")
                return None
            conn.sendall(b"\x05\x02")
            _, ulen = self._exactly(conn, 2)
            user = self._exactly(conn, ulen).decode()
            (plen,) = self._exactly(conn, 1)
            password = self._exactly(conn, plen).decode()
            authorized = (user, password) == self.credentials
            conn.sendall(b"\x01\x00" if authorized else b"\x01\x01")
        else:
            conn.sendall(b"\x05\x00")
        if not authorized:
            self._record(TunnelRequest("socks5", "", 0, False))
            return None
        _, command, _, kind = self._exactly(conn, 4)
        if kind == 1:
            host = str(ipaddress.IPv4Address(self._exactly(conn, 4)))
        elif kind == 4:
            host = str(ipaddress.IPv6Address(self._exactly(conn, 16)))
        else:
            (length,) = self._exactly(conn, 1)
            host = self._exactly(conn, length).decode()
        (port,) = struct.unpack("!H", self._exactly(conn, 2))
        self._record(TunnelRequest("socks5", host, port, True))
        if command != 1 or self.refuse:
            conn.sendall(b"\x05\x02\x00\x01" + bytes(6))
            return None
        upstream = self._dial(host, port)
        conn.sendall(b"\x05\x00\x00\x01" + bytes(4) + b"\x00\x00")
        return upstream

    def _relay(self, conn: socket.socket, upstream: socket.socket) -> None:
        sockets = [conn, upstream]
        try:
            while not self._stopping.is_set():
                buffered = [s for s in sockets if isinstance(s, ssl.SSLSocket) and s.pending()]
                readable = buffered or select.select(sockets, [], [], 0.1)[0]
                for sock in readable:
                    data = sock.recv(65536)
                    if not data:
                        return
                    (upstream if sock is conn else conn).sendall(data)
        finally:
            upstream.close()
