"""The PDF layout's own safe Markdown, and the worker's text-to-object mapping, checked against references."""

from __future__ import annotations

import io
from typing import Any

import pytest
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from pagewarden._pdf.extract import ExtractLimits, extract_pdf
from pagewarden._pdf.facts import Line, PageFacts, parse_facts
from pagewarden._pdf.layout import body_size, markdown_units, page_blocks, render_markdown
from pagewarden._safe import safe_markdown, safe_units
from tests.pdf.documents import CARRIERS, INJECTION, carrier_pdf, hand_written_pdf, long_pdf, paper_pdf, table_pdf

URL = "https://example.org/doc.pdf"
HOSTILE = (
    "# Not a heading",
    "[a link](https://evil.example/x) and ![an image](https://evil.example/i.png)",
    "<script>alert(1)</script> <!-- comment --> &amp; &#65;",
    "1. not a list",
    "- not an item either",
    "`code` **bold** _under_ ~~strike~~ | a | table |",
    "> quoted",
    "<https://evil.example/autolink>",
    "    indented like code",
    "===",
)


def _line(text: str, y: float, size: float = 10.0) -> Line:
    return Line(text, size, 72.0, 300.0, y, y + size)


def _hostile_page() -> PageFacts:
    lines = [_line("A Title", 780, 20)]
    lines += [_line(text, 740 - 30 * index) for index, text in enumerate(HOSTILE)]
    lines += [_line("• first item", 300), _line("• second item", 288), _line("[12] A reference.", 250)]
    return PageFacts(1, tuple(lines), (), (), ())


def _pages_from_pdf(data: bytes) -> list[PageFacts]:
    return list(parse_facts(extract_pdf(data, ExtractLimits(max_pages=50, max_characters=1_000_000))).pages)


def _documents() -> list[tuple[str, list[PageFacts]]]:
    documents = [("hostile", [_hostile_page()]), ("paper", _pages_from_pdf(paper_pdf())),
                 ("table", _pages_from_pdf(table_pdf(5, 4))), ("long", _pages_from_pdf(long_pdf(2)))]
    documents += [(carrier.name, _pages_from_pdf(carrier_pdf(carrier, INJECTION))) for carrier in CARRIERS[:4]]
    return documents


def _no_links(_url: str) -> str | None:
    return None


def _filter(text: str) -> str | None:
    return "instruction_override" if "heading" in text or "reference" in text.lower() else None


@pytest.mark.parametrize(("name", "pages"), _documents(), ids=[name for name, _ in _documents()])
@pytest.mark.parametrize("block_filter", [None, _filter], ids=["plain", "filtered"])
@pytest.mark.parametrize("limit", [None, 300])
def test_units_match_the_safe_renderer(name: str, pages: list[PageFacts], block_filter: Any, limit: int | None
                                       ) -> None:
    """The layout's units give exactly what the safe renderer gives for the same Markdown (cut and filtered too)."""
    blocks = [page_blocks(page, body_size(tuple(pages))) for page in pages]
    reference = safe_markdown(render_markdown(blocks, URL), link_filter=_no_links, max_characters=limit,
                              block_filter=block_filter)
    ours = safe_units(markdown_units(blocks, URL, block_filter), link_filter=_no_links, max_characters=limit)
    assert ours.markdown == reference.markdown
    assert ours.truncated == reference.truncated
    assert ours.withheld == reference.withheld


def _pdf(draw: Any) -> bytes:
    buffer = io.BytesIO()
    c = canvas.Canvas(buffer, pagesize=A4)
    draw(c)
    c.showPage()
    c.save()
    return buffer.getvalue()


@pytest.mark.parametrize(("left", "middle", "right"), [
    ("Left column words", "white secret words", "right column words"),
    ("Visible start \u05d0\u05d1", "\u05d2\u05d3 white secret", "\u05d4 visible end"),
], ids=["left_to_right", "right_to_left"])
def test_objects_sharing_a_line_keep_their_own_text(left: str, middle: str, right: str) -> None:
    """Objects on one baseline each keep their own text: hidden text between visible runs stays hidden."""
    def draw(c: canvas.Canvas) -> None:
        c.setFont("Helvetica", 11)
        c.drawString(72, 700, left)
        c.setFillColorRGB(1, 1, 1)
        c.drawString(200, 700, middle)
        c.setFillColorRGB(0, 0, 0)
        c.drawString(330, 700, right)

    page = _pages_from_pdf(_pdf(draw))[0]
    visible = [" ".join(line.text.split()) for line in page.lines]
    assert not any("secret" in line for line in visible)
    assert any(left[:8] in line for line in visible)
    assert any(right[-8:] in line for line in visible)
    assert [technique for technique, text in page.hidden if "secret" in text] == ["pdf_colour_matches_background"]


def test_documents_read_right_to_left_keep_hidden_text_apart() -> None:
    """In a document read right to left (lines reordered), a hidden run between visible ones stays hidden."""
    content = (b"BT /F1 11 Tf 72 700 Td (Visible start...) Tj ET\n"
               b"1 1 1 rg BT /F1 11 Tf 160 700 Td (... 12345 !!! ...) Tj ET\n"
               b"0 0 0 rg BT /F1 11 Tf 260 700 Td (... visible end) Tj ET")
    data = hand_written_pdf(content, catalog=b" /ViewerPreferences << /Direction /R2L >>")
    page = _pages_from_pdf(data)[0]
    visible = " ".join(line.text for line in page.lines)
    assert "12345" not in visible
    assert "!" not in visible
    assert "Visible" in visible
    assert [text.split() for _technique, text in page.hidden] == [["...", "!!!", "12345", "..."]]


# (what, runs on one baseline as (text, x0, x1, join), the joined row): the text page's join decides where it is
# known, a space drawn at a run's edge separates, else the gap between the boxes.
JOINS = [
    ("the text page puts no space: one word, whatever the ink gap", [("figu", 72, 90, 0), ("re", 92, 100, 2)],
     "figure"),
    ("the text page puts a space, boxes touching", [("black", 72, 100, 0), ("Friday", 100, 130, 1)], "black Friday"),
    ("a run that starts with its space, boxes touching", [("flood", 72, 100, 0), (" came", 100, 130, 0)],
     "flood came"),
    ("a run that ends with its space, boxes touching", [("flood ", 72, 100, 0), ("came", 100, 130, 2)],
     "flood came"),
    ("join unknown: a wide gap is a space", [("left", 72, 100, 0), ("right", 105, 130, 0)], "left right"),
    ("join unknown: a narrow gap is none", [("left", 72, 100, 0), ("right", 100.5, 130, 0)], "leftright"),
]


@pytest.mark.parametrize(("what", "runs", "expected"), JOINS, ids=[what for what, _, _ in JOINS])
def test_runs_on_a_line_join(what: str, runs: list[tuple[str, float, float, int]], expected: str) -> None:
    """Runs on one baseline join into one paragraph as the table says."""
    lines = tuple(Line(text, 10.0, x0, x1, 700.0, 710.0, 700.0, join) for text, x0, x1, join in runs)
    blocks = page_blocks(PageFacts(1, lines, (), (), ()), 10.0).blocks
    assert [block.text for block in blocks] == [expected], what


# (what, lines as (text, size, top), the blocks as (kind, level, text))
BLOCKS = [
    ("a heading on two lines is one heading", [("How the river finds", 20, 760), ("its way to the sea", 20, 736),
                                               ("Body text follows.", 10, 700)],
     [("heading", 1, "How the river finds its way to the sea"), ("paragraph", 0, "Body text follows.")]),
    ("a long run of large text is a paragraph", [("A lead paragraph set large " * 3, 14, 760),
                                                 ("goes on for more than a heading would " * 2, 14, 742),
                                                 ("Body text follows.", 10, 700)],
     [("paragraph", 0, ("A lead paragraph set large " * 3).strip() + " " + ("goes on for more than a heading would "
                                                                          * 2).strip()),
      ("paragraph", 0, "Body text follows.")]),
    ("a lone bullet with no item beside it is dropped", [("\u2022", 10, 760), ("Body text.", 10, 700)],
     [("paragraph", 0, "Body text.")]),
    ("a private-use bullet marks an item", [("\uf0b7 Keep the jars upright.", 10, 760)],
     [("item", 0, "Keep the jars upright.")]),
]



def _prose(x0: float, base: float, text: str, size: float = 10.0) -> Line:
    return Line(text, size, x0, x0 + 6 * len(text), base - 2, base + 7, base)


# (what, lines as Line, the block texts): paragraphs as typesetters mark them.
PARAGRAPHS = [
    ("an indented first line starts a paragraph (TeX)",
     [_prose(72, 700, "the end of one paragraph, a line that runs on"), _prose(72, 688, "to its end."),
      _prose(87, 676, "The next paragraph starts indented"), _prose(72, 664, "and goes on at the margin.")],
     ["the end of one paragraph, a line that runs on to its end.",
      "The next paragraph starts indented and goes on at the margin."]),
    ("a step longer than the usual line step starts a paragraph (man pages)",
     [_prose(72, 700 - 12 * i, f"line {i} of the first paragraph") for i in range(5)]
     + [_prose(72, 700 - 48 - 17, "The second paragraph, after a short space.")],
     [" ".join(f"line {i} of the first paragraph" for i in range(5)), "The second paragraph, after a short space."]),
    ("a footnote mark raised after a word stays in its line and paragraph",
     [_prose(72, 700, "the end of a sentence."), Line("1", 7.0, 72 + 6 * 22 + 0.5, 72 + 6 * 22 + 4, 703.5, 709,
                                                      703.6),
      _prose(72 + 6 * 22 + 7, 700, "And on it goes."), _prose(72, 688, "the next line of the paragraph.")],
     ["the end of a sentence.1 And on it goes. the next line of the paragraph."]),
    ("a footnote's number opens its line",
     [Line("2", 6.0, 72, 75, 103, 108, 103.3), _prose(76, 100, "A footnote in small type.", 8.0)],
     ["2 A footnote in small type."]),
    ("an exponent joins its line", [_prose(72, 700, "E = mc"), Line("2", 7.0, 108.5, 112, 704, 709, 704)],
     ["E = mc2"]),
    ("a sentence that goes on in the next column is one paragraph",
     [_prose(72, 700, "The first column ends with a sentence"), _prose(72, 688, "that goes"),
      _prose(300, 700, "on in the second column.")],
     ["The first column ends with a sentence that goes on in the second column."]),
    ("a column that ends with a stop: the next column starts a paragraph",
     [_prose(72, 700, "The first column ends with a sentence"), _prose(72, 688, "that ends here."),
      _prose(300, 700, "another paragraph starts at the top.")],
     ["The first column ends with a sentence that ends here.", "another paragraph starts at the top."]),
    ("a table's rows (cells set apart on a line) are paragraphs of their own, the text after them too",
     [Line("North bank", 12, 59, 113, 418, 429, 421), Line("2 m", 12, 119, 136, 418, 429, 421, 1),
      Line("clear", 12, 153, 176, 418, 429, 421, 1), Line("South bank", 12, 59, 113, 401, 412, 404),
      Line("5 m", 12, 119, 136, 401, 412, 404, 1), Line("murky", 12, 153, 184, 401, 412, 404, 1),
      Line("Portion sizes follow.", 12, 59, 180, 384, 395, 387)],
     ["North bank 2 m clear", "South bank 5 m murky", "Portion sizes follow."]),
]


@pytest.mark.parametrize(("what", "lines", "expected"), PARAGRAPHS, ids=[what for what, _, _ in PARAGRAPHS])
def test_paragraphs_as_typeset(what: str, lines: list[Line], expected: list[str]) -> None:
    """Lines become the paragraphs the table says (body text at 10 pt)."""
    blocks = page_blocks(PageFacts(1, tuple(lines), (), (), ()), 10.0).blocks
    assert [block.text for block in blocks] == expected, what


@pytest.mark.parametrize(("what", "lines", "expected"), BLOCKS, ids=[what for what, _, _ in BLOCKS])
def test_rows_make_blocks(what: str, lines: list[tuple[str, float, float]], expected: list[tuple[str, int, str]]
                          ) -> None:
    """Rows become the blocks the table says (body text at 10 pt)."""
    facts = tuple(Line(text, size, 72.0, 500.0, top - size, top) for text, size, top in lines)
    blocks = page_blocks(PageFacts(1, facts, (), (), ()), 10.0).blocks
    assert [(block.kind, block.level, block.text) for block in blocks] == expected, what


# (what, the run's text, the text it reads as)
LETTERS = [
    ("presentation-form ligatures", "\ufb01gure \ufb02ow o\ufb03ce\ufb00", "figure flow officeff"),
    ("TeX T1 codes in a Type 3 font", "o\x1ecial sta\x1b \x1cled \x1dow shu\x1fe", "official staff filed flow shuffle"),
    ("TeX OT1 codes in a Type 3 font", "\x0cnd o\x0eces", "find offices"),
    ("a control character beside no letter stays a separator", "a \x1c b", "a b"),
    ("a glyph without a Unicode value (NUL) and other controls are spaces", "first.\x00Nobody \x07\x7f was",
     "first. Nobody was"),
]


@pytest.mark.parametrize(("what", "raw", "expected"), LETTERS, ids=[what for what, _, _ in LETTERS])
def test_ligatures_are_letters(what: str, raw: str, expected: str) -> None:
    """A run's ligatures read as the letters they stand for."""
    blocks = page_blocks(PageFacts(1, (Line(raw, 10.0, 72.0, 300.0, 700.0, 710.0),), (), (), ()), 10.0).blocks
    assert [block.text for block in blocks] == [expected], what
