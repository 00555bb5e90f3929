"""Undo word-level obfuscation: letter spacing, delimiter splitting, leetspeak, scrambled words.

These steps run on lower-cased, already decoded text. Like the decoders they
are linear, bounded (``STEP_MAX_REPLACEMENTS`` spans per step and segment) and
keep the number of lines, so the orchestrator can attribute each change to the
lines it touched.

They are deliberately narrow so that ordinary prose is left alone:

* letter spacing joins runs of 4..64 single letters ("i g n o r e"), then puts
  spaces back around known trigger words ("ignoreprevious" -> "ignore previous");
* delimiter splitting joins runs of three or more 1..3-letter pieces separated
  by one of ``. _ | / \\ - * + ~ ·`` ("i.g.n.o.r.e", "ig-no-re"), but not
  "e-mail" or "a.m." (words split in two longer halves, "ign-ore", are missed);
* leetspeak maps ``0 1 3 4 5 7 @ $`` to letters in 4..32-character tokens
  that mix them with letters ("1gn0re");
* scrambled words restore a word whose first and last letters and sorted
  middle letters equal a core trigger word's ("ignroe", "isntructions").
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator

import numpy as np

from .byteview import AsciiBytes, byte_table, view
from .decoders import STEP_MAX_REPLACEMENTS
from .lines import around_lines

__all__ = [
    "SCRAMBLE_WORDS",
    "TRIGGER_WORDS",
    "collapse_letter_spacing",
    "may_be_spaced",
    "remove_letter_delimiters",
    "restore_leet",
    "restore_scrambled",
]

# Core trigger words whose scrambled spellings are restored.
SCRAMBLE_WORDS: tuple[str, ...] = (
    "ignore", "disregard", "forget", "override", "bypass", "discard", "previous", "instructions",
    "instruction", "prompt", "system", "developer", "reveal", "password", "passwords", "credentials",
    "secret", "assistant", "pretend", "policy", "safety", "memory", "execute", "rules", "above",
    "jailbreak", "unrestricted", "exfiltrate", "guidelines", "confidential",
)
# Words put back apart after letter spacing is collapsed, longest first.
TRIGGER_WORDS: tuple[str, ...] = (
    *SCRAMBLE_WORDS,
    "prior", "all", "the", "your", "you", "are", "now", "and", "any", "of", "to", "me", "print", "show",
    "output", "only", "disable", "api", "key", "keys", "send", "tool", "tools", "run", "say",
    "tell", "user", "data", "token", "tokens", "ai", "act", "as", "new", "role", "mode", "admin",
    "root", "reply", "respond", "with", "what", "is", "in", "it", "a", "an", "from", "on", "this", "that",
)

_SPACED_RUN = re.compile(r"(?<![\w'’])[a-z](?:[ \t][a-z]){3,63}(?![\w'’])")
# Gate: starts at the space so sre skips ahead quickly; confirms a run of four.
_SPACED_HINT = re.compile(r"[ \t](?<=(?<![\w'’])[a-z][ \t])[a-z][ \t][a-z][ \t][a-z](?![\w'’])")
_VOCABULARY = re.compile("|".join(sorted(set(TRIGGER_WORDS), key=len, reverse=True)))
# Starts at the (rarer) delimiter and looks back for the letter before it: sre
# then skips most positions at C speed instead of trying every letter.
_DELIMITER_HINT = re.compile(r"[._|/\\*+~·-](?<=[a-z][._|/\\*+~·-])[a-z]{1,3}[._|/\\*+~·-][a-z]")
_DELIMITED_SHORT = re.compile(r"(?<![a-z0-9])[a-z]{1,3}(?:[._|/\\*+~·-][a-z]{1,3}){2,}(?![a-z0-9])")
_DELIMITERS = re.compile(r"[._|/\\*+~·-]")
# Byte views (see .byteview). Letters a-z read "a", the other classes a pattern
# needs read as one byte each, and the hint patterns (which define what is
# matched and stay the reference: tests pin equal results) are rewritten over
# those bytes: a class becomes a literal, which sre scans for far faster than a
# character class. The delimiter view is Latin-1, where "·" keeps a byte.
_SPACED_BYTES = byte_table(lambda b: 0x61 if 0x61 <= b <= 0x7A else 0x20 if b in (0x20, 0x09) else 0x23)
# The middle of any four spaced letters; a necessary condition for both spacing patterns.
_SPACED_SHAPE = re.compile(rb" a a ")
_DELIMITER_BYTES = byte_table(lambda b: 0x61 if 0x61 <= b <= 0x7A else 0x2E if b in b"._|/\\*+~-\xb7" else 0x23)
_DELIMITER_HINT_BYTES = re.compile(rb"\.(?<=a\.)a{1,3}\.a")
_LEET_SET = frozenset("013457@$")
_TOKEN_SET = frozenset("abcdefghijklmnopqrstuvwxyz013456789@$2")
_LEET_HINT = re.compile(r"[013457@$](?<=[a-z][013457@$])|[013457@$](?=[a-z])")
_LEET_BYTES = byte_table(lambda b: 0x61 if 0x61 <= b <= 0x7A else 0x31 if b in b"013457@$" else 0x23)
_LEET_HINT_BYTES = re.compile(rb"1(?<=a1)|1(?=a)")
_LEET_MAP = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s"})
_LEET_MIN, _LEET_MAX = 4, 32
# Single letters other than those that are ordinary words or initials in prose
# ("a", "i", "x", ...); three or more of them are the sign of letter spacing.
_RARE_SINGLE = frozenset("abcdefghijklmnopqrstuvwxyz") - frozenset("aiosuxvce")


def _resplit(joined: str) -> str:
    # Put spaces around known words so "ignoreprevious" reads "ignore previous".
    pieces = []
    position = 0
    for match in _VOCABULARY.finditer(joined):
        if match.start() > position:
            pieces.append(joined[position : match.start()])
        pieces.append(match.group())
        position = match.end()
    if position < len(joined):
        pieces.append(joined[position:])
    return " ".join(pieces)


def collapse_letter_spacing(text: str, words: frozenset[str] | None = None, encoded: AsciiBytes | None = None
                            ) -> str:
    """Join runs of 4..64 single letters separated by spaces ("i g n o r e" -> "ignore").

    ``words`` (the text's Latin words) lets prose without unusual one-letter
    words skip the scan; ``encoded`` shares the text's ASCII encoding between steps.
    """
    if words is not None and len(words & _RARE_SINGLE) < 3:
        return text
    if not may_be_spaced(text, encoded) or _SPACED_HINT.search(text) is None:
        return text
    return _SPACED_RUN.sub(lambda m: _resplit(m.group().replace(" ", "").replace("\t", "")), text,
                           count=STEP_MAX_REPLACEMENTS)


def may_be_spaced(text: str, encoded: AsciiBytes | None = None) -> bool:
    """False only when ``text`` provably holds no letter spacing (no four letters with a space or tab between each).

    Both spacing patterns need that shape; finding it in a byte view costs a
    fraction of the regex search it saves on ordinary prose.
    """
    return _SPACED_SHAPE.search(view(text, _SPACED_BYTES, encoded=encoded)) is not None


def remove_letter_delimiters(text: str, words: frozenset[str] | None = None, encoded: AsciiBytes | None = None
                             ) -> str:
    """Remove delimiters that split a word into 1..3-letter pieces ("i.g.n.o.r.e", "ig-no-re")."""
    del words  # the delimiter hint is cheaper than any word-set test
    positions = _delimiter_hints(text, encoded)
    if not positions:
        return text
    return around_lines(text, positions, lambda line: _DELIMITED_SHORT.sub(
        lambda m: _resplit(_DELIMITERS.sub("", m.group())), line))


def _delimiter_hints(text: str, encoded: AsciiBytes | None = None) -> list[int]:
    """Where ``_DELIMITER_HINT`` matches in ``text`` (as its ``finditer`` finds them), within the step budget."""
    # The view is Latin-1 so that "·" keeps its byte; every other byte above 0x7F reads "#", as
    # the "?" of an ASCII encoding does, so without a "·" the shared ASCII encoding gives the same view.
    latin = encoded is None or "·" in text
    hits = _DELIMITER_HINT_BYTES.finditer(view(text, _DELIMITER_BYTES, "latin-1" if latin else "ascii", encoded))
    return [hit.start() for hit in itertools.islice(hits, STEP_MAX_REPLACEMENTS)]


def _leet_hints(text: str, encoded: AsciiBytes | None = None) -> Iterator[int]:
    """Where ``_LEET_HINT`` matches in ``text`` (a leet character next to a letter a-z), in order."""
    return (hit.start() for hit in _LEET_HINT_BYTES.finditer(view(text, _LEET_BYTES, encoded=encoded)))


def restore_leet(text: str, words: frozenset[str] | None = None, encoded: AsciiBytes | None = None) -> str:
    """Map leetspeak digits and symbols to letters in 4..32-character tokens mixing them with letters."""
    del words
    spans: list[tuple[int, int]] = []
    end = -1
    for position in _leet_hints(text, encoded):
        if position < end:
            continue
        start = position
        while start > 0 and text[start - 1] in _TOKEN_SET and position - start < _LEET_MAX:
            start -= 1
        end = position + 1
        while end < len(text) and text[end] in _TOKEN_SET and end - start <= _LEET_MAX:
            end += 1
        boundary_ok = (start == 0 or text[start - 1] not in _TOKEN_SET) and (
            end == len(text) or text[end] not in _TOKEN_SET)
        if boundary_ok and _LEET_MIN <= end - start <= _LEET_MAX:
            spans.append((start, end))
            if len(spans) >= STEP_MAX_REPLACEMENTS:
                break
    if not spans:
        return text
    pieces = []
    previous = 0
    for start, stop in spans:
        pieces.append(text[previous:start])
        pieces.append(text[start:stop].translate(_LEET_MAP))
        previous = stop
    pieces.append(text[previous:])
    return "".join(pieces)


def _scramble_key(word: str) -> tuple[str, str, str]:
    return word[0], word[-1], "".join(sorted(word[1:-1]))


_SCRAMBLED: dict[tuple[str, str, str], str] = {_scramble_key(w): w for w in SCRAMBLE_WORDS}
_SHAPES = frozenset((w[0], w[-1], len(w)) for w in SCRAMBLE_WORDS)
# Every byte but a-z becomes a space; non-ASCII characters first become "?" (one
# per code point), so the split below yields exactly what re.findall("[a-z]+") would.
_NOT_LATIN = bytes(code if 97 <= code <= 122 else 32 for code in range(256))


def latin_words(text: str, encoded: AsciiBytes | None = None) -> frozenset[str]:
    """The distinct runs of ``a-z`` in ``text`` (the same set as ``re.findall("[a-z]+")``).

    Done with encode/translate/split, all in C: on 50 KiB of text it is about
    twice as fast as the regex, and it runs for every segment the guard scans.
    """
    return frozenset(view(text, _NOT_LATIN, encoded=encoded).decode("ascii").split())


# A run of letters' shape as one number: its length (longer runs read 15: no trigger word is that
# long) and its first and last code units (7 bits each); _SHAPE_TABLE[shape] says a trigger word has it.
_LONGEST_SHAPE = 15
_SHAPE_TABLE = np.zeros((_LONGEST_SHAPE + 1) << 14, dtype=np.bool_)
_SHAPE_TABLE[[len(w) << 14 | ord(w[0]) << 7 | ord(w[-1]) for w in SCRAMBLE_WORDS]] = True


# Texts at least this long have their trigger-shaped words found with array passes (_shaped_words).
_SHAPED_CHARS = 2048


def _shaped_words(data: bytes) -> set[str]:
    """The runs of ``a-z`` in ``data`` (a text's ASCII encoding) with the first letter, last letter and length of a
    core trigger word.

    Why: testing the shape of every distinct word of a page in Python was a
    loop over thousands of words; the runs' shapes are compared in a few array
    passes, and only the few runs of a trigger word's shape become strings.
    """
    codes = np.frombuffer(data, dtype=np.uint8)
    letters = np.zeros(len(codes) + 2, dtype=np.bool_)
    letters[1:-1] = (codes >= 0x61) & (codes <= 0x7A)
    edges = np.flatnonzero(letters[1:] != letters[:-1])
    starts, ends = edges[0::2], edges[1::2]
    shapes = np.minimum(ends - starts, _LONGEST_SHAPE) << 14 | codes[starts].astype(np.int64) << 7 | codes[ends - 1]
    hit = np.flatnonzero(_SHAPE_TABLE[shapes])
    return {data[start:end].decode("ascii") for start, end in zip(starts[hit].tolist(), ends[hit].tolist(),
                                                                   strict=True)}


def restore_scrambled(text: str, words: frozenset[str] | None = None, encoded: AsciiBytes | None = None) -> str:
    """Restore core trigger words whose middle letters were shuffled ("ignroe" -> "ignore").

    A long text's words are taken from the text itself rather than ``words``:
    a word the substitution below can replace is a whole ``\\b``-bounded run
    of ``a-z`` in the text, so words absent from it cannot change the result.
    """
    if len(text) >= _SHAPED_CHARS:
        candidates: Iterable[str] = _shaped_words(text.encode("ascii", "replace") if encoded is None else encoded(text))
    else:
        # A short text: the array passes cost more than testing its few words.
        candidates = latin_words(text, encoded) if words is None else words
    found: dict[str, str] = {}
    for word in candidates:
        if len(word) > 3 and (word[0], word[-1], len(word)) in _SHAPES:
            restored = _SCRAMBLED.get(_scramble_key(word))
            if restored is not None and restored != word:
                found[word] = restored
    if not found:
        return text
    pattern = re.compile(r"\b(?:" + "|".join(sorted(found, key=len, reverse=True)) + r")\b")
    return pattern.sub(lambda m: found[m.group()], text, count=STEP_MAX_REPLACEMENTS)
