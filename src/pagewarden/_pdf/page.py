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

import re
from collections.abc import Callable, Container, Iterator
from dataclasses import dataclass, field
from typing import Any

from . import native
from .hidden import STROKE_ONLY_MODES, WHITE, Box, box_outside, classify, contains, covered_by
from .layers import is_optional, undrawn
from .native import Matrix, Out
from .textmap import TextMap, whole

__all__ = [
    "JOIN_NONE", "JOIN_SPACE", "JOIN_UNKNOWN", "MAX_COVER_CANDIDATES", "MAX_FORM_DEPTH", "MAX_OBJECTS_PER_PAGE",
    "NUMBERS_PER_LINE", "PageText", "read_page_text",
]

# Bounds on what one page may make us walk; they keep a crafted file's
# structure from turning into time or memory.
MAX_OBJECTS_PER_PAGE = 200_000
MAX_FORM_DEPTH = 16
MAX_COVER_CANDIDATES = 20_000
_RECT_SEGMENTS = 8
# A bullet drawn as a shape is this many points wide and high (a disc at 10-16 px text is 3.5-6 pt).
_BULLET_MIN, _BULLET_MAX = 1.5, 8.0
BULLET = "\u2022"
_TEXT, _PATH, _IMAGE, _FORM = 1, 2, 3, 5
_IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
_NO_STROKE = (0, 0, 0, 0)
# A letter or a digit: text whose glyphs reach some height (see _effective_size).
_ALNUM = re.compile(r"[^\W_]")


# How PDFium's text page joins a run to the character before it, which it decides from the glyphs' advances
# and the font's space (ink boxes, all the layout sees, leave gaps inside words): the run starts a text-page line
# (or is judged glyph by glyph), a space comes first, or nothing (one word goes on).
JOIN_UNKNOWN, JOIN_SPACE, JOIN_NONE = 0, 1, 2
NUMBERS_PER_LINE = 7


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
    """A page object other than text, in drawing order (images and filled shapes may hide text)."""

    handle: int
    kind: int
    box: Box
    rank: int


# A text object that holds text, in drawing order: handle, box (page space), rank, the enclosing forms' matrix
# (None on the page itself) and whether an enclosing form is tagged as optional content. A tuple: a page has
# hundreds.
_Text = tuple[int, Box, int, "Matrix | None", bool]


@dataclass(slots=True)
class PageText:
    """One page's visible lines and hidden runs (``[technique, text]``).

    Lines are sent flat, cheaper to write and read than a list per line: ``texts``, and per text seven whole
    numbers in ``numbers``: the size in hundredths of a point, then x0, x1, y0, y1 and the baseline in tenths,
    then how the text page joins the run to the text before it on its line (:data:`JOIN_UNKNOWN`,
    :data:`JOIN_SPACE`, :data:`JOIN_NONE`).
    """

    texts: list[str] = field(default_factory=list)
    numbers: list[int] = field(default_factory=list)
    hidden: list[list[str]] = field(default_factory=list)
    truncated_covers: bool = False


# A fill and its colour with alpha (``None`` for an image: colour unknown, taken as opaque).
Fill = tuple[_Item, tuple[int, int, int, int] | None]


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

    def add(self, item: _Item, colour: tuple[int, int, int, int] | None) -> None:
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


def _walk(page: int, out: Out, owners: Container[int]) -> tuple[list[_Text], list[_Item]]:
    """Every page object in drawing order, form XObjects flattened with their matrices applied: the text
    objects that hold text (those in ``owners``), and every other object."""
    texts: list[_Text] = []
    others: list[_Item] = []
    seen = [0]
    object_type, bounds = native.object_type, out.bounds

    def visit(parent: int, count: int, get: Callable[[int, int], int | None], matrix: Matrix | None, depth: int,
              optional: bool) -> None:
        seen[0] += count
        if seen[0] > MAX_OBJECTS_PER_PAGE:
            raise LimitExceeded("objects")
        for index in range(count):
            handle = get(parent, index)
            if not handle:
                continue
            kind = object_type(handle)
            if kind == _TEXT:
                if handle not in owners:
                    continue
            elif kind == _FORM:
                if depth >= MAX_FORM_DEPTH:
                    raise LimitExceeded("depth")
                inner = _multiply(out.matrix(handle) or _IDENTITY, matrix or _IDENTITY)
                visit(handle, native.form_count_objects(handle), native.form_get_object, inner, depth + 1,
                      optional or is_optional(handle))
                continue
            box = bounds(handle)
            if box is None:
                continue
            if matrix is not None:
                box = _transform(box, matrix)
            if kind == _TEXT:
                texts.append((handle, box, len(texts) + len(others), matrix, optional))
            else:
                others.append(_Item(handle, kind, box, len(texts) + len(others)))

    visit(page, native.count_objects(page), native.get_object, None, 0, False)
    return texts, others


def _fill(item: _Item, out: Out) -> tuple[int, int, int, int] | bool | None:
    """For a filled path that paints (alpha above 0): its colour and alpha; for an image: ``None`` (colour
    unknown); else ``False``."""
    if item.kind == _IMAGE:
        return None
    if item.kind != _PATH:
        return False
    mode = out.draw_mode(item.handle)
    if mode is None or mode[0] == 0:
        return False
    if native.path_count_segments(item.handle) > _RECT_SEGMENTS:
        return False
    colour = out.colour(native.fill_colour, item.handle)
    return colour if colour[3] > 0 else False


def _is_bullet(item: _Item, out: Out) -> bool:
    """Whether a path is a list bullet drawn as a shape (a printed web page's disc or square): small, about as
    wide as high, filled."""
    if item.kind != _PATH:
        return False
    width, height = item.box[2] - item.box[0], item.box[3] - item.box[1]
    if not (_BULLET_MIN <= width <= _BULLET_MAX and _BULLET_MIN <= height <= _BULLET_MAX
            and 0.6 * height <= width <= 1.6 * height):
        return False
    mode = out.draw_mode(item.handle)
    return mode is not None and mode[0] != 0


def _over(colour: tuple[int, int, int, int], background: tuple[int, int, int]) -> tuple[int, int, int]:
    """``colour`` painted with its alpha over ``background``."""
    alpha = colour[3] / 255
    return (round(colour[0] * alpha + background[0] * (1 - alpha)),
            round(colour[1] * alpha + background[1] * (1 - alpha)),
            round(colour[2] * alpha + background[2] * (1 - alpha)))


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
                yield current, whole("".join(parts))
                parts = []
            current = verdict
            parts.append(char)
    if parts:
        yield current, whole("".join(parts))


def _effective_size(nominal: float, matrix: Matrix | None, form: Matrix | None, box: Box, text: str) -> float:
    """The font size as drawn: the nominal size scaled by the text object's and enclosing forms' matrices."""
    height = box[3] - box[1]
    if nominal <= 0:
        return height
    drawn = nominal * _vertical_scale(matrix or _IDENTITY) * (_vertical_scale(form) if form else 1.0)
    # Glyph boxes are never much taller than the size they are drawn at, so a short box caps the size. Not for
    # text without a letter or a digit: dot leaders, rules of dashes or underscores draw flat glyphs at any size
    # (and such text carries no words to hide). The text is searched only when the cap would change the size.
    capped = height * 2
    if height > 0 and capped < drawn and _ALNUM.search(text) is not None:
        return capped
    return drawn


def _baseline(matrix: Matrix | None, form: Matrix | None, box: Box) -> float:
    """Where the text object's baseline starts (its matrix's origin, in page space); the box's bottom without one."""
    if matrix is None:
        return box[1]
    if form is None:
        return matrix[5]
    return form[1] * matrix[4] + form[3] * matrix[5] + form[5]


def _overlaps(box: Box, other: Box) -> bool:
    return box[0] < other[2] and other[0] < box[2] and box[1] < other[3] and other[1] < box[3]


def _surroundings(box: Box, rank: int, fills: _Fills) -> tuple[tuple[int, int, int] | None, list[Box]]:
    """The background under the text object's centre (the fills drawn earlier that hold it, each painted with its
    alpha over what is below it), and the opaque boxes drawn later that overlap it."""
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    background: tuple[int, int, int] | None = WHITE
    covers: list[Box] = []
    for fill, colour in fills.near(box):
        if fill.rank < rank:
            if contains(fill.box, cx, cy):
                if colour is None or colour[3] == 255:
                    background = None if colour is None else colour[:3]
                elif background is not None:
                    # A translucent fill (a banner's shade) tints what is under it; it hides nothing itself.
                    background = _over(colour, background)
        elif (colour is None or colour[3] == 255) and _overlaps(box, fill.box):
            covers.append(fill.box)
    return background, covers


def read_page_text(page: Any, textpage: Any, visible_box: Box, budget: Budget, *, right_to_left: bool = False
                   ) -> PageText:
    """Judge every text object of ``page`` and return its visible lines and hidden runs (``right_to_left``:
    the document's reading direction is right to left, so its text page reorders every line)."""
    out = Out()
    chars = TextMap(native.address(textpage), right_to_left=right_to_left)
    texts, others = _walk(native.address(page), out, chars.runs)
    result = PageText()
    fills = _Fills()
    for item in others:
        if item.kind in (_PATH, _IMAGE):
            colour = _fill(item, out)
            if colour is not False:
                fills.add(item, colour if isinstance(colour, tuple) else None)
    result.truncated_covers = fills.truncated
    # Bullets drawn as shapes become a "•" line in drawing order (the layout joins it to its item, or drops it).
    bullets = [item for item in others if item.kind == _PATH and _is_bullet(item, out)]
    next_bullet = 0
    optional: dict[int, tuple[Box, int, list[int]]] = {}  # visible objects tagged as optional content
    # This loop runs for every text object of every page: what it calls is bound to locals once, and the common
    # cases of TextMap.of, Budget.take and _baseline are written out.
    left, bottom, right, top = visible_box
    runs_of, page_text, text_of = chars.runs, chars.text, chars.of
    paint_of, count_marks = out.text_paint, native.count_marks
    line_texts, numbers, hidden = result.texts, result.numbers, result.hidden
    no_covers: list[Box] = []
    for handle, box, rank, form, in_optional_form in texts:
        while next_bullet < len(bullets) and bullets[next_bullet].rank < rank:
            shape = bullets[next_bullet].box
            budget.left -= 1  # a bullet counts as the character it becomes
            if budget.left < 0:
                raise LimitExceeded("characters")
            line_texts.append(BULLET)
            numbers.extend((0, round(shape[0] * 10), round(shape[2] * 10), round(shape[1] * 10), round(shape[3] * 10),
                            round(shape[1] * 10), JOIN_UNKNOWN))
            next_bullet += 1
        runs = runs_of[handle]  # the walk kept only objects that own characters
        text = page_text[runs[0][0] : runs[0][1]] if len(runs) == 1 else text_of(handle)
        if chars.surrogates:
            text = whole(text)
        if not text or text.isspace():
            continue
        budget.left -= len(text)
        if budget.left < 0:
            raise LimitExceeded("characters")
        background, covers = _surroundings(box, rank, fills) if fills else (WHITE, no_covers)
        mode, fill, nominal, matrix = paint_of(handle)
        stroke = out.colour(native.stroke_colour, handle) if mode in STROKE_ONLY_MODES else _NO_STROKE
        size = _effective_size(nominal, matrix, form, box, text)
        technique = classify(mode, fill, stroke, size, background)
        if technique is not None:
            hidden.append([technique, text])
            continue
        first_line = len(line_texts)
        baseline = matrix[5] if matrix is not None and form is None else _baseline(matrix, form, box)
        start = runs[0][0]
        before = page_text[start - 1] if start else "\n"
        join = JOIN_UNKNOWN if before in "\r\n" else JOIN_SPACE if before.isspace() else JOIN_NONE
        # Lines as whole numbers (size in hundredths of a point, positions in tenths): cheaper to send than floats.
        facts = (round(size * 100), round(box[0] * 10), round(box[2] * 10), round(box[1] * 10), round(box[3] * 10),
                 round(baseline * 10), join)
        inside = left <= box[0] and box[2] <= right and bottom <= box[1] and box[3] <= top
        if not covers and (inside or not box_outside(box, visible_box)):
            line_texts.append(text)
            numbers.extend(facts)
        else:
            # Partly outside or partly covered: judge glyph by glyph.

            def judge(glyph: Box, covers: list[Box] = covers) -> str | None:
                if box_outside(glyph, visible_box):
                    return "pdf_outside_page"
                if covered_by(glyph, covers):
                    return "pdf_covered"
                return None

            unknown = (*facts[:-1], JOIN_UNKNOWN)  # a piece of the object: its neighbour is not known
            for verdict, run in list(_glyph_runs(chars, handle, out, judge)) or [(judge(box), text)]:
                if verdict is None:
                    line_texts.append(run)
                    numbers.extend(unknown)
                elif run.strip():
                    hidden.append([verdict, run])
        if in_optional_form or (count_marks(handle) > 0 and is_optional(handle)):
            optional[handle] = (box, rank, list(range(first_line, len(line_texts))))
    if optional:
        _hide_undrawn(page, optional, [text[0] for text in texts] + [item.handle for item in others], result)
    return result


def _hide_undrawn(page: Any, optional: dict[int, tuple[Box, int, list[int]]], handles: list[int],
                  result: PageText) -> None:
    """Move the lines of optional content the default view does not draw from the visible lines to the hidden."""
    boxes = {handle: box for handle, (box, _rank, lines) in optional.items() if lines}
    if not boxes:
        return
    gone: set[int] = set()
    for handle in sorted(undrawn(page, boxes, handles), key=lambda h: optional[h][1]):
        for index in optional[handle][2]:
            gone.add(index)
            result.hidden.append(["pdf_optional_content_off", result.texts[index]])
    kept = [index for index in range(len(result.texts)) if index not in gone]
    result.texts = [result.texts[index] for index in kept]
    per = NUMBERS_PER_LINE
    result.numbers = [number for index in kept for number in result.numbers[per * index : per * index + per]]
