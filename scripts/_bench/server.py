"""A loopback HTTP server for benchmark pages (127.0.0.1, an ephemeral port)."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

__all__ = ["serve"]


def _handler(pages: Mapping[str, bytes]) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        # Headers and body go out in separate writes; with Nagle's algorithm on,
        # the client's delayed ACK would add ~40 ms to every response.
        disable_nagle_algorithm = True

        def do_GET(self) -> None:
            body = pages.get(self.path)
            if body is None:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    return Handler


@contextmanager
def serve(pages: Mapping[str, bytes]) -> Iterator[int]:
    """Serve ``pages`` (path -> body) on 127.0.0.1 in a background thread; yield the port."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(pages))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="bench-server", daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
