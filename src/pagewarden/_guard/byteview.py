"""Byte views of text: exact pre-checks that let a guard step skip or shorten its regex scan.

Why: a regular expression whose first item is a character class ("a space", "a
delimiter", "an invisible character") makes ``sre`` test that class at almost
every position, 4-10 ns a character; ``str.encode``, ``bytes.translate`` and a
search for a literal byte run several times faster. So a step first looks at a
byte view, and only where the view allows a match does the original regex run.
Every use must be *exact*: the view answers a necessary condition, or matches
a pattern that is the original one rewritten over the view's byte classes.

Two kinds of view:

* :func:`view`: one byte per code point (``errors="replace"`` turns each code
  point the codec cannot hold, lone surrogates included, into one ``?``), mapped
  through a 256-byte table that sorts characters into the few classes a
  pattern cares about. Offsets in the view are offsets in the string, so a
  pattern rewritten with one literal byte per class matches at the same places.
* :func:`high_bytes`: the high byte of every UTF-16 code unit. When none of them
  is a high byte of some code points (:func:`code_unit_filter`), the text holds
  none of those code points (:func:`may_hold` is False).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

__all__ = ["AsciiBytes", "byte_table", "code_unit_filter", "high_bytes", "may_hold", "view"]


def byte_table(classify: Callable[[int], int]) -> bytes:
    """A ``bytes.translate`` table: byte ``b`` becomes ``classify(b)``."""
    return bytes(classify(code) for code in range(256))


class AsciiBytes:
    """``text.encode("ascii", "replace")`` of the last text asked for, kept for the next view of the same text.

    Why: several normalization steps view the same working text (the word
    set, letter spacing, delimiters, leetspeak), and on a text stored at two
    bytes a character (Latin with a few curly quotes) each encoding is a slow
    pass. A step's text is the same object as the previous step's unless a
    step changed it, so an identity test is enough. One instance serves one
    segment's normalization, never shared between threads.
    """

    __slots__ = ("_encoded", "_text")

    def __init__(self) -> None:
        self._text: str | None = None
        self._encoded = b""

    def __call__(self, text: str) -> bytes:
        if self._text is not text:
            self._text, self._encoded = text, text.encode("ascii", "replace")
        return self._encoded


def view(text: str, table: bytes, encoding: str = "ascii", encoded: AsciiBytes | None = None) -> bytes:
    """``text`` as one byte per code point (``encoding``, others ``?``), translated through ``table``.

    ``encoded`` (ASCII only) reuses the encoding of a text viewed before.
    """
    if encoded is not None and encoding == "ascii":
        return encoded(text).translate(table)
    return text.encode(encoding, "replace").translate(table)


def high_bytes(text: str) -> bytes:
    """The high byte of every UTF-16 code unit of ``text`` (astral characters give two units)."""
    return text.encode("utf-16-le", "surrogatepass")[1::2]


def code_unit_filter(ranges: Iterable[tuple[int, int]]) -> bytes:
    """The ``delete`` argument of ``bytes.translate`` keeping only high bytes of code units in ``ranges``.

    ``ranges`` are inclusive code point ranges. With the filter, :func:`may_hold`
    tells in one C pass whether a string *may* hold one of those code points: if
    no code unit has one of their high bytes, none is there. (Latin text has high
    byte 0, Hangul 0xAC..0xD7, CJK 0x4E..0x9F.) Astral code points keep every
    surrogate high byte, a superset, which is all a "may" test needs.
    """
    keep: set[int] = set()
    for low, high in ranges:
        keep.update(range(low >> 8, (min(high, 0xFFFF) >> 8) + 1) if low <= 0xFFFF else ())
        if high > 0xFFFF:
            keep.update(range(0xD8, 0xE0))
    return bytes(code for code in range(256) if code not in keep)


def may_hold(high: bytes, units: bytes) -> bool:
    """Whether ``high`` (see :func:`high_bytes`) has a byte the filter ``units`` keeps: False proves absence."""
    return bool(high.translate(None, units))
