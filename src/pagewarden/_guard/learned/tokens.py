"""The detector's tokenizer and token hashes, computed on the text's code points with array operations.

Why: tokenizing a page into Python strings and hashing each string with
``hash`` was about 40 % of the detector's time, nearly all of it per-token
work (a new string, a list append and a hash call for each of thousands of
tokens). Here a text becomes one array of code points; every token's span
comes from a character-class table, and every token's key from a polynomial
over its code points. No token string is made: the few sentences that need
their tokens as text (candidate windows) slice them from the text by span.
The keys are also exact where Python's string hash was not: CPython hashes a
string's internal bytes, so "で" (two bytes in its UCS-2 form, 0x67 0x30) and
"g0" had one hash in every process, and "で" was scored with the weight of
"g0" (both are in the artifact's vocabulary).

The spans are exactly those of ``re.finditer(WORD_PATTERN, text)``
(``[^\\W_]+(?:['’][^\\W_]+)?|[^\\w\\s]``):

* ``[^\\W_]`` is ``str.isalnum`` (sre's ``\\w`` is that test or ``_``) and
  ``\\s`` is ``str.isspace``; a character of neither kind is a mark, except
  ``_`` (in no token at all);
* a word is a maximal alphanumeric run; the pattern extends it by an
  apostrophe and the whole next run, then starts again after that run, so in
  a chain of runs joined by single apostrophes the 1st and 2nd run form one
  word, the 3rd and 4th the next, and the apostrophes between pairs are marks;
* every mark (an apostrophe that joins nothing included) is a token of one
  character.

``tests/guard/test_tokens.py`` checks the spans against the pattern on random
Unicode text, the character tests on every code point, and the keys against
:func:`word_keys` of the token strings.

A key is ``sum(code[i] * BASE**i) + length * _LENGTH_MIX`` modulo 2**64, then
mixed (a 64-bit finalizer, so the low bits that pick a hash-table slot depend on
every bit). ``BASE`` is odd and drawn from the process's string-hash seed:
as with ``hash``, keys differ between processes (the detector's tables are
built from its vocabulary when it loads, by :func:`word_keys`, and never
stored) and are the same under one ``PYTHONHASHSEED``.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = ["Spans", "spans", "tokenize", "word_keys"]

Keys = npt.NDArray[np.uint64]
Ints = npt.NDArray[np.int64]

# Character classes. UNKNOWN: not classified yet (the table is filled on first sight of a code point).
_SPACE, _WORD, _UNDERSCORE, _MARK, _APOSTROPHE, _UNKNOWN = 0, 1, 2, 3, 4, 255
_CODE_POINTS = 0x110000
_classes = np.full(_CODE_POINTS, _UNKNOWN, dtype=np.uint8)
_lock = threading.Lock()

_BASE = np.uint64((hash("pagewarden.guard.tokens") * 2 + 1) % (1 << 64))
_LENGTH_MIX = np.uint64(0x9E3779B97F4A7C15)
# splitmix64's finalizer constants.
_FINAL_1 = np.uint64(0xBF58476D1CE4E5B9)
_FINAL_2 = np.uint64(0x94D049BB133111EB)


def _classify(code: int) -> int:
    char = chr(code)
    if char.isalnum():
        return _WORD
    if char == "_":
        return _UNDERSCORE
    if char.isspace():
        return _SPACE
    return _APOSTROPHE if char in "'’" else _MARK


def _class_of(codes: npt.NDArray[np.uint32]) -> npt.NDArray[np.uint8]:
    # np.take: a fancy index converts the uint32 indices first and is twice as slow here.
    classes: npt.NDArray[np.uint8] = np.take(_classes, codes)
    unknown = classes == _UNKNOWN
    if unknown.any():
        # Only code points never seen by this process are classified in Python, each once.
        with _lock:
            for code in np.unique(codes[unknown]).tolist():
                _classes[code] = _classify(code)
        classes = np.take(_classes, codes)
    return classes


def _code_points(text: str) -> npt.NDArray[np.uint32]:
    # surrogatepass: a lone surrogate stays one code point (one index, as in the str).
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


def _inverse(odd: int) -> int:
    """The inverse of an odd number modulo 2**64 (Newton's iteration doubles the correct low bits)."""
    inverse = odd  # correct to 3 bits: odd * odd = 1 modulo 8
    for _ in range(5):
        inverse = inverse * (2 - odd * inverse) % (1 << 64)
    return inverse


_INVERSE = np.uint64(_inverse(int(_BASE)))
# Power tables up to this many code points are kept for the process (2 MiB each); a longer
# text gets tables of its own.
_KEPT = 1 << 18
_tables = (np.ones(1, dtype=np.uint64), np.ones(1, dtype=np.uint64))


def _power(base: np.uint64, size: int) -> Keys:
    table = np.empty(size, dtype=np.uint64)
    table[0] = 1
    # The product wraps modulo 2**64, as the key's arithmetic does.
    np.cumprod(np.full(size - 1, base, dtype=np.uint64), out=table[1:])
    return table


def _power_tables(length: int) -> tuple[Keys, Keys]:
    """BASE**i and BASE**-i modulo 2**64 for i < ``length`` (at least)."""
    global _tables
    tables = _tables
    if len(tables[0]) < length:
        size = max(length, min(2 * len(tables[0]), _KEPT), 1024)
        tables = (_power(_BASE, size), _power(_INVERSE, size))
        if size <= _KEPT:
            _tables = tables
    return tables


def _keys(codes: npt.NDArray[np.uint32], starts: Ints, ends: Ints) -> Keys:
    """The key of each span ``codes[starts[i]:ends[i]]`` (spans in text order, not overlapping).

    A key does not depend on where its span starts, so a long text is keyed in
    runs of spans of about ``_KEPT`` code points: the prefix sums and power
    tables stay a few MiB whatever the document's size (a whole 5-million
    character page would otherwise take 24 bytes a code point at once).
    """
    if len(codes) <= _KEPT or not len(starts):
        return _run_keys(codes, starts, ends)
    keys = np.empty(len(starts), dtype=np.uint64)
    cuts = [0, *np.searchsorted(starts, np.arange(_KEPT, len(codes), _KEPT)).tolist(), len(starts)]
    for first, last in itertools.pairwise(cuts):
        if first < last:
            low, high = int(starts[first]), int(ends[last - 1])
            keys[first:last] = _run_keys(codes[low:high], starts[first:last] - low, ends[first:last] - low)
    return keys


def _run_keys(codes: npt.NDArray[np.uint32], starts: Ints, ends: Ints) -> Keys:
    """The key of each span ``codes[starts[i]:ends[i]]``, all at once.

    With the prefix sums ``S[j] = sum(code[k] * BASE**k for k < j)``, a span's
    polynomial is ``(S[end] - S[start]) * BASE**-start``: two passes over the
    text and a few operations per span, whatever the spans' lengths.
    """
    size = len(codes)
    powers, inverses = _power_tables(size + 1)
    prefix = np.empty(size + 1, dtype=np.uint64)
    prefix[0] = 0
    np.multiply(codes, powers[:size], out=prefix[1:])
    prefix[1:].cumsum(out=prefix[1:])
    with np.errstate(over="ignore"):
        key: Keys = ((prefix[ends] - prefix[starts]) * inverses[starts]
                     + (ends - starts).astype(np.uint64) * _LENGTH_MIX)
        key ^= key >> np.uint64(30)
        key *= _FINAL_1
        key ^= key >> np.uint64(27)
        key *= _FINAL_2
        key ^= key >> np.uint64(31)
    return key


def word_keys(words: Sequence[str]) -> Keys:
    """The key of each word: equal to the key of a token with that text."""
    lengths = np.fromiter(map(len, words), dtype=np.int64, count=len(words))
    ends = np.cumsum(lengths)
    return _keys(_code_points("".join(words)), ends - lengths, ends)


@dataclass(frozen=True, slots=True)
class Spans:
    """The tokens of a text: ``starts[i]:ends[i]`` is token ``i``, ``word[i]`` whether it is a word (not a mark)."""

    starts: Ints
    ends: Ints
    word: npt.NDArray[np.bool_]
    keys: Keys
    first: npt.NDArray[np.uint32]  # each token's first code point


def _pair_table(boundary: Callable[[int, int], bool]) -> bytes:
    """A ``bytes.translate`` table: byte ``first << 3 | second`` becomes ``boundary(first, second)`` (0 or 1)."""
    table = bytearray(256)
    for first, second in itertools.product(range(_APOSTROPHE + 1), repeat=2):
        table[first << 3 | second] = boundary(first, second)
    return bytes(table)


# A token starts at a mark (an apostrophe that joins nothing is one) and where a word starts;
# it ends at a mark and where a word ends. Joining apostrophes are given the word class first.
_STARTS = _pair_table(lambda before, here: here in (_MARK, _APOSTROPHE) or (here == _WORD and before != _WORD))
_ENDS = _pair_table(lambda here, after: here in (_MARK, _APOSTROPHE) or (here == _WORD and after != _WORD))


def _joins(classes: npt.NDArray[np.uint8], alnum: npt.NDArray[np.bool_]) -> npt.NDArray[np.int64]:
    """The apostrophes that join two alphanumeric runs into one word, as the token pattern pairs them.

    An apostrophe between two alphanumeric characters links the run after
    it to the run before; in a chain of runs linked this way, the pattern
    joins the 1st and 2nd run, the 3rd and 4th... So the 1st, 3rd, 5th...
    linked apostrophe of a chain joins, and two linked apostrophes are in
    one chain when the run after the first ends at the second.
    """
    apostrophes = (classes == _APOSTROPHE).nonzero()[0]
    inner = apostrophes[(apostrophes > 0) & (apostrophes < len(classes) - 1)]
    linked: Ints = inner[alnum[inner - 1] & alnum[inner + 1]]
    if not len(linked):
        return linked
    # Where the run after each linked apostrophe ends: the first character after it that is not alphanumeric.
    breaks = (~alnum).nonzero()[0]
    position = np.searchsorted(breaks, linked + 1)
    run_ends = np.append(breaks, len(classes))[position]
    index = np.arange(len(linked), dtype=np.int64)
    chained = np.zeros(len(linked), dtype=np.bool_)
    chained[1:] = run_ends[:-1] == linked[1:]
    chain_start = np.maximum.accumulate(np.where(chained, 0, index))
    joined: npt.NDArray[np.int64] = linked[(index - chain_start) % 2 == 0]
    return joined


def _marked(pairs: bytes, table: bytes) -> Ints:
    # ndarray.nonzero, not np.flatnonzero: the function wraps the method in Python calls (ravel,
    # dispatch) that cost more than the work on a short text, and the detector makes dozens of them.
    marked: Ints = np.frombuffer(pairs.translate(table), dtype=np.bool_).nonzero()[0]
    return marked


def spans(text: str) -> Spans:
    """The spans and keys of the tokens of ``text``: the matches of ``re.finditer(WORD_PATTERN, text)``.

    Starts and ends come from a ``bytes.translate`` of each pair of adjacent
    character classes (a few passes instead of a dozen boolean array operations).
    """
    codes = _code_points(text)
    classes = _class_of(codes)
    alnum = classes == _WORD
    size = len(codes)
    # Classes with a space before and after the text, joining apostrophes read as word characters.
    padded = np.full(size + 2, _SPACE, dtype=np.uint8)
    padded[1:-1] = classes
    padded[_joins(classes, alnum) + 1] = _WORD
    # pairs[j] holds the classes of characters j - 1 and j.
    pairs = padded[:-1] << np.uint8(3)
    pairs |= padded[1:]
    starts = _marked(pairs[:-1].tobytes(), _STARTS)
    ends = _marked(pairs[1:].tobytes(), _ENDS) + 1
    return Spans(starts, ends, alnum[starts], _keys(codes, starts, ends), codes[starts])


def tokenize(text: str) -> list[str]:
    """The tokens of ``text`` as strings: exactly ``re.findall(WORD_PATTERN, text)``."""
    found = spans(text)
    return [text[start:end] for start, end in zip(found.starts.tolist(), found.ends.tolist(), strict=True)]
