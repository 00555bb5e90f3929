"""Vectors for the crawl's rules: canonical form, scope, include/exclude, trap limits, page links, robots lines."""

from __future__ import annotations

import gzip
from collections import Counter
from functools import partial

import lxml.html
import pytest

from pagewarden import ReaderConfig
from pagewarden._crawl.canon import canonicalize
from pagewarden._crawl.scope import Scope, TrapLimits, trap_reason, url_shape
from pagewarden._crawl.sitemaps import parse_sitemap
from pagewarden._extract.outlinks import page_links
from pagewarden._ingest.robots import parse_robots
from pagewarden._net import check_link

CANONICAL = [
    # (url, fetch URL, dedup key, session id removed)
    ("http://a.test/docs/", "http://a.test/docs/", "//a.test/docs", False),
    ("http://a.test/docs", "http://a.test/docs", "//a.test/docs", False),
    ("http://a.test/docs/index.html", "http://a.test/docs/index.html", "//a.test/docs", False),
    ("http://a.test/", "http://a.test/", "//a.test/", False),
    ("http://a.test/index.php", "http://a.test/index.php", "//a.test/", False),
    ("http://a.test/a#install", "http://a.test/a", "//a.test/a", False),
    ("http://a.test/#/guide/intro", "http://a.test/#/guide/intro", "//a.test/#/guide/intro", False),
    ("http://a.test/#!/guide", "http://a.test/#!/guide", "//a.test/#!/guide", False),
    ("http://a.test/app/#/", "http://a.test/app/", "//a.test/app", False),
    ("http://a.test/p?utm_source=x&id=3&fbclid=y", "http://a.test/p?id=3", "//a.test/p?id=3", False),
    ("http://a.test/p?b=1&a=2", "http://a.test/p?b=1&a=2", "//a.test/p?a=2&b=1", False),
    ("http://a.test/p?sid=abc&x=1", "http://a.test/p?x=1", "//a.test/p?x=1", True),
    ("http://a.test/p?PHPSESSID=abc", "http://a.test/p", "//a.test/p", True),
    ("http://a.test/news;jsessionid=XYZ", "http://a.test/news", "//a.test/news", True),
    ("http://a.test/p?gclid=1&MC_CID=2&_ga=3", "http://a.test/p", "//a.test/p", False),
    ("http://a.test/p?page=2", "http://a.test/p?page=2", "//a.test/p?page=2", False),
    ("https://a.test/p?page=2", "https://a.test/p?page=2", "//a.test/p?page=2", False),
    ("http://a.test:8080/p", "http://a.test:8080/p", "//a.test:8080/p", False),
]


@pytest.mark.parametrize(("url", "fetch", "key", "session"), CANONICAL)
def test_canonical_form(url: str, fetch: str, key: str, session: bool) -> None:
    """Each URL has the fetch URL, dedup key and session flag of the canonical-form table."""
    canonical = canonicalize(url)
    assert (canonical.url, canonical.key, canonical.session_id) == (fetch, key, session)


SCOPE = [
    # (kind, start, candidate, reason or None)
    ("site", "http://docs.example.com/", "http://example.com/about", None),
    ("site", "http://docs.example.com/", "http://api.example.com/x", None),
    ("site", "http://docs.example.com/", "http://example.org/", "out_of_scope"),
    ("site", "http://docs.example.co.uk/", "http://shop.example.co.uk/", None),
    ("site", "http://docs.example.co.uk/", "http://other.co.uk/", "out_of_scope"),
    ("site", "http://www.docs.test/", "http://api.docs.test/", None),
    ("site", "http://docs.test/", "http://docs.test:8080/", "out_of_scope"),
    ("site", "http://127.0.0.1:9000/", "http://127.0.0.1:9001/", "out_of_scope"),
    ("site", "http://127.0.0.1:9000/", "http://127.0.0.1:9000/a", None),
    ("host", "http://docs.example.com/", "http://example.com/", "out_of_scope"),
    ("host", "http://docs.example.com/", "https://docs.example.com/x", None),
    ("host", "https://docs.example.com/", "http://docs.example.com:80/x", None),
    ("host", "http://docs.example.com/", "https://docs.example.com:80/", "out_of_scope"),
    ("host", "http://docs.example.com:8080/", "http://docs.example.com/", "out_of_scope"),
    ("prefix", "http://a.test/docs/guide/intro", "http://a.test/docs/guide/usage", None),
    ("prefix", "http://a.test/docs/guide/intro", "http://a.test/docs/api", "out_of_scope"),
    ("prefix", "http://a.test/docs/guide/", "http://a.test/docs/guide/x/y", None),
]


@pytest.mark.parametrize(("kind", "start", "url", "reason"), SCOPE)
def test_scope(kind: str, start: str, url: str, reason: str | None) -> None:
    """Each candidate URL is in or out of the start URL's scope as the table says."""
    assert Scope.from_start(start, kind).reason(url) == reason


GLOBS = [
    # (include, exclude, url, reason or None)
    (("/blog/*",), (), "http://a.test/blog/x", None),
    (("/blog/*",), (), "http://a.test/docs/x", "not_included"),
    ((), ("/blog/old/*",), "http://a.test/blog/old/1", "excluded"),
    ((), ("*?print=*",), "http://a.test/p?print=1", "excluded"),
    ((), ("http://a.test/tmp*",), "http://a.test/tmp/x", "excluded"),
    (("/docs/*",), ("/docs/v1/*",), "http://a.test/docs/v1/a", "excluded"),
]


@pytest.mark.parametrize(("include", "exclude", "url", "reason"), GLOBS)
def test_include_exclude(include: tuple[str, ...], exclude: tuple[str, ...], url: str, reason: str | None) -> None:
    """include and exclude globs match the path and query (or the whole URL when the glob has a scheme)."""
    assert Scope.from_start("http://a.test/", "site", include, exclude).reason(url) == reason


TRAPS = [
    # (url, reason or None)
    ("http://a.test/docs/intro", None),
    ("http://a.test/" + "x" * 1_100, "url_too_long"),
    ("http://a.test/s?q=" + "a" * 300, "query_too_long"),
    ("http://a.test/s?" + "&".join(f"p{n}=1" for n in range(13)), "too_many_query_params"),
    ("http://a.test/s?q=a&q=a", "repeated_query_param"),
    ("http://a.test/" + "/".join(f"d{n}" for n in range(17)), "too_many_path_segments"),
    ("http://a.test/a/b/a/b/a/b", "repeated_path_segment"),
    ("http://a.test/#/a/b/a/b/a", "repeated_path_segment"),
]


@pytest.mark.parametrize(("url", "reason"), TRAPS)
def test_trap_limits(url: str, reason: str | None) -> None:
    """Each URL is refused with its named trap reason, or accepted."""
    assert trap_reason(url, TrapLimits(), Counter()) == reason


def test_shape_limit_stops_a_calendar() -> None:
    """Pages of one shape (a calendar's months) stop at max_pages_per_shape; another shape is unaffected."""
    shapes: Counter[str] = Counter()
    limits = TrapLimits(max_pages_per_shape=3)
    months = [trap_reason(f"http://a.test/cal/2030/{m}", limits, shapes) for m in range(1, 6)]
    assert months == [None, None, None, "shape_limit", "shape_limit"]
    assert trap_reason("http://a.test/docs/intro", limits, shapes) is None
    assert url_shape("http://a.test/cal/2030/5?page=2&b=1") == "a.test/cal/N/N?b&page#"


HTML_LINKS = [
    # (href, listed as)
    ("/docs/a", "http://a.test/docs/a"),
    ("b", "http://a.test/dir/b"),
    ("#install", None),
    ("#/guide/intro", "http://a.test/dir/page#/guide/intro"),
    ("#!/guide", "http://a.test/dir/page#!/guide"),
    ("/c#section", "http://a.test/c"),
    ("mailto:x@a.test", None),
    ("javascript:alert(1)", None),
    ("http://10.0.0.1/admin", None),
    ("http://localhost/", None),
    ("http://[::1]/", None),
]


def test_page_links_table() -> None:
    """Whole-page links: resolved, fragment routes kept, anchors dropped, policy refusals counted (http only)."""
    anchors = "".join(f'<a href="{href}">x</a>' for href, _ in HTML_LINKS)
    tree = lxml.html.fromstring(f'<html><head><link rel="Canonical" href="/canon"></head><body><nav>{anchors}'
                                f"</nav></body></html>")
    config = ReaderConfig()
    base = "http://a.test/dir/page"
    links = page_links(tree, base, partial(check_link, base_url=base, config=config), max_links=100)
    assert links.links == tuple(listed for _, listed in HTML_LINKS if listed is not None)
    assert links.refused == 3
    assert links.canonical == "http://a.test/canon"


def test_page_links_are_capped() -> None:
    """At most max_links links are listed, whatever the page holds."""
    tree = lxml.html.fromstring("<html><body>" + "".join(f'<a href="/p{n}">x</a>' for n in range(50))
                                + "</body></html>")
    links = page_links(tree, "http://a.test/", partial(check_link, base_url="http://a.test/", config=ReaderConfig()),
                       max_links=10)
    assert len(links.links) == 10


ROBOTS = [
    # (robots.txt, crawl delay for pagewarden, sitemaps)
    ("User-agent: *\nCrawl-delay: 2\n", 2.0, ()),
    ("User-agent: pagewarden\nCrawl-delay: 1.5\nUser-agent: *\nCrawl-delay: 9\n", 1.5, ()),
    ("User-agent: other\nCrawl-delay: 5\n", None, ()),
    ("User-agent: *\nCrawl-delay: soon\n", None, ()),
    ("User-agent: *\nCrawl-delay: 86400\n", 60.0, ()),
    ("Sitemap: https://a.test/s.xml\nUser-agent: *\nDisallow: /x\nSitemap: /s2.xml.gz\n", None,
     ("https://a.test/s.xml", "/s2.xml.gz")),
]


@pytest.mark.parametrize(("text", "delay", "sitemaps"), ROBOTS)
def test_robots_crawl_delay_and_sitemaps(text: str, delay: float | None, sitemaps: tuple[str, ...]) -> None:
    """Crawl-delay comes from the group that applies (capped); Sitemap lines belong to the whole file."""
    rules = parse_robots(text)
    assert (rules.crawl_delay, rules.sitemaps) == (delay, sitemaps)


NS = b'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
URLSET = b"<urlset " + NS + b"><url><loc> /a </loc></url><url><loc>/b</loc></url></urlset>"
INDEX = b"<sitemapindex " + NS + b"><sitemap><loc>/s1.xml</loc></sitemap></sitemapindex>"
SITEMAPS = [
    # (body, kind, locations)
    (URLSET, "urlset", ["/a", "/b"]),
    (gzip.compress(URLSET), "urlset", ["/a", "/b"]),
    (INDEX, "index", ["/s1.xml"]),
    (b"", "unknown", []),
    (b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><urlset><url><loc>&e;</loc></url>'
     b"</urlset>", "urlset", []),
]


@pytest.mark.parametrize(("body", "kind", "locations"), SITEMAPS)
def test_parse_sitemap(body: bytes, kind: str, locations: list[str]) -> None:
    """Sitemaps, indexes and gzip sitemaps parse to their locations; external entities are never expanded."""
    assert parse_sitemap(body, max_decoded_bytes=1_000_000) == (kind, locations)


def test_gzip_sitemap_over_the_limit_is_refused() -> None:
    """A gzip sitemap that decompresses past the limit is refused, not inflated."""
    bomb = gzip.compress(b"<urlset>" + b" " * 2_000_000 + b"</urlset>")
    with pytest.raises(ValueError, match="larger than the limit"):
        parse_sitemap(bomb, max_decoded_bytes=1_000_000)
