"""One HTML parse per document, with structure limits checked before parsing.

The guard reads the tree first (read-only), then the extractor consumes it, so
a page is parsed once. Limits are checked by a cheap linear scan of the source
before lxml sees it, so a hostile page cannot make the parser build a huge tree.
"""

from __future__ import annotations

import re

import lxml.html
from lxml import etree

from ._errors import ContentInsufficient, ResponseTooLarge

__all__ = ["MAX_DEPTH", "MAX_NODES", "parse_html"]

MAX_NODES = 100_000
MAX_DEPTH = 512
_TAG = re.compile(rb"<(/?)([a-zA-Z][a-zA-Z0-9:-]{0,63})[^>]*?(/?)>")
# Elements that never have children, so they never deepen the tree.
_VOID = frozenset(
    b"area base br col embed hr img input link meta param source track wbr".split()
)


def _check_structure(source: bytes) -> None:
    # Every element needs a "<", so a page with few of them cannot exceed the
    # node limit, and the tag scan below (twice the cost of the parse itself)
    # only runs on pages that could.
    if source.count(b"<") <= MAX_NODES:
        return
    # Approximate depth with a counter: unbalanced markup can only make the
    # estimate larger, which errs on the side of refusing.
    nodes = 0
    depth = 0
    for match in _TAG.finditer(source):
        closing, name, self_closing = match.group(1), match.group(2).lower(), match.group(3)
        if closing:
            depth = max(0, depth - 1)
            continue
        nodes += 1
        if nodes > MAX_NODES:
            raise ResponseTooLarge("the page has too many HTML elements", reason="html_node_limit", stage="parse")
        if name in _VOID or self_closing:
            continue
        depth += 1
        if depth > MAX_DEPTH * 4:
            # The parser closes most unclosed tags itself; only a very deep
            # estimate is worth refusing before parsing.
            raise ResponseTooLarge("the page nests HTML too deeply", reason="html_depth_limit", stage="parse")


def parse_html(text: str) -> lxml.html.HtmlElement:
    """Parse ``text`` into an lxml tree, refusing structurally oversized pages."""
    encoded = text.encode("utf-8", "surrogatepass")
    _check_structure(encoded)
    if not text.strip():
        raise ContentInsufficient("the page is empty", reason="empty_body", stage="parse")
    try:
        parser = lxml.html.HTMLParser(encoding="utf-8", remove_blank_text=False, huge_tree=False)
        root = lxml.html.document_fromstring(encoded, parser=parser)
    except (etree.ParserError, etree.XMLSyntaxError, ValueError):
        raise ContentInsufficient(
            "the page could not be parsed as HTML", reason="html_parse_failed", stage="parse"
        ) from None
    return root
