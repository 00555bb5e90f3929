"""Loopback fixture sites for crawl tests, served by a small dynamic HTTP server.

* :func:`docs_site`: a static documentation site of 320 topic pages in 10
  sections with nav links, a sitemap index (one plain sitemap, one gzip),
  pages disallowed by robots.txt, a ``Crawl-delay``, ``#anchor`` links,
  ``index.html`` and trailing-slash variants and tracking parameters.
* :func:`trap_site`: an endless calendar, session ids in URLs, an
  ever-growing query, a redirect loop, a redirect to another host, links to
  ``127.0.0.1:<other port>``, to another host and to a private address.
* :func:`hash_app` / :func:`push_state_app`: single-page apps whose links
  exist only after their script ran (hash routes; ``pushState`` paths).

Names (``docs.test``, ``other.test``) map to 127.0.0.1 through a
:class:`~pagewarden.testing.StaticResolver`; the server answers any Host.
"""

from __future__ import annotations

import gzip
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["HTML", "SiteServer", "docs_site", "hash_app", "push_state_app", "trap_site"]

HTML = "text/html; charset=utf-8"
Response = tuple[int, dict[str, str], bytes]
Router = Callable[[str, str], Response]


@dataclass
class SiteServer:
    """A threaded loopback server answering through ``router(host, path_with_query)``; logs every request."""

    router: Router
    requests: list[tuple[str, str]] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        """The listening port."""
        if self._server is None:
            raise RuntimeError("not started")
        return int(self._server.server_address[1])

    def start(self) -> SiteServer:
        """Listen on 127.0.0.1 (ephemeral port) in a daemon thread."""
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                host = (self.headers.get("Host") or "").rsplit(":", 1)[0]
                site.requests.append((host, self.path))
                site.times.append(time.monotonic())
                status, headers, body = site.router(host, self.path)
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                return

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def paths(self, host: str | None = None) -> list[str]:
        """Paths requested (on ``host`` when given), in order, duplicates kept."""
        return [path for name, path in self.requests if host is None or name == host]


def page(title: str, links: list[str], *, extra: str = "") -> bytes:
    """A readable page with nav links around its article."""
    nav = "".join(f'<li><a href="{href}">{href}</a></li>' for href in links)
    body = " ".join(f"{title} explains step {i} of the guide in plain words for every reader." for i in range(6))
    return (f"<!doctype html><html><head><title>{title}</title>{extra}</head><body><nav><ul>{nav}</ul></nav>"
            f"<main><article><h1>{title}</h1><p>{body}</p><p>{body}</p></article></main>"
            f'<footer><a href="#top">top</a></footer></body></html>').encode()


def _ok(body: bytes, content_type: str = HTML) -> Response:
    return 200, {"Content-Type": content_type}, body


NOT_FOUND: Response = (404, {"Content-Type": "text/plain"}, b"not found")
SECTIONS = 10
TOPICS = 32
PRIVATE = 4
SITEMAP_ONLY = 5


def docs_site(host: str = "docs.test", crawl_delay: float | None = None) -> tuple[Router, set[str]]:
    """The documentation site's router and the set of paths a crawl must read (see the module docstring).

    Section ``s3``'s last topics are linked from nowhere but the gzip
    sitemap; ``/docs/s9/private-*`` is disallowed by robots.txt.
    """
    expected = {"/"}
    for s in range(SECTIONS):
        expected.add(f"/docs/s{s}/")
        expected.update(f"/docs/s{s}/topic-{t}" for t in range(TOPICS))
    expected.update(f"/docs/s3/orphan-{n}" for n in range(SITEMAP_ONLY))

    def router(_host: str, path: str) -> Response:
        bare = path.split("?", 1)[0]
        if bare == "/robots.txt":
            delay = f"Crawl-delay: {crawl_delay}\n" if crawl_delay is not None else ""
            return _ok(f"User-agent: *\nDisallow: /docs/s9/private-\n{delay}Sitemap: /sitemap.xml\n".encode(),
                       "text/plain")
        if bare == "/sitemap.xml":
            return _ok(b'<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
                       b"<sitemap><loc>/sitemap-a.xml</loc></sitemap><sitemap><loc>/sitemap-b.xml.gz</loc>"
                       b"</sitemap></sitemapindex>", "application/xml")
        if bare == "/sitemap-a.xml":
            locs = "".join(f"<url><loc>/docs/s{s}/topic-0</loc></url>" for s in range(SECTIONS))
            return _ok(f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{locs}</urlset>'.encode(),
                       "application/xml")
        if bare == "/sitemap-b.xml.gz":
            locs = "".join(f"<url><loc>/docs/s3/orphan-{n}</loc></url>" for n in range(SITEMAP_ONLY))
            xml = f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{locs}</urlset>'.encode()
            return _ok(gzip.compress(xml), "application/gzip")
        if bare == "/":
            links = [f"/docs/s{s}/" for s in range(SECTIONS)] + ["/index.html", "/?utm_source=x"]
            return _ok(page("Home", links))
        if bare == "/index.html":
            return _ok(page("Home", []))
        parts = bare.strip("/").split("/")
        if len(parts) >= 2 and parts[0] == "docs" and parts[1].startswith("s") and parts[1][1:].isdigit():
            s = int(parts[1][1:])
            if s >= SECTIONS:
                return NOT_FOUND
            if len(parts) == 2:
                links = [f"/docs/s{s}/topic-{t}" for t in range(TOPICS)] + ["/"]
                if s == 9:
                    links += [f"/docs/s9/private-{n}" for n in range(PRIVATE)]
                return _ok(page(f"Section {s}", links))
            name = parts[2]
            if name.startswith("topic-") and name[6:].isdigit() and int(name[6:]) < TOPICS:
                t = int(name[6:])
                links = [f"/docs/s{s}/", f"/docs/s{s}/topic-{(t + 1) % TOPICS}", f"/docs/s{s}/topic-{t}#intro",
                         f"/docs/s{s}/index.html", "../../"]
                return _ok(page(f"Topic {s}.{t}", links))
            if name.startswith("orphan-") or name.startswith("private-"):
                return _ok(page(f"Page {name}", ["/"]))
        return NOT_FOUND

    return router, expected


def trap_site(other_port: int) -> Router:
    """The trap site: calendar, session ids, growing query, redirect loop and off-site links."""

    def router(_host: str, path: str) -> Response:
        bare, _, query = path.partition("?")
        if _host != "docs.test":
            return _ok(page("Elsewhere", []))
        if bare == "/robots.txt":
            return NOT_FOUND
        if bare == "/":
            links = ["/calendar/2030/1", "/account?sid=abc123", "/search?q=a", "/loop/a", "/moved",
                     f"http://127.0.0.1:{other_port}/", "http://other.test/", "http://10.1.2.3/admin",
                     "http://[::1]/", "/news;jsessionid=XYZ"]
            return _ok(page("Trap home", links))
        if bare.startswith("/calendar/"):
            year, month = (int(part) for part in bare.split("/")[2:4])
            nxt = (year + (month == 12), month % 12 + 1)
            return _ok(page(f"Calendar {year}-{month}", [f"/calendar/{nxt[0]}/{nxt[1]}"]))
        if bare == "/account":
            session = query.partition("=")[2]
            return _ok(page("Account", [f"/account?sid={session}x", "/"]))
        if bare == "/search":
            return _ok(page("Search", [f"/search?{query}&q=a"]))
        if bare == "/loop/a":
            return 302, {"Location": "/loop/b", "Content-Type": "text/plain"}, b""
        if bare == "/loop/b":
            return 302, {"Location": "/loop/a", "Content-Type": "text/plain"}, b""
        if bare == "/moved":
            return 302, {"Location": "http://other.test/landing", "Content-Type": "text/plain"}, b""
        if bare == "/news":
            return _ok(page("News", []))
        return NOT_FOUND

    return router


_APP_SCRIPT = """
const routes = {ROUTES};
function draw() {{
  const route = location.{WHERE} || '/';
  const nav = routes.map(r => '<li><a href="{PREFIX}' + r + '">' + r + '</a></li>').join('');
  const text = ('The page ' + route + ' explains a part of the guide in plain words for every reader. ').repeat(12);
  document.getElementById('root').innerHTML = '<nav><ul>' + nav + '</ul></nav><main><article><h1>Guide '
    + route + '</h1><p>' + text + '</p></article></main>';
}}
draw();
window.addEventListener('hashchange', draw);
"""


def _app(where: str, prefix: str, routes: list[str]) -> Router:
    script = _APP_SCRIPT.format(ROUTES=repr(routes), WHERE=where, PREFIX=prefix).encode()
    shell = (b"<!doctype html><html><head><title>App</title></head><body><div id=\"root\"></div>"
             b"<noscript>Please enable JavaScript to use this app.</noscript>"
             b'<script src="/app.js"></script></body></html>')

    def router(_host: str, path: str) -> Response:
        bare = path.split("?", 1)[0]
        if bare == "/robots.txt" or bare.startswith("/sitemap"):
            return NOT_FOUND
        if bare == "/app.js":
            return _ok(script, "text/javascript")
        if bare == "/" or bare.startswith("/guide/"):
            return _ok(shell)
        return NOT_FOUND

    return router


HASH_ROUTES = ["/", "/guide/install", "/guide/usage", "/guide/faq"]
PUSH_ROUTES = ["/guide/install", "/guide/usage", "/guide/faq"]


def hash_app(routes: list[str] | None = None) -> Router:
    """A hash-routed app: its links (``#/guide/...``) exist only after its script ran."""
    return _app("hash.slice(1)", "#", HASH_ROUTES if routes is None else routes)


def push_state_app() -> Router:
    """A ``pushState``-style app: real paths, every one served the same shell, links drawn by script."""
    return _app("pathname", "", PUSH_ROUTES)
