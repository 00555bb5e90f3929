"""The loopback site of the render benchmark: a client-rendered article of about 2,000 words.

The page is an HTML shell with an empty ``#root`` and a script; the script
fetches the article as JSON from the same origin and builds the DOM (title,
byline, headed sections of paragraphs). Every side of the benchmark reads the
same URLs, each with its own query string so no cache can answer a read from
an earlier one. The content check (:data:`MARKER`, the last paragraph's last
words) tells a complete render from one that stopped early.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from contextlib import contextmanager

from .server import serve_routes

__all__ = ["MARKER", "WORDS", "article", "serve_site", "shell"]

WORDS = 2_000
MARKER = "end of the rendered article"
_SEED = 4
_VOCABULARY = [
    "browser",
    "render",
    "context",
    "proxy",
    "policy",
    "guard",
    "article",
    "reader",
    "signal",
    "window",
    "latency",
    "pool",
    "queue",
    "network",
    "content",
    "visible",
    "hidden",
    "element",
    "paragraph",
    "section",
    "script",
    "fetch",
    "origin",
    "layout",
    "style",
    "budget",
    "request",
    "isolated",
    "world",
    "snapshot",
    "settle",
    "quiet",
    "mutation",
    "observer",
    "chromium",
    "process",
    "memory",
    "throughput",
    "careful",
    "engineer",
    "measure",
    "report",
    "figure",
    "machine",
    "page",
    "document",
    "server",
    "client",
    "loopback",
    "extract",
    "markdown",
    "text",
]


def article(words: int = WORDS) -> dict[str, object]:
    """The article JSON: a title, a byline and sections of paragraphs, ``words`` words of body in all."""
    rng = random.Random(_SEED)
    sections: list[dict[str, object]] = []
    paragraphs: list[str] = []
    left = words - len(MARKER.split())
    while left > 0:
        paragraphs = []
        for _ in range(4):
            count = min(left, rng.randint(45, 70))
            if count <= 0:
                break
            sentence = " ".join(rng.choice(_VOCABULARY) for _ in range(count))
            paragraphs.append(sentence.capitalize() + ".")
            left -= count
        sections.append({"heading": f"Section {len(sections) + 1}", "paragraphs": paragraphs})
    # ``paragraphs`` is the last section's list: the marker closes the article.
    paragraphs.append(f"This is the {MARKER}.")
    return {"title": "A client-rendered article", "byline": "By the benchmark", "sections": sections}


def shell() -> bytes:
    """The HTML shell: an empty app root and the script that fetches and renders the article."""
    script = """
fetch('/api/article.json' + location.search).then(r => r.json()).then(data => {
  const root = document.getElementById('root');
  const main = document.createElement('article');
  const h1 = document.createElement('h1'); h1.textContent = data.title; main.appendChild(h1);
  const by = document.createElement('p'); by.className = 'byline'; by.textContent = data.byline;
  main.appendChild(by);
  for (const section of data.sections) {
    const h2 = document.createElement('h2'); h2.textContent = section.heading; main.appendChild(h2);
    for (const text of section.paragraphs) {
      const p = document.createElement('p'); p.textContent = text; main.appendChild(p);
    }
  }
  root.appendChild(main);
});
"""
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8><title>A client-rendered article</title>"
        "<link rel=stylesheet href=/static/app.css></head><body><div id=root></div>"
        f"<noscript>Please enable JavaScript to read this article.</noscript><script>{script}</script>"
        "</body></html>"
    ).encode()


_CSS = b"body { font: 16px/1.5 sans-serif; max-width: 42em; margin: 2em auto; } .byline { color: #555; }"


def _routes() -> dict[str, tuple[str, bytes]]:
    return {
        "/article": ("text/html; charset=utf-8", shell()),
        "/api/article.json": ("application/json", json.dumps(article()).encode()),
        "/static/app.css": ("text/css", _CSS),
    }


@contextmanager
def serve_site() -> Iterator[int]:
    """Serve the site on 127.0.0.1 (ephemeral port) from a background thread; yield the port."""
    routes = _routes()
    with serve_routes(routes.get, name="bench-render-site", http11=True) as port:
        yield port
