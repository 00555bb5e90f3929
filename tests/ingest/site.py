"""A loopback "site" for ingest tests: many small pages, some failing, a robots.txt.

Layout on a :class:`tests.support.server.FixtureServer`:

* ``/page/<n>``: a readable static article (n = 0..pages-1).
* ``/private/<n>``: readable, but disallowed by robots.txt.
* ``/missing/<n>``: not served (404, ``UPSTREAM_HTTP``).
* ``/broken/<n>``: HTTP 500 (``UPSTREAM_HTTP``).
* ``/robots.txt``: ``Disallow: /private/`` for every agent.
"""

from __future__ import annotations

from dataclasses import dataclass

from tests.support.server import FixtureServer

__all__ = ["ROBOTS", "Site", "article", "build_site"]

ROBOTS = b"User-agent: *\nDisallow: /private/\n"
_HTML = {"Content-Type": "text/html; charset=utf-8"}


def article(n: int) -> bytes:
    """A small but readable static page numbered ``n``."""
    sentences = " ".join(
        f"Paragraph {i} of article {n} explains how the lighthouse keeper logs the weather every hour."
        for i in range(4)
    )
    return (
        f"<!doctype html><html><head><title>Article {n}</title></head><body><main><article>"
        f"<h1>Article {n}</h1><p>{sentences}</p><p>{sentences}</p></article></main></body></html>"
    ).encode()


@dataclass
class Site:
    """The URLs served, by kind."""

    pages: list[str]
    private: list[str]
    missing: list[str]
    broken: list[str]

    @property
    def all(self) -> list[str]:
        """Every URL, interleaved so failures are spread through the batch."""
        urls: list[str] = []
        groups = [self.pages, self.private, self.missing, self.broken]
        longest = max(len(group) for group in groups)
        for i in range(longest):
            urls.extend(group[i] for group in groups if i < len(group))
        return urls


def build_site(
    server: FixtureServer, pages: int, *, private: int = 0, missing: int = 0, broken: int = 0,
    host: str | None = None, robots: bytes | None = ROBOTS,
) -> Site:
    """Register the routes on ``server``; URLs use ``host`` (mapped by a resolver) or 127.0.0.1."""
    base = f"http://{host}:{server.port}" if host else f"http://127.0.0.1:{server.port}"
    for n in range(pages):
        server.add(f"/page/{n}", headers=_HTML, body=article(n))
    for n in range(private):
        server.add(f"/private/{n}", headers=_HTML, body=article(n))
    for n in range(broken):
        server.add(f"/broken/{n}", status=500, headers={"Content-Type": "text/plain"}, body=b"oops")
    if robots is not None:
        server.add("/robots.txt", headers={"Content-Type": "text/plain"}, body=robots)
    return Site(
        pages=[f"{base}/page/{n}" for n in range(pages)],
        private=[f"{base}/private/{n}" for n in range(private)],
        missing=[f"{base}/missing/{n}" for n in range(missing)],
        broken=[f"{base}/broken/{n}" for n in range(broken)],
    )
