"""The ingest benchmark's loopback site: N static articles and M client-rendered pages, and a robots.txt.

Shared by ``scripts/bench_ingest.py`` (one machine) and the Ray path (call
:func:`serve_ingest_site` and feed :attr:`IngestSite.urls` to the actors).

* ``/s/<n>``: a static article of ~300 words (read over HTTP, no browser);
* ``/r/<n>``: an HTML shell with an empty app root; its script fetches
  ``/api/article.json`` and builds the article (``render="auto"`` escalates);
* ``/robots.txt``: ``Disallow: /private/`` (nothing in the input is disallowed,
  so every page is read, but the robots check runs as in a real batch).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from .server import Route, serve_routes

__all__ = ["IngestSite", "serve_ingest_site"]

_WORDS = [
    "harbour", "tide", "moon", "chart", "skipper", "sandbar", "crossing", "ferry", "weather", "lighthouse",
    "keeper", "island", "current", "anchor", "buoy", "channel", "season", "storm", "calm", "north", "south",
    "morning", "evening", "pilot",
]
_SCRIPT = b"""
fetch('/api/article.json').then(r => r.json()).then(d => {
  const root = document.getElementById('root');
  const article = document.createElement('article');
  const h1 = document.createElement('h1'); h1.textContent = d.title; article.appendChild(h1);
  for (const text of d.paragraphs) {
    const p = document.createElement('p'); p.textContent = text; article.appendChild(p);
  }
  root.replaceChildren(article);
});
"""
_SHELL = (b"<!doctype html><html><head><title>Tide tables</title></head>"
          b'<body><div id="root"></div><script src="/app.js"></script></body></html>')


def _paragraphs(seed: int, count: int = 5, words: int = 60) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choice(_WORDS) for _ in range(words)).capitalize() + "." for _ in range(count)]


def _static(n: int) -> bytes:
    body = "".join(f"<p>{text}</p>" for text in _paragraphs(n))
    return (f"<!doctype html><html><head><title>Article {n}</title></head><body><main><article>"
            f"<h1>Article {n}</h1>{body}</article></main></body></html>").encode()


@dataclass(frozen=True)
class IngestSite:
    """The running site: ``host_port`` for ``unsafe_allow_destinations`` and the URLs, static first."""

    host_port: str
    static: tuple[str, ...]
    rendered: tuple[str, ...]

    @property
    def urls(self) -> list[str]:
        """Static and rendered URLs interleaved evenly (the mix)."""
        if not self.rendered:
            return list(self.static)
        step = max(len(self.static) // len(self.rendered), 1)
        mixed: list[str] = []
        rendered = list(self.rendered)
        for index, url in enumerate(self.static):
            mixed.append(url)
            if index % step == step - 1 and rendered:
                mixed.append(rendered.pop(0))
        mixed.extend(rendered)
        return mixed


def _route(static: int, rendered: int) -> Route:
    article = json.dumps({"title": "Reading tide tables", "paragraphs": _paragraphs(-1, 8)}).encode()
    fixed = {
        "/robots.txt": ("text/plain", b"User-agent: *\nDisallow: /private/\n"),
        "/app.js": ("text/javascript", _SCRIPT),
        "/api/article.json": ("application/json", article),
    }

    def route(path: str) -> tuple[str, bytes] | None:
        found = fixed.get(path)
        kind, _, number = path[1:].partition("/")
        if found is None and number.isdigit():
            if kind == "s" and int(number) < static:
                found = ("text/html; charset=utf-8", _static(int(number)))
            elif kind == "r" and int(number) < rendered:
                found = ("text/html; charset=utf-8", _SHELL)
        return found

    return route


@contextmanager
def serve_ingest_site(static: int = 900, rendered: int = 100) -> Iterator[IngestSite]:
    """Serve ``static`` + ``rendered`` pages on 127.0.0.1 (ephemeral port) from a background thread."""
    with serve_routes(_route(static, rendered), name="bench-ingest-site", http11=True) as port:
        base = f"http://127.0.0.1:{port}"
        yield IngestSite(
            f"127.0.0.1:{port}",
            tuple(f"{base}/s/{n}" for n in range(static)),
            tuple(f"{base}/r/{n}" for n in range(rendered)),
        )
