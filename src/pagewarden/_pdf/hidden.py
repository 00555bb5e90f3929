"""What a person could not see: the hidden-text rules, as pure functions over drawing facts.

The worker (:mod:`.extract`) measures each text object of a page (render mode,
fill or stroke colour, effective font size, box) and the opaque objects drawn
around it; these functions turn those facts into a named technique, or
``None`` for visible text. They know nothing of PDF libraries, so the rules
can be tested as data tables.

Techniques (the ``vias`` of the guard's hidden segments):

``pdf_render_invisible``
    text render mode 3 (neither fill nor stroke) or 7 (clip only).
``pdf_transparent``
    the paint colour has alpha 0.
``pdf_colour_matches_background``
    the paint colour is within :data:`COLOUR_TOLERANCE` (per RGB channel, of
    255) of the background it sits on: the topmost opaque fill drawn earlier
    under it, or the page's white.
``pdf_tiny_font``
    effective size under :data:`MIN_FONT_SIZE` points.
``pdf_outside_page``
    the glyphs lie outside the visible page box (crop box within the media box).
``pdf_covered``
    an opaque image or filled shape drawn later covers the glyphs.
``pdf_optional_content_off``
    the text is in an optional-content group (a layer) that the document's
    default view does not draw (judged by rendering: :mod:`.layers`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "COLOUR_TOLERANCE",
    "MIN_FONT_SIZE",
    "STROKE_ONLY_MODES",
    "TECHNIQUES",
    "WHITE",
    "Box",
    "Paint",
    "box_outside",
    "classify",
    "classify_object",
    "contains",
    "covered_by",
    "intersection_ratio",
]

# Footnotes are set in 6-8 pt; under 2 pt no reader sees words.
MIN_FONT_SIZE = 2.0
# Per RGB channel, out of 255: near-white on white (250, 250, 250) is hidden;
# light grey (200, 200, 200) on white is visible.
COLOUR_TOLERANCE = 24
WHITE = (255, 255, 255)
INVISIBLE_MODES = frozenset({3, 7})
STROKE_ONLY_MODES = frozenset({1, 5})
TECHNIQUES = (
    "pdf_render_invisible",
    "pdf_transparent",
    "pdf_colour_matches_background",
    "pdf_tiny_font",
    "pdf_outside_page",
    "pdf_covered",
    "pdf_optional_content_off",
)
# A box counts as inside the page when this share of it is inside; a glyph
# box counts as covered when this share of it is under the opaque object.
INSIDE_RATIO = 0.9
COVER_RATIO = 0.9

Box = tuple[float, float, float, float]  # left, bottom, right, top (page space)


@dataclass(frozen=True, slots=True)
class Paint:
    """The drawing facts of one text object.

    Attributes:
        mode: the text render mode (0..7).
        fill: fill colour as (r, g, b, alpha), 0..255.
        stroke: stroke colour as (r, g, b, alpha), 0..255.
        size: the effective font size in points (after the text and CTM scaling).
        box: where the glyphs are, in page space.
        background: the colour of the opaque fill under the text (``None``
            when it is an image or unknown; the page is white by default).
    """

    mode: int
    fill: tuple[int, int, int, int]
    stroke: tuple[int, int, int, int]
    size: float
    box: Box
    background: tuple[int, int, int] | None = WHITE


def _area(box: Box) -> float:
    return max(0.0, box[2] - box[0]) * max(0.0, box[3] - box[1])


def intersection_ratio(box: Box, other: Box) -> float:
    """The share of ``box`` inside ``other`` (1.0 for a degenerate box whose point lies inside)."""
    left, bottom = max(box[0], other[0]), max(box[1], other[1])
    right, top = min(box[2], other[2]), min(box[3], other[3])
    area = _area(box)
    if area <= 0.0:
        x, y = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        return 1.0 if other[0] <= x <= other[2] and other[1] <= y <= other[3] else 0.0
    if right <= left or top <= bottom:
        return 0.0
    return (right - left) * (top - bottom) / area


def contains(outer: Box, x: float, y: float) -> bool:
    """Whether the point lies in ``outer``."""
    return outer[0] <= x <= outer[2] and outer[1] <= y <= outer[3]


def box_outside(box: Box, visible: Box) -> bool:
    """Whether (most of) ``box`` lies outside the visible page box."""
    if visible[0] <= box[0] and box[2] <= visible[2] and visible[1] <= box[1] and box[3] <= visible[3]:
        return False
    return intersection_ratio(box, visible) < INSIDE_RATIO


def covered_by(box: Box, covers: Sequence[Box]) -> bool:
    """Whether one opaque box drawn later covers ``box``."""
    return any(intersection_ratio(box, cover) >= COVER_RATIO for cover in covers)


def _close(colour: tuple[int, int, int, int], background: tuple[int, int, int]) -> bool:
    return (abs(colour[0] - background[0]) <= COLOUR_TOLERANCE and abs(colour[1] - background[1]) <= COLOUR_TOLERANCE
            and abs(colour[2] - background[2]) <= COLOUR_TOLERANCE)


def classify_object(paint: Paint) -> str | None:
    """The technique that hides a whole text object, or ``None`` when its paint is visible.

    Position (outside the page, covered) is judged separately, glyph by glyph
    when an object is only partly affected: see :func:`box_outside` and
    :func:`covered_by`.
    """
    return classify(paint.mode, paint.fill, paint.stroke, paint.size, paint.background)


def classify(mode: int, fill: tuple[int, int, int, int], stroke: tuple[int, int, int, int], size: float,
             background: tuple[int, int, int] | None) -> str | None:
    """:func:`classify_object` on the facts themselves (the worker judges every text object: no :class:`Paint`)."""
    if mode in INVISIBLE_MODES:
        return "pdf_render_invisible"
    colour = stroke if mode in STROKE_ONLY_MODES else fill
    if colour[3] == 0:
        return "pdf_transparent"
    if background is not None and _close(colour, background):
        return "pdf_colour_matches_background"
    if 0.0 <= size < MIN_FONT_SIZE:
        return "pdf_tiny_font"
    return None
