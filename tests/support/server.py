"""A loopback HTTP fixture server that can also misbehave on purpose.

It listens on ``127.0.0.1`` (ephemeral port) in a background thread, one
thread per connection, so sync and async tests can use it alike. It speaks
just enough HTTP/1.1 (one request per connection, ``Connection: close``) over
raw sockets, which lets a route send broken or huge headers, trickle the body,
or lie about its length.

Reaching it from pagewarden needs an explicit allowance, exactly like any
private destination::

    def test_reads_article(fixture_server):
        fixture_server.add("/a", headers={"Content-Type": "text/html"}, body=b"<p>hi</p>")
        config = ReaderConfig(unsafe_allow_destinations=(fixture_server.host_port,))
        response = anyio.run(fetch, fixture_server.url("/a"), config)
        assert fixture_server.requests[-1].headers["accept"].startswith("text/html")

Routes match the request path without its query. Unknown paths get a 404.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

__all__ = ["FixtureServer", "RecordedRequest", "Route"]

_MAX_REQUEST_HEAD = 65_536
_REASONS = {
    200: "OK",
    204: "No Content",
    301: "Moved Permanently",
    302: "Found",
    303: "See Other",
    307: "Temporary Redirect",
    308: "Permanent Redirect",
    400: "Bad Request",
    403: "Forbidden",
    404: "Not Found",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
}


@dataclass(frozen=True)
class Route:
    """One canned response.

    ``raw`` replaces everything (status line, headers and body are sent as
    given). Otherwise ``body`` or ``chunks`` (sent one by one, sleeping
    ``delay_per_chunk`` before each) follow a status line and ``headers``; a
    ``Content-Length`` is added unless ``headers`` has one or ``chunks`` is set.
    ``delay_before`` stalls before anything at all is sent (a silent server).
    """

    status: int = 200
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes = b""
    chunks: tuple[bytes, ...] | None = None
    delay_per_chunk: float | None = None
    raw: bytes | None = None
    delay_before: float | None = None


@dataclass(frozen=True)
class RecordedRequest:
    """What the server received: request line parts and headers (names lowercased)."""

    method: str
    target: str
    path: str
    headers: dict[str, str] = field(default_factory=dict)
    raw: bytes = b""


class FixtureServer:
    """The loopback server. Use as a context manager or call :meth:`start` / :meth:`stop`."""

    def __init__(self) -> None:
        self._routes: dict[str, Route] = {}
        self._requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._listener: socket.socket | None = None
        self._threads: list[threading.Thread] = []
        self.port = 0

    # -- public API --------------------------------------------------------------
    @property
    def host_port(self) -> str:
        """``127.0.0.1:<port>``, the form ``unsafe_allow_destinations`` takes."""
        return f"127.0.0.1:{self.port}"

    def url(self, path: str = "/") -> str:
        """The absolute URL of ``path`` on this server."""
        return f"http://127.0.0.1:{self.port}{path}"

    def add(
        self,
        path: str,
        status: int = 200,
        headers: Mapping[str, str] | Sequence[tuple[str, str]] | None = None,
        body: bytes = b"",
        chunks: Sequence[bytes] | None = None,
        delay_per_chunk: float | None = None,
        raw: bytes | None = None,
        delay_before: float | None = None,
    ) -> None:
        """Serve a canned response at ``path`` (replacing any earlier one); see :class:`Route`."""
        pairs = tuple(headers.items()) if isinstance(headers, Mapping) else tuple(headers or ())
        route = Route(
            status, pairs, body, tuple(chunks) if chunks is not None else None, delay_per_chunk, raw, delay_before
        )
        with self._lock:
            self._routes[path] = route

    def redirect(self, path: str, location: str, status: int = 302) -> None:
        """Serve a redirect from ``path`` to ``location``."""
        self.add(path, status=status, headers={"Location": location, "Content-Type": "text/html"})

    @property
    def requests(self) -> list[RecordedRequest]:
        """A copy of the request log, oldest first."""
        with self._lock:
            return list(self._requests)

    @property
    def paths(self) -> list[str]:
        """The request targets seen, oldest first (query included, as received)."""
        return [request.target for request in self.requests]

    def start(self) -> FixtureServer:
        """Bind, listen and serve in a background thread."""
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen(64)
        listener.settimeout(0.05)
        self._listener = listener
        self.port = listener.getsockname()[1]
        thread = threading.Thread(target=self._serve, name=f"fixture-server-{self.port}", daemon=True)
        thread.start()
        self._threads.append(thread)
        return self

    def stop(self) -> None:
        """Stop accepting, close the listener and wait briefly for handlers."""
        self._stopping.set()
        deadline = time.monotonic() + 3.0
        for thread in list(self._threads):
            thread.join(timeout=max(0.0, deadline - time.monotonic()))
        if self._listener is not None:
            self._listener.close()

    def __enter__(self) -> FixtureServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- serving -----------------------------------------------------------------
    def _serve(self) -> None:
        assert self._listener is not None
        while not self._stopping.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            handler = threading.Thread(target=self._handle, args=(conn,), daemon=True)
            handler.start()
            self._threads.append(handler)

    def _read_head(self, conn: socket.socket) -> bytes | None:
        data = b""
        conn.settimeout(5.0)
        while b"\r\n\r\n" not in data and len(data) < _MAX_REQUEST_HEAD:
            chunk = conn.recv(4096)
            if not chunk:
                return None
            data += chunk
        return data

    def _handle(self, conn: socket.socket) -> None:
        with contextlib.suppress(OSError), conn:
            head = self._read_head(conn)
            if head is None:
                return
            request = self._record(head)
            with self._lock:
                route = self._routes.get(request.path, Route(404, (("Content-Type", "text/plain"),), b"not found"))
            self._respond(conn, route)

    def _record(self, head: bytes) -> RecordedRequest:
        text = head.split(b"\r\n\r\n", 1)[0].decode("latin-1")
        request_line, *lines = text.split("\r\n")
        method, target, *_ = [*request_line.split(" "), "", ""]
        headers: dict[str, str] = {}
        for line in lines:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        request = RecordedRequest(method, target, target.split("?", 1)[0], headers, head)
        with self._lock:
            self._requests.append(request)
        return request

    def _respond(self, conn: socket.socket, route: Route) -> None:
        if route.delay_before and self._stopping.wait(route.delay_before):
            return
        if route.raw is not None:
            conn.sendall(route.raw)
            return
        names = {name.lower() for name, _ in route.headers}
        lines = [f"HTTP/1.1 {route.status} {_REASONS.get(route.status, 'Status')}"]
        lines += [f"{name}: {value}" for name, value in route.headers]
        if "content-length" not in names and route.chunks is None:
            lines.append(f"Content-Length: {len(route.body)}")
        lines.append("Connection: close")
        conn.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        for chunk in route.chunks if route.chunks is not None else (route.body,):
            if route.delay_per_chunk and self._stopping.wait(route.delay_per_chunk):
                return
            conn.sendall(chunk)
        # Give the client time to read before the close resets anything unread.
        with contextlib.suppress(OSError):
            conn.shutdown(socket.SHUT_WR)
        time.sleep(0.01)
