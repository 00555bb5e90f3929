"""HTML to Markdown and text through one trafilatura extraction.

The page is parsed once (:func:`pagewarden._html.parse_html`) and the guard
reads that tree first; this adapter is its last user. trafilatura copies the
tree before changing it, so the caller's tree stays intact either way.

One extraction yields one body tree, which is serialised twice: as Markdown,
then, with the link elements unwrapped, as plain text (trafilatura would
otherwise write ``[text](url)`` into the plain text too). Options go to each
call through a fresh :class:`trafilatura.settings.Extractor` built on a private
configuration, so no module-level trafilatura setting is read for policy or
ever written, and concurrent extractions in worker threads share nothing
mutable. trafilatura is never asked to download anything.

Every failure of trafilatura, htmldate or lxml becomes
``ContentInsufficient(reason="extraction_failed")`` at :func:`extract_html`.
"""

from __future__ import annotations

import copy
import re

import lxml.html
from lxml import etree
from trafilatura import bare_extraction
from trafilatura.settings import Document as TrafilaturaDocument
from trafilatura.settings import Extractor, use_config
from trafilatura.utils import normalize_unicode
from trafilatura.xml import xmltotxt

from .._errors import InvalidInput, PagewardenError
from .links import LinkFilter, LinkPolicy
from .metadata import page_metadata
from .result import Extraction, extraction_failed, readable_length, strip_controls

__all__ = ["extract_html"]

# A private copy of trafilatura's defaults, read by every extraction and
# never modified: nobody else's configuration changes can reach it.
_CONFIG = use_config()
_UNLINKED = "pagewarden-unlinked"
_WHITESPACE_RUN = re.compile(r"\s*\n\s*")
# Characters XML 1.0 does not allow (lxml refuses them in element text).
_XML_FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _options() -> Extractor:
    # The same extraction choices as a bare trafilatura.extract() call (balanced
    # focus, external comparison, tables) so quality matches it, plus links and
    # formatting for Markdown. Comments sections are left out: they are not the
    # page's content. No URL is given: trafilatura would resolve relative links
    # against the site root only; LinkPolicy resolves them against the page.
    return Extractor(
        config=_CONFIG,
        output_format="markdown",
        formatting=True,
        links=True,
        images=False,
        tables=True,
        comments=False,
        dedup=False,
        with_metadata=False,
    )


def _apply_link_policy(body: etree._Element, policy: LinkPolicy) -> None:
    # trafilatura turns <a href> into <ref target>. Accepted links get their
    # canonical URL; refused ones lose the element but keep the text.
    refused = False
    for ref in body.iter("ref"):
        canonical = policy.decide(ref.get("target")) if "".join(ref.itertext()).strip() else None
        if canonical is None:
            ref.tag = _UNLINKED
            refused = True
        else:
            ref.attrib.clear()
            ref.set("target", canonical)
    if refused:
        etree.strip_tags(body, _UNLINKED)


def _collapse_source_whitespace(body: etree._Element) -> None:
    # Source indentation survives in text around inline elements (links,
    # emphasis); written out as Markdown, an indented continuation line would
    # turn into a code block. Line breaks that matter are <lb/> elements, so
    # runs of whitespace can become one space everywhere but in code.
    for element in body.iter():
        if element.tag == "code" or any(parent.tag == "code" for parent in element.iterancestors()):
            continue
        if element.text and "\n" in element.text:
            element.text = _WHITESPACE_RUN.sub(" ", element.text)
        if element.tail and "\n" in element.tail:
            element.tail = _WHITESPACE_RUN.sub(" ", element.tail)


def _serialise(document: TrafilaturaDocument | None, policy: LinkPolicy) -> tuple[str, str]:
    body = document.body if document is not None else None
    if body is None:
        return "", ""
    _apply_link_policy(body, policy)
    _collapse_source_whitespace(body)
    # xmltotxt copies the tree when formatting, so the body is still ours to unwrap.
    markdown = xmltotxt(body, True)
    etree.strip_tags(body, "ref")
    text = xmltotxt(body, False)
    return strip_controls(normalize_unicode(markdown)), strip_controls(normalize_unicode(text))


def _xml_safe_copy(tree: lxml.html.HtmlElement) -> lxml.html.HtmlElement | None:
    # lxml's HTML parser keeps control characters that XML forbids, and
    # trafilatura gives up on a page (returns None) when it copies one into
    # its XML output. Only then is a cleaned copy worth its cost.
    if not any(_has_xml_forbidden(element) for element in tree.iter()):
        return None
    clean = copy.deepcopy(tree)
    for element in clean.iter():
        if element.text:
            element.text = _XML_FORBIDDEN.sub("", element.text)
        if element.tail:
            element.tail = _XML_FORBIDDEN.sub("", element.tail)
        for name, value in element.attrib.items():
            element.set(name, _XML_FORBIDDEN.sub("", value))
    return clean


def _has_xml_forbidden(element: etree._Element) -> bool:
    values = [element.text or "", element.tail or "", *element.attrib.values()]
    return any(_XML_FORBIDDEN.search(value) for value in values)


def _extract(
    tree: lxml.html.HtmlElement, final_url: str, link_filter: LinkFilter, max_links: int
) -> Extraction:
    policy = LinkPolicy(final_url, link_filter, max_links)
    bases = tree.xpath("//base[@href][1]/@href")
    if bases:
        policy.rebase(str(bases[0]))
    title, metadata = page_metadata(tree, final_url)
    document = bare_extraction(tree, options=_options())
    if document is None and (clean := _xml_safe_copy(tree)) is not None:
        document = bare_extraction(clean, options=_options())
    if document is not None and not isinstance(document, TrafilaturaDocument):
        raise TypeError("unexpected trafilatura result type")
    markdown, text = _serialise(document, policy)
    return Extraction(
        title=title,
        markdown=markdown,
        text=text,
        metadata=metadata,
        links=policy.links,
        readable_chars=readable_length(text),
    )


def extract_html(
    tree: lxml.html.HtmlElement,
    *,
    final_url: str,
    link_filter: LinkFilter,
    max_links: int,
) -> Extraction:
    """Extract the readable content of a parsed HTML page.

    Args:
        tree: the page as parsed by :func:`pagewarden._html.parse_html`; not modified.
        final_url: the URL the page was read from; relative links resolve against
            it (or against the page's ``<base href>``).
        link_filter: the URL policy; returns the canonical form of an acceptable
            absolute URL, or ``None`` to refuse it.
        max_links: at most this many links are returned.

    Returns:
        The :class:`Extraction`; an empty one when trafilatura finds no content
        (the reader then reports ``CONTENT_INSUFFICIENT``).

    Raises:
        ContentInsufficient: ``reason="extraction_failed"`` when extraction breaks.
        InvalidInput: ``tree`` is not a parsed HTML element.
    """
    # Checked here because trafilatura and htmldate treat a string starting
    # with "http" as a URL to download.
    if not isinstance(tree, lxml.html.HtmlElement):
        raise InvalidInput("extract_html needs a parsed HTML tree", reason="not_a_tree", stage="extract")
    try:
        return _extract(tree, final_url, link_filter, max_links)
    except PagewardenError:
        raise
    except Exception:
        # The one translation boundary for trafilatura, htmldate, courlan and
        # lxml: whatever they raise, the caller sees one stable error. The
        # cause is dropped because third-party messages may quote the page.
        raise extraction_failed(final_url) from None
