"""First-pass text normalization for the guard: variants of a segment to match rules on.

A segment is matched as written (lower-cased, whitespace collapsed) and, when
it differs, once more after de-obfuscation. Each step that changed the text is
recorded as a *technique* on any finding that only the normalized variant
produced, so a report says how the text tried to hide.

Steps of this pass, in order (each linear in the text, NFKC expanding by a
bounded factor):

* ``unicode_nfkc``: compatibility forms (fullwidth letters, ligatures, ...).
* ``tag_characters_decoded``: Unicode tag characters (U+E0020..E007E), the
  "ASCII smuggling" alphabet, decoded to the ASCII they mirror.
* ``invisible_control_removed``: zero-width, bidi and other invisible controls.

HTML entities are already decoded by the parser. Escapes, percent-encoding,
Base64, letter spacing and leetspeak are later steps; add them to
:func:`variants` as further branches, each with its own budget.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

__all__ = ["Variant", "collapse_whitespace", "remove_invisible", "variants"]


def _invisible_code_points() -> list[int]:
    points = [cp for cp in range(0x00, 0x20) if cp not in (0x09, 0x0A, 0x0D)]
    points += list(range(0x7F, 0xA0))
    points += [0x00AD, 0x034F, 0x061C, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFFA0, 0xFEFF]
    for low, high in ((0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F),
                      (0xFE00, 0xFE0F), (0xE0000, 0xE001F), (0xE007F, 0xE007F), (0xE0100, 0xE01EF)):
        points += list(range(low, high + 1))
    return points


_INVISIBLE_POINTS = _invisible_code_points()


def _character_class(points: list[int]) -> str:
    # Ranges, not one escape per code point: sre scans a ranged class ~50x faster.
    ranges: list[list[int]] = []
    for cp in sorted(points):
        if ranges and ranges[-1][1] == cp - 1:
            ranges[-1][1] = cp
        else:
            ranges.append([cp, cp])
    return "[" + "".join(
        re.escape(chr(low)) if low == high else f"{re.escape(chr(low))}-{re.escape(chr(high))}"
        for low, high in ranges
    ) + "]"


_INVISIBLE = re.compile(_character_class(_INVISIBLE_POINTS))
_TAG_RUN = re.compile("[\U000e0020-\U000e007e]+")
_HSPACE = re.compile(r"[^\S\n]+")
_NEWLINES = re.compile(r" ?\n[\s]*")
_NEEDS_COLLAPSE = re.compile(r"[^\S ]|  ")


@dataclass(frozen=True, slots=True)
class Variant:
    """One normalized form of a segment, with the steps that produced it."""

    text: str
    techniques: tuple[str, ...] = ()


def collapse_whitespace(text: str) -> str:
    """Collapse runs of spaces to one space and runs of blank lines to one newline."""
    if _NEEDS_COLLAPSE.search(text) is None:
        # The common short attribute value: one search instead of two substitutions.
        return text.strip()
    return _NEWLINES.sub("\n", _HSPACE.sub(" ", text)).strip()


def remove_invisible(text: str) -> str:
    """Drop zero-width, bidi and other invisible control characters."""
    return _INVISIBLE.sub("", text)


def _decode_tags(match: re.Match[str]) -> str:
    # Spaces around the run keep decoded words from gluing onto visible ones.
    return " " + "".join(chr(ord(ch) - 0xE0000) for ch in match.group()) + " "


def variants(text: str) -> list[Variant]:
    """Return the forms of ``text`` to match rules against, the literal one first.

    ``text`` should already be whitespace-collapsed. Variants are lower-cased;
    rules are written in lower case. Only variants that differ are returned.
    """
    literal = text.lower()
    result = [Variant(literal)]
    normalized = text
    techniques: list[str] = []
    if not unicodedata.is_normalized("NFKC", normalized):
        normalized = unicodedata.normalize("NFKC", normalized)
        techniques.append("unicode_nfkc")
    if not normalized.isascii() and _TAG_RUN.search(normalized):
        normalized = _TAG_RUN.sub(_decode_tags, normalized)
        techniques.append("tag_characters_decoded")
    if _INVISIBLE.search(normalized):
        normalized = remove_invisible(normalized)
        techniques.append("invisible_control_removed")
    if techniques:
        lowered = collapse_whitespace(normalized).lower()
        if lowered != literal:
            result.append(Variant(lowered, tuple(techniques)))
    return result
