"""Inside the worker: which text object each character of PDFium's text page belongs to.

The text page gives the page's text in one call; which object a character
belongs to is one call per character (``FPDFText_GetTextObject``), too many to
ask for every character. So it is asked per line of the text page, at its
first and last character: the text page lays out each text object's
characters contiguously, so a line that starts and ends in one object belongs
to it; where a line holds several objects (columns, a font change), the
boundaries are found by galloping and halving. Right-to-left text is the
exception (the text page reorders it, which may interleave objects on a
line), so a page holding any, or any page of a document whose viewer
preferences set the direction right to left, is mapped character by character.
"""

from __future__ import annotations

import ctypes
import re

from . import native

__all__ = ["Run", "TextMap", "whole"]

_LINE = re.compile(r"[^\r\n]+")
# Strong right-to-left letters and the controls that start right-to-left runs.
_RTL = re.compile("[\u0590-\u08ff\u200f\u202b\u202e\u2067\ufb1d-\ufdff\ufe70-\ufefe\U00010800-\U00010fff"
                  "\U0001e800-\U0001efff]")

_SURROGATE = re.compile("[\ud800-\udfff]")

Run = tuple[int, int]  # [start, end) character indices on the text page


class TextMap:
    """The text page's characters: the text, and the runs of characters each text object owns."""

    def __init__(self, textpage: int, *, right_to_left: bool = False) -> None:
        self.handle = textpage
        count = native.count_chars(textpage)
        self.runs: dict[int, list[Run]] = {}
        self.text = ""
        # Whether the text holds UTF-16 surrogates, one per index (a character outside the BMP, such as an emoji,
        # counts two on the text page): texts taken from it are made whole again with :func:`whole`.
        self.surrogates = False
        if count <= 0:
            return
        buffer = ctypes.create_string_buffer(2 * (count + 1))
        written = native.page_text(textpage, 0, count, ctypes.addressof(buffer))
        text = buffer.raw[: 2 * max(written - 1, 0)].decode("utf-16-le", "replace")
        exact = right_to_left or len(text) != count or _RTL.search(text) is not None
        if len(text) != count:
            text = "".join(_char(native.char_unicode(textpage, index)) for index in range(count))
            self.surrogates = _SURROGATE.search(text) is not None
        self.text = text
        if exact:
            self._map(0, count)
            return
        # Most lines belong to one object: that case is decided here with two calls, without _split.
        owner, runs = native.char_owner, self.runs
        for line in _LINE.finditer(text):
            start, end = line.span()
            first = owner(textpage, start)
            if not first or owner(textpage, end - 1) != first:
                self._split(start, end)
                continue
            own = runs.get(first)
            if own is None:
                runs[first] = [(start, end)]
            elif own[-1][1] == start:  # what _add does: a run that follows the object's previous one extends it
                own[-1] = (own[-1][0], end)
            else:
                own.append((start, end))

    def _split(self, start: int, end: int) -> None:
        """The runs of one line: a range whose two ends have one owner is that owner's (an object's characters
        are contiguous); where the owner changes, the boundary is found by galloping, then halving.
        Generated characters (no owner) between two runs of one object stay in its text."""
        owner, textpage = native.char_owner, self.handle
        joined_from = start
        while start < end:
            first = owner(textpage, start)
            if not first:
                start += 1
                continue
            if owner(textpage, end - 1) == first:
                self._add(first, start, end, joined_from)
                return
            low, step, high = start, 1, end - 1  # owner(low) is first, owner(high) is not
            while low + step < high:
                if owner(textpage, low + step) != first:
                    high = low + step
                    break
                low += step
                step *= 2
            while high - low > 1:
                middle = (low + high) // 2
                if owner(textpage, middle) == first:
                    low = middle
                else:
                    high = middle
            self._add(first, start, low + 1, joined_from)
            start = joined_from = low + 1

    def _map(self, start: int, end: int) -> None:
        """Character by character: each run of one owner (generated characters join the run before)."""
        owner, textpage = native.char_owner, self.handle
        current, run_start = 0, start
        for index in range(start, end):
            found = owner(textpage, index)
            if found and found != current:
                if current:
                    self._add(current, run_start, index)
                current, run_start = found, index
        if current:
            self._add(current, run_start, end)

    def _add(self, owner: int, start: int, end: int, joined_from: int | None = None) -> None:
        # A run that follows the owner's previous one (from joined_from on, only generated characters
        # between) extends it.
        runs = self.runs.setdefault(owner, [])
        if runs and runs[-1][1] in (start, joined_from):
            runs[-1] = (runs[-1][0], end)
        else:
            runs.append((start, end))

    def of(self, handle: int) -> str:
        """The text of one text object (its separate runs, such as its lines, joined by a space)."""
        return " ".join(self.text[start:end] for start, end in self.runs.get(handle, ()))


def _char(code: int) -> str:
    try:
        return chr(code)
    except ValueError:
        return "\ufffd"


def whole(text: str) -> str:
    """``text`` with each surrogate pair joined into its character and a lone surrogate replaced (U+FFFD): a
    string that encodes as UTF-8."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
