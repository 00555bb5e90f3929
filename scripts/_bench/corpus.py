"""Benchmark pages: the article-extraction-benchmark corpus, or generated articles.

The corpus (181 real news and blog pages with a human-written article body)
lives outside the repository, in ``../shared/corpora``; when it is missing the
benchmark falls back to generated pages whose article text is known exactly.
"""

from __future__ import annotations

import gzip
import json
import random
from dataclasses import dataclass
from pathlib import Path

__all__ = ["DEFAULT_CORPUS", "Page", "generated_pages", "load_corpus"]

DEFAULT_CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpora" / "article-extraction-benchmark"


@dataclass(frozen=True, slots=True)
class Page:
    """One benchmark page: its id, HTML bytes (UTF-8) and ground-truth article body."""

    id: str
    html: bytes
    truth: str


def load_corpus(folder: Path) -> list[Page]:
    """Every page of the corpus in ``folder`` that has a ground-truth entry, sorted by id."""
    truth = json.loads((folder / "ground-truth.json").read_text(encoding="utf-8"))
    pages = []
    for path in sorted((folder / "html").glob("*.html.gz")):
        page_id = path.name.removesuffix(".html.gz")
        if page_id in truth:
            pages.append(Page(page_id, gzip.decompress(path.read_bytes()), truth[page_id]["articleBody"]))
    return pages


_WORDS = (
    "harbour",
    "tide",
    "clock",
    "keeper",
    "almanac",
    "river",
    "pilot",
    "channel",
    "current",
    "vessel",
    "quay",
    "market",
    "town",
    "archive",
    "railway",
    "standard",
    "moon",
    "table",
    "water",
    "apprentice",
    "customs",
    "house",
    "observatory",
    "letter",
    "museum",
    "dial",
    "sea",
)


def _sentence(rng: random.Random) -> str:
    words = [rng.choice(_WORDS) for _ in range(rng.randint(8, 18))]
    return " ".join(words).capitalize() + "."


def generated_pages(count: int = 50, seed: int = 7) -> list[Page]:
    """``count`` article pages with navigation, sidebar and footer boilerplate around a known body."""
    rng = random.Random(seed)
    pages = []
    for number in range(count):
        paragraphs = [
            " ".join(_sentence(rng) for _ in range(rng.randint(3, 7))) for _ in range(rng.randint(4, 12))
        ]
        title = _sentence(rng).rstrip(".")
        related = "".join(f"<li><a href=/r/{i}>Related story {i}</a></li>" for i in range(8))
        nav = "".join(f'<a href="/section/{i}">Section {i}</a> ' for i in range(12))
        body = "".join(f"<p>{text}</p>" for text in paragraphs)
        html = (
            f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{title}</title>"
            f"<meta name='author' content='Bench Writer'></head><body><header><nav>{nav}</nav></header>"
            f"<main><article><h1>{title}</h1>{body}</article></main>"
            f"<aside><h3>Related</h3><ul>{related}</ul></aside>"
            f"<footer><p>Copyright Bench Gazette</p></footer></body></html>"
        )
        pages.append(Page(f"generated-{number:03d}", html.encode("utf-8"), "\n".join([title, *paragraphs])))
    return pages
