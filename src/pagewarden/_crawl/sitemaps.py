"""Sitemaps: fetch, un-gzip and parse ``sitemap.xml`` files and sitemap indexes, within limits.

Where sitemaps come from: the ``Sitemap:`` lines of the start origin's
robots.txt, or ``/sitemap.xml`` when robots.txt names none. A sitemap index
(``<sitemapindex>``) lists more sitemaps, followed breadth-first up to
:attr:`SitemapLimits.max_depth` levels; a ``<urlset>`` lists pages.

Every sitemap URL passes the same URL policy as a page (the reader's
:func:`fetch` with its address policy and limits) and must be in the crawl's
scope; a sitemap that cannot be fetched or parsed is counted and skipped.

Bodies: ``application/xml``, ``text/xml`` (or any type whose body is XML),
and gzip files (``.xml.gz`` served as ``application/gzip`` or
``application/x-gzip``, or any body starting with the gzip magic bytes),
decompressed up to :attr:`SitemapLimits.max_decoded_bytes`. XML is parsed
without entities, DTDs or network access.
"""

from __future__ import annotations

import contextlib
import copy
import zlib
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field

from lxml import etree

from .._config import ReaderConfig
from .._errors import PagewardenError
from .._net import check_link, fetch

__all__ = ["SITEMAP_TYPES", "SitemapLimits", "SitemapResult", "parse_sitemap", "read_sitemaps"]

SITEMAP_TYPES = ("application/xml", "text/xml", "application/gzip", "application/x-gzip", "text/plain")
_GZIP_MAGIC = b"\x1f\x8b"


@dataclass(frozen=True, slots=True)
class SitemapLimits:
    """Limits on sitemap discovery: files fetched, index depth, URLs kept, bytes after gunzip."""

    max_sitemaps: int = 50
    max_depth: int = 2
    max_urls: int = 50_000
    max_decoded_bytes: int = 50 * 1024 * 1024


@dataclass
class SitemapResult:
    """What the sitemaps gave: page URLs (with the sitemap each came from) and counts."""

    pages: list[tuple[str, str]] = field(default_factory=list)
    fetched: int = 0
    failed: int = 0
    refused: int = 0
    truncated: bool = False


def _parser() -> etree.XMLParser:
    return etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False,
                           recover=True)


def _gunzip(body: bytes, limit: int) -> bytes:
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    data = inflater.decompress(body, limit + 1)
    if len(data) > limit:
        raise ValueError("the sitemap is larger than the limit once decompressed")
    return data


def parse_sitemap(body: bytes, *, max_decoded_bytes: int) -> tuple[str, list[str]]:
    """``(kind, locations)``: ``kind`` is ``index``, ``urlset`` or ``unknown``; raises ``ValueError`` on bad data."""
    if body.startswith(_GZIP_MAGIC):
        body = _gunzip(body, max_decoded_bytes)
    if not body.strip():
        return "unknown", []
    root = etree.fromstring(body, parser=_parser())
    if root is None:
        return "unknown", []
    tag = etree.QName(root).localname.lower()
    kind = {"sitemapindex": "index", "urlset": "urlset"}.get(tag, "unknown")
    locations = [
        (element.text or "").strip()
        for element in root.iter()
        if isinstance(element.tag, str) and etree.QName(element).localname.lower() == "loc"
    ]
    return kind, [location for location in locations if location]


async def _fetch_body(url: str, config: ReaderConfig) -> bytes:
    response = await fetch(url, config)
    if response.charset == "iso8859-1" and response.content_type in ("application/gzip", "application/x-gzip"):
        return response.text.encode("latin-1")
    return response.text.encode("utf-8")


def _sitemap_config(config: ReaderConfig) -> ReaderConfig:
    # The reader's config with the sitemap media types added. Users cannot
    # allow these types (a page read must be readable content), so the
    # validated config is copied and only this field is widened, internally.
    widened = copy.copy(config)
    object.__setattr__(widened, "allowed_content_types",
                       frozenset(config.allowed_content_types) | frozenset(SITEMAP_TYPES))
    return widened


async def read_sitemaps(
    roots: list[str],
    config: ReaderConfig,
    *,
    in_scope: Callable[[str], bool],
    limits: SitemapLimits | None = None,
    slot: Callable[[str], AbstractAsyncContextManager[None]] | None = None,
) -> SitemapResult:
    """Fetch the sitemaps at ``roots`` (and the sitemaps their indexes list) and collect the page URLs.

    ``in_scope`` decides, for the sitemaps themselves and for the pages they
    list, whether a URL is kept; refusals by the URL policy are counted in
    ``refused``. ``slot(url)``, when given, is held around each fetch (the
    crawl's per-host politeness). Never raises :class:`PagewardenError`.
    """
    limits = limits or SitemapLimits()
    fetch_config = _sitemap_config(config)
    result = SitemapResult()
    seen: set[str] = set()
    level = [(url, 0) for url in roots]
    while level:
        following: list[tuple[str, int]] = []
        for url, depth in level:
            if url in seen:
                continue
            if len(seen) >= limits.max_sitemaps:
                result.truncated = True
                return result
            seen.add(url)
            try:
                async with slot(url) if slot is not None else contextlib.nullcontext():
                    body = await _fetch_body(url, fetch_config)
                kind, locations = parse_sitemap(body, max_decoded_bytes=limits.max_decoded_bytes)
            except (PagewardenError, ValueError, etree.Error, zlib.error):
                result.failed += 1
                continue
            if kind == "unknown":
                result.failed += 1  # an answer, but not a sitemap (an HTML error page, say)
                continue
            result.fetched += 1
            for location in locations:
                accepted = check_link(location, url, config)
                if accepted is None:
                    result.refused += 1
                    continue
                if not in_scope(accepted):
                    continue
                if kind == "index":
                    if depth + 1 <= limits.max_depth:
                        following.append((accepted, depth + 1))
                elif len(result.pages) < limits.max_urls:
                    result.pages.append((accepted, url))
                else:
                    result.truncated = True
        level = following
    return result
