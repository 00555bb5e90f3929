"""The hidden-text rules and the worker-answer checks, as data tables (no PDF library involved)."""

from __future__ import annotations

from typing import Any

import pytest

import pagewarden
from pagewarden._pdf.facts import parse_facts
from pagewarden._pdf.hidden import Paint, box_outside, classify_object, covered_by

BLACK = (0, 0, 0, 255)
BOX = (72.0, 600.0, 400.0, 612.0)

PAINT_CASES = [
    # (mode, fill, stroke, size, background, expected)
    (0, BLACK, BLACK, 11.0, (255, 255, 255), None),
    (3, BLACK, BLACK, 11.0, (255, 255, 255), "pdf_render_invisible"),
    (7, BLACK, BLACK, 11.0, (255, 255, 255), "pdf_render_invisible"),
    (2, BLACK, BLACK, 11.0, (255, 255, 255), None),
    (0, (255, 255, 255, 255), BLACK, 11.0, (255, 255, 255), "pdf_colour_matches_background"),
    (0, (250, 250, 250, 255), BLACK, 11.0, (255, 255, 255), "pdf_colour_matches_background"),
    (0, (231, 231, 231, 255), BLACK, 11.0, (255, 255, 255), "pdf_colour_matches_background"),
    (0, (230, 230, 230, 255), BLACK, 11.0, (255, 255, 255), None),  # just past the tolerance: visible
    (0, (200, 200, 200, 255), BLACK, 11.0, (255, 255, 255), None),  # light grey on white is readable
    (0, (20, 40, 130, 255), BLACK, 11.0, (25, 50, 128), "pdf_colour_matches_background"),
    (0, (255, 255, 255, 255), BLACK, 11.0, (25, 50, 128), None),  # white on dark blue is visible
    (0, (255, 255, 255, 255), BLACK, 11.0, None, None),  # on an image: colour cannot be judged
    (1, (255, 255, 255, 255), BLACK, 11.0, (255, 255, 255), None),  # stroke-only: the stroke colour counts
    (1, BLACK, (255, 255, 255, 255), 11.0, (255, 255, 255), "pdf_colour_matches_background"),
    (0, (0, 0, 0, 0), BLACK, 11.0, (255, 255, 255), "pdf_transparent"),
    (0, BLACK, BLACK, 1.9, (255, 255, 255), "pdf_tiny_font"),
    (0, BLACK, BLACK, 2.0, (255, 255, 255), None),
    (0, BLACK, BLACK, 6.0, (255, 255, 255), None),  # footnote size stays visible
]


@pytest.mark.parametrize(("mode", "fill", "stroke", "size", "background", "expected"), PAINT_CASES)
def test_paint_rules(mode: int, fill: tuple[int, int, int, int], stroke: tuple[int, int, int, int], size: float,
                     background: tuple[int, int, int] | None, expected: str | None) -> None:
    """Each paint is judged visible or hidden by the named technique, with the thresholds at their edges."""
    paint = Paint(mode=mode, fill=fill, stroke=stroke, size=size, box=BOX, background=background)
    assert classify_object(paint) == expected


PAGE = (0.0, 0.0, 595.0, 842.0)
POSITION_CASES = [
    ((72.0, 600.0, 400.0, 612.0), False),
    ((72.0, 1000.0, 400.0, 1012.0), True),  # above the page
    ((-500.0, 600.0, -100.0, 612.0), True),  # left of the page
    ((560.0, 600.0, 700.0, 612.0), True),  # mostly past the right edge
    ((72.0, 836.0, 400.0, 845.0), True),  # a third of the glyph height past the top edge
    ((72.0, 832.0, 400.0, 842.5), False),  # half a point over the edge: 95% inside
]


@pytest.mark.parametrize(("box", "outside"), POSITION_CASES)
def test_outside_the_page_box(box: tuple[float, float, float, float], outside: bool) -> None:
    """A box counts as outside when less than 90% of it lies in the visible page box."""
    assert box_outside(box, PAGE) is outside


COVER_CASES = [
    (BOX, [(60.0, 590.0, 500.0, 620.0)], True),
    (BOX, [(60.0, 590.0, 200.0, 620.0)], False),  # covers the start only
    (BOX, [(60.0, 611.0, 500.0, 640.0)], False),  # a rule touching the top edge
    (BOX, [], False),
]


@pytest.mark.parametrize(("box", "covers", "covered"), COVER_CASES)
def test_covered(box: tuple[float, float, float, float], covers: list[tuple[float, float, float, float]],
                 covered: bool) -> None:
    """Text is covered only when one opaque object drawn later hides 90% of its box."""
    assert covered_by(box, covers) is covered


def _facts(**changes: Any) -> dict[str, Any]:
    facts: dict[str, Any] = {
        "page_count": 1, "encrypted": False, "metadata": {}, "outline": [], "attachments": [], "javascript": [],
        "pages": [{"texts": ["text"], "numbers": [1000, 0, 10, 0, 10, 5, 0], "hidden": [],
                   "annotations": [], "links": []}],
    }
    facts.update(changes)
    return facts


def _page(texts: Any, numbers: Any, **changes: Any) -> dict[str, Any]:
    return {"texts": texts, "numbers": numbers, "hidden": [], "annotations": [], "links": [], **changes}


INVALID_FACTS = [
    {"pages": "not a list"},
    {"pages": [_page([5], [10, 0, 1, 0, 1, 0, 0])]},  # a text that is not a string
    {"pages": [_page(["text"], [10, 0, 1, 0, 1, 0])]},  # six numbers for a line, not seven
    {"pages": [_page(["text"], [10, 0, 1, 0, 1, 0, 0, 0])]},  # eight
    {"pages": [_page(["text"], [10, 0, 1, 0, 1, 0, 7])]},  # a join that is not 0, 1 or 2
    {"pages": [_page(["text"], [10.5, 0, 1, 0, 1, 0, 0])]},  # a float
    {"pages": [_page(["text"], [True, 0, 1, 0, 1, 0, 0])]},  # a bool is not a number
    {"pages": [_page(["text"], [10, 0, 1, 0, 1, 10**400, 0])]},  # too large for a float
    {"pages": [_page("text", [10, 0, 1, 0, 1, 0, 0])]},  # texts not a list
    {"pages": [_page(["text"], (10, 0, 1, 0, 1, 0, 0))]},  # numbers not a list
    {"pages": [_page([], [], hidden=[["made_up_technique", "x"]])]},
    {"pages": [_page([], [], annotations=[["pdf_annotation_contents"]])]},
    {"metadata": {"Title": 3}},
    {"page_count": "1"},
    {"javascript": [["name"]]},
]


def test_well_formed_facts_parse() -> None:
    """The shape the worker sends parses into typed facts."""
    facts = parse_facts(_facts())
    assert facts.pages[0].lines[0].text == "text"
    assert facts.pages[0].lines[0].size == 10.0
    assert facts.pages[0].lines[0].x1 == 1.0
    assert facts.pages[0].lines[0].base == 0.5
    assert facts.pages[0].number == 1


@pytest.mark.parametrize("change", INVALID_FACTS)
def test_invalid_worker_answers_are_typed_errors(change: dict[str, Any]) -> None:
    """Anything off in the worker's answer is DOCUMENT_UNREADABLE (pdf_worker_invalid), never a crash."""
    with pytest.raises(pagewarden.DocumentUnreadable) as caught:
        parse_facts(_facts(**change))
    assert caught.value.reason == "pdf_worker_invalid"
