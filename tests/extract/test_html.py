"""HTML extraction: content, title, metadata, links and the failure boundary."""

from __future__ import annotations

import socket
import threading
from pathlib import Path
from typing import Any

import lxml.html
import pytest
from lxml import etree

import pagewarden._extract.adapter as adapter
from pagewarden._errors import ContentInsufficient, InvalidInput, UnsafeURL
from pagewarden._extract import extract_html, is_sufficient
from pagewarden._html import parse_html

from .fakes import FakeLinkFilter

DATA = Path(__file__).parent / "data"
FINAL_URL = "https://gazette.example/2023/04/clocks.html"
ARTICLE = (DATA / "article.html").read_text(encoding="utf-8")


def _extract(html: str, *, max_links: int = 500, final_url: str = FINAL_URL, link_filter: Any = None):  # type: ignore[no-untyped-def]
    return extract_html(
        parse_html(html),
        final_url=final_url,
        link_filter=link_filter or FakeLinkFilter(),
        max_links=max_links,
    )


def _page(body: str, head: str = "") -> str:
    return f"<html><head>{head}</head><body>{body}</body></html>"


LONG_PARAGRAPH = (
    "The river pilots of the estuary kept careful logs of every crossing they made, noting the depth of "
    "the channel, the strength of the current and the name of every vessel they guided safely to the quay. "
)


MARKDOWN_HAS = [
    "# Tidal Clocks of the North Sea",
    "## The keepers of the tables",
    "## What remained",
    "Long before the railways imposed a single national time",
    "- Harlingen: the clock above the fish market.",
    "[town archive](https://gazette.example/2023/04/archive/almanac.html)",
    "[the observatory](https://observatory.example/letters)",
    "[museum](https://gazette.example/museum?room=4)",
]


@pytest.mark.parametrize("fragment", MARKDOWN_HAS)
def test_article_markdown_keeps_structure(fragment: str) -> None:
    """The Markdown of an article keeps its headings, paragraphs, lists and allowed links."""
    assert fragment in _extract(ARTICLE).markdown


MARKDOWN_LACKS = [
    "blocked.example",
    "javascript:",
    "data:text",
    "mailto:",
    "file:",
    "#section-two",
    "a comment the extractor",
    "Privacy",
    "[a partner site]",
    "[a scripted link]",
]


@pytest.mark.parametrize("fragment", MARKDOWN_LACKS)
def test_article_markdown_drops_refused_links_and_boilerplate(fragment: str) -> None:
    """Refused link destinations, comments and page chrome do not reach the Markdown."""
    assert fragment not in _extract(ARTICLE).markdown


@pytest.mark.parametrize("words", ["a partner site", "a scripted link", "data link", "jump link"])
def test_refused_links_keep_their_text(words: str) -> None:
    """A refused link loses its destination but its words stay in both renderings."""
    extraction = _extract(ARTICLE)
    assert words in extraction.markdown
    assert words in extraction.text


@pytest.mark.parametrize("syntax", ["# ", "](", "[town archive]", "**", "https://"])
def test_text_has_no_markdown_syntax(syntax: str) -> None:
    """The plain-text rendering carries the words without Markdown syntax or link targets."""
    extraction = _extract(ARTICLE)
    assert syntax not in extraction.text
    assert "The keepers of the tables" in extraction.text
    assert "town archive" in extraction.text


METADATA = [
    ("title", "Tidal Clocks of the North Sea"),
    ("author", "Mara Lindqvist"),
    ("date", "2023-04-17"),
    ("site_name", "Harbour Gazette"),
    ("language", "en-GB"),
    ("description", "How harbour towns kept time by the tides before railways arrived."),
]


@pytest.mark.parametrize(("field", "expected"), METADATA)
def test_article_title_and_metadata(field: str, expected: str) -> None:
    """Title and metadata come from the page's meta tags and markup."""
    extraction = _extract(ARTICLE)
    value = extraction.title if field == "title" else getattr(extraction.metadata, field)
    assert value == expected


def test_article_links_are_resolved_filtered_and_deduplicated() -> None:
    """Links are absolute against the final URL, policy-filtered, deduplicated, in order."""
    assert _extract(ARTICLE).links == (
        "https://gazette.example/2023/04/archive/almanac.html",
        "https://observatory.example/letters",
        "https://gazette.example/museum?room=4",
    )


def test_link_filter_sees_only_absolute_http_urls_once() -> None:
    """The link filter is asked once per distinct href and only about absolute http(s) URLs."""
    link_filter = FakeLinkFilter()
    _extract(ARTICLE, link_filter=link_filter)
    assert sorted(link_filter.calls) == [
        "https://blocked.example/tracker",
        "https://gazette.example/2023/04/archive/almanac.html",
        "https://gazette.example/museum?room=4",
        "https://observatory.example/letters",
    ]


HREFS = [
    ("relative path", "next/page.html", "https://gazette.example/2023/04/next/page.html"),
    ("parent path", "../index.html", "https://gazette.example/2023/index.html"),
    ("root path", "/about", "https://gazette.example/about"),
    ("scheme relative", "//cdn.example/a", "https://cdn.example/a"),
    ("absolute http", "http://other.example/x", "http://other.example/x"),
    ("fragment dropped by filter", "/a#part", "https://gazette.example/a"),
    ("padded", "  /padded  ", "https://gazette.example/padded"),
    ("javascript", "javascript:alert(1)", None),
    ("javascript upper", "JAVASCRIPT:alert(1)", None),
    ("javascript split by newline", "java\nscript:alert(1)", None),
    ("javascript with tab", "\tjavascript:alert(1)", None),
    ("data", "data:text/html;base64,PHNjcmlwdD4=", None),
    ("file", "file:///etc/passwd", None),
    ("mailto", "mailto:someone@example.org", None),
    ("ftp", "ftp://files.example/x", None),
    ("vbscript", "vbscript:msgbox(1)", None),
    ("bare fragment", "#top", None),
    ("refused host", "https://blocked.example/x", None),
    ("refused address", "http://10.0.0.1/admin", None),
    ("empty", "", None),
]


@pytest.mark.parametrize(("name", "href", "expected"), HREFS, ids=[row[0] for row in HREFS])
def test_single_link_policy(name: str, href: str, expected: str | None) -> None:
    """Each href is resolved and filtered; refused ones appear neither in links nor as Markdown targets."""
    anchor = lxml.html.Element("a", href=href)
    anchor.text = "the linked words"
    paragraph = (
        f"<p>{LONG_PARAGRAPH}See {etree.tostring(anchor, encoding='unicode')} for more. {LONG_PARAGRAPH}</p>"
    )
    extraction = _extract(_page(f"<article>{paragraph}</article>"))
    assert "the linked words" in extraction.markdown
    if expected is None:
        assert extraction.links == ()
        assert "](" not in extraction.markdown
    else:
        assert extraction.links == (expected,)
        assert f"[the linked words]({expected})" in extraction.markdown


def _many_links(count: int) -> str:
    items = "".join(
        f'<p>{LONG_PARAGRAPH} Read <a href="/item/{i}">item {i}</a> next.</p>' for i in range(count)
    )
    return _page(f"<article>{items}</article>")


@pytest.mark.parametrize(("count", "cap", "expected"), [(10, 3, 3), (4, 10, 4), (5, 0, 0)])
def test_links_are_capped(count: int, cap: int, expected: int) -> None:
    """At most ``max_links`` links are returned, the first ones in page order."""
    links = _extract(_many_links(count), max_links=cap).links
    assert len(links) == expected
    assert links == tuple(f"https://gazette.example/item/{i}" for i in range(expected))


def test_base_href_is_honoured() -> None:
    """Relative links resolve against the page's ``<base href>`` when it has one."""
    html = _page(
        f'<article><p>{LONG_PARAGRAPH} Look <a href="doc.html">here</a>. {LONG_PARAGRAPH}</p></article>',
        head='<base href="https://mirror.example/docs/">',
    )
    assert _extract(html).links == ("https://mirror.example/docs/doc.html",)


def test_link_filter_raising_a_policy_error_is_a_refusal() -> None:
    """A link filter that raises a pagewarden policy error refuses the link instead of failing the read."""

    def raising_filter(url: str) -> str | None:
        raise UnsafeURL("refused", reason="test_refusal")

    extraction = _extract(ARTICLE, link_filter=raising_filter)
    assert extraction.links == ()
    assert "](" not in extraction.markdown


TITLE_FALLBACKS = [
    ("title element", "<title>Only The Title Element</title>", "<h2>x</h2>", "Only The Title Element"),
    ("first h1", "", "<h1>The Heading Title</h1>", "The Heading Title"),
    ("nothing", "", "<p>No heading here.</p>", None),
]


@pytest.mark.parametrize(
    ("name", "head", "body", "expected"), TITLE_FALLBACKS, ids=[r[0] for r in TITLE_FALLBACKS]
)
def test_title_fallbacks(name: str, head: str, body: str, expected: str | None) -> None:
    """Without metadata the title comes from ``<title>``, then the first ``<h1>``."""
    html = _page(f"{body}<article><p>{LONG_PARAGRAPH}</p></article>", head=head)
    assert _extract(html).title == expected


def test_metadata_is_bounded_and_single_line() -> None:
    """Metadata values are cut to 500 characters and carry no control characters or newlines."""
    description = "word\x1b[31m\nnext " * 400
    html = _page(
        f"<article><p>{LONG_PARAGRAPH}</p></article>",
        head=f'<meta name="description" content="{description}">',
    )
    value = _extract(html).metadata.description
    assert value is not None
    assert len(value) <= 500
    assert not any(ch in value for ch in "\x1b\n\r")


def test_markdown_and_text_have_no_control_characters() -> None:
    """Control characters from the page never reach the Markdown or the text."""
    html = _page(f"<article><p>{LONG_PARAGRAPH}bell\x07 escape\x1b[2J done. {LONG_PARAGRAPH}</p></article>")
    extraction = _extract(html)
    for rendering in (extraction.markdown, extraction.text):
        assert "bell" in rendering
        assert not any(ch in rendering for ch in "\x07\x1b")


SUFFICIENCY = [
    ("near empty page", _page("<p>Hi.</p>"), 80, False),
    ("only navigation", _page('<nav><a href="/a">A</a> <a href="/b">B</a></nav>'), 80, False),
    ("article", ARTICLE, 80, True),
    ("article under a high bar", ARTICLE, 50_000, False),
]


@pytest.mark.parametrize(
    ("name", "html", "min_chars", "expected"), SUFFICIENCY, ids=[r[0] for r in SUFFICIENCY]
)
def test_sufficiency(name: str, html: str, min_chars: int, expected: bool) -> None:
    """Pages below the readable-character threshold are not sufficient; articles are."""
    assert is_sufficient(_extract(html), min_chars=min_chars) is expected


def test_readable_chars_collapses_whitespace() -> None:
    """``readable_chars`` counts the text with every whitespace run as one character."""
    extraction = _extract(ARTICLE)
    assert extraction.readable_chars == len(" ".join(extraction.text.split()))
    assert extraction.readable_chars > 500


def test_caller_tree_is_not_modified() -> None:
    """Extraction leaves the caller's tree exactly as it was."""
    tree = parse_html(ARTICLE)
    before = etree.tostring(tree)
    extract_html(tree, final_url=FINAL_URL, link_filter=FakeLinkFilter(), max_links=500)
    assert etree.tostring(tree) == before


def test_a_string_is_refused_before_trafilatura_sees_it() -> None:
    """A string instead of a tree is refused (trafilatura and htmldate would download a URL string)."""
    with pytest.raises(InvalidInput) as caught:
        extract_html("https://example.org/", final_url=FINAL_URL, link_filter=FakeLinkFilter(), max_links=5)  # type: ignore[arg-type]
    assert caught.value.reason == "not_a_tree"


def test_extraction_opens_no_socket(monkeypatch: pytest.MonkeyPatch) -> None:
    """Extraction never touches the network, even for a page full of absolute URLs."""

    def tripwire(*args: object, **kwargs: object) -> None:
        raise AssertionError("extraction tried to open a connection")

    monkeypatch.setattr(socket.socket, "connect", tripwire)
    monkeypatch.setattr(socket, "create_connection", tripwire)
    monkeypatch.setattr(socket, "getaddrinfo", tripwire)
    assert _extract(ARTICLE).links


def test_concurrent_extractions_agree() -> None:
    """Extractions in parallel worker threads give the same result as one alone."""
    expected = _extract(ARTICLE)
    results: list[object] = []

    def work() -> None:
        for _ in range(3):
            results.append(_extract(ARTICLE))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [expected] * 12


UPSTREAM_FAILURES = [
    ValueError("bad"),
    TypeError("bad"),
    KeyError("bad"),
    IndexError("bad"),
    AttributeError("bad"),
    RecursionError("deep"),
    UnicodeDecodeError("utf-8", b"\xff", 0, 1, "bad"),
    etree.ParserError("bad"),
    RuntimeError("SECRET PAGE BODY"),
]
PATCH_POINTS = ["bare_extraction", "page_metadata", "xmltotxt"]


@pytest.mark.parametrize("point", PATCH_POINTS)
@pytest.mark.parametrize("failure", UPSTREAM_FAILURES, ids=lambda exc: type(exc).__name__)
def test_third_party_failures_are_mapped(
    monkeypatch: pytest.MonkeyPatch, point: str, failure: Exception
) -> None:
    """Any exception from trafilatura, htmldate or lxml becomes CONTENT_INSUFFICIENT extraction_failed."""

    def broken(*args: object, **kwargs: object) -> None:
        raise failure

    monkeypatch.setattr(adapter, point, broken)
    with pytest.raises(ContentInsufficient) as caught:
        _extract(ARTICLE)
    assert caught.value.reason == "extraction_failed"
    assert caught.value.__cause__ is None
    assert "SECRET" not in str(caught.value)


def test_no_content_found_is_an_empty_extraction(monkeypatch: pytest.MonkeyPatch) -> None:
    """When trafilatura finds nothing, the extraction is empty and not sufficient (no crash)."""
    monkeypatch.setattr(adapter, "bare_extraction", lambda *args, **kwargs: None)
    extraction = _extract(ARTICLE)
    assert (extraction.markdown, extraction.text, extraction.links, extraction.readable_chars) == (
        "",
        "",
        (),
        0,
    )
    assert not is_sufficient(extraction, min_chars=1)


def test_source_indentation_never_becomes_a_code_block() -> None:
    """Indented source lines around a link stay in their paragraph instead of turning into code."""
    body = (
        "<article><h1>Heading</h1><p>" + LONG_PARAGRAPH + "</p><p>First line of the paragraph\n"
        "        continues here with <a href='/x'>a link</a> and then\n        more words follow.</p></article>"
    )
    extraction = _extract(_page(body))
    assert "continues here" in extraction.markdown
    assert not any(line.startswith("    ") for line in extraction.markdown.splitlines())
