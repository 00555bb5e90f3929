"""Inside the worker: optional content (layers) that the document's default view switches off.

A PDF can put text in an optional-content group and switch the group off in
its default configuration (``/OCProperties /D /OFF``): a viewer does not draw
it, every text extractor reads it. PDFium's public interface names an object's
marked-content tags (an ``OC`` tag marks optional content) but does not say
whether the group is on. Its renderer does: it applies the default
configuration. So for a page that holds text tagged ``OC`` (rare outside
layered drawings and maps), every other object is set inactive, the page is
rendered once at low resolution onto a transparent bitmap, and a tagged
object none of whose box received any paint was not drawn: its text is
hidden (``pdf_optional_content_off``). Pages without such text are never
rendered.

Not covered: optional content set on a form XObject's own dictionary
(``/OC`` in the XObject, not a marked-content tag), which the public interface
does not expose; such text counts as drawn.
"""

from __future__ import annotations

import ctypes
from collections.abc import Iterable
from typing import Any

import pypdfium2.raw as raw

from . import native
from .native import Box

__all__ = ["RENDER_SCALE", "is_optional", "undrawn"]

# 36 dpi: an 11 pt line is about 5 px tall, enough for its glyphs to leave paint.
RENDER_SCALE = 0.5
_MAX_SIDE = 2_000
_NAME_BYTES = 64


def is_optional(handle: int) -> bool:
    """Whether the object carries an ``OC`` (optional content) marked-content tag."""
    count = native.count_marks(handle)
    if count <= 0:
        return False
    buffer = ctypes.create_string_buffer(_NAME_BYTES)
    written = ctypes.c_ulong()
    for index in range(min(count, 32)):
        mark = native.get_mark(handle, index)
        named = bool(mark) and native.mark_name(mark, ctypes.addressof(buffer), _NAME_BYTES, ctypes.addressof(written))
        if named and buffer.raw[: max(written.value - 2, 0)] == "OC".encode("utf-16-le"):
            return True
    return False


def undrawn(page: Any, candidates: dict[int, Box], others: Iterable[int]) -> set[int]:
    """The candidates (handle -> box in page space) that the page's default view does not draw."""
    width = max(1, min(_MAX_SIDE, round(page.get_width() * RENDER_SCALE)))
    height = max(1, min(_MAX_SIDE, round(page.get_height() * RENDER_SCALE)))
    hidden_others = [handle for handle in others if handle not in candidates]
    for handle in hidden_others:
        native.set_active(handle, 0)
    bitmap = raw.FPDFBitmap_Create(width, height, 1)
    if not bitmap:
        raise MemoryError
    try:
        raw.FPDFBitmap_FillRect(bitmap, 0, 0, width, height, 0x00000000)
        raw.FPDF_RenderPageBitmap(bitmap, page.raw, 0, 0, width, height, 0, 0)
        stride = raw.FPDFBitmap_GetStride(bitmap)
        pixels = ctypes.string_at(raw.FPDFBitmap_GetBuffer(bitmap), stride * height)
        return {handle for handle, box in candidates.items()
                if not _painted(page, box, pixels, stride, width, height)}
    finally:
        raw.FPDFBitmap_Destroy(bitmap)
        for handle in hidden_others:
            native.set_active(handle, 1)


def _device(page: Any, x: float, y: float, width: int, height: int) -> tuple[int, int]:
    dx, dy = ctypes.c_int(), ctypes.c_int()
    raw.FPDF_PageToDevice(page.raw, 0, 0, width, height, 0, x, y, dx, dy)
    return dx.value, dy.value


def _painted(page: Any, box: Box, pixels: bytes, stride: int, width: int, height: int) -> bool:
    corners = [_device(page, x, y, width, height) for x in (box[0], box[2]) for y in (box[1], box[3])]
    left = max(0, min(x for x, _ in corners) - 1)
    right = min(width, max(x for x, _ in corners) + 2)
    top = max(0, min(y for _, y in corners) - 1)
    bottom = min(height, max(y for _, y in corners) + 2)
    for row in range(top, bottom):
        start = row * stride
        # BGRA: any alpha in the box means something of the object was painted there.
        if any(pixels[start + 4 * left + 3 : start + 4 * right : 4]):
            return True
    return False
