"""Inside the worker: read one PDF with pypdfium2 into plain, JSON-ready facts.

This module runs only in the worker process (:mod:`.worker`); the parent
never loads PDFium. It walks every page's objects in drawing order (form
XObjects included, their matrices applied), measures each text object
(render mode, colours, effective size, box), judges it with
:mod:`.hidden`, and returns for each page its visible lines and its hidden
runs, plus the document's low-trust parts: metadata, outline titles,
annotations, form field values, link URIs, attachment names and document
JavaScript. Glyph-level checks (a text object only partly outside the page
or partly covered) read PDFium's text page character by character.

Everything it returns is bounded by the job's limits; crossing one raises
:class:`LimitExceeded`, which the worker reports by name.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import pypdfium2 as pdfium
import pypdfium2.raw as raw

from .hidden import STROKE_ONLY_MODES, WHITE, Box, Paint, box_outside, classify_object, contains, covered_by

__all__ = ["ExtractLimits", "LimitExceeded", "PdfOpenError", "extract_pdf"]

# Bounds on what one document may make us walk; they keep a crafted file's
# structure from turning into time or memory.
MAX_OBJECTS_PER_PAGE = 200_000
MAX_FORM_DEPTH = 16
MAX_COVER_CANDIDATES = 20_000
MAX_ANNOTATIONS_PER_PAGE = 500
MAX_STRING_BYTES = 1 << 20
MAX_LIST_ITEMS = 1_000
MAX_OUTLINE_DEPTH = 16
_RECT_SEGMENTS = 8
_TEXT, _PATH, _IMAGE, _FORM = 1, 2, 3, 5
_METADATA_KEYS = ("Title", "Author", "Subject", "Keywords", "Creator", "Producer", "CreationDate", "ModDate")
_ANNOTATION_KEYS = (("Contents", "pdf_annotation_contents"), ("T", "pdf_annotation_author"),
                    ("Subj", "pdf_annotation_subject"), ("RC", "pdf_annotation_rich_text"))
_FIELD_KEYS = (("V", "pdf_form_field_value"), ("TU", "pdf_form_field_tooltip"), ("T", "pdf_form_field_name"))
_WIDGET = raw.FPDF_ANNOT_WIDGET
_LINK = raw.FPDF_ANNOT_LINK
_POPUP = raw.FPDF_ANNOT_POPUP

Matrix = tuple[float, float, float, float, float, float]
_IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
_NO_STROKE = (0, 0, 0, 0)


class LimitExceeded(Exception):
    """A job limit was crossed; ``args[0]`` names it (``pages``, ``characters``, ``objects``, ``depth``)."""


class PdfOpenError(Exception):
    """PDFium refused the file; ``args[0]`` is ``encrypted`` or ``malformed``."""


@dataclass(frozen=True, slots=True)
class ExtractLimits:
    """What one job may produce."""

    max_pages: int
    max_characters: int


@dataclass(slots=True)
class _Budget:
    left: int

    def take(self, text: str) -> str:
        self.left -= len(text)
        if self.left < 0:
            raise LimitExceeded("characters")
        return text


@dataclass(slots=True)
class _Item:
    """One page object in drawing order."""

    handle: Any
    kind: int
    box: Box
    rank: int
    scale: float = 1.0


@dataclass(slots=True)
class _Page:
    lines: list[dict[str, Any]] = field(default_factory=list)
    hidden: list[list[str]] = field(default_factory=list)
    truncated_covers: bool = False


class _Fills:
    """Opaque images and filled shapes of a page, indexed by horizontal bands so a text object
    is compared only with those near it (a table's cell backgrounds stay cheap)."""

    BAND = 36.0

    def __init__(self) -> None:
        self._bands: dict[int, list[tuple[_Item, tuple[int, int, int] | None]]] = {}
        self._count = 0
        self.truncated = False

    def _span(self, box: Box) -> range:
        low, high = int(box[1] // self.BAND), int(box[3] // self.BAND)
        # A page-sized box spans a few dozen bands; anything far off the page is clamped.
        return range(max(low, -64), min(high, 256) + 1)

    def add(self, item: _Item, colour: tuple[int, int, int] | None) -> None:
        if self._count >= MAX_COVER_CANDIDATES:
            self.truncated = True
            return
        self._count += 1
        for band in self._span(item.box):
            self._bands.setdefault(band, []).append((item, colour))

    def near(self, box: Box) -> list[tuple[_Item, tuple[int, int, int] | None]]:
        """The fills in the bands ``box`` touches, in drawing order, each once."""
        found: dict[int, tuple[_Item, tuple[int, int, int] | None]] = {}
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


def _bounds(obj: Any) -> Box | None:
    left, bottom, right, top = ctypes.c_float(), ctypes.c_float(), ctypes.c_float(), ctypes.c_float()
    if not raw.FPDFPageObj_GetBounds(obj, left, bottom, right, top):
        return None
    return (left.value, bottom.value, right.value, top.value)


def _matrix(obj: Any) -> Matrix:
    m = raw.FS_MATRIX()
    if not raw.FPDFPageObj_GetMatrix(obj, m):
        return _IDENTITY
    return (m.a, m.b, m.c, m.d, m.e, m.f)


def _colour(getter: Callable[..., int], obj: Any) -> tuple[int, int, int, int]:
    r, g, b, a = ctypes.c_uint(), ctypes.c_uint(), ctypes.c_uint(), ctypes.c_uint()
    if not getter(obj, r, g, b, a):
        return (0, 0, 0, 255)
    return (r.value, g.value, b.value, a.value)


def _walk(page: Any) -> list[_Item]:
    """Every page object in drawing order, form XObjects flattened with their matrices applied."""
    items: list[_Item] = []

    def visit(count: int, get: Callable[[int], Any], matrix: Matrix, depth: int) -> None:
        for index in range(count):
            if len(items) >= MAX_OBJECTS_PER_PAGE:
                raise LimitExceeded("objects")
            obj = get(index)
            if not obj:
                continue
            kind = raw.FPDFPageObj_GetType(obj)
            box = _bounds(obj)
            if kind == _FORM:
                if depth >= MAX_FORM_DEPTH:
                    raise LimitExceeded("depth")
                inner = _multiply(_matrix(obj), matrix)
                visit(raw.FPDFFormObj_CountObjects(obj), partial(raw.FPDFFormObj_GetObject, obj), inner, depth + 1)
                continue
            if box is None:
                continue
            items.append(_Item(obj, kind, _transform(box, matrix), len(items), _vertical_scale(matrix)))

    visit(raw.FPDFPage_CountObjects(page), partial(raw.FPDFPage_GetObject, page), _IDENTITY, 0)
    return items


def _opaque_fill(item: _Item) -> tuple[int, int, int] | bool | None:
    """For a filled opaque path: its colour; for an image: ``None`` (colour unknown); else ``False``."""
    if item.kind == _IMAGE:
        return None
    if item.kind != _PATH:
        return False
    fill_mode, stroke = ctypes.c_int(), raw.FPDF_BOOL()
    if not raw.FPDFPath_GetDrawMode(item.handle, fill_mode, stroke) or fill_mode.value == 0:
        return False
    if raw.FPDFPath_CountSegments(item.handle) > _RECT_SEGMENTS:
        return False
    r, g, b, a = _colour(raw.FPDFPageObj_GetFillColor, item.handle)
    return (r, g, b) if a == 255 else False


def _wide_string(call: Callable[..., int], *args: Any) -> str:
    needed = call(*args, None, 0)
    if needed <= 2 or needed > MAX_STRING_BYTES:
        return ""
    buffer = ctypes.create_string_buffer(needed)
    call(*args, ctypes.cast(buffer, ctypes.POINTER(raw.FPDF_WCHAR)), needed)
    return buffer.raw[:needed].decode("utf-16-le", "replace").rstrip("\x00")


class _TextBuffer:
    """One reusable buffer for text objects' text: one PDFium call per object instead of two."""

    def __init__(self, size: int = 1 << 15) -> None:
        self._size = size
        self._buffer = ctypes.create_string_buffer(size)
        self._pointer = ctypes.cast(self._buffer, ctypes.POINTER(raw.FPDF_WCHAR))

    def text(self, obj: Any, textpage: Any) -> str:
        needed = raw.FPDFTextObj_GetText(obj, textpage, self._pointer, self._size)
        if needed > self._size:
            return _wide_string(raw.FPDFTextObj_GetText, obj, textpage)
        if needed <= 2:
            return ""
        return self._buffer.raw[: needed - 2].decode("utf-16-le", "replace")


class _Chars:
    """The text page's characters grouped by text object, built on first use."""

    def __init__(self, textpage: Any) -> None:
        self._textpage = textpage
        self._by_object: dict[int, list[int]] | None = None

    def of(self, obj: Any) -> list[tuple[str, Box]]:
        if self._by_object is None:
            self._by_object = {}
            for index in range(raw.FPDFText_CountChars(self._textpage)):
                owner = raw.FPDFText_GetTextObject(self._textpage, index)
                if owner:
                    key = ctypes.cast(owner, ctypes.c_void_p).value or 0
                    self._by_object.setdefault(key, []).append(index)
        key = ctypes.cast(obj, ctypes.c_void_p).value or 0
        chars: list[tuple[str, Box]] = []
        left, right, bottom, top = ctypes.c_double(), ctypes.c_double(), ctypes.c_double(), ctypes.c_double()
        for index in self._by_object.get(key, ()):
            code = raw.FPDFText_GetUnicode(self._textpage, index)
            if not raw.FPDFText_GetCharBox(self._textpage, index, left, right, bottom, top):
                continue
            try:
                char = chr(code)
            except ValueError:
                continue
            chars.append((char, (left.value, bottom.value, right.value, top.value)))
        return chars


def _runs(chars: list[tuple[str, Box]], judge: Callable[[Box], str | None]) -> Iterator[tuple[str | None, str]]:
    """Consecutive glyphs with the same verdict, as (technique or None, text)."""
    current: str | None = None
    parts: list[str] = []
    for char, box in chars:
        verdict = None if char.isspace() else judge(box)
        if char.isspace() and parts:
            verdict = current
        if parts and verdict != current:
            yield current, "".join(parts)
            parts = []
        current = verdict
        parts.append(char)
    if parts:
        yield current, "".join(parts)


def _effective_size(item: _Item) -> float:
    """The font size as drawn: the nominal size scaled by the text object's and enclosing forms' matrices."""
    size = ctypes.c_float()
    nominal = size.value if raw.FPDFTextObj_GetFontSize(item.handle, size) else 0.0
    height = item.box[3] - item.box[1]
    if nominal <= 0:
        return height
    drawn = nominal * _vertical_scale(_matrix(item.handle)) * item.scale
    # Glyph boxes are never much taller than the size they are drawn at.
    return min(drawn, height * 2) if height > 0 else drawn


def _page_text(page: Any, textpage: Any, visible_box: Box, budget: _Budget) -> _Page:
    items = _walk(page)
    result = _Page()
    fills = _Fills()
    for item in items:
        if item.kind in (_PATH, _IMAGE):
            colour = _opaque_fill(item)
            if colour is not False:
                fills.add(item, colour if isinstance(colour, tuple) else None)
    result.truncated_covers = fills.truncated
    chars = _Chars(textpage)
    buffer = _TextBuffer()
    for item in items:
        if item.kind != _TEXT:
            continue
        text = buffer.text(item.handle, textpage)
        if not text.strip():
            continue
        budget.take(text)
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
        mode = raw.FPDFTextObj_GetTextRenderMode(item.handle)
        paint = Paint(
            mode=mode,
            fill=_colour(raw.FPDFPageObj_GetFillColor, item.handle),
            stroke=_colour(raw.FPDFPageObj_GetStrokeColor, item.handle) if mode in STROKE_ONLY_MODES else _NO_STROKE,
            size=_effective_size(item),
            box=box,
            background=background,
        )
        technique = classify_object(paint)
        if technique is not None:
            result.hidden.append([technique, text])
            continue
        if not box_outside(box, visible_box) and not covers:
            _add_line(result, text, paint)
            continue
        # Partly outside or partly covered: judge glyph by glyph.

        def judge(glyph: Box, covers: list[Box] = covers) -> str | None:
            if box_outside(glyph, visible_box):
                return "pdf_outside_page"
            if covered_by(glyph, covers):
                return "pdf_covered"
            return None

        glyphs = chars.of(item.handle)
        if not glyphs:
            verdict = judge(box)
            if verdict is None:
                _add_line(result, text, paint)
            else:
                result.hidden.append([verdict, text])
            continue
        for verdict, run in _runs(glyphs, judge):
            if verdict is None:
                _add_line(result, run, paint)
            elif run.strip():
                result.hidden.append([verdict, run])
    return result


def _overlaps(box: Box, other: Box) -> bool:
    return box[0] < other[2] and other[0] < box[2] and box[1] < other[3] and other[1] < box[3]


def _add_line(page: _Page, text: str, paint: Paint) -> None:
    left, bottom, right, top = paint.box
    page.lines.append({"t": text, "s": round(paint.size, 2), "x0": round(left, 1), "x1": round(right, 1),
                       "y0": round(bottom, 1), "y1": round(top, 1)})


def _visible_box(page: Any) -> Box:
    media = page.get_mediabox()
    crop = page.get_cropbox()
    return (max(media[0], crop[0]), max(media[1], crop[1]), min(media[2], crop[2]), min(media[3], crop[3]))


def _annotations(doc: Any, page: Any, budget: _Budget) -> tuple[list[list[str]], list[str]]:
    pieces: list[list[str]] = []
    links: list[str] = []
    count = min(raw.FPDFPage_GetAnnotCount(page), MAX_ANNOTATIONS_PER_PAGE)
    for index in range(count):
        annot = raw.FPDFPage_GetAnnot(page, index)
        if not annot:
            continue
        try:
            subtype = raw.FPDFAnnot_GetSubtype(annot)
            keys = _FIELD_KEYS if subtype == _WIDGET else _ANNOTATION_KEYS
            for key, via in keys:
                value = _wide_string(raw.FPDFAnnot_GetStringValue, annot, key.encode("ascii"))
                if value.strip() and subtype != _POPUP:
                    pieces.append([via, budget.take(value)])
            if subtype == _LINK:
                uri = _link_uri(doc, raw.FPDFAnnot_GetLink(annot))
                if uri:
                    links.append(budget.take(uri))
        finally:
            raw.FPDFPage_CloseAnnot(annot)
    return pieces, links


def _link_uri(doc: Any, link: Any) -> str:
    if not link:
        return ""
    action = raw.FPDFLink_GetAction(link)
    if not action or raw.FPDFAction_GetType(action) != raw.PDFACTION_URI:
        return ""
    needed = raw.FPDFAction_GetURIPath(doc, action, None, 0)
    if needed <= 1 or needed > MAX_STRING_BYTES:
        return ""
    buffer = ctypes.create_string_buffer(needed)
    raw.FPDFAction_GetURIPath(doc, action, buffer, needed)
    return buffer.raw[: needed - 1].decode("latin-1")


def _document_parts(doc: Any, budget: _Budget) -> dict[str, Any]:
    metadata = {}
    for key in _METADATA_KEYS:
        value = doc.get_metadata_value(key)
        if isinstance(value, str) and value.strip():
            metadata[key] = budget.take(value)
    outline: list[str] = []
    for mark in doc.get_toc(max_depth=MAX_OUTLINE_DEPTH):
        if len(outline) >= MAX_LIST_ITEMS:
            break
        title = mark.get_title()
        if title and title.strip():
            outline.append(budget.take(title))
    attachments: list[str] = []
    for index in range(min(raw.FPDFDoc_GetAttachmentCount(doc), MAX_LIST_ITEMS)):
        attachment = raw.FPDFDoc_GetAttachment(doc, index)
        if attachment:
            name = _wide_string(raw.FPDFAttachment_GetName, attachment)
            if name.strip():
                attachments.append(budget.take(name))
    scripts: list[list[str]] = []
    for index in range(min(raw.FPDFDoc_GetJavaScriptActionCount(doc), MAX_LIST_ITEMS)):
        action = raw.FPDFDoc_GetJavaScriptAction(doc, index)
        if not action:
            continue
        try:
            name = _wide_string(raw.FPDFJavaScriptAction_GetName, action)
            script = _wide_string(raw.FPDFJavaScriptAction_GetScript, action)
            scripts.append([budget.take(name), budget.take(script)])
        finally:
            raw.FPDFDoc_CloseJavaScriptAction(action)
    return {"metadata": metadata, "outline": outline, "attachments": attachments, "javascript": scripts}


def _open(data: bytes) -> Any:
    try:
        # No password: PDFium then tries the empty user password itself.
        return pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        code = getattr(exc, "err_code", None)
        if code in (raw.FPDF_ERR_PASSWORD, raw.FPDF_ERR_SECURITY):
            raise PdfOpenError("encrypted") from None
        raise PdfOpenError("malformed") from None


def extract_pdf(data: bytes, limits: ExtractLimits) -> dict[str, Any]:
    """Read ``data`` into facts: ``pages`` (``lines``, ``hidden``, ``annotations``, ``links``) and the document parts.

    Raises:
        PdfOpenError: PDFium refused the file (``encrypted`` or ``malformed``).
        LimitExceeded: pages, characters or objects over the limits.
    """
    doc = _open(data)
    try:
        count = len(doc)
        if count > limits.max_pages:
            raise LimitExceeded("pages")
        budget = _Budget(limits.max_characters)
        encrypted = raw.FPDF_GetSecurityHandlerRevision(doc) != -1
        pages: list[dict[str, Any]] = []
        for number in range(count):
            page = doc[number]
            try:
                textpage = page.get_textpage()
                try:
                    facts = _page_text(page, textpage, _visible_box(page), budget)
                finally:
                    textpage.close()
                annotations, links = _annotations(doc, page, budget)
            finally:
                page.close()
            pages.append({"lines": facts.lines, "hidden": facts.hidden, "annotations": annotations,
                          "links": links, "covers_truncated": facts.truncated_covers})
        parts = _document_parts(doc, budget)
    finally:
        doc.close()
    return {"page_count": count, "encrypted": encrypted, "pages": pages, **parts}
