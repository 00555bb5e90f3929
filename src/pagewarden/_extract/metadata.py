"""Title and descriptive metadata of an HTML page.

Built from trafilatura's metadata building blocks rather than its all-in-one
``extract_metadata``: that one also runs a heuristic author search over the
whole tree and category/tag/licence scans, which together cost more than the
content extraction itself on a typical article and feed no Document field.
Only cheap, read-only passes run here: meta tags and OpenGraph, JSON-LD, the
title heuristics, and htmldate without its extensive search. None of them
fetches anything (htmldate downloads only when handed a URL string, and it is
always handed the parsed tree).
"""

from __future__ import annotations

import re
from typing import Any

import lxml.html
from htmldate import find_date
from trafilatura.metadata import examine_meta, extract_meta_json, extract_sitename, extract_title
from trafilatura.settings import set_date_params

from .._document import Metadata
from .result import clean_field

__all__ = ["page_metadata"]

_LANGUAGE = re.compile(r"^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{1,8}){0,4}$")
_MAX_LANGUAGE_CHARS = 35


def _first_text(tree: lxml.html.HtmlElement, path: str) -> str | None:
    for element in tree.iterfind(path):
        text = clean_field(element.text_content())
        if text:
            return text
    return None


def _language(tree: lxml.html.HtmlElement, declared: object) -> str | None:
    candidates = [declared, tree.get("lang"), tree.get("{http://www.w3.org/XML/1998/namespace}lang")]
    for candidate in candidates:
        value = clean_field(candidate, _MAX_LANGUAGE_CHARS)
        if value and _LANGUAGE.match(value):
            return value.replace("_", "-")
    return None


def page_metadata(tree: lxml.html.HtmlElement, final_url: str) -> tuple[str | None, Metadata]:
    """Return the page title and its :class:`Metadata`, every field bounded and single-line.

    The title is trafilatura's (OpenGraph, JSON-LD, then its heading and
    ``<title>`` heuristics), else the ``<title>`` element, else the first ``<h1>``.
    """
    found = extract_meta_json(tree, examine_meta(tree))
    title = clean_field(found.title) or clean_field(extract_title(tree))
    title = title or _first_text(tree, ".//title") or _first_text(tree, ".//h1")
    # Built per call: its upper date bound is "now", which a module constant would freeze.
    date_params: dict[str, Any] = set_date_params(False)
    date = find_date(tree, url=final_url, **date_params)
    metadata = Metadata(
        author=clean_field(found.author),
        date=clean_field(date),
        site_name=clean_field(found.sitename) or clean_field(extract_sitename(tree)),
        language=_language(tree, getattr(found, "language", None)),
        description=clean_field(found.description),
    )
    return title, metadata
