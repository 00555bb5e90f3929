"""Match the rules against segments and build findings.

For each normalized variant of a segment, a rule is tried only when one of its
needles occurs in the text; then only the sentence-like units around its needle
occurrences are handed to its anchor and full patterns. A unit ends at a newline or at sentence punctuation, and is
bounded in length, so matching stays linear in the page size.

Location policy (documented choice): a finding keeps the rule's category (more
useful than the reference guard's blanket ``hidden_instruction``); its
severity is raised to at least ``high`` in hidden, comment, metadata and
template content and to at least ``medium`` in attributes. The next pass adds a
separate ``hidden_instruction`` rule for AI-directed imperatives in hidden text.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .decoders import may_hold_astral
from .normalize import normalize
from .obfuscation import latin_words
from .report import Finding, Location, Severity
from .rules import Rule, RuleSet, has_cjk
from .segments import Segment

__all__ = [
    "HIDDEN_TYPE_LOCATIONS", "MAX_REASON_CHARS", "ScanResult", "scan_segment", "scan_segment_full", "segment_hash",
    "smuggled_text",
]

HIDDEN_TYPE_LOCATIONS = frozenset({Location.HIDDEN, Location.COMMENT, Location.METADATA, Location.TEMPLATE})
MAX_REASON_CHARS = 200
# A unit reaches at most this far on each side of the anchor hit.
_UNIT_REACH = 320
# A paragraph unit (rules with ``unit = "paragraph"``: an address in one sentence, the order in
# the next) reaches this far on each side.
_PARAGRAPH_REACH = 480
# Above this many needle hits in one text, find candidates with the anchor regex.
_MAX_NEEDLE_HITS = 256
# What ends a rule unit. The definition: _last_boundary and _next_boundary find its matches faster,
# and tests/guard/test_scan_units.py compares them with it.
_BOUNDARY = re.compile(r"\n|[.!?](?=\s|$)|[。！？]")

Ints = npt.NDArray[np.int64]


def segment_hash(text: str) -> str:
    """First 16 hex digits of SHA-256 over the segment text (identifies it without quoting it)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


# Unicode tag characters mirror ASCII but render as nothing ("ASCII smuggling"). A
# subdivision flag (England, Scotland, Wales) uses a run of five or six; a longer
# run is text a person cannot see, whatever it says.
_TAG_RUN = re.compile("[\U000e0020-\U000e007e]{8,}")


def smuggled_text(text: str) -> bool:
    """Whether ``text`` holds a run of 8 or more Unicode tag characters (invisible text)."""
    # Tag characters are astral: a string stored at two bytes a character has none, and
    # its size says so without the regex scan (most non-ASCII pages are such strings).
    return not text.isascii() and may_hold_astral(text) and _TAG_RUN.search(text) is not None


# _BOUNDARY's one-character alternatives: marks that always end a unit, and marks that end
# one before whitespace or at the end of the searched range (the regex's "$" is its endpos).
_ALWAYS_ENDS = ("\n", "。", "！", "？")
_STOPS = (".", "!", "?")


def _ends(text: str, wide: bool | None) -> tuple[str, ...]:
    # The full-width marks only where the caller says they may occur (or the text is not ASCII).
    return _ALWAYS_ENDS if (not text.isascii() if wide is None else wide) else _ALWAYS_ENDS[:1]


def _last_boundary(text: str, low: int, start: int, wide: bool | None = None) -> int:
    """Where the last ``_BOUNDARY`` match of ``finditer(text, low, start)`` ends, or ``low``.

    The regex visits every position of the range (it has no literal prefix),
    about 30 ns a character; ``str.rfind`` per mark runs in C and stops at the
    last occurrence, which is all a unit needs. ``wide`` False says the text
    holds none of the full-width marks (see :func:`_wide_marks`).
    """
    best = -1
    for mark in _ends(text, wide):
        best = max(best, text.rfind(mark, low, start))
    for mark in _STOPS:
        found = text.rfind(mark, max(low, best + 1), start)
        while found >= 0 and found + 1 != start and not text[found + 1].isspace():
            found = text.rfind(mark, max(low, best + 1), found)
        best = max(best, found)
    return best + 1 if best >= 0 else low


def _next_boundary(text: str, end: int, stop: int, wide: bool | None = None) -> int:
    """Where the first ``_BOUNDARY`` match of ``search(text, end, stop)`` ends, or ``min(stop, len(text))``."""
    stop = min(stop, len(text))
    first = stop
    for mark in _ends(text, wide):
        found = text.find(mark, end, first)
        if found >= 0:
            first = found
    for mark in _STOPS:
        found = text.find(mark, end, first)
        while found >= 0 and found + 1 != stop and not text[found + 1].isspace():
            found = text.find(mark, found + 1, first)
        if found >= 0:
            first = found
    return first + 1 if first < stop else stop


def _unit_at(text: str, start: int, end: int, wide: bool | None = None) -> tuple[int, int]:
    return (_last_boundary(text, max(0, start - _UNIT_REACH), start, wide),
            _next_boundary(text, end, end + _UNIT_REACH, wide))


# The high bytes of the full-width marks' code units: U+3002 and U+FF01, U+FF1F.
_WIDE_MARK_UNITS = (0x30, 0xFF)


def _wide_marks(high: bytes | None) -> bool:
    """Whether a text whose code units have the high bytes ``high`` (None: ASCII) may hold a full-width mark.

    Most non-ASCII pages are Latin text with a few curly quotes: without this,
    every unit boundary searched them for three marks they cannot hold.
    """
    return high is not None and any(high.find(unit) >= 0 for unit in _WIDE_MARK_UNITS)


def _paragraph_at(text: str, start: int, end: int) -> tuple[int, int]:
    """The line around ``start``..``end`` (a paragraph of page text), at most ``_PARAGRAPH_REACH`` each side."""
    low = max(0, start - _PARAGRAPH_REACH)
    before = text.rfind("\n", low, start)
    stop = min(len(text), end + _PARAGRAPH_REACH)
    after = text.find("\n", end, stop)
    return (before + 1 if before >= 0 else low), (after if after >= 0 else stop)


def _needle_hits(text: str, needle: str) -> list[int]:
    """Where ``needle`` occurs in ``text``, at most ``_MAX_NEEDLE_HITS + 1`` times.

    A needle made of ASCII letters counts only as a whole word ("now", not "know").
    """
    whole_word = needle.isalpha() and needle.isascii()
    size = len(needle)
    hits: list[int] = []
    found = text.find(needle)
    while found >= 0 and len(hits) <= _MAX_NEEDLE_HITS:
        if not whole_word or (
            (found == 0 or not text[found - 1].isalpha())
            and (found + size >= len(text) or not text[found + size].isalpha())
        ):
            hits.append(found)
        found = text.find(needle, found + 1)
    return hits


# A text at least this long has its whole-word needles found from an index of its words: below
# it, the str.find passes cost less than building the index (measured: a loss at 16k characters,
# 10 % of the scan saved at 50k).
_INDEX_CHARS = 32768
# A word's index key: its length and the code units of its first two and last two letters.
_KEY_SHIFTS = (28, 21, 14, 7, 0)


def _word_key(word: str) -> int:
    """The key :class:`_WordIndex` gives a run of letters equal to ``word``, in Python integers."""
    codes = [ord(char) for char in word]
    size = len(word)
    key = size << _KEY_SHIFTS[0]
    for part, shift in zip((codes[0], codes[min(1, size - 1)], codes[max(size - 2, 0)], codes[-1]),
                           _KEY_SHIFTS[1:], strict=True):
        key |= part << shift
    return key


# Multiplies a key before its top bits pick a slot of _AskedKeys.slots (a multiplicative hash).
_SLOT_MIX = np.uint64(0x9E3779B97F4A7C15)


@dataclass(frozen=True, slots=True)
class _AskedKeys:
    """The distinct keys of the words a scan asks the word index for, and a table that finds them.

    ``slots[hash(key)]`` is the key's rank + 1 (0: no asked key has that
    slot); the table is sized so that no two asked keys share a slot, so a
    run's rank is one gather and one comparison (a binary search of every
    run among the asked keys cost half a millisecond on 50 KiB).
    """

    keys: Ints
    rank: dict[int, int]
    slots: npt.NDArray[np.int32]
    shift: np.uint64

    def ranks(self, runs: Ints) -> Ints:
        """The rank of each of ``runs`` among the asked keys, or -1."""
        slot = ((runs.view(np.uint64) * _SLOT_MIX) >> self.shift).view(np.int64)
        rank: Ints = self.slots[slot].astype(np.int64) - 1
        asked = rank >= 0
        rank[asked] = np.where(self.keys[rank[asked]] == runs[asked], rank[asked], -1)
        return rank


@functools.lru_cache(maxsize=4)
def _asked_keys(words: tuple[str, ...]) -> _AskedKeys | None:
    """The asked keys of ``words`` (None: no words, or no collision-free table of at most 2**20 slots)."""
    keys = np.unique(np.array([_word_key(word) for word in words], dtype=np.int64))
    if not len(keys):
        return None
    for bits in range(max(8, (8 * len(keys)).bit_length()), 21):
        shift = np.uint64(64 - bits)
        slot = ((keys.view(np.uint64) * _SLOT_MIX) >> shift).view(np.int64)
        if len(np.unique(slot)) == len(keys):
            slots = np.zeros(1 << bits, dtype=np.int32)
            slots[slot] = np.arange(1, len(keys) + 1, dtype=np.int32)
            return _AskedKeys(keys, {key: rank for rank, key in enumerate(keys.tolist())}, slots, shift)
    return None


class _WordIndex:
    """Every run of ``a-z`` in a text, keyed, so a whole-word needle's hits come from one array comparison.

    Why: each word needle found on a long page was a ``str.find`` pass over
    the whole text (about 40 us per needle on 50 KiB, and a page's variant
    asks for 20-40 needles). A whole-word hit of a needle of ASCII letters
    is a maximal run of ``a-z`` equal to the needle (its neighbours are not
    letters), so the runs with the needle's key are the only candidates;
    each is then checked exactly as :func:`_needle_hits` checks a hit. Built
    on first use, over the text's UTF-16 code units: only for a text without
    astral characters, whose code units are its characters.

    The runs whose key is one of ``asked`` (the rules' position words) are
    grouped by key once, so such a needle's candidates are a slice instead
    of a comparison over every run of the page; any other needle is compared
    with every run.
    """

    __slots__ = ("_asked", "_bounds", "_grouped", "_keys", "_starts", "_text", "_units")

    def __init__(self, text: str, asked: tuple[str, ...] = (), units: bytes | None = None) -> None:
        self._text = text
        self._asked = asked
        # The text's UTF-16 code units when the caller has them (the scan encodes a non-ASCII
        # text once for its high bytes); an ASCII text's characters are its ASCII bytes.
        self._units = units
        self._keys: npt.NDArray[np.int64] | None = None
        self._starts: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)
        self._grouped: list[int] = []
        self._bounds: list[int] = []

    @staticmethod
    def _key(first: Ints, second: Ints, before_last: Ints, last: Ints, length: Ints | int) -> Ints:
        key: Ints = np.left_shift(length, _KEY_SHIFTS[0])
        for part, shift in zip((first, second, before_last, last), _KEY_SHIFTS[1:], strict=True):
            key |= np.left_shift(part, shift)
        return key

    def _build(self) -> npt.NDArray[np.int64]:
        units: npt.NDArray[np.uint16] | npt.NDArray[np.uint8]
        if self._units is not None:
            units = np.frombuffer(self._units, dtype=np.uint16)
        elif self._text.isascii():
            units = np.frombuffer(self._text.encode("ascii"), dtype=np.uint8)
        else:
            units = np.frombuffer(self._text.encode("utf-16-le", "surrogatepass"), dtype=np.uint16)
        letters = np.zeros(len(units) + 2, dtype=np.bool_)
        # a-z in one comparison: below "a" the 16-bit difference wraps to a large number. (The text's
        # code units stay 16-bit until the few gathered for the keys: a pass over 64-bit copies of
        # every unit cost more than the rest of the index.)
        np.less(units - units.dtype.type(0x61), 26, out=letters[1:-1])
        edges = (letters[1:] != letters[:-1]).nonzero()[0]
        starts, ends = edges[0::2], edges[1::2]
        self._starts = starts

        def unit(at: Ints) -> Ints:
            wide: Ints = units[at].astype(np.int64)
            return wide

        keys = self._keys = self._key(unit(starts), unit(np.minimum(starts + 1, ends - 1)),
                                      unit(np.maximum(ends - 2, starts)), unit(ends - 1), ends - starts)
        asked = _asked_keys(self._asked)
        if asked is not None:
            # Each run's rank among the asked keys, for the runs that have one; the runs of one
            # rank stay in text order (a stable sort).
            rank = asked.ranks(keys)
            kept = (rank >= 0).nonzero()[0]
            # As 16-bit numbers the ranks are sorted by a radix sort, several times faster than by a merge sort.
            kept_rank = rank[kept].astype(np.uint16 if len(asked.keys) <= 1 << 16 else np.int64)
            order = np.argsort(kept_rank, kind="stable")
            self._grouped = starts[kept][order].tolist()
            self._bounds = np.searchsorted(kept_rank[order], np.arange(len(asked.keys) + 1)).tolist()
        return keys

    def hits(self, needle: str) -> list[int]:
        """``_needle_hits(text, needle)`` for a needle of ASCII letters."""
        keys = self._build() if self._keys is None else self._keys
        key = _word_key(needle)
        asked = _asked_keys(self._asked)
        rank = None if asked is None else asked.rank.get(key)
        candidates = (self._starts[keys == key].tolist() if rank is None
                      else self._grouped[self._bounds[rank]:self._bounds[rank + 1]])
        text = self._text
        size = len(needle)
        hits: list[int] = []
        for found in candidates:
            if text.startswith(needle, found) and (found == 0 or not text[found - 1].isalpha()) and (
                    found + size >= len(text) or not text[found + size].isalpha()):
                hits.append(found)
                if len(hits) > _MAX_NEEDLE_HITS:
                    break
        return hits


def _word_index(text: str, asked: tuple[str, ...] = (), units: bytes | None = None) -> _WordIndex | None:
    """An index of ``text``'s words when it is long enough to pay off and has no astral character.

    ``asked``: the words the scan will ask for (see :class:`_WordIndex`); ``units``: the text's
    UTF-16 code units when the caller has them.
    """
    if len(text) < _INDEX_CHARS or (not text.isascii() and may_hold_astral(text)):
        return None
    return _WordIndex(text, asked, units)


def _units(
    text: str, rule: Rule, needles: Iterable[str] | None = None, hits: dict[str, list[int]] | None = None,
    wide: bool | None = None, index: _WordIndex | None = None,
) -> Iterator[str]:
    """The sentence-like units of ``text`` that may hold a match of ``rule``.

    Units are found from needle positions with ``str.find`` (C speed), or for
    a word needle from ``index`` (``_word_index(text)``) when given; when a
    needle is very frequent the rule's anchor regex is used instead, which
    still visits every candidate. Each unit is yielded once. ``hits`` keeps
    each needle's positions for the other rules scanning the same ``text``:
    rules share needles ("message", "rules"), and each search is a full pass.
    """
    hits = {} if hits is None else hits
    positions: list[int] = []
    for needle in rule.needles if needles is None else needles:
        found = hits.get(needle)
        if found is None:
            found = hits[needle] = (index.hits(needle) if index is not None and needle.isalpha() and needle.isascii()
                                    else _needle_hits(text, needle))
        positions.extend(found)
        if len(positions) > _MAX_NEEDLE_HITS:
            break
    if len(positions) > _MAX_NEEDLE_HITS:
        positions = [hit.start() for hit in rule.anchor.finditer(text)]
    else:
        positions.sort()
    end = -1
    for position in positions:
        if position < end:
            continue
        if rule.paragraph:
            start, end = _paragraph_at(text, position, position + 1)
        else:
            start, end = _unit_at(text, position, position + 1, wide)
        yield text[start:end].strip()


def _clamp(value: float) -> float:
    return round(min(0.99, max(0.05, value)), 3)


@dataclass(frozen=True, slots=True)
class ScanResult:
    """The findings of one segment, whether a normalization budget was hit, and the changed lines.

    ``normalized`` holds each variant other than the literal one (its text:
    only the lines that normalization changed, and the techniques it needed),
    for the learned detector to score beside the segment as written;
    ``lowered`` is the segment's text lower-cased, which the detector reads too.
    """

    findings: list[Finding]
    exhausted: bool = False
    normalized: tuple[tuple[str, tuple[str, ...]], ...] = ()
    lowered: str | None = None


def scan_segment(segment: Segment, rules: RuleSet, *, strict: bool) -> list[Finding]:
    """Every finding in one segment (see :func:`scan_segment_full`)."""
    return scan_segment_full(segment, rules, strict=strict).findings


def scan_segment_full(segment: Segment, rules: RuleSet, *, strict: bool) -> ScanResult:
    """Every finding in one segment, at most one per rule (the first variant that matches wins)."""
    digest = ""
    fired: set[str] = set()
    findings: list[Finding] = []
    benign_seen = False
    normalized = normalize(segment.text)
    location = segment.location
    for index, variant in enumerate(normalized.variants):
        text = variant.text
        ascii_only = text.isascii()
        # The code units' high bytes, shared by the CJK test and every rule's needle gate.
        # The code units of a non-ASCII text, encoded once for the high bytes (as byteview.high_bytes
        # takes them) and the word index.
        units = None if ascii_only else text.encode("utf-16-le", "surrogatepass")
        high = None if units is None else units[1::2]
        cjk = not ascii_only and has_cjk(text, high)
        wide = _wide_marks(high)
        word_index = _word_index(text, rules.position_words, units)
        words = normalized.words if index == 0 else latin_words(text)
        hits: dict[str, list[int]] = {}
        for rule in rules.rules:
            if rule.id in fired or (rule.needs_cjk and not cjk):
                continue
            if rule.locations is not None and location not in rule.locations:
                continue
            present = rule.present_needles(text, words, ascii_only=ascii_only, high=high)
            if not present:
                continue
            for unit in _units(text, rule, present, hits, wide, word_index):
                if not rule.matches(unit):
                    continue
                fired.add(rule.id)
                digest = digest or segment_hash(segment.text)
                benign = location is Location.VISIBLE and rules.benign_context.search(unit) is not None
                benign_seen = benign_seen or benign
                findings.append(_finding(rule.id, rule.category, rule.severity, rule.confidence, segment,
                                         variant.techniques, digest, benign=benign, strict=strict))
                break
    if benign_seen:
        findings.append(Finding("benign_mention", Severity.INFO, 0.7, location, (), digest,
                                "context:benign_mention"))
    if smuggled_text(segment.text):
        findings.append(Finding("hidden_instruction", Severity.HIGH, 0.9, location, ("tag_characters_decoded",),
                                digest or segment_hash(segment.text), "rule:invisible_tag_text"))
    changed = tuple((v.text, v.techniques) for v in normalized.variants[1:])
    return ScanResult(findings, normalized.exhausted, changed, normalized.lowered)


def _finding(
    rule_id: str, category: str, severity: Severity, confidence: float, segment: Segment,
    techniques: tuple[str, ...], digest: str, *, benign: bool, strict: bool,
) -> Finding:
    if segment.location in HIDDEN_TYPE_LOCATIONS:
        severity = max(severity, Severity.HIGH)
        confidence += 0.15
    elif segment.location is Location.ATTRIBUTE:
        severity = max(severity, Severity.MEDIUM)
        confidence += 0.05
    if strict and severity == Severity.MEDIUM and not benign:
        severity = Severity.HIGH
    if benign:
        confidence -= 0.2
    if techniques:
        # Obfuscation that was needed for the match is itself a signal.
        confidence += 0.05
    reason = f"rule:{rule_id}"[:MAX_REASON_CHARS]
    return Finding(category, Severity(severity), _clamp(confidence), segment.location, techniques, digest, reason)
