"""Inside the worker: one page's text, split into what a person sees and what is hidden.

Two PDFium views of the page are joined here:

- the page objects in drawing order (form XObjects flattened, their matrices
  applied): each text object's paint (render mode, fill or stroke colour,
  effective size, box) and the opaque images and filled shapes drawn before it
  (its background) or after it (what may cover it);
- the text page: the page's text in one call, and which text object each
  character belongs to.

Each text object is judged once, as a whole, by :mod:`.hidden`; its text is
the characters the text page attributes to it. Only an object partly outside
the page or partly covered is judged glyph by glyph.

Which object owns which characters: :mod:`.textmap`.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterator
from dataclasses import dataclass, field
from typing import Any

from . import native
from .hidden import STROKE_ONLY_MODES, WHITE, Box, Paint, box_outside, classify_object, contains, covered_by
from .layers import is_optional, undrawn
from .native import Matrix, Out
from .textmap import TextMap

__all__ = ["MAX_COVER_CANDIDATES", "MAX_FORM_DEPTH", "MAX_OBJECTS_PER_PAGE", "PageText", "read_page_text"]

# Bounds on what one page may make us walk; they keep a crafted file's
# structure from turning into time or memory.
MAX_OBJECTS_PER_PAGE = 200_000
MAX_FORM_DEPTH = 16
MAX_COVER_CANDIDATES = 20_000
_RECT_SEGMENTS = 8
_TEXT, _PATH, _IMAGE, _FORM = 1, 2, 3, 5
_IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
_NO_STROKE = (0, 0, 0, 0)


class LimitExceeded(Exception):
    """A job limit was crossed; ``args[0]`` names it (``pages``, ``characters``, ``objects``, ``depth``)."""


@dataclass(slots=True)
class Budget:
    """Characters a document may still yield."""

    left: int

    def take(self, text: str) -> str:
        """Count ``text`` against the budget and return it."""
        self.left -= len(text)
        if self.left < 0:
            raise LimitExceeded("characters")
        return text


@dataclass(slots=True)
class _Item:
    """One page object in drawing order."""

    handle: int
    kind: int
    box: Box
    rank: int
    scale: float = 1.0
    optional: bool = False  # inside a form tagged as optional content


@dataclass(slots=True)
class PageText:
    """One page's visible lines and hidden runs (``[technique, text]``).

    A line is ``[text, size, x0, x1, y0, y1]``: the size in hundredths of a point, the box in tenths.
    """

    lines: list[list[Any]] = field(default_factory=list)
    hidden: list[list[str]] = field(default_factory=list)
    truncated_covers: bool = False


Fill = tuple[_Item, tuple[int, int, int] | None]


class _Fills:
    """Opaque images and filled shapes of a page, indexed by horizontal bands so a text object
    is compared only with those near it (a table's cell backgrounds stay cheap)."""

    BAND = 36.0

    def __init__(self) -> None:
        self._bands: dict[int, list[Fill]] = {}
        self._count = 0
        self.truncated = False

    def _span(self, box: Box) -> range:
        low, high = int(box[1] // self.BAND), int(box[3] // self.BAND)
        # A page-sized box spans a few dozen bands; anything far off the page is clamped.
        return range(max(low, -64), min(high, 256) + 1)

    def __bool__(self) -> bool:
        return self._count > 0

    def add(self, item: _Item, colour: tuple[int, int, int] | None) -> None:
        if self._count >= MAX_COVER_CANDIDATES:
            self.truncated = True
            return
        self._count += 1
        for band in self._span(item.box):
            self._bands.setdefault(band, []).append((item, colour))

    def near(self, box: Box) -> list[Fill]:
        """The fills in the bands ``box`` touches, in drawing order, each once."""
        found: dict[int, Fill] = {}
        for band in self._span(box):
            for entry in self._bands.get(band, ()):
                found[entry[0].rank] = entry
        return [found[rank] for rank in sorted(found)]


def _multiply(inner: Matrix, outer: Matrix) -> Matrix:
    a, b, c, d, e, f = inner
    a2, b2, c2, d2, e2, f2 = outer
    return (a * a2 + b * c2, a * b2 + b * d2, c * a2 + d * c2, c * b2 + d * d2,
            e * a2 + f * c2 + e2, e * b2 + f * d2 + f2)


def _transform(box: Box, m: Matrix) -> Box:
    if m == _IDENTITY:
        return box
    xs, ys = [], []
    for x, y in ((box[0], box[1]), (box[0], box[3]), (box[2], box[1]), (box[2], box[3])):
        xs.append(m[0] * x + m[2] * y + m[4])
        ys.append(m[1] * x + m[3] * y + m[5])
    return (min(xs), min(ys), max(xs), max(ys))


def _vertical_scale(m: Matrix) -> float:
    return float((m[2] * m[2] + m[3] * m[3]) ** 0.5)


def _walk(page: int, out: Out, texts: Container[int]) -> list[_Item]:
    """Every page object in drawing order, form XObjects flattened with their matrices applied
    (text objects only when they hold text: those in ``texts``)."""
    items: list[_Item] = []
    seen = [0]
    object_type, bounds = native.object_type, out.bounds

    def visit(parent: int, count: int, get: Callable[[int, int], int | None], matrix: Matrix, depth: int,
              optional: bool) -> None:
        scale = _vertical_scale(matrix)
        identity = matrix == _IDENTITY
        seen[0] += count
        if seen[0] > MAX_OBJECTS_PER_PAGE:
            raise LimitExceeded("objects")
        for index in range(count):
            handle = get(parent, index)
            if not handle:
                continue
            kind = object_type(handle)
            if kind == _TEXT and handle not in texts:
                continue
            if kind == _FORM:
                if depth >= MAX_FORM_DEPTH:
                    raise LimitExceeded("depth")
                inner = _multiply(out.matrix(handle) or _IDENTITY, matrix)
                visit(handle, native.form_count_objects(handle), native.form_get_object, inner, depth + 1,
                      optional or is_optional(handle))
                continue
            box = bounds(handle)
            if box is None:
                continue
            items.append(_Item(handle, kind, box if identity else _transform(box, matrix), len(items), scale,
                               optional))

    visit(page, native.count_objects(page), native.get_object, _IDENTITY, 0, False)
    return items


def _opaque_fill(item: _Item, out: Out) -> tuple[int, int, int] | bool | None:
    """For a filled opaque path: its colour; for an image: ``None`` (colour unknown); else ``False``."""
    if item.kind == _IMAGE:
        return None
    if item.kind != _PATH:
        return False
    mode = out.draw_mode(item.handle)
    if mode is None or mode[0] == 0:
        return False
    if native.path_count_segments(item.handle) > _RECT_SEGMENTS:
        return False
    r, g, b, a = out.colour(native.fill_colour, item.handle)
    return (r, g, b) if a == 255 else False


def _glyph_runs(page: TextMap, handle: int, out: Out, judge: Callable[[Box], str | None]
                ) -> Iterator[tuple[str | None, str]]:
    """The object's glyphs, consecutive ones with the same verdict joined, as (technique or None, text)."""
    current: str | None = None
    parts: list[str] = []
    for start, end in page.runs.get(handle, ()):
        for index in range(start, end):
            char = page.text[index]
            box = out.char_box(page.handle, index)
            if box is None:
                continue
            verdict = current if char.isspace() else judge(box)
            if parts and verdict != current:
                yield current, "".join(parts)
                parts = []
            current = verdict
            parts.append(char)
    if parts:
        yield current, "".join(parts)


def _effective_size(item: _Item, out: Out) -> float:
    """The font size as drawn: the nominal size scaled by the text object's and enclosing forms' matrices."""
    nominal = out.font_size(item.handle)
    height = item.box[3] - item.box[1]
    if nominal <= 0:
        return height
    drawn = nominal * _vertical_scale(out.matrix(item.handle) or _IDENTITY) * item.scale
    # Glyph boxes are never much taller than the size they are drawn at.
    return min(drawn, height * 2) if height > 0 else drawn


def _overlaps(box: Box, other: Box) -> bool:
    return box[0] < other[2] and other[0] < box[2] and box[1] < other[3] and other[1] < box[3]


def _surroundings(item: _Item, fills: _Fills) -> tuple[tuple[int, int, int] | None, list[Box]]:
    """The background under the text object's centre, and the boxes drawn later that overlap it."""
    box = item.box
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    background: tuple[int, int, int] | None = WHITE
    covers: list[Box] = []
    for fill, colour in fills.near(box):
        if fill.rank < item.rank:
            if contains(fill.box, cx, cy):
                background = colour
        elif _overlaps(box, fill.box):
            covers.append(fill.box)
    return background, covers


def _line(text: str, paint: Paint) -> list[Any]:
    # Whole numbers (size in hundredths of a point, box in tenths) are cheaper to write and read than floats.
    left, bottom, right, top = paint.box
    return [text, round(paint.size * 100), round(left * 10), round(right * 10), round(bottom * 10), round(top * 10)]


def read_page_text(page: Any, textpage: Any, visible_box: Box, budget: Budget, *, right_to_left: bool = False
                   ) -> PageText:
    """Judge every text object of ``page`` and return its visible lines and hidden runs (``right_to_left``:
    the document's reading direction is right to left, so its text page reorders every line)."""
    out = Out()
    chars = TextMap(native.address(textpage), right_to_left=right_to_left)
    items = _walk(native.address(page), out, chars.runs)
    result = PageText()
    fills = _Fills()
    for item in items:
        if item.kind in (_PATH, _IMAGE):
            colour = _opaque_fill(item, out)
            if colour is not False:
                fills.add(item, colour if isinstance(colour, tuple) else None)
    result.truncated_covers = fills.truncated
    optional: dict[int, tuple[_Item, list[int]]] = {}  # visible objects tagged as optional content: their lines
    for item in items:
        if item.kind != _TEXT:
            continue
        text = chars.of(item.handle)
        if not text.strip():
            continue
        budget.take(text)
        background, covers = _surroundings(item, fills) if fills else (WHITE, [])
        mode = native.text_render_mode(item.handle)
        paint = Paint(
            mode=mode,
            fill=out.colour(native.fill_colour, item.handle),
            stroke=out.colour(native.stroke_colour, item.handle) if mode in STROKE_ONLY_MODES else _NO_STROKE,
            size=_effective_size(item, out),
            box=item.box,
            background=background,
        )
        technique = classify_object(paint)
        if technique is not None:
            result.hidden.append([technique, text])
            continue
        first_line = len(result.lines)
        if item.optional or is_optional(item.handle):
            optional[item.handle] = (item, [])
        if not box_outside(item.box, visible_box) and not covers:
            result.lines.append(_line(text, paint))
            _note_optional(optional, item, first_line, result)
            continue
        # Partly outside or partly covered: judge glyph by glyph.

        def judge(glyph: Box, covers: list[Box] = covers) -> str | None:
            if box_outside(glyph, visible_box):
                return "pdf_outside_page"
            if covered_by(glyph, covers):
                return "pdf_covered"
            return None

        runs = list(_glyph_runs(chars, item.handle, out, judge)) or [(judge(item.box), text)]
        for verdict, run in runs:
            if verdict is None:
                result.lines.append(_line(run, paint))
            elif run.strip():
                result.hidden.append([verdict, run])
        _note_optional(optional, item, first_line, result)
    if optional:
        _hide_undrawn(page, optional, items, result)
    return result


def _note_optional(optional: dict[int, tuple[_Item, list[int]]], item: _Item, first_line: int,
                   result: PageText) -> None:
    if item.handle in optional:
        optional[item.handle][1].extend(range(first_line, len(result.lines)))


def _hide_undrawn(page: Any, optional: dict[int, tuple[_Item, list[int]]], items: list[_Item],
                  result: PageText) -> None:
    """Move the lines of optional content the default view does not draw from the visible lines to the hidden."""
    boxes = {handle: item.box for handle, (item, lines) in optional.items() if lines}
    if not boxes:
        return
    gone: set[int] = set()
    for handle in sorted(undrawn(page, boxes, (item.handle for item in items)), key=lambda h: optional[h][0].rank):
        for index in optional[handle][1]:
            gone.add(index)
            result.hidden.append(["pdf_optional_content_off", result.lines[index][0]])
    result.lines = [line for index, line in enumerate(result.lines) if index not in gone]
