"""The links of a whole page (navigation included), for crawling: :func:`page_links`.

:func:`~pagewarden._extract.extract_html` collects the links of the readable
content only. A crawler needs every link a person could follow: menus,
footers, pagination. This walks the parsed page (the same tree the guard
read; for a rendered page, after the content hidden by computed style was
dropped) and applies the same DNS-free URL policy to each ``<a href>`` and
``<area href>``.

Fragments: ``#/guide/intro`` and ``#!/guide/intro`` are routes of a
hash-routing app (different pages under one document URL), so they are kept,
resolved against the page. Any other fragment is an in-page anchor: it is
removed, and a link that is nothing but one is not listed.
"""

from __future__ import annotations

import re
import urllib.parse

import lxml.html

from .._document import PageLinks
from .links import LinkFilter

__all__ = ["MAX_SCANNED_HREFS", "is_route_fragment", "page_links"]

# Anchors looked at per page, whatever the page holds (a limit on the work).
MAX_SCANNED_HREFS = 20_000
_EDGE = "".join(chr(code) for code in range(0x21))
_TAB_NEWLINE = re.compile("[\t\n\r]")
_HTTP = ("http", "https")


def is_route_fragment(fragment: str) -> bool:
    """Whether a URL fragment (without ``#``) is a hash-router route rather than an in-page anchor."""
    return fragment.startswith("/") or fragment.startswith("!/") or fragment == "!"


def _clean(href: str) -> str:
    return _TAB_NEWLINE.sub("", href.strip(_EDGE))


def _resolve(base: str, href: str, max_chars: int) -> tuple[str, str] | None:
    """``(absolute URL without fragment, route fragment or "")``, or ``None`` for no usable http(s) link."""
    cleaned = _clean(href)
    if not cleaned or len(cleaned) > max_chars:
        return None
    try:
        absolute = urllib.parse.urljoin(base, cleaned)
        parts = urllib.parse.urlsplit(absolute)
    except ValueError:
        return None
    if parts.scheme.lower() not in _HTTP:
        return None
    fragment = parts.fragment if is_route_fragment(parts.fragment) else ""
    if cleaned.startswith("#") and not fragment:
        return None  # an in-page anchor of this very page
    return urllib.parse.urlunsplit(parts._replace(fragment="")), fragment


def page_links(tree: lxml.html.HtmlElement, base_url: str, link_filter: LinkFilter, *,
               max_links: int, max_href_chars: int = 2_048) -> PageLinks:
    """Every followable link of ``tree`` (see the module docstring), the canonical link, the refusal count."""
    base = base_url
    bases = tree.xpath("//base[@href][1]/@href")
    if bases:
        rebased = _resolve(base_url, str(bases[0]), max_href_chars)
        if rebased is not None:
            base = rebased[0]
    decisions: dict[str, str | None] = {}
    accepted: dict[str, None] = {}
    refused = 0

    def decide(url: str) -> str | None:
        nonlocal refused
        if url not in decisions:
            try:
                decision = link_filter(url)
            except ValueError:
                decision = None
            decisions[url] = decision
            if decision is None:
                refused += 1
        return decisions[url]

    for scanned, href in enumerate(tree.xpath("//a/@href | //area/@href")):
        if scanned >= MAX_SCANNED_HREFS or len(accepted) >= max_links:
            break
        resolved = _resolve(base, str(href), max_href_chars)
        if resolved is None:
            continue
        url, fragment = resolved
        canonical = decide(url)
        if canonical is not None:
            accepted.setdefault(f"{canonical}#{fragment}" if fragment else canonical, None)
    canonical_link: str | None = None
    for href in tree.xpath("//link[@href][contains(concat(' ', normalize-space(translate(@rel, "
                           "'CANOICL', 'canoicl')), ' '), ' canonical ')][1]/@href"):
        resolved = _resolve(base, str(href), max_href_chars)
        if resolved is not None:
            canonical_link = decide(resolved[0])
    return PageLinks(tuple(accepted), canonical_link, refused)
