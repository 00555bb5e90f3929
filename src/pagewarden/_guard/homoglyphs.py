"""Cyrillic and Greek letters that look like Latin ones: a data table and its mapping.

An attacker writes "іgnоrе" with Cyrillic і, о and е so that a keyword filter
sees no "ignore". The table maps each look-alike (lower and upper case) to the
Latin letter a reader sees. It is applied only to *mixed-script* words (a word
where a look-alike touches an ASCII letter), so ordinary Russian or Greek prose
is left alone; a word made wholly of look-alikes is a known gap.
"""

from __future__ import annotations

import re

from .lines import around_lines

__all__ = ["ANY_CONFUSABLE", "CONFUSABLES", "map_mixed_script_words"]

# look-alike -> Latin. Sources: Unicode confusables (visually identical or
# near-identical glyphs in common fonts); letters without a convincing Latin twin
# are left out on purpose.
CONFUSABLES: dict[str, str] = {
    # Cyrillic lower case
    "а": "a", "в": "b", "с": "c", "ԁ": "d", "е": "e", "һ": "h", "і": "i", "ј": "j", "к": "k",
    "ӏ": "l", "м": "m", "н": "h", "о": "o", "р": "p", "ԛ": "q", "г": "r", "ѕ": "s", "т": "t",
    "у": "y", "ѵ": "v", "ԝ": "w", "х": "x", "ү": "y", "ё": "e", "ї": "i",
    # Cyrillic upper case
    "А": "a", "В": "b", "С": "c", "Е": "e", "Н": "h", "І": "i", "Ј": "j", "К": "k", "М": "m",
    "О": "o", "Р": "p", "Ѕ": "s", "Т": "t", "Х": "x", "У": "y", "Ԛ": "q", "Ԝ": "w", "Ү": "y",
    # Greek lower case
    "α": "a", "ε": "e", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t", "υ": "u",
    "χ": "x", "γ": "y", "ω": "w", "η": "n",
    # Greek upper case
    "Α": "a", "Β": "b", "Ε": "e", "Ζ": "z", "Η": "h", "Ι": "i", "Κ": "k", "Μ": "m", "Ν": "n",
    "Ο": "o", "Ρ": "p", "Τ": "t", "Υ": "y", "Χ": "x",
    # Look-alikes from other blocks (dotless i, long s, script g, Armenian n)
    "ı": "i", "ſ": "s", "ɡ": "g", "ո": "n",
}

_TABLE = str.maketrans(CONFUSABLES)
_CONFUSABLE_CLASS = "[" + "".join(sorted(CONFUSABLES)) + "]"
ANY_CONFUSABLE = re.compile(_CONFUSABLE_CLASS)
# A look-alike touching an ASCII letter: the mark of a mixed-script word. The
# pattern starts at the (rare in Latin text) look-alike so sre skips quickly.
_MIXED_HINT = re.compile(_CONFUSABLE_CLASS + "(?<=[a-zA-Z]" + _CONFUSABLE_CLASS + ")|" + _CONFUSABLE_CLASS
                         + "(?=[a-zA-Z])")
_WORD_AT = re.compile(r"\w+")
_ASCII_LETTER = re.compile(r"[a-zA-Z]")
_MAX_HINTS = 20_000


def _map_word(match: re.Match[str]) -> str:
    word = match.group()
    if _ASCII_LETTER.search(word) is None or ANY_CONFUSABLE.search(word) is None:
        return word
    return word.translate(_TABLE)


def map_mixed_script_words(text: str) -> str:
    """Map look-alike letters to Latin inside mixed-script words of ``text``.

    Only words where a look-alike touches an ASCII letter are candidates
    ("іgnоrе"); words written wholly in Cyrillic or Greek are left alone.
    """
    positions = [hit.start() for hit in _MIXED_HINT.finditer(text)][:_MAX_HINTS]
    if not positions:
        return text
    return around_lines(text, positions, lambda line: _WORD_AT.sub(_map_word, line))
