"""PDFium calls for the worker's readers, on plain addresses instead of typed pointers.

pypdfium2's raw bindings declare every handle as a typed pointer, so each call
converts its arguments, and each returned handle is a new pointer object. A
page walk makes a few calls per object (hundreds per page), and that
conversion was most of its cost. The same C functions are declared here again
with ``c_void_p`` handles: a handle is an ``int``, compared and hashed for free.
Only functions the worker calls once per object or per glyph are redeclared;
everything else goes through pypdfium2 as usual.

Out-parameters are kept in one :class:`Out` per page, passed by address, and
read right after each call (the worker is single-threaded).
"""

from __future__ import annotations

import ctypes
import struct
from collections.abc import Callable
from typing import Any

import pypdfium2.raw as raw

__all__ = ["MAX_STRING_BYTES", "Box", "Matrix", "Out", "address", "metadata_values", "wide_string"]

MAX_STRING_BYTES = 1 << 20

Box = tuple[float, float, float, float]  # left, bottom, right, top (page space)
Matrix = tuple[float, float, float, float, float, float]

_P = ctypes.c_void_p
# Out-parameters are read with one struct call each (indexing a ctypes array element by element costs more).
_FOUR_FLOATS = struct.Struct("4f").unpack_from
_SIX_FLOATS = struct.Struct("6f").unpack_from
_FOUR_UINTS = struct.Struct("4I").unpack_from
_FOUR_DOUBLES = struct.Struct("4d").unpack_from


def _redeclare(name: str, restype: Any, *argtypes: Any) -> Callable[..., Any]:
    pointer = ctypes.cast(getattr(raw, name), ctypes.c_void_p).value
    if pointer is None:
        raise ImportError(f"PDFium has no {name}")
    return ctypes.CFUNCTYPE(restype, *argtypes)(pointer)


if ctypes.sizeof(raw.FS_MATRIX) != 6 * ctypes.sizeof(ctypes.c_float):
    raise ImportError("FS_MATRIX is not six floats")

# Out-parameters are passed as plain addresses too (c_void_p), into the arrays of :class:`Out`.
count_objects = _redeclare("FPDFPage_CountObjects", ctypes.c_int, _P)
get_object = _redeclare("FPDFPage_GetObject", _P, _P, ctypes.c_int)
form_count_objects = _redeclare("FPDFFormObj_CountObjects", ctypes.c_int, _P)
form_get_object = _redeclare("FPDFFormObj_GetObject", _P, _P, ctypes.c_ulong)
object_type = _redeclare("FPDFPageObj_GetType", ctypes.c_int, _P)
object_bounds = _redeclare("FPDFPageObj_GetBounds", ctypes.c_int, _P, _P, _P, _P, _P)
object_matrix = _redeclare("FPDFPageObj_GetMatrix", ctypes.c_int, _P, _P)
fill_colour = _redeclare("FPDFPageObj_GetFillColor", ctypes.c_int, _P, _P, _P, _P, _P)
stroke_colour = _redeclare("FPDFPageObj_GetStrokeColor", ctypes.c_int, _P, _P, _P, _P, _P)
count_marks = _redeclare("FPDFPageObj_CountMarks", ctypes.c_int, _P)
get_mark = _redeclare("FPDFPageObj_GetMark", _P, _P, ctypes.c_ulong)
mark_name = _redeclare("FPDFPageObjMark_GetName", ctypes.c_int, _P, _P, ctypes.c_ulong, _P)
set_active = _redeclare("FPDFPageObj_SetIsActive", ctypes.c_int, _P, ctypes.c_int)
text_render_mode = _redeclare("FPDFTextObj_GetTextRenderMode", ctypes.c_int, _P)
font_size = _redeclare("FPDFTextObj_GetFontSize", ctypes.c_int, _P, _P)
path_draw_mode = _redeclare("FPDFPath_GetDrawMode", ctypes.c_int, _P, _P, _P)
path_count_segments = _redeclare("FPDFPath_CountSegments", ctypes.c_int, _P)
count_chars = _redeclare("FPDFText_CountChars", ctypes.c_int, _P)
page_text = _redeclare("FPDFText_GetText", ctypes.c_int, _P, ctypes.c_int, ctypes.c_int, _P)
char_owner = _redeclare("FPDFText_GetTextObject", _P, _P, ctypes.c_int)
char_unicode = _redeclare("FPDFText_GetUnicode", ctypes.c_uint, _P, ctypes.c_int)
char_box = _redeclare("FPDFText_GetCharBox", ctypes.c_int, _P, ctypes.c_int, _P, _P, _P, _P)
meta_text = _redeclare("FPDF_GetMetaText", ctypes.c_ulong, _P, ctypes.c_char_p, _P, ctypes.c_ulong)


def address(handle: Any) -> int:
    """The address behind a pypdfium2 handle (a raw pointer or a helper object's ``.raw``)."""
    return ctypes.cast(getattr(handle, "raw", handle), ctypes.c_void_p).value or 0


def _addresses(array: Any, size: int) -> tuple[int, ...]:
    base = ctypes.addressof(array)
    return tuple(base + size * index for index in range(len(array)))


class Out:
    """Reusable out-parameters for the calls above, passed by address."""

    __slots__ = ("_colour", "_colour_at", "_doubles", "_doubles_at", "_floats", "_floats_at", "_ints", "_ints_at",
                 "_matrix", "_matrix_at")

    def __init__(self) -> None:
        self._floats = (ctypes.c_float * 4)()
        self._doubles = (ctypes.c_double * 4)()
        self._colour = (ctypes.c_uint * 4)()
        self._ints = (ctypes.c_int * 2)()
        self._matrix = (ctypes.c_float * 6)()  # FS_MATRIX: six floats a..f
        self._floats_at = _addresses(self._floats, 4)
        self._doubles_at = _addresses(self._doubles, 8)
        self._colour_at = _addresses(self._colour, 4)
        self._ints_at = _addresses(self._ints, 4)
        self._matrix_at = ctypes.addressof(self._matrix)

    def bounds(self, handle: int) -> Box | None:
        """The object's box in its own space (forms' matrices not applied)."""
        a, b, c, d = self._floats_at
        if not object_bounds(handle, a, b, c, d):
            return None
        return _FOUR_FLOATS(self._floats)

    def matrix(self, handle: int) -> Matrix | None:
        """The object's matrix, ``None`` when PDFium has none."""
        if not object_matrix(handle, self._matrix_at):
            return None
        return _SIX_FLOATS(self._matrix)

    def colour(self, getter: Callable[..., int], handle: int) -> tuple[int, int, int, int]:
        """Fill or stroke colour as (r, g, b, alpha); opaque black when PDFium has none."""
        a, b, c, d = self._colour_at
        if not getter(handle, a, b, c, d):
            return (0, 0, 0, 255)
        return _FOUR_UINTS(self._colour)

    def font_size(self, handle: int) -> float:
        """The nominal font size of a text object (0 when unknown)."""
        return self._floats[0] if font_size(handle, self._floats_at[0]) else 0.0

    def text_paint(self, handle: int) -> tuple[int, tuple[int, int, int, int], float, Matrix | None]:
        """A text object's render mode, fill colour, nominal font size (0 when unknown) and matrix, in one call
        (it is made for every text object of every page)."""
        a, b, c, d = self._colour_at
        fill = _FOUR_UINTS(self._colour) if fill_colour(handle, a, b, c, d) else (0, 0, 0, 255)
        size = self._floats[0] if font_size(handle, self._floats_at[0]) else 0.0
        matrix = _SIX_FLOATS(self._matrix) if object_matrix(handle, self._matrix_at) else None
        return text_render_mode(handle), fill, size, matrix

    def draw_mode(self, handle: int) -> tuple[int, int] | None:
        """A path's fill mode and stroke flag."""
        if not path_draw_mode(handle, *self._ints_at):
            return None
        return (self._ints[0], self._ints[1])

    def char_box(self, textpage: int, index: int) -> Box | None:
        """A glyph's box on the text page."""
        a, b, c, d = self._doubles_at
        if not char_box(textpage, index, a, b, c, d):
            return None
        left, right, bottom, top = _FOUR_DOUBLES(self._doubles)
        return (left, bottom, right, top)


def metadata_values(doc: int, keys: tuple[str, ...]) -> list[str]:
    """The document information's value of each key ("" when absent), as pypdfium2's ``get_metadata_value``
    reads them (strict UTF-16) but with one call per key when the value fits a shared buffer, not two and a
    buffer per key (eight keys are read for every document)."""
    size = 1024
    buffer = ctypes.create_string_buffer(size)
    at = ctypes.addressof(buffer)
    values = []
    for key in keys:
        name = key.encode("utf-8")
        needed = meta_text(doc, name, at, size)
        if needed > size:
            # Too long for the shared buffer (PDFium then wrote nothing): read it into one of its own.
            own = ctypes.create_string_buffer(needed)
            needed = min(needed, meta_text(doc, name, ctypes.addressof(own), needed))
            values.append(own.raw[: max(needed - 2, 0)].decode("utf-16-le"))
        else:
            values.append(ctypes.string_at(at, max(needed - 2, 0)).decode("utf-16-le"))
    return values


def wide_string(call: Callable[..., int], *args: Any) -> str:
    """A UTF-16 string out of a PDFium getter that reports its size in bytes when given no buffer."""
    needed = call(*args, None, 0)
    if needed <= 2 or needed > MAX_STRING_BYTES:
        return ""
    buffer = ctypes.create_string_buffer(needed)
    call(*args, ctypes.cast(buffer, ctypes.POINTER(raw.FPDF_WCHAR)), needed)
    return buffer.raw[:needed].decode("utf-16-le", "replace").rstrip("\x00")
