"""Typeset documents: dot leaders, flat glyphs, bullets, numbered headings, hyphenation read as a person sees them."""

from __future__ import annotations

import pytest

import pagewarden
from pagewarden._pdf.extract import ExtractLimits, extract_pdf
from tests.pdf.typeset import BULLETS, typeset_pdf
from tests.support.server import FixtureServer

pytestmark = pytest.mark.anyio

# (what, in the Markdown): each must appear as written.
PRESENT = [
    ("a numbered heading set large is a heading", "\n## 1. Introduction\n"),
    ("a contents entry is a paragraph of its own, leader dots kept", "\n\n1\\. Introduction . . . . ."),
    ("the next entry too", "\n\n2\\.1 Sampling . . . . ."),
    ("a word hyphenated across lines is whole", "the careful manipulation of samples"),
    ("dashes drawn on their own stay in the text", "Comments begin with -- and end at the line end."),
    *[("a bullet joins the item beside it", f"\n- {item}") for item in BULLETS],
]
# (what, in the Markdown): none may appear.
ABSENT = [
    ("a contents entry is never a heading", "# 1\\. Introduction ."),
    ("a lone bullet", "\n•\n"),
    ("the line-end hyphen marker", "\ufffe"),
    ("a hyphen left in the joined word", "manip-"),
]


@pytest.fixture(scope="module")
def typeset() -> bytes:
    """The manual, built once."""
    return typeset_pdf()


@pytest.fixture
async def markdown(fixture_server: FixtureServer, typeset: bytes) -> tuple[str, pagewarden.Document]:
    """The manual read through read(), as a caller would."""
    fixture_server.add("/manual.pdf", headers={"Content-Type": "application/pdf"}, body=typeset)
    async with pagewarden.AsyncReader(unsafe_allow_destinations=(fixture_server.host_port,),
                                      cache=pagewarden.CacheConfig(max_entries=0)) as reader:
        document = await reader.read(fixture_server.url("/manual.pdf"), render="never")
    return document.markdown, document


def test_flat_glyphs_are_not_hidden(typeset: bytes) -> None:
    """Leader dots and a rule of dashes at body size are visible text, not tiny text: no page has a hidden run."""
    facts = extract_pdf(typeset, ExtractLimits(max_pages=10, max_characters=100_000))
    assert [page["hidden"] for page in facts["pages"]] == [[], []]


async def test_typeset_manual_is_allowed(markdown: tuple[str, pagewarden.Document]) -> None:
    """The guard allows the manual and reports nothing hidden; both pages are anchored."""
    text, document = markdown
    assert document.security.decision == "allow"
    assert not document.security.findings
    assert "*Page 1* ·" in text
    assert "*Page 2* ·" in text


@pytest.mark.parametrize(("what", "expected"), PRESENT, ids=[what for what, _ in PRESENT])
async def test_typeset_structure(markdown: tuple[str, pagewarden.Document], what: str, expected: str) -> None:
    """What the table says is in the Markdown, as written."""
    assert expected in markdown[0], what


@pytest.mark.parametrize(("what", "unexpected"), ABSENT, ids=[what for what, _ in ABSENT])
async def test_typeset_mistakes_absent(markdown: tuple[str, pagewarden.Document], what: str, unexpected: str
                                       ) -> None:
    """None of the table's mistakes is in the Markdown."""
    assert unexpected not in markdown[0], what
