"""Fakes for the search tests: a scripted search provider and a loopback server that measures concurrency.

``FakeProvider`` answers from a fixed list of hits (or raises, or stalls) and
counts its calls; it never touches the network. ``ConcurrencyServer`` is a
threaded loopback HTTP server whose every response is slowed down by
``delay`` seconds; it records, per ``Host`` name, how many requests were
being served at the same time, so per-host limits can be measured through an
injected resolver mapping several names to 127.0.0.1.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import anyio

from pagewarden._search.types import RawHit, SearchQuery

__all__ = ["ConcurrencyServer", "FakeProvider", "concurrency_server"]


@dataclass
class FakeProvider:
    """A :class:`SearchProvider` answering ``hits`` (url, title, snippet) after ``delay`` s, or raising ``error``."""

    hits: Sequence[tuple[str, str, str]] = ()
    name: str = "fake"
    delay: float = 0.0
    error: Exception | None = None
    calls: list[SearchQuery] = field(default_factory=list)

    async def search(self, query: SearchQuery, *, deadline: float) -> Sequence[RawHit]:
        """Record the query, wait ``delay``, then answer or raise."""
        self.calls.append(query)
        if self.delay:
            await anyio.sleep(self.delay)
        if self.error is not None:
            raise self.error
        return [RawHit(url=url, title=title, snippet=snippet) for url, title, snippet in self.hits]


class ConcurrencyServer:
    """A loopback HTTP server recording concurrent requests per Host name.

    ``pages`` maps a path to ``(status, content type, body)``; ``delays`` maps
    a path to its own delay (default ``delay``). Unknown paths get a 404.
    """

    def __init__(self, pages: Mapping[str, tuple[int, str, bytes]], *, delay: float = 0.2,
                 delays: Mapping[str, float] | None = None) -> None:
        self.pages = dict(pages)
        self.delay = delay
        self.delays = dict(delays or {})
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)
        self._active: dict[str, int] = {}
        self.max_active: dict[str, int] = {}
        self.max_total = 0
        self._total = 0
        self.requests: list[tuple[str, str]] = []
        self._stopping = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                host = self.headers.get("Host", "").split(":")[0].lower()
                server._enter(host, self.path)
                try:
                    server._stopping.wait(server.delays.get(self.path, server.delay))
                finally:
                    server._leave(host)
                status, content_type, body = server.pages.get(self.path, (404, "text/plain", b"not found"))
                with contextlib.suppress(OSError):
                    self.send_response(status)
                    self.send_header("Content-Type", content_type)
                    self.send_header("Content-Length", str(len(body)))
                    self.send_header("Connection", "close")
                    self.end_headers()
                    self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                """Stay quiet."""

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)

    @property
    def host_port(self) -> str:
        """``127.0.0.1:<port>``, for ``unsafe_allow_destinations``."""
        return f"127.0.0.1:{self.port}"

    def url(self, host: str, path: str) -> str:
        """The URL of ``path`` on this server under the name ``host``."""
        return f"http://{host}:{self.port}{path}"

    def _enter(self, host: str, path: str) -> None:
        with self._lock:
            self.requests.append((host, path))
            self._arrived.notify_all()
            self._active[host] = self._active.get(host, 0) + 1
            self.max_active[host] = max(self.max_active.get(host, 0), self._active[host])
            self._total += 1
            self.max_total = max(self.max_total, self._total)

    def _leave(self, host: str) -> None:
        with self._lock:
            self._active[host] -= 1
            self._total -= 1

    def wait_for_requests(self, count: int, timeout: float = 5.0) -> bool:
        """Block until ``count`` requests arrived (or ``timeout``); whether they did."""
        with self._arrived:
            return self._arrived.wait_for(lambda: len(self.requests) >= count, timeout)

    def start(self) -> ConcurrencyServer:
        """Serve in a background thread."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Release stalled handlers and stop serving."""
        self._stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=3.0)


@contextlib.contextmanager
def concurrency_server(pages: Mapping[str, tuple[int, str, bytes]], *, delay: float = 0.2,
                       delays: Mapping[str, float] | None = None) -> Iterator[ConcurrencyServer]:
    """A started :class:`ConcurrencyServer`, stopped afterwards."""
    server = ConcurrencyServer(pages, delay=delay, delays=delays).start()
    try:
        yield server
    finally:
        server.stop()


def elapsed(started: float) -> float:
    """Seconds since ``started`` (a ``time.perf_counter()`` value)."""
    return time.perf_counter() - started
