"""Guard normalization: the variants of a segment that rules are matched against.

A segment is always matched as written (lower-cased). Normalization then
produces further variants that hold only the *lines that changed*, so a long
page whose text is ordinary costs one extra scan of a few lines, not a second
scan of the page. Rules match within a line, so a line that no step changed
can only match what the literal variant already matched.

Steps, in order; each is recorded as a *technique* on a finding that needed it:

=============================== =============================================
``unicode_nfkc``                compatibility forms (fullwidth, ligatures)
``tag_characters_decoded``      Unicode tag characters ("ASCII smuggling")
``invisible_control_removed``   zero-width, bidi and other invisible controls
``homoglyph_mapped``            Cyrillic/Greek look-alikes in mixed-script words
``html_entity_decoded``         character references left in text
``escaped_code_point_decoded``  ``\\xNN``, ``\\uNNNN``, ``\\u{N}`` (two passes)
``url_decoded``                 percent-encoding, double encoding included
``letter_spacing_removed``      "i g n o r e"
``letter_delimiter_removed``    "i.g.n.o.r.e", "ign-ore"
``leet_normalized``             "1gn0re" (a separate variant)
``scrambled_word_restored``     "ignroe" (a separate variant)
``rot13_decoded``               ROT13 sentences (a separate variant; :mod:`.caesar`)
``base64_decoded``/``hex_decoded`` blobs that decode to text, normalized once
``base32_decoded``              (and ``ascii85_decoded``, ``base85_decoded``) likewise
=============================== =============================================

Every step is linear and capped (see :mod:`.decoders`); a hit cap is reported
through :attr:`Normalized.exhausted` so the inspection fails closed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from .byteview import AsciiBytes
from .caesar import decode_rot13
from .decoders import (
    BLOB_LIMITS,
    BlobLimits,
    decode_blobs,
    decode_entities,
    decode_escapes,
    decode_percent,
    decode_tag_characters,
    map_homoglyphs,
    nfkc,
    remove_invisible,
)
from .obfuscation import (
    collapse_letter_spacing,
    latin_words,
    remove_letter_delimiters,
    restore_leet,
    restore_scrambled,
)

__all__ = ["DECODE_PASSES", "Normalized", "Variant", "collapse_whitespace", "normalize", "remove_invisible",
           "variants"]

DECODE_PASSES = 2
_NEEDS_COLLAPSE = re.compile(r"[^\S ]|  ")
_Step = tuple[str, Callable[[str], str]]

_UNICODE_STEPS: tuple[_Step, ...] = (
    ("tag_characters_decoded", decode_tag_characters),
    ("invisible_control_removed", remove_invisible),
    ("homoglyph_mapped", map_homoglyphs),
)
_DECODE_STEPS: tuple[_Step, ...] = (
    ("escaped_code_point_decoded", decode_escapes),
    ("url_decoded", decode_percent),
    ("invisible_control_removed", remove_invisible),
)
_WordStep = tuple[str, Callable[[str, frozenset[str] | None, AsciiBytes | None], str]]
_COMPACT_STEPS: tuple[_WordStep, ...] = (
    ("letter_spacing_removed", collapse_letter_spacing),
    ("letter_delimiter_removed", remove_letter_delimiters),
)
_VARIANT_STEPS: tuple[_WordStep, ...] = (
    ("leet_normalized", restore_leet),
    ("scrambled_word_restored", restore_scrambled),
    ("rot13_decoded", decode_rot13),
)


@dataclass(frozen=True, slots=True)
class Variant:
    """One normalized form of (part of) a segment, with the steps that produced it."""

    text: str
    techniques: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Normalized:
    """All variants of one segment, the literal one first, and any step budget that was hit."""

    variants: tuple[Variant, ...]
    exhausted: bool = False
    # The Latin words of the literal variant (reused by the rule gate).
    words: frozenset[str] = frozenset()
    # The text lower-cased (the literal variant's text, kept even when empty; reused by the detector).
    lowered: str = ""


def collapse_whitespace(text: str) -> str:
    """Collapse runs of spaces to one space and runs of blank lines to one newline."""
    if _NEEDS_COLLAPSE.search(text) is None:
        # The common short attribute value: one search instead of a split.
        return text.strip()
    parts = []
    for line in text.split("\n"):
        # Most lines are already collapsed; proving it takes three C-speed checks
        # (the space is the only printable whitespace character), where
        # split-and-join builds a string per word. str.split() itself runs in C
        # and is several times faster than a regex substitution.
        if not line.isprintable() or "  " in line or line[:1] == " " or line[-1:] == " ":
            line = " ".join(line.split())
        if line:
            parts.append(line)
    return "\n".join(parts)


class _Tracker:
    """The working text of a segment and, per line, the techniques that changed it."""

    def __init__(self, text: str, lines: list[str] | None = None) -> None:
        self.text = text
        self.by_line: dict[int, list[str]] = {}
        # The lines of ``_lines_of`` (a text this tracker held): splitting a
        # long segment costs a pass, and several steps and groupings need them.
        self._lines_of = text if lines is not None else None
        self._lines = lines or []

    def lines(self) -> list[str]:
        """``self.text.split("\\n")``, split once per text (callers must not modify the list)."""
        if self._lines_of is not self.text:
            self._lines_of, self._lines = self.text, self.text.split("\n")
        return self._lines

    def apply(self, name: str, step: Callable[[str], str]) -> bool:
        new = step(self.text)
        if new == self.text:
            return False
        old_lines = self.lines()
        new_lines = new.split("\n")
        if len(old_lines) != len(new_lines):
            # Steps keep line counts by contract; should one not, the whole text
            # counts as one changed line rather than misattributing techniques.
            new = new.replace("\n", " ")
            self.text = self.text.replace("\n", " ")
            self.by_line = {0: sorted({t for ts in self.by_line.values() for t in ts})}
            old_lines, new_lines = [self.text], [new]
        for index, (before, after) in enumerate(zip(old_lines, new_lines, strict=True)):
            if before != after:
                techniques = self.by_line.setdefault(index, [])
                if name not in techniques:
                    techniques.append(name)
        self.text = new
        self._lines_of, self._lines = new, new_lines
        return True


def _group(
    lines: list[str], changed: dict[int, list[str]], prefix: tuple[str, ...]
) -> dict[tuple[str, ...], list[str]]:
    groups: dict[tuple[str, ...], list[str]] = {}
    for index in sorted(changed):
        line = " ".join(lines[index].split())
        if line:
            groups.setdefault(prefix + tuple(changed[index]), []).append(line)
    return groups


def _words(tracker: _Tracker, words: frozenset[str] | None) -> frozenset[str] | None:
    """The words of the working text: ``words`` (of the literal) plus those of changed lines."""
    if words is None:
        return None
    if not tracker.by_line:
        return words
    lines = tracker.lines()
    return words | latin_words("\n".join(lines[i] for i in tracker.by_line))


# Below this length lowering the whole text again costs no more than splitting and joining its lines.
_SPLICE_CHARS = 32768


def _lower(tracker: _Tracker, lowered: str | None) -> str:
    """``tracker.text.lower()``, from ``lowered`` (the original text lower-cased) and the changed lines.

    Why: a page with one non-breaking space or ellipsis has one line changed
    by NFKC, and lower-casing the whole segment again is a pass over it.
    Lower-casing works line by line (no case mapping makes or removes a line
    feed, and the final-sigma context stops at one), and a line no step
    marked is the original line, so only the marked lines are lowered.
    """
    if lowered is None or not tracker.by_line or len(lowered) < _SPLICE_CHARS:
        return tracker.text.lower()
    lines = tracker.lines()
    lowered_lines = lowered.split("\n")
    if len(lowered_lines) != len(lines) or len(tracker.by_line) * 4 > len(lines):
        return tracker.text.lower()
    for index in tracker.by_line:
        lowered_lines[index] = lines[index].lower()
    return "\n".join(lowered_lines)


def _pipeline(text: str, prefix: tuple[str, ...], words: frozenset[str] | None, lowered: str | None = None,
              encoded: AsciiBytes | None = None) -> list[Variant]:
    """Normalize ``text`` and return variants of its changed lines.

    ``words`` are the Latin words of ``text`` lower-cased; ``None`` marks
    decoded blob text, all of whose lines are new and kept. ``lowered`` is
    ``text.lower()`` when the caller has it; ``encoded`` holds the ASCII
    encoding of the last text viewed (the word steps view one working text).
    """
    encoded = AsciiBytes() if encoded is None else encoded
    tracker = _Tracker(text)
    # True while the working text is known to hold no invisible character (the
    # removal ran and no step changed the text since): the removal is then a
    # no-op and is skipped, saving a full regex pass over the segment.
    invisible_free = False
    if not text.isascii():
        tracker.apply("unicode_nfkc", nfkc)
        for name, step in _UNICODE_STEPS:
            tracker.apply(name, step)
        # Look-alike mapping, the last of these steps, only writes Latin letters.
        invisible_free = True
    if "&" in tracker.text and tracker.apply("html_entity_decoded", decode_entities):
        invisible_free = False
    for _ in range(DECODE_PASSES):
        if "\\" not in tracker.text and "%" not in tracker.text:
            break
        changed = False
        for name, step in _DECODE_STEPS:
            if step is remove_invisible:
                if not invisible_free:
                    changed = tracker.apply(name, step) or changed
                    invisible_free = True
            elif tracker.apply(name, step):
                changed = True
                invisible_free = False
        if not changed:
            break
    # When no step changed the text (the usual page), its lower-case form is already known.
    tracker.text = lowered if lowered is not None and tracker.text is text else _lower(tracker, lowered)
    current = _words(tracker, words)
    for name, word_step in _COMPACT_STEPS:
        tracker.apply(name, lambda value, step=word_step: step(value, current, encoded))  # type: ignore[misc]
    base_lines = tracker.lines()
    base_changed = {i: list(t) for i, t in tracker.by_line.items()}
    if words is None:
        # Decoded blobs: every line is new text, whether or not a step touched it.
        base_changed = {i: base_changed.get(i, []) for i in range(len(base_lines))}
    groups = _group(base_lines, base_changed, prefix)
    current = _words(tracker, words)
    for name, word_step in _VARIANT_STEPS:
        extra = _Tracker(tracker.text, base_lines)
        if extra.apply(name, lambda value, step=word_step: step(value, current, encoded)):  # type: ignore[misc]
            merged = {i: base_changed.get(i, []) + t for i, t in extra.by_line.items()}
            for key, lines in _group(extra.lines(), merged, prefix).items():
                groups.setdefault(key, []).extend(lines)
    return [Variant(_strip(lines), key) for key, lines in groups.items()]


def _strip(lines: list[str]) -> str:
    return "\n".join(line.strip() for line in lines)


def normalize(text: str, blob_limits: BlobLimits = BLOB_LIMITS, *, words: frozenset[str] | None = None
              ) -> Normalized:
    """Return the variants of ``text`` to match rules against, the literal one first.

    ``text`` should already be whitespace-collapsed. Variants are lower-cased
    (rules are written in lower case); only variants that differ from the
    literal text are added, each holding only the lines that changed.
    """
    literal = text.lower()
    result = [Variant(literal)]
    # The steps that view a text as bytes share its ASCII encoding (the literal's, while no step changed it).
    encoded = AsciiBytes()
    if words is None:
        words = latin_words(literal, encoded)
    # The literal's encoding, computed for its words (when the caller gave none) and kept for the blob scan.
    literal_ascii = encoded(literal)
    result.extend(_pipeline(text, (), words, literal, encoded))
    blobs = decode_blobs(text, blob_limits, ascii_view=literal_ascii)
    for technique, texts in blobs.by_technique():
        result.extend(_pipeline("\n".join(texts), (technique,), None))
    return Normalized(tuple(_dedupe(result)), blobs.exhausted, words, literal)


def _dedupe(found: list[Variant]) -> list[Variant]:
    seen: set[str] = set()
    unique = []
    for variant in found:
        if variant.text and variant.text not in seen:
            seen.add(variant.text)
            unique.append(variant)
    return unique


def variants(text: str) -> list[Variant]:
    """The variants of ``text`` (see :func:`normalize`), without budget information."""
    return list(normalize(text).variants)

