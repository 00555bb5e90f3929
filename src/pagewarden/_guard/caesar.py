"""ROT13 (a Caesar shift of 13 letters), undone where the words say so.

Any text is a Caesar shift of something, so a shift is undone only on
evidence: in one sentence, enough words become common English words when
shifted back, and few words already are. Both counts use
:data:`COMMON_WORDS`, frequent English words and the vocabulary of
instructions to a model; shifted words that are themselves common words
("or"/"be" under ROT13) count for neither side.

The test, per sentence (a line cut at ``.``/``!``/``?`` before a space; when
no sentence of a line passes, the line as a whole):

* at least ``_MIN_HITS`` words of two letters or more are common words shifted;
* they are at least ``_MIN_HIT_SHARE`` of the sentence's words;
* words already common are at most ``1 / _PLAIN_PER_HIT`` of the hits.

Why this behaves on what is not English: code, hashes, CSS and minified
JavaScript are mostly identifiers and numbers, which are not counted as
words (a word is a run of letters between spaces or punctuation) and
rarely shift to common words; other languages shift to non-words like
English does, and ordinary English fails the third condition. A long
upper-case word or product code is one word, never three hits.

The cost on ordinary text is one set intersection: the text's words
against the shifted forms of three letters or more (the gate); only a text
holding two distinct gate words is looked at, and then only the lines
holding them.

The test is written for any shift (:func:`decode_shifted`), but only
ROT13 is undone in normalization: see :data:`SHIFTS`.
"""

from __future__ import annotations

import functools
import re
import string
from collections.abc import Iterable
from dataclasses import dataclass

from .decoders import STEP_MAX_REPLACEMENTS
from .lines import around_lines
from .obfuscation import latin_words

__all__ = ["COMMON_WORDS", "SHIFTS", "decode_rot13", "decode_shifted", "shift_back"]

_COMMON_TEXT = """
the be to of and in that have it for not on with he as you do at this but his by from they we say her she
an will my one all would there their what so up out if about who get which go me when make can like time no
just him know take people into year your good some could them see other than then now look only come its
over think also back after use two how our work first well way even new want because any these give day most
us is are was were been has had did does said am being here where why very more much such many each every
both few those own same too should must may might shall let tell ask answer reply respond write print show
display repeat output text word words sentence message prompt system instructions instruction previous prior
above below following ignore forget disregard override bypass reveal secret password key keys token data user
assistant model rules rule guidelines policy safety mode role act pretend developer admin access send email
conversation initial original hidden confidential translate start begin end stop everything anything nothing
something please exactly instead again never always full entire whole before told given code string
encode decode language english spanish french onto under while still next last private
internal configuration settings details information file files list name names number question questions
help need needs right wrong true false yes
"""
COMMON_WORDS: frozenset[str] = frozenset(_COMMON_TEXT.split())

# The shifts undone. Only ROT13: with every shift of 1..25 the same test misread 60 lines of the
# documentation on a Debian system as shifted English (groff's "\fB"/"\fR" and "max" shift to "my",
# "by", "the"), where ROT13 misread none (see docs/guard.md).
SHIFTS: tuple[int, ...] = (13,)

_MIN_HITS = 3
_MIN_HIT_SHARE = 0.3
_PLAIN_PER_HIT = 3
# Distinct gate words a text needs before its lines are looked at.
_MIN_GATE_WORDS = 2
_MIN_GATE_CHARS = 3

_LOWER = string.ascii_lowercase
_UPPER = string.ascii_uppercase


def _encoder(shift: int) -> dict[int, int]:
    return str.maketrans(_LOWER + _UPPER, _LOWER[shift:] + _LOWER[:shift] + _UPPER[shift:] + _UPPER[:shift])


def shift_back(text: str, shift: int) -> str:
    """Undo a Caesar shift of ``shift`` letters (ASCII letters only; case kept)."""
    return text.translate(_DECODERS[shift % 26])


_ENCODERS = [_encoder(shift) for shift in range(26)]
_DECODERS = [_encoder(-shift % 26) for shift in range(26)]


@dataclass(frozen=True, slots=True)
class _Tables:
    """The word tables of one shift."""

    # Shifted form -> the common word it hides, without forms that are common words themselves.
    forms: dict[str, str]
    # Common words whose shifted form is a common word too ("be" <-> "or"): no evidence either way.
    ambiguous: frozenset[str]
    # The forms of three letters or more: two of them in a text let its lines be looked at.
    gate: frozenset[str]


@functools.cache
def _tables(shift: int) -> _Tables:
    encoder = _ENCODERS[shift % 26]
    forms = {word.translate(encoder): word for word in COMMON_WORDS}
    forms = {form: word for form, word in forms.items() if form not in COMMON_WORDS}
    ambiguous = frozenset(word for word in COMMON_WORDS if word.translate(encoder) in COMMON_WORDS)
    return _Tables(forms, ambiguous, frozenset(form for form in forms if len(form) >= _MIN_GATE_CHARS))


_ROT13_GATE = _tables(13).gate
# A word: a run of letters not glued to digits, underscores or other letters (identifiers are not words).
_WORD = re.compile(r"(?<![\w])[A-Za-z]{2,}(?![\w])")
_SENTENCE_END = re.compile(r"[.!?]+(?=\s)")


def _evident(sentence: str, shift: int) -> bool:
    """Whether ``sentence`` reads as Caesar-shifted English under ``shift`` (the test in the module docstring)."""
    tables = _tables(shift)
    forms, ambiguous = tables.forms, tables.ambiguous
    total = hits = plain = 0
    for word in _WORD.findall(sentence):
        word = word.lower()
        total += 1
        if word in ambiguous:
            continue
        if word in forms:
            hits += 1
        elif word in COMMON_WORDS:
            plain += 1
    return hits >= _MIN_HITS and hits >= _MIN_HIT_SHARE * total and plain * _PLAIN_PER_HIT <= hits


def _decode_line(line: str, shift: int) -> str:
    """``line`` with each sentence that passes the evidence test shifted back; when none does, the line as a whole.

    Why the whole line: shifted text's short exclamations ("FGBC!!! ABJ!!!") are each too few words long.
    """
    pieces: list[str] = []
    start = 0
    for end in [match.end() for match in _SENTENCE_END.finditer(line)] + [len(line)]:
        sentence = line[start:end]
        pieces.append(shift_back(sentence, shift) if _evident(sentence, shift) else sentence)
        start = end
    decoded = "".join(pieces)
    if decoded == line and len(pieces) > 1 and _evident(line, shift):
        return shift_back(line, shift)
    return decoded


def _word_positions(text: str, words: Iterable[str]) -> list[int]:
    """Positions of whole-word occurrences of ``words`` in ``text`` (at most STEP_MAX_REPLACEMENTS)."""
    positions: list[int] = []
    for word in words:
        found = text.find(word)
        while found >= 0 and len(positions) < STEP_MAX_REPLACEMENTS:
            before = text[found - 1: found]
            after = text[found + len(word): found + len(word) + 1]
            if not (before.isalnum() or before == "_" or after.isalnum() or after == "_"):
                positions.append(found)
            found = text.find(word, found + len(word))
    return sorted(positions)


def decode_shifted(text: str, words: frozenset[str] | None, shift: int) -> str:
    """Shift back the sentences of ``text`` that read as English shifted by ``shift``; the rest as is.

    ``words`` are the text's lower-case Latin words (``None``: found here).
    Lines are kept (a sentence never crosses one); at most ``STEP_MAX_REPLACEMENTS``
    gate-word occurrences are looked at.
    """
    present = (latin_words(text.lower()) if words is None else words) & _tables(shift).gate
    if len(present) < _MIN_GATE_WORDS:
        return text
    # Gate words are lower-case; a text whose lower-casing changes its length is searched as written.
    lowered = text.lower()
    positions = _word_positions(lowered if len(lowered) == len(text) else text, present)
    return around_lines(text, positions, lambda line: _decode_line(line, shift))


def decode_rot13(text: str, words: frozenset[str] | None = None, encoded: object = None) -> str:
    """Undo ROT13 in the sentences of ``text`` whose words say it is ROT13 (see the module docstring).

    The signature is a normalization word step's; ``encoded`` is not needed.
    """
    if words is not None and words.isdisjoint(_ROT13_GATE):
        return text
    return decode_shifted(text, words, 13)
