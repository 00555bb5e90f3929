"""Plain-text and Markdown bodies: used as they are, links filtered."""

from __future__ import annotations

import pytest

from pagewarden._errors import ContentInsufficient
from pagewarden._extract import extract_plain, markdown_to_text
from pagewarden._extract import plain as plain_module

from .fakes import FakeLinkFilter

FINAL_URL = "https://notes.example/docs/guide.md"

MARKDOWN = """# Field Guide

Read the [setup notes](setup.md) and the [overview](https://other.example/a#intro) first.
A [tracker](https://blocked.example/t) and a [script](javascript:alert(1)) are refused.
An image: ![diagram](img/d.png). An autolink: <https://auto.example/x>.
A **bold** claim, an *emphasised* one and `inline code`.

> Quoted wisdom.

[ref]: https://blocked.example/ref "Refused definition"
"""


def _plain(text: str, content_type: str, max_links: int = 100):  # type: ignore[no-untyped-def]
    return extract_plain(
        text,
        content_type=content_type,
        final_url=FINAL_URL,
        link_filter=FakeLinkFilter(),
        max_links=max_links,
    )


def test_plain_text_passes_through() -> None:
    """A text/plain body is both the Markdown and the text, unchanged."""
    body = "Line one.\n\nLine two with https://site.example/page and more words."
    extraction = _plain(body, "text/plain")
    assert extraction.markdown == body
    assert extraction.text == body
    assert extraction.title is None
    assert extraction.readable_chars == len(" ".join(body.split()))


BARE_URLS = [
    ("kept", "See https://site.example/page.", ("https://site.example/page",)),
    ("refused host", "See https://blocked.example/page now", ()),
    ("not http", "See ftp://files.example/x and javascript:alert(1)", ()),
    (
        "deduplicated",
        "https://a.example/x https://a.example/x https://b.example/y",
        ("https://a.example/x", "https://b.example/y"),
    ),
]


@pytest.mark.parametrize(("name", "body", "expected"), BARE_URLS, ids=[row[0] for row in BARE_URLS])
def test_plain_text_links(name: str, body: str, expected: tuple[str, ...]) -> None:
    """URLs written in plain text are listed when the policy accepts them."""
    assert _plain(body, "text/plain").links == expected


def test_markdown_passes_through_with_allowed_links() -> None:
    """A Markdown body keeps its text and syntax; allowed links point to their canonical URL."""
    markdown = _plain(MARKDOWN, "text/markdown").markdown
    assert markdown.startswith("# Field Guide\n\nRead the [setup notes](https://notes.example/docs/setup.md)")
    assert "[overview](https://other.example/a)" in markdown
    assert "![diagram](https://notes.example/docs/img/d.png)" in markdown
    assert "<https://auto.example/x>" in markdown
    assert "A **bold** claim" in markdown


@pytest.mark.parametrize("gone", ["blocked.example", "javascript:", "[tracker]", "[script]"])
def test_markdown_refused_destinations_are_removed(gone: str) -> None:
    """Refused link destinations vanish from Markdown while the link text stays."""
    markdown = _plain(MARKDOWN, "text/markdown").markdown
    assert gone not in markdown
    assert "A tracker and a script are refused." in markdown


def test_markdown_links_are_listed_in_order() -> None:
    """Links of a Markdown body are resolved, filtered and listed once each."""
    assert _plain(MARKDOWN, "text/markdown").links == (
        "https://notes.example/docs/setup.md",
        "https://other.example/a",
        "https://notes.example/docs/img/d.png",
        "https://auto.example/x",
    )


@pytest.mark.parametrize("syntax", ["# ", "](", "**", "`", "> ", "[ref]:", "<https"])
def test_markdown_text_rendering_has_no_syntax(syntax: str) -> None:
    """The text rendering of a Markdown body carries its words without Markdown syntax."""
    extraction = _plain(MARKDOWN, "text/markdown")
    assert syntax not in extraction.text
    assert "Read the setup notes and the overview first." in extraction.text
    assert "A bold claim, an emphasised one and inline code." in extraction.text


def test_markdown_title_is_first_heading() -> None:
    """The title of a Markdown body is its first heading."""
    assert _plain(MARKDOWN, "text/markdown").title == "Field Guide"


MARKDOWN_TO_TEXT = [
    ("heading", "## Title ##", "Title"),
    ("link", "[words](http://x.example)", "words"),
    ("image", "![alt text](a.png)", "alt text"),
    ("emphasis", "**strong** and _soft_", "strong and soft"),
    ("code span", "run `make test`", "run make test"),
    ("quote", "> said", "said"),
    ("escape", r"1\. not a list", "1. not a list"),
    ("fence", "```python\nprint(1)\n```", "print(1)\n"),
]


@pytest.mark.parametrize(
    ("name", "markdown", "expected"), MARKDOWN_TO_TEXT, ids=[row[0] for row in MARKDOWN_TO_TEXT]
)
def test_markdown_to_text(name: str, markdown: str, expected: str) -> None:
    """Each Markdown construct renders as its words alone."""
    assert markdown_to_text(markdown) == expected


@pytest.mark.parametrize("content_type", ["text/plain", "text/markdown"])
def test_controls_removed_and_line_ends_normalised(content_type: str) -> None:
    """Control characters are dropped and CRLF becomes LF in both renderings."""
    extraction = _plain("one\r\ntwo\x1b[2J\x07\rthree", content_type)
    assert extraction.markdown == "one\ntwo[2J\nthree"
    assert "\r" not in extraction.text


def test_links_are_capped() -> None:
    """At most ``max_links`` links are listed."""
    body = " ".join(f"https://site.example/{i}" for i in range(20))
    assert len(_plain(body, "text/plain", max_links=5).links) == 5


def test_failure_is_mapped(monkeypatch: pytest.MonkeyPatch) -> None:
    """An unexpected exception while processing a text body becomes extraction_failed."""

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(plain_module, "markdown_to_text", broken)
    with pytest.raises(ContentInsufficient) as caught:
        _plain(MARKDOWN, "text/markdown")
    assert caught.value.reason == "extraction_failed"
