"""A loopback fixture server with hostile behaviours the canned routes cannot express.

:class:`HostileServer` is a :class:`~tests.support.server.FixtureServer` plus
*behaviours*: functions that get the raw client socket and do whatever a
broken or malicious server would (reset the connection half-way through a
body, stream forever, answer with a megabyte of headers). Plain routes keep
working, so one server carries the hostile pages and the control page read
after each of them::

    server.behave("/reset", reset_mid_body(declared=200_000, sent=4_096))
    server.add("/ok", headers=HTML, body=b"<p>fine</p>")

Every behaviour stops when the server stops (no thread outlives :meth:`stop`
by more than its bounded join).
"""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
import time
from collections.abc import Callable

from tests.support.server import FixtureServer, Route

__all__ = ["Behaviour", "HostileServer", "endless_body", "huge_header", "reset_mid_body", "sized_body"]

# (client socket, the server's stop event)
Behaviour = Callable[[socket.socket, threading.Event], None]
_NOT_FOUND = Route(404, (("Content-Type", "text/plain"),), b"not found")
HTML_HEAD = "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nConnection: close\r\n"


def _reset(conn: socket.socket) -> None:
    """Close with an RST (SO_LINGER 0) instead of a FIN."""
    with contextlib.suppress(OSError):
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    conn.close()


def reset_mid_body(*, declared: int, sent: int, pause: float = 0.05) -> Behaviour:
    """Declare ``declared`` body bytes, send ``sent`` of them, pause, then reset the connection."""

    def behave(conn: socket.socket, stopping: threading.Event) -> None:
        head = f"{HTML_HEAD}Content-Length: {declared}\r\n\r\n".encode()
        body = b"<!doctype html><html><body><p>" + b"a" * max(0, sent - 40)
        conn.sendall(head + body[:sent])
        stopping.wait(pause)
        _reset(conn)

    return behave


def endless_body(*, chunk: int = 16_384, every: float = 0.01) -> Behaviour:
    """A chunked HTML body that never ends (until the client leaves or the server stops)."""

    def behave(conn: socket.socket, stopping: threading.Event) -> None:
        conn.sendall(f"{HTML_HEAD}Transfer-Encoding: chunked\r\n\r\n".encode())
        piece = b"<p>" + b"endless " * (chunk // 8) + b"</p>"
        frame = f"{len(piece):x}\r\n".encode() + piece + b"\r\n"
        while not stopping.wait(every):
            conn.sendall(frame)

    return behave


def sized_body(size: int, *, declare: bool = True) -> Behaviour:
    """An HTML page of ``size`` bytes, with or without a Content-Length (then chunked)."""

    def behave(conn: socket.socket, stopping: threading.Event) -> None:
        piece = b"<p>" + b"big page " * 7_000 + b"</p>\n"
        if declare:
            conn.sendall(f"{HTML_HEAD}Content-Length: {size}\r\n\r\n".encode())
        else:
            conn.sendall(f"{HTML_HEAD}Transfer-Encoding: chunked\r\n\r\n".encode())
        left = size
        while left > 0 and not stopping.is_set():
            data = piece[:left]
            left -= len(data)
            conn.sendall(data if declare else f"{len(data):x}\r\n".encode() + data + b"\r\n")
        if not declare:
            conn.sendall(b"0\r\n\r\n")
        with contextlib.suppress(OSError):
            conn.shutdown(socket.SHUT_WR)
        time.sleep(0.05)

    return behave


def huge_header(size: int) -> Behaviour:
    """A 200 answer with one header value of ``size`` bytes."""

    def behave(conn: socket.socket, stopping: threading.Event) -> None:
        body = b"<!doctype html><p>header</p>"
        conn.sendall(f"{HTML_HEAD}X-Filler: {'h' * size}\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body)
        with contextlib.suppress(OSError):
            conn.shutdown(socket.SHUT_WR)
        stopping.wait(0.05)

    return behave


class HostileServer(FixtureServer):
    """A :class:`FixtureServer` whose paths may run a :data:`Behaviour` instead of a canned route."""

    def __init__(self) -> None:
        super().__init__()
        self._behaviours: dict[str, Behaviour] = {}

    def behave(self, path: str, behaviour: Behaviour) -> None:
        """Run ``behaviour`` for requests to ``path`` (query ignored), replacing any route there."""
        with self._lock:
            self._behaviours[path] = behaviour

    def _handle(self, conn: socket.socket) -> None:
        with contextlib.suppress(OSError), conn:
            head = self._read_head(conn)
            if head is None:
                return
            request = self._record(head)
            with self._lock:
                behaviour = self._behaviours.get(request.path)
            if behaviour is not None:
                behaviour(conn, self._stopping)
                return
            with self._lock:
                route = self._routes.get(request.path, _NOT_FOUND)
            self._respond(conn, route)
