"""Blob decoding beyond the one Base64-alphabet scan of :mod:`.decoders`: the careful decoders and other runs.

Blobs are found in the original text (original case), decoded when they turn
into text, and returned as new text to be normalized once more (never decoded
again as a blob: no recursion). :mod:`.decoders` finds runs of the Base64
alphabet (16+ characters) and sorts each: hex digits only -> hex (a ``0x``
prefix dropped); upper-case letters and ``2-7`` only -> Base32 (decoded here);
mixed case -> Base64; anything else is an ordinary word or identifier. This
module finds the runs that scan cannot see:

* hex bytes written apart (``49 67 6e``, ``49:67:6e``, ``0x49, 0x67``; 8+ bytes);
* runs of 20+ printable ASCII characters without spaces, not all of the Base64
  alphabet -> Ascii85 (``!``..``u``, optionally in ``<~ ~>``) or Base85
  (RFC 1924, the ``git``/Python ``b85`` alphabet).

A blob wrapped at a fixed width (MIME, PEM, ``base32``/``base64`` tools) is one
run continued over the following lines of the same length; its lines are
decoded as one blob, and when the joined text does not decode, line by line.

False decodes are kept out by what text looks like after decoding: valid UTF-8,
mostly printable, with a letter; for the kinds whose runs also look like
ordinary data (Base32 runs are upper-case words and IDs, separated hex is a
table of numbers, Ascii85 is line noise in minified code) the decoded text must
also read as words (:func:`reads_as_words`). Ascii85/Base85 and Base32 decoders are pure Python in the
standard library (about 250 ns a character): a run is decoded whole only when
its first groups decoded to text, and Ascii85/Base85 runs are first checked for
the shape text gives them (see :func:`_text_shaped_85`).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

__all__ = [
    "BLOB_LIMITS", "BlobLimits", "as_text", "base32_text", "one_line", "printable_blobs", "reads_as_words",
    "separated_hex_blobs", "wrapped_end",
]


@dataclass(frozen=True, slots=True)
class BlobLimits:
    """Budgets for blob decoding in one segment.

    Attributes:
        max_decoded: candidates accepted (decoded to text) per segment and kind,
            at least; the budget grows with the segment (one candidate per
            ``chars_per_decoded`` characters), so a long ordinary page full of
            encoded data is decoded whole. One more than the budget marks the
            segment's inspection incomplete (reported as a limitation).
            Candidates that do not decode to text cost one linear pass over
            their own characters and are not counted: runs never overlap, so
            the total work stays linear in the segment.
        chars_per_decoded: segment characters that buy one more candidate.
        max_candidate_chars: a longer run is decoded over its first this-many characters only
            (the default exceeds the largest segment, so every run is decoded whole; decoded
            text is never longer than its run, so the work stays linear).
        max_decoded_chars: decoded text kept per candidate.
        min_printable: share of printable characters a decoded candidate needs.
    """

    max_decoded: int = 32
    chars_per_decoded: int = 64
    max_candidate_chars: int = 65_536
    max_decoded_chars: int = 65_536
    min_printable: float = 0.9


BLOB_LIMITS = BlobLimits()

_LINE_BREAKS = str.maketrans({"\n": " ", "\r": " ", "\x0b": " ", "\x0c": " ", "\x85": " ",
                              "\u2028": " ", "\u2029": " "})
_LETTER = re.compile(r"[^\W\d_]")
# Decoded text that reads as words: two runs of two letters or more, apart, or (scripts written
# without spaces) four kana, CJK or Hangul characters in a row.
_TWO_WORDS = re.compile(r"[^\W\d_]{2,}\s+[^\W\d_]{2,}|[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]{4}")
# A wrapped blob's lines are at least this long (tools wrap at 60..76).
_MIN_WRAP_WIDTH = 40

# Hex bytes written apart: "49 67", "49:67", "49,67", "49, 67", each optionally "0x49".
_SEPARATED_HEX = re.compile(
    r"(?<![0-9A-Za-z])(?:0[xX])?[0-9A-Fa-f]{2}(?:(?:, ?|[ :])(?:0[xX])?[0-9A-Fa-f]{2}){7,}(?![0-9A-Za-z])"
)
_HEX_SEPARATORS = re.compile(r"0[xX]|[ ,:]")
# Text of words holds a space, byte 0x20: "20" between separators is where such a run can be.
# Only the stretch of hex digits and separators around such a "20" is searched for runs.
_BEFORE_TWENTY = frozenset(" ,:xX")
_AFTER_TWENTY = frozenset(" ,:")
_HEX_STRETCH_CHARS = frozenset("0123456789abcdefABCDEFxX ,:")
_HEX_STRETCH = re.compile(r"[0-9a-fA-FxX ,:]*")

# Ascii85 and Base85: runs of printable ASCII without spaces.
_MIN_85_CHARS = 20
# A boolean mask ANDed with itself shifted by these marks windows of 2, 4, 8, 16 and 20 (_MIN_85_CHARS).
_WINDOW_SHIFTS = (1, 2, 4, 8, 4)
_PRINTABLE_LINE = re.compile(r"[!-~]+")
_ASCII85_ONLY = re.compile(r"[!-u]+")
_BASE85_ONLY = re.compile(r"[0-9A-Za-z!#$%&()*+\-;<=>?@^_`{|}~]+")
_BASE64_ALPHABET_ONLY = re.compile(r"[A-Za-z0-9+/_=-]+")
_BASE85_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~"
# Every 5-character group of an Ascii85/Base85 blob encodes 4 bytes, big-endian; the group's
# first character is the value's top digit (value // 85**4), which a first byte of printable
# ASCII (0x20..0x7e) puts at 10..40. Text gives almost every group such a head; random data
# one in three.
_ASCII85_HEADS = frozenset(chr(33 + digit) for digit in range(10, 41))
_BASE85_HEADS = frozenset(_BASE85_ALPHABET[10:41])
_MIN_TEXT_HEADS = 0.75
# Bytes of one UTF-8 character a probe's cut can leave undecodable.
_CUT_CHARACTER_BYTES = 3
# Characters decoded first to see whether a pure-Python-decoded run holds text (whole groups).
_PROBE_BASE32 = 48
_PROBE_85 = 40
# Quote and bracket characters a blob may be written between (also Ascii85 characters).
_ENCLOSERS = "\"'`([{<"
_CLOSERS = "\"'`)]}>.,;:"


def one_line(text: str) -> str:
    """``text`` with every line break a space (decoded text must not add lines to a segment)."""
    return text.translate(_LINE_BREAKS)


def as_text(raw: bytes, limits: BlobLimits, *, words: bool = False) -> str | None:
    """``raw`` as one line of text when it is UTF-8, mostly printable and has a letter, else None.

    ``words`` also asks that it read as words (see the module's docstring).
    """
    try:
        decoded = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    decoded = decoded[: limits.max_decoded_chars]
    if not decoded:
        return None
    printable = sum(1 for ch in decoded if ch.isprintable() or ch in "\n\r\t")
    if printable < limits.min_printable * len(decoded) or _LETTER.search(decoded) is None:
        return None
    if words and not reads_as_words(decoded):
        return None
    return one_line(decoded)


def reads_as_words(text: str) -> bool:
    """Whether decoded ``text`` reads as words: no control characters, two words apart, half letters and spaces.

    Why: Base32 runs look like upper-case words and IDs, Ascii85 like line
    noise in minified code, hex written apart like tables of numbers; each
    decodes to something printable now and then, never to words.
    """
    if not text.replace("\n", " ").replace("\t", " ").replace("\r", " ").isprintable():
        return False
    return _TWO_WORDS.search(text) is not None and sum(1 for ch in text if ch.isalpha() or ch == " ") * 2 >= len(text)


def _probe_is_text(raw: bytes, limits: BlobLimits) -> bool:
    """Whether the first bytes of a blob are printable UTF-8 text (the cut may split one character)."""
    head = raw.decode("utf-8", "replace")
    if head.count("\ufffd") > _CUT_CHARACTER_BYTES:
        return False
    return sum(1 for ch in head if ch.isprintable()) >= limits.min_printable * len(head)


def _base32(body: str) -> bytes | None:
    # A Base32 group is 8 characters; a last group of 1, 3 or 6 is not Base32 (cut to whole groups).
    if len(body) % 8 in (1, 3, 6):
        body = body[: len(body) - len(body) % 8]
    try:
        return base64.b32decode(body + "=" * (-len(body) % 8))
    except (binascii.Error, ValueError):
        return None


def base32_text(run: str, limits: BlobLimits) -> str | None:
    """The text a Base32 run (upper case, padded or not) decodes to when it reads as words, else None."""
    body = run.rstrip("=")[: limits.max_candidate_chars]
    probe = _base32(body[:_PROBE_BASE32])
    if probe is None or not _probe_is_text(probe, limits):
        return None
    raw = probe if len(body) <= _PROBE_BASE32 else _base32(body)
    return None if raw is None else as_text(raw, limits, words=True)


def _text_shaped_85(body: str, heads: frozenset[str]) -> bool:
    """Whether the group heads of an Ascii85/Base85 body are those printable ASCII gives (see _ASCII85_HEADS)."""
    group_heads = body[::5]
    return sum(1 for ch in group_heads if ch in heads) >= _MIN_TEXT_HEADS * len(group_heads)


def _decode_85(body: str, decoder: Callable[[bytes], bytes]) -> bytes | None:
    try:
        return decoder(body.encode("ascii"))
    except ValueError:  # binascii.Error is a ValueError
        return None


def _text_85(body: str, decoder: Callable[[bytes], bytes], limits: BlobLimits) -> str | None:
    body = body[: limits.max_candidate_chars]
    probe = _decode_85(body[:_PROBE_85], decoder)
    if probe is None or not _probe_is_text(probe, limits):
        return None
    raw = probe if len(body) <= _PROBE_85 else _decode_85(body, decoder)
    return None if raw is None else as_text(raw, limits, words=True)


def _kind_85(run: str, limits: BlobLimits) -> tuple[str, str] | None:
    """``(kind, text)`` of a printable run that is an Ascii85 or Base85 blob of text, else None."""
    bodies = [run[2:-2] if run.startswith("<~") and run.endswith("~>") else run]
    # A blob written between quotes or brackets: the opener shifts the groups.
    if run[0] in _ENCLOSERS:
        bodies.append(run[1:].rstrip(_CLOSERS))
    for body in bodies:
        if len(body) < _MIN_85_CHARS or _BASE64_ALPHABET_ONLY.fullmatch(body):
            continue  # short, or the Base64/hex/Base32 scan's business (an identifier in brackets)
        if _ASCII85_ONLY.fullmatch(body) and _text_shaped_85(body, _ASCII85_HEADS):
            text = _text_85(body, base64.a85decode, limits)
            if text is not None:
                return "ascii85", text
        if _BASE85_ONLY.fullmatch(body) and _text_shaped_85(body, _BASE85_HEADS):
            text = _text_85(body, base64.b85decode, limits)
            if text is not None:
                return "base85", text
    return None


def wrapped_end(text: str, start: int, end: int, line: re.Pattern[str], cap: int) -> int:
    """Where a blob wrapped at a fixed width ends, when the run ``start:end`` is its first line; else ``end``.

    The run must fill its line and be at least ``_MIN_WRAP_WIDTH`` long; every
    following line that ``line`` fills, as long as the first, continues it, and
    the first shorter one ends it.
    """
    width = end - start
    if width < _MIN_WRAP_WIDTH or (start > 0 and text[start - 1] != "\n") or text[end:end + 1] != "\n":
        return end
    stop = end
    while text[stop:stop + 1] == "\n" and stop - start < cap:
        following = line.match(text, stop + 1)
        if following is None or following.end() - following.start() > width or (
                following.end() < len(text) and text[following.end()] != "\n"):
            break
        stop = following.end()
        if following.end() - following.start() < width:
            break
    return stop


def _spaced_twenties(text: str, codes: npt.NDArray[np.uint8]) -> Iterator[int]:
    """Where ``text`` holds "20" after a separator or "x" and before a separator (``codes``: its ASCII bytes).

    Why arrays: one regex pass over a page costs about 40 us on 50 KiB; two
    byte comparisons find the few "20" of a page in about 10 us.
    """
    for position in np.flatnonzero((codes[:-1] == 0x32) & (codes[1:] == 0x30)).tolist():
        if text[position - 1: position] in _BEFORE_TWENTY and text[position + 2: position + 3] in _AFTER_TWENTY:
            yield position


def separated_hex_blobs(text: str, codes: npt.NDArray[np.uint8], limits: BlobLimits
                        ) -> Iterator[tuple[str, str | None, bool]]:
    """``("hex", text or None, cut)`` for every run of hex bytes written apart that holds a spaced ``20``.

    ``codes`` are the bytes of the ASCII encoding of ``text`` or of ``text``
    lower-cased. Only the stretch of hex digits and separators around each
    such "20" is searched (in prose, "20 people", a stretch of a few characters).
    """
    done = 0
    for twenty in _spaced_twenties(text, codes):
        if twenty < done:
            continue
        start = twenty
        while start > done and text[start - 1] in _HEX_STRETCH_CHARS:
            start -= 1
        stretch = _HEX_STRETCH.match(text, twenty)
        end = stretch.end() if stretch is not None else twenty + 2
        for match in _SEPARATED_HEX.finditer(text, start, end):
            digits = _HEX_SEPARATORS.sub("", match.group()[: limits.max_candidate_chars])
            raw = bytes.fromhex(digits[: len(digits) // 2 * 2])
            yield "hex", as_text(raw, limits, words=True), match.end() - match.start() > limits.max_candidate_chars
        done = max(end, twenty + 2)


def _long_run_starts(codes: npt.NDArray[np.uint8]) -> list[int]:
    """Where each run of ``_MIN_85_CHARS`` or more printable ASCII bytes (no spaces) of ``codes`` starts.

    Why arrays: on prose a search for the run's first window (``bytes.find``
    of 20 "a" in a view) advances a few bytes at a time, about 100 us on
    50 KiB; ANDing the printable mask with itself shifted 1, 2, 4, 8 and 4
    places marks every start of 20 printable bytes in a row in about 25 us.
    """
    window = codes > 0x20  # a DEL (0x7f) in a run ends it in the text's own check
    for shift in _WINDOW_SHIFTS:
        window = window[:-shift] & window[shift:]
    starts = np.flatnonzero(window)
    if not len(starts):
        return []
    return [int(start) for start in starts[np.concatenate(([True], np.diff(starts) > 1))]]


def printable_blobs(text: str, codes: npt.NDArray[np.uint8], limits: BlobLimits
                    ) -> Iterator[tuple[str, str | None, bool]]:
    """``(kind, text or None, cut)`` for every Ascii85 or Base85 run.

    ``codes`` are the bytes of the ASCII encoding (errors replaced) of ``text``
    or of ``text`` lower-cased: only which bytes are printable is read from them.
    """
    done = 0
    for start in _long_run_starts(codes):
        if start < done:
            continue  # a later line of a wrapped blob already decoded
        # The view reads a non-ASCII character as "?": the run in the text itself may be shorter.
        run_match = _PRINTABLE_LINE.match(text, start)
        end = run_match.end() if run_match is not None else start
        if end - start < _MIN_85_CHARS:
            continue
        joined_end = wrapped_end(text, start, end, _PRINTABLE_LINE, limits.max_candidate_chars)
        spans = ((start, joined_end), (start, end)) if joined_end > end else ((start, end),)
        for span_start, stop in spans:
            run = text[span_start:stop].replace("\n", "")
            found = _kind_85(run, limits)
            if found is not None:
                yield found[0], found[1], len(run) > limits.max_candidate_chars
                done = stop
                break
