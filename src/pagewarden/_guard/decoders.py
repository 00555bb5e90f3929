"""Decoding steps of guard normalization: each undoes one way of writing text indirectly.

Every step is a function ``str -> str`` that is linear in its input, replaces
at most ``STEP_MAX_REPLACEMENTS`` spans (the rest stays as written, and the
caller learns that the budget was hit) and never changes the number of lines:
decoded line breaks become spaces, so the orchestrator can compare lines
before and after a step to see which lines a technique touched.

Blob decoding (Base64, hex, Base32, Ascii85, Base85) is different: blobs are
found in the original text, decoded when they turn into text, and returned as
new text to be normalized once more (never decoded again as a blob: no
recursion). Base64, hex and Base32 runs are found here with one scan; the
other forms, and the decoders that need care, are in :mod:`.blob_codecs`.
"""

from __future__ import annotations

import base64
import binascii
import html
import re
import sys
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from .blob_codecs import (
    BLOB_LIMITS,
    BlobLimits,
    as_text,
    base32_text,
    one_line,
    printable_blobs,
    reads_as_words,
    separated_hex_blobs,
    wrapped_end,
)
from .byteview import byte_table, code_unit_filter, high_bytes, may_hold, view
from .homoglyphs import CONFUSABLES, map_mixed_script_words

__all__ = [
    "BLOB_LIMITS",
    "BLOB_TECHNIQUES",
    "STEP_MAX_REPLACEMENTS",
    "UNICODE_SUSPECT",
    "BlobLimits",
    "Blobs",
    "decode_blobs",
    "decode_entities",
    "decode_escapes",
    "decode_percent",
    "decode_tag_characters",
    "holds_no_invisible",
    "map_homoglyphs",
    "may_hold_astral",
    "nfkc",
    "remove_invisible",
]

# Replacements per step and segment; beyond it the step stops (budget hit).
STEP_MAX_REPLACEMENTS = 20_000


def _invisible_code_points() -> list[int]:
    points = [cp for cp in range(0x00, 0x20) if cp not in (0x09, 0x0A, 0x0D)]
    points += list(range(0x7F, 0xA0))
    points += [0x00AD, 0x034F, 0x061C, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFFA0, 0xFEFF]
    for low, high in ((0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F),
                      (0xFE00, 0xFE0F), (0xE0000, 0xE001F), (0xE007F, 0xE007F), (0xE0100, 0xE01EF)):
        points += list(range(low, high + 1))
    return points


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


INVISIBLE = re.compile(_character_class(_invisible_code_points()))
# Nearly every invisible character is non-printable (controls, format
# characters); the few printable ones (combining grapheme joiner, Hangul
# fillers, variation selectors...) are ruled out by their code units' high bytes.
_PRINTABLE_INVISIBLE_UNITS = code_unit_filter(
    (point, point) for point in _invisible_code_points() if chr(point).isprintable()
)
_CONFUSABLE_UNITS = code_unit_filter((ord(ch), ord(ch)) for ch in CONFUSABLES)
_TAG_RUN = re.compile("[\U000e0020-\U000e007e]+")
# One search tells whether any of the invisible, tag or look-alike steps can apply.
UNICODE_SUSPECT = re.compile(
    _character_class(_invisible_code_points() + list(range(0xE0020, 0xE007F))
                     + [ord(ch) for ch in CONFUSABLES])
)
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#x[0-9a-fA-F]{1,6}|[a-zA-Z][a-zA-Z0-9]{1,31});?")
_ESCAPE = re.compile(r"\\u\{([0-9a-fA-F]{1,6})\}|\\u([0-9a-fA-F]{4})|\\x([0-9a-fA-F]{2})")
_PERCENT_RUN = re.compile(r"%[0-9a-fA-F]{2}(?:%[0-9a-fA-F]{2})*")
# NFKC can expand a code point up to 18 times; the output is capped relative to the input.
_NFKC_GROWTH = 4


def nfkc(text: str) -> str:
    """NFKC-normalize ``text`` (fullwidth letters, ligatures, compatibility forms), bounded in growth."""
    if unicodedata.is_normalized("NFKC", text):
        return text
    # Usually a few lines hold the odd character: normalize just those.
    lines = text.split("\n")
    cap = len(text) * _NFKC_GROWTH + 1024
    share = max(64, cap // len(lines))
    for index, line in enumerate(lines):
        if not unicodedata.is_normalized("NFKC", line):
            # A hostile run of expanding characters keeps only its line's head
            # (NFKC never creates or removes a line feed, so lines stay aligned).
            lines[index] = unicodedata.normalize("NFKC", line)[: max(share, len(line))]
    return "\n".join(lines)


def holds_no_invisible(text: str) -> bool:
    """True only when ``text`` provably holds no :data:`INVISIBLE` character (a fast pre-check).

    ``str.isprintable`` runs in C; line feeds, the one non-printable character
    a collapsed segment has, are not invisible and are taken out first.
    """
    return text.replace("\n", "").isprintable() and not may_hold(high_bytes(text), _PRINTABLE_INVISIBLE_UNITS)


def remove_invisible(text: str) -> str:
    """Drop zero-width, bidi and other invisible control characters."""
    if holds_no_invisible(text):
        return text
    return INVISIBLE.sub("", text)


def _decode_tags(match: re.Match[str]) -> str:
    # Spaces around the run keep decoded words from gluing onto visible ones.
    return " " + "".join(chr(ord(ch) - 0xE0000) for ch in match.group()) + " "


def may_hold_astral(text: str) -> bool:
    """False only when ``text`` provably holds no code point above U+FFFF (tag characters are such)."""
    # CPython stores a string with any code point above U+FFFF at four bytes per
    # character; a smaller object cannot hold a tag character, and the size is
    # known without scanning. Other interpreters fall back to scanning.
    try:
        return sys.getsizeof(text) > 3 * len(text) + 76
    except TypeError:  # pragma: no cover - interpreters without getsizeof
        return True


def decode_tag_characters(text: str) -> str:
    """Decode Unicode tag characters (U+E0020..E007E, "ASCII smuggling") to the ASCII they mirror."""
    if text.isascii() or not may_hold_astral(text) or _TAG_RUN.search(text) is None:
        return text
    return _TAG_RUN.sub(_decode_tags, text, count=STEP_MAX_REPLACEMENTS)


def map_homoglyphs(text: str) -> str:
    """Map Cyrillic and Greek look-alike letters in mixed-script words to Latin."""
    if text.isascii() or not may_hold(high_bytes(text), _CONFUSABLE_UNITS):
        return text
    return map_mixed_script_words(text)


def decode_entities(text: str) -> str:
    """Decode HTML character references still present in text (attributes, Markdown)."""
    if "&" not in text:
        return text
    return _ENTITY.sub(lambda m: one_line(html.unescape(m.group())), text, count=STEP_MAX_REPLACEMENTS)


def _code_point(match: re.Match[str]) -> str:
    value = int(match.group(1) or match.group(2) or match.group(3), 16)
    if value > 0x10FFFF or 0xD800 <= value <= 0xDFFF:
        return match.group()  # not a character: left as written
    return one_line(chr(value))


def decode_escapes(text: str) -> str:
    r"""Decode ``\xNN``, ``\uNNNN`` and ``\u{N..}`` escapes (surrogates and out-of-range values kept)."""
    if "\\" not in text:
        return text
    return _ESCAPE.sub(_code_point, text, count=STEP_MAX_REPLACEMENTS)


def _percent(match: re.Match[str]) -> str:
    raw = bytes.fromhex(match.group().replace("%", ""))
    return one_line(raw.decode("utf-8", "replace"))


def decode_percent(text: str) -> str:
    """Percent-decode runs of ``%XX`` (one layer; the orchestrator runs two passes for double encoding)."""
    if "%" not in text:
        return text
    return _PERCENT_RUN.sub(_percent, text, count=STEP_MAX_REPLACEMENTS)


_MIN_BLOB_CHARS = 16
# Base64 (standard or URL-safe alphabet); a mixed-case or digit-bearing run only:
# an ordinary long lower-case word is never Base64 of text.
# One scan finds Base64, hex and Base32: a run is hex when it holds only hex
# digits, Base32 when only upper-case letters and 2-7.
_BLOB_RUN = re.compile(rf"[A-Za-z0-9+/_-]{{{_MIN_BLOB_CHARS},}}={{0,2}}")
# The next line of a wrapped blob (its last line may be short).
_BLOB_LINE = re.compile(r"[A-Za-z0-9+/_-]+=*")
# Byte view (see .byteview): a Base64/hex alphabet character reads "a". A run
# starts exactly where the view first holds _MIN_BLOB_CHARS of them in a row.
_BLOB_BYTES = byte_table(lambda b: 0x61 if chr(b).isascii() and (chr(b).isalnum() or b in b"+/_-") else 0x20)
_BLOB_WINDOW = b"a" * _MIN_BLOB_CHARS
_HEX_ONLY = re.compile(r"(?:[0-9A-Fa-f]{2})+")
_BASE32_ONLY = re.compile(r"[A-Z2-7]+=*")
_HAS_UPPER = re.compile(r"[A-Z]")
_HAS_LOWER = re.compile(r"[a-z]")

# The technique each kind of blob records on a finding, in the order kinds are reported.
BLOB_TECHNIQUES: tuple[tuple[str, str], ...] = (
    ("base64", "base64_decoded"),
    ("hex", "hex_decoded"),
    ("base32", "base32_decoded"),
    ("ascii85", "ascii85_decoded"),
    ("base85", "base85_decoded"),
)


@dataclass(frozen=True, slots=True)
class Blobs:
    """Decoded blob texts of one segment, by kind, and whether a budget was hit."""

    base64: tuple[str, ...] = ()
    hex: tuple[str, ...] = ()
    base32: tuple[str, ...] = ()
    ascii85: tuple[str, ...] = ()
    base85: tuple[str, ...] = ()
    exhausted: bool = False

    def by_technique(self) -> Iterator[tuple[str, tuple[str, ...]]]:
        """``(technique, texts)`` for every kind that decoded something."""
        for kind, technique in BLOB_TECHNIQUES:
            texts: tuple[str, ...] = getattr(self, kind)
            if texts:
                yield technique, texts


def _base64_text(run: str, limits: BlobLimits) -> str | None:
    body = run.rstrip("=")[: limits.max_candidate_chars]
    body = body[: len(body) - len(body) % 4] if len(body) % 4 == 1 else body
    if "-" in body or "_" in body:
        if "+" in body or "/" in body:
            return None
        body = body.replace("-", "+").replace("_", "/")
    try:
        raw = base64.b64decode(body + "=" * (-len(body) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None
    return as_text(raw, limits)


def _hex_text(run: str, limits: BlobLimits) -> str | None:
    body = run.rstrip("=")[: limits.max_candidate_chars - limits.max_candidate_chars % 2]
    try:
        raw = bytes.fromhex(body)
    except ValueError:
        return None
    return as_text(raw, limits)


def _blob_runs(text: str) -> Iterator[re.Match[str]]:
    """The matches of ``_BLOB_RUN.finditer(text)``, found with ``bytes.find`` on a byte view.

    sre would try the run pattern at every letter of ordinary prose; the view
    finds the next window of alphabet characters at memory speed, and a match
    always starts at that window (the pattern's run is greedy and its tail optional).
    """
    data = view(text, _BLOB_BYTES)
    position = data.find(_BLOB_WINDOW)
    while position >= 0:
        match = _BLOB_RUN.match(text, position)
        if match is None:  # pragma: no cover - the window guarantees a match
            return
        yield match
        position = data.find(_BLOB_WINDOW, match.end())


_Decode = Callable[[str, BlobLimits], str | None]


def _run_decoder(run: str) -> tuple[str, _Decode, str] | None:
    """``(kind, decoder, body)`` for a run of the Base64 alphabet, or None when it is no candidate."""
    body = run[2:] if run[:2] in ("0x", "0X") and _HEX_ONLY.fullmatch(run, 2) else run
    if _HEX_ONLY.fullmatch(body):
        return "hex", _hex_text, body
    if _BASE32_ONLY.fullmatch(run):
        return "base32", base32_text, run
    if _HAS_UPPER.search(run) is None or _HAS_LOWER.search(run) is None:
        return None  # Base64 of text mixes cases; a long lower-case slug is not a candidate
    return "base64", _base64_text, run


def _alphabet_blobs(text: str, limits: BlobLimits) -> Iterator[tuple[str, str | None, bool]]:
    """``(kind, text or None, cut)`` for every Base64/hex/Base32 run; ``cut``: longer than the candidate cap.

    A run that starts a blob wrapped over several lines is decoded with them
    when the joined text decodes, else alone (and the next lines on their own).
    """
    resume = 0
    for match in _blob_runs(text):
        start, end = match.span()
        if start < resume:
            continue  # a later line of a wrapped blob already decoded
        joined_end = wrapped_end(text, start, end, _BLOB_LINE, limits.max_candidate_chars)
        if joined_end > end:
            joined = text[start:joined_end].replace("\n", "")
            found = _run_decoder(joined)
            decoded = found[1](found[2], limits) if found is not None else None
            # Joined lines must read as words: lines of hex image data (PostScript) join into printable noise.
            if found is not None and decoded is not None and reads_as_words(decoded):
                resume = joined_end
                yield found[0], decoded, len(joined) > limits.max_candidate_chars
                continue
        run = match.group()
        found = _run_decoder(run)
        if found is not None:
            yield found[0], found[1](found[2], limits), len(run) > limits.max_candidate_chars


def decode_blobs(text: str, limits: BlobLimits = BLOB_LIMITS, *, ascii_view: bytes | None = None) -> Blobs:
    """Find encoded runs in ``text`` (original case) and decode those that hold text, by kind.

    ``ascii_view``, when given, is the ASCII encoding (errors replaced) of
    ``text`` or of ``text`` lower-cased; only which characters are printable
    ASCII is read from it. Why: normalization has the lower-cased text's
    encoding already, and encoding a page again is a pass over it.
    """
    found: dict[str, list[str]] = {kind: [] for kind, _ in BLOB_TECHNIQUES}
    budget = max(limits.max_decoded, len(text) // max(1, limits.chars_per_decoded))
    exhausted = False
    if ascii_view is None or len(ascii_view) != len(text):
        ascii_view = text.encode("ascii", "replace")
    codes = np.frombuffer(ascii_view, dtype=np.uint8)
    sources = (_alphabet_blobs(text, limits), separated_hex_blobs(text, codes, limits),
               printable_blobs(text, codes, limits))
    for source in sources:
        for kind, decoded, cut in source:
            if decoded is None:
                continue
            if len(found[kind]) >= budget:
                exhausted = True
                break
            found[kind].append(decoded)
            # Text that goes on past the candidate cap was only partly read. A
            # long binary blob (an inline image) is not text at all: nothing omitted.
            exhausted = exhausted or cut
    return Blobs(**{kind: tuple(texts) for kind, texts in found.items()}, exhausted=exhausted)
