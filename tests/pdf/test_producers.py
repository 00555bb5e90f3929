"""PDFs from real producers (Chromium's print, pdfTeX, LibreOffice): read as a person reads them, nothing hidden.

The fixtures were made by the producers themselves (see ``fixtures/README.md``);
each row says what the Markdown must hold, or must not, and why.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from reportlab.pdfgen import canvas

import pagewarden
from pagewarden._pdf.extract import ExtractLimits, extract_pdf
from pagewarden._pdf.page import LimitExceeded
from tests.support.server import FixtureServer

pytestmark = pytest.mark.anyio
FIXTURES = Path(__file__).parent / "fixtures"
PRODUCERS = ("chromium-print", "pdflatex-type3", "libreoffice-docx")

# (fixture, what, text the Markdown holds as written)
PRESENT = [
    ("chromium-print", "a heading set on two lines is one heading", "\n# How the river finds its way to the sea\n"),
    ("chromium-print", "runs split inside words join as the text page joins them",
     "the official staff filed affidavits. We figured the fjord would flood first."),
    ("chromium-print", "a run that starts with its space is a new word", "The flood came early"),
    ("chromium-print", "a character outside the BMP is whole", "Nobody was surprised \U0001f609 at all."),
    ("chromium-print", "bullets drawn as shapes make a list", "\n- Keep the jars upright.\n- Log every sample.\n"),
    ("chromium-print", "white text on a translucent dark shade is visible",
     "We use cookies to improve your browsing experience."),
    ("pdflatex-type3", "a section heading on two lines is one heading",
     "\n## 1 The official affidavits of the fjord office\n"),
    ("pdflatex-type3", "ligatures read as control characters are letters",
     "The staff filed official affidavits about the fjord, and the office shuffled the files to the first floor."),
    ("pdflatex-type3", "a bullet without a Unicode map (U+0088) marks an item",
     "\n- Keep the jars upright during transport.\n- Log every sample and its depth.\n"),
    ("pdflatex-type3", "the second column follows the first", "\n## 2 Second column\n"),
    ("libreoffice-docx", "Symbol-font bullets (U+F0B7) mark items",
     "\n- Keep the jars upright during transport.\n- Log every sample and its depth.\n"),
    ("libreoffice-docx", "the heading", "\n# Sampling report\n"),
]
# (fixture, what, text that must not be in the Markdown)
ABSENT = [
    ("chromium-print", "a word split at an ink gap", "fi nds"),
    ("chromium-print", "two words run together", "floodcame"),
    ("chromium-print", "a presentation-form ligature", "\ufb01"),
    ("pdflatex-type3", "a ligature lost to a space", "o cial"),
    ("pdflatex-type3", "the unmapped bullet", "\x88"),
    ("libreoffice-docx", "the private-use bullet", "\uf0b7"),
]


def _fixture(name: str) -> bytes:
    return (FIXTURES / f"{name}.pdf").read_bytes()


async def _read(server: FixtureServer, name: str) -> pagewarden.Document:
    server.add(f"/{name}.pdf", headers={"Content-Type": "application/pdf"}, body=_fixture(name))
    async with pagewarden.AsyncReader(unsafe_allow_destinations=(server.host_port,),
                                      cache=pagewarden.CacheConfig(max_entries=0)) as reader:
        return await reader.read(server.url(f"/{name}.pdf"), render="never")


@pytest.mark.parametrize(("name", "what", "expected"), PRESENT, ids=[f"{n}: {w}" for n, w, _ in PRESENT])
async def test_producer_markdown_holds(fixture_server: FixtureServer, name: str, what: str, expected: str) -> None:
    """What the table says is in the fixture's Markdown, as written."""
    document = await _read(fixture_server, name)
    assert expected in document.markdown, what


@pytest.mark.parametrize(("name", "what", "unexpected"), ABSENT, ids=[f"{n}: {w}" for n, w, _ in ABSENT])
async def test_producer_markdown_lacks(fixture_server: FixtureServer, name: str, what: str, unexpected: str) -> None:
    """None of the table's mistakes is in the fixture's Markdown or text."""
    document = await _read(fixture_server, name)
    assert unexpected not in document.markdown, what
    assert unexpected not in document.text, what


@pytest.mark.parametrize("name", PRODUCERS)
async def test_producer_documents_are_benign(fixture_server: FixtureServer, name: str) -> None:
    """A benign document from each producer is allowed, with no finding and its page anchored; its Markdown and
    text encode as UTF-8."""
    document = await _read(fixture_server, name)
    assert document.security.decision == "allow"
    assert not document.security.findings
    assert f"{fixture_server.url(f'/{name}.pdf')}#page=1" in document.markdown
    document.markdown.encode("utf-8")
    document.text.encode("utf-8")


@pytest.mark.parametrize("name", PRODUCERS)
def test_producer_documents_hide_nothing(name: str) -> None:
    """The worker finds no hidden run in a benign document of each producer (every one would be a false one)."""
    facts = extract_pdf(_fixture(name), ExtractLimits(max_pages=10, max_characters=100_000))
    assert [page["hidden"] for page in facts["pages"]] == [[] for _ in facts["pages"]]


def _squares_pdf(count: int) -> bytes:
    """``count`` small filled squares (bullet-shaped), then one short line of text drawn after them."""
    buffer = io.BytesIO()
    c = canvas.Canvas(buffer)
    for index in range(count):
        c.rect(20 + (index % 100) * 5, 100 + (index // 100) * 5, 4, 4, fill=1, stroke=0)
    c.drawString(72, 700, "A short line.")
    c.showPage()
    c.save()
    return buffer.getvalue()


@pytest.mark.parametrize(("squares", "fails"), [(50, False), (500, True)])
def test_bullet_shapes_count_against_the_character_budget(squares: int, fails: bool) -> None:
    """A bullet drawn as a shape counts as the character it becomes: a page of many stays within the budget."""
    limits = ExtractLimits(max_pages=10, max_characters=200)
    if fails:
        with pytest.raises(LimitExceeded, match="characters"):
            extract_pdf(_squares_pdf(squares), limits)
    else:
        facts = extract_pdf(_squares_pdf(squares), limits)
        assert facts["pages"][0]["texts"].count("\u2022") == squares
