"""A loopback HTTP server for benchmark pages (127.0.0.1, an ephemeral port).

One implementation for every benchmark site: :func:`serve_routes` answers each
GET from a route function (path -> content type and body, or ``None`` for 404);
:func:`serve` is the static case of a fixed page table.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

__all__ = ["Route", "serve", "serve_routes"]

Route = Callable[[str], "tuple[str, bytes] | None"]


def _handler(route: Route, *, http11: bool) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        # Headers and body go out in separate writes; with Nagle's algorithm on,
        # the client's delayed ACK would add ~40 ms to every response.
        disable_nagle_algorithm = True
        protocol_version = "HTTP/1.1" if http11 else "HTTP/1.0"

        def do_GET(self) -> None:
            found = route(urlsplit(self.path).path)
            if found is None:
                self.send_error(404)
                return
            content_type, body = found
            self.send_response(200)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    return Handler


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        # A client that timed out and hung up (a read past its deadline) is not news.
        pass


@contextmanager
def serve_routes(route: Route, *, name: str = "bench-server", http11: bool = False) -> Iterator[int]:
    """Serve ``route`` on 127.0.0.1 in a background thread; yield the port."""
    server = _Server(("127.0.0.1", 0), _handler(route, http11=http11))
    thread = threading.Thread(target=server.serve_forever, name=name, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@contextmanager
def serve(pages: Mapping[str, bytes]) -> Iterator[int]:
    """Serve ``pages`` (path -> HTML body) on 127.0.0.1 in a background thread; yield the port."""
    def route(path: str) -> tuple[str, bytes] | None:
        body = pages.get(path)
        return None if body is None else ("text/html; charset=utf-8", body)

    with serve_routes(route) as port:
        yield port
