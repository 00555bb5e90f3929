"""The socket tripwire: no test may open a connection outside pagewarden's pinned path.

While installed (the autouse ``socket_tripwire`` fixture in ``tests/conftest.py``
installs it around every test), it patches:

* ``socket.socket.connect`` / ``connect_ex`` (every TCP connect, including
  asyncio's and anyio's, ends there) and ``socket.create_connection``;
* ``socket.getaddrinfo`` / ``gethostbyname`` / ``gethostbyname_ex`` (name
  resolution: tests must inject a resolver; only IP literals, ``None`` and
  ``localhost`` pass).

An IPv4/IPv6 connect is let through only when

* pagewarden's pinned backend is dialling right now (the
  ``pagewarden._net.pinned.PINNED_DIAL`` context variable holds exactly this
  ``(ip, port)``) **and** the address is loopback (tests never reach the
  internet, even through the pinned path), or
* the test explicitly allowed that ``(host, port)`` with :meth:`SocketTripwire.allow`.

Anything else is recorded as a violation and raises :class:`TripwireTripped`
(an ``AssertionError``, so library code that maps ``OSError`` cannot swallow it
quietly); the recorded violation also fails the test afterwards, even if the
exception was caught. Unix-domain sockets are not network connections and pass.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from pagewarden._net.pinned import PINNED_DIAL

__all__ = ["SocketTripwire", "TripwireTripped"]


class TripwireTripped(AssertionError):
    """A test tried to connect or resolve outside the pinned path."""


def _is_ip_literal(host: object) -> bool:
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    if not isinstance(host, str):
        return False
    try:
        ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return False
    return True


class SocketTripwire:
    """Patches the socket module so stray connects and lookups fail the test."""

    def __init__(self) -> None:
        self.violations: list[str] = []
        self._allowed: set[tuple[str, int]] = set()
        self._lock = threading.Lock()
        self._saved: dict[tuple[Any, str], Any] = {}

    # -- reporting ---------------------------------------------------------------
    def _trip(self, what: str) -> TripwireTripped:
        with self._lock:
            self.violations.append(what)
        return TripwireTripped(f"socket tripwire: {what} outside the pinned path")

    def take_violations(self) -> list[str]:
        """Return and clear the recorded violations (a test that expects a trip calls this)."""
        with self._lock:
            taken, self.violations = self.violations, []
        return taken

    @contextmanager
    def allow(self, host: str, port: int) -> Iterator[None]:
        """Let raw connects to ``host:port`` through inside the block (e.g. a server's own helper)."""
        key = (str(ipaddress.ip_address(host)), port)
        self._allowed.add(key)
        try:
            yield
        finally:
            self._allowed.discard(key)

    # -- checks ------------------------------------------------------------------
    def check_connect(self, family: int, address: Any) -> None:
        """Raise (and record) unless this connect is permitted."""
        if family not in (socket.AF_INET, socket.AF_INET6):
            return
        host, port = str(address[0]), int(address[1])
        try:
            ip = ipaddress.ip_address(host.split("%", 1)[0])
        except ValueError:
            raise self._trip(f"connect to a name ({host!r})") from None
        if (str(ip), port) in self._allowed:
            return
        dial = PINNED_DIAL.get()
        if dial is not None and ipaddress.ip_address(dial[0]) == ip and dial[1] == port:
            if ip.is_loopback:
                return
            raise self._trip(f"pinned connect to non-loopback {ip}:{port} (tests never use the internet)")
        raise self._trip(f"connect to {ip}:{port}")

    def check_lookup(self, host: object) -> None:
        """Raise (and record) for a DNS lookup of anything but a literal or localhost."""
        if host is None or _is_ip_literal(host):
            return
        name = host.decode("ascii", "replace") if isinstance(host, bytes) else str(host)
        if name.lower().rstrip(".") == "localhost":
            return
        raise self._trip(f"DNS lookup of {name!r} (inject a resolver instead)")

    # -- installation ------------------------------------------------------------
    def _patch(self, owner: Any, name: str, replacement: Any) -> None:
        self._saved[(owner, name)] = getattr(owner, name)
        setattr(owner, name, replacement)

    def install(self) -> None:
        """Patch the socket module (idempotent per instance)."""
        if self._saved:
            return
        wire = self
        real_connect = socket.socket.connect
        real_connect_ex = socket.socket.connect_ex
        real_create_connection = socket.create_connection
        real_getaddrinfo = socket.getaddrinfo
        real_gethostbyname = socket.gethostbyname
        real_gethostbyname_ex = socket.gethostbyname_ex

        def guarded(sock: socket.socket, address: Any) -> None:
            try:
                wire.check_connect(sock.family, address)
            except TripwireTripped:
                # Callers such as create_connection only close on OSError;
                # close here so a trip never leaks a socket as well.
                sock.close()
                raise

        def connect(sock: socket.socket, address: Any) -> None:
            guarded(sock, address)
            real_connect(sock, address)

        def connect_ex(sock: socket.socket, address: Any) -> int:
            guarded(sock, address)
            return real_connect_ex(sock, address)

        def create_connection(address: Any, *args: Any, **kwargs: Any) -> socket.socket:
            if not _is_ip_literal(address[0]):
                wire.check_lookup(address[0])
            return real_create_connection(address, *args, **kwargs)

        def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
            wire.check_lookup(host)
            return real_getaddrinfo(host, *args, **kwargs)

        def gethostbyname(host: str) -> str:
            wire.check_lookup(host)
            return real_gethostbyname(host)

        def gethostbyname_ex(host: str) -> Any:
            wire.check_lookup(host)
            return real_gethostbyname_ex(host)

        self._patch(socket.socket, "connect", connect)
        self._patch(socket.socket, "connect_ex", connect_ex)
        self._patch(socket, "create_connection", create_connection)
        self._patch(socket, "getaddrinfo", getaddrinfo)
        self._patch(socket, "gethostbyname", gethostbyname)
        self._patch(socket, "gethostbyname_ex", gethostbyname_ex)

    def uninstall(self) -> None:
        """Restore everything :meth:`install` patched."""
        for (owner, name), original in self._saved.items():
            setattr(owner, name, original)
        self._saved.clear()
