"""False positives on real benign pages (skipped when the shared corpus is absent)."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from pagewarden._guard import guard_html
from pagewarden._html import parse_html

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpora" / "article-extraction-benchmark" / "html"


@pytest.mark.skipif(not CORPUS.is_dir(), reason="article-extraction-benchmark corpus not present")
def test_article_benchmark_pages_are_not_withheld() -> None:
    """None of the 181 benign news/blog pages is withheld (require_approval or deny)."""
    pages = sorted(CORPUS.glob("*.html.gz"))
    assert pages
    withheld = []
    for page in pages:
        html = gzip.decompress(page.read_bytes()).decode("utf-8", "replace")
        report = guard_html(parse_html(html))
        if report.decision.withholds:
            withheld.append((page.name[:16], [f.reason for f in report.findings]))
    assert withheld == []
