"""Crawling a site from one start URL: frontier, canonical form, scope, traps, sitemaps, resume.

Reuses :mod:`pagewarden._ingest` for records, robots.txt, per-host politeness
and progress. The ``crawl`` and ``map`` commands and crawl reads on Ray are in
:mod:`pagewarden._apps`. See docs/crawl.md.
"""

from .canon import Canonical, canonicalize
from .crawler import Crawler, CrawlOptions, CrawlStats, Outcome, local_read
from .frontier import Frontier, QueuedPage, journal_path
from .scope import SCOPES, Scope, TrapLimits, trap_reason, url_shape
from .sitemaps import SitemapLimits, parse_sitemap, read_sitemaps

__all__ = [
    "SCOPES",
    "Canonical",
    "CrawlOptions",
    "CrawlStats",
    "Crawler",
    "Frontier",
    "Outcome",
    "QueuedPage",
    "Scope",
    "SitemapLimits",
    "TrapLimits",
    "canonicalize",
    "journal_path",
    "local_read",
    "parse_sitemap",
    "read_sitemaps",
    "trap_reason",
    "url_shape",
]
