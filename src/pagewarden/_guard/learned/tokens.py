"""The detector's tokenizer, exactly ``re.findall(WORD_PATTERN, text)`` but about twice as fast on prose.

Why: one ``findall`` over a page was 40 % of the detector's time, nearly all
of it per-token work inside ``sre`` (a match attempt, a new string and a list
append for each of thousands of tokens). Most tokens of ordinary text are a
whole whitespace-separated chunk, which ``str.split`` finds in C; the regular
expression is still used for every chunk that is not of one of the shapes
below, so it stays the definition.

Why it is exact (``WORD_PATTERN`` is ``[^\\W_]+(?:['’][^\\W_]+)?|[^\\w\\s]``):

* ``\\s`` and ``str.split()`` use the same whitespace test, and no token holds
  whitespace, so the tokens of a text are those of its chunks, in order;
* ``[^\\W_]`` is ``str.isalnum`` (sre's ``\\w`` is that test or ``_``): a chunk
  whose characters are all alphanumeric is one token;
* a one-character chunk that is not alphanumeric is a mark, unless it is ``_``
  (in no token at all);
* an alphanumeric run followed (or preceded) by one such character splits into
  the run and the mark: an apostrophe joins two words only with a word after it;
* a NUL (the stream's sentence boundary) is a mark and never part of a word, so
  spacing it apart changes no token and makes its neighbours chunks of their own.

``tests/guard/test_tokens.py`` checks the equality on random Unicode text and
the two character tests on every code point.
"""

from __future__ import annotations

import re

from .features import WORD_PATTERN

__all__ = ["tokenize"]

_FINDALL = re.compile(WORD_PATTERN).findall
_NUL = "\x00"


def tokenize(text: str) -> list[str]:
    """The tokens of ``text``: exactly ``re.findall(WORD_PATTERN, text)``."""
    if _NUL in text:
        text = text.replace(_NUL, " \x00 ")
    tokens: list[str] = []
    append = tokens.append
    for chunk in text.split():
        if chunk.isalnum():
            append(chunk)
        elif len(chunk) == 1:
            if chunk != "_":
                append(chunk)
        elif chunk[:-1].isalnum():
            append(chunk[:-1])
            if chunk[-1] != "_":
                append(chunk[-1])
        elif chunk[1:].isalnum():
            if chunk[0] != "_":
                append(chunk[0])
            append(chunk[1:])
        else:
            tokens += _FINDALL(chunk)
    return tokens
