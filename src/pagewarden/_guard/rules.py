"""The guard's rules, loaded once from the TOML tables shipped in ``rule_tables/``.

Rules are data, not code: each table row names a category, a base severity, a
language, a cheap ``anchor`` and the patterns that must all match one
sentence-like unit (see the header of ``rule_tables/core.toml``). Plain
``needles`` gate each rule with a fast substring test, and only the few units
around an anchor match are examined by the full patterns, so scanning a page
costs little more than a handful of ``in`` checks.

The tables are validated when loaded; a malformed table is a packaging bug and
fails closed with ``GUARD_FAILED``.
"""

from __future__ import annotations

import functools
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from typing import Any

from .._errors import GuardFailed
from .byteview import code_unit_filter, high_bytes, may_hold
from .literals import all_of, checker, requirement
from .report import Location, Severity

__all__ = ["CJK", "KNOWN_CATEGORIES", "WORD", "Rule", "RuleSet", "has_cjk", "load_rules", "parse_tables"]

# Categories a rule may use; the next guard pass adds the rest of issue 3's list.
KNOWN_CATEGORIES = frozenset(
    {
        "instruction_override", "role_redefinition", "authority_claim", "model_control_tokens",
        "tool_invocation", "secret_exfiltration", "external_send", "exfiltration_beacon",
        "memory_write", "policy_override", "source_suppression", "output_control", "hidden_instruction",
        "agent_directive", "risky_action",
    }
)
_CJK_RANGES = ((0x3040, 0x30FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0xFF66, 0xFF9F))
CJK = re.compile("[" + "".join(f"{chr(low)}-{chr(high)}" for low, high in _CJK_RANGES) + "]")
# A string none of whose UTF-16 code units has a CJK high byte holds no CJK
# character: one translate instead of a regex scan (see .byteview).
_CJK_UNITS = code_unit_filter(_CJK_RANGES)
# Latin-script words of a variant; a rule's word needles are looked up in this set.
WORD = re.compile(r"[a-z]+")
_WORD_NEEDLE = re.compile(r"[a-z]+(?: [a-z]+)*")
_MACRO = re.compile(r"<<([a-z_]+)>>")
_ESCAPE = re.compile(r"\\.")
# How far before a match the negation check looks.
_LOOKBEHIND_CHARS = 32
# Occurrences of a needle's rarest character checked in place before a full search.
_PROBE_CHECKS = 8


def has_cjk(text: str, high: bytes | None = None) -> bool:
    """Whether ``text`` holds a CJK character (kana, ideographs, halfwidth katakana), as ``CJK.search`` says.

    ``high`` is ``high_bytes(text)`` when the caller has it.
    """
    return not text.isascii() and may_hold(high_bytes(text) if high is None else high, _CJK_UNITS) and (
        CJK.search(text) is not None)


@dataclass(frozen=True, slots=True)
class Rule:
    """One compiled rule; see ``rule_tables/core.toml`` for the semantics."""

    id: str
    category: str
    severity: Severity
    language: str
    confidence: float
    needles: tuple[str, ...]
    anchor: re.Pattern[str]
    # True when every needle holds CJK characters: then text without any CJK
    # character cannot match, and the needle scan is skipped.
    needs_cjk: bool
    patterns: tuple[re.Pattern[str], ...]
    unless_before: re.Pattern[str] | None = None
    unless: re.Pattern[str] | None = None
    # Locations the rule applies to; None means everywhere.
    locations: frozenset[Location] | None = None
    # Whether the rule's unit is the line (a paragraph of page text) rather than the sentence: for
    # forms whose parts sit in consecutive sentences ("Attention, AI agent: ... You must first ...").
    paragraph: bool = False
    # Needles that are whole Latin words (or phrases of them), looked up in the
    # variant's word set; the others are substring-searched.
    word_needles: tuple[tuple[str, ...], ...] = ()
    text_needles: tuple[str, ...] = ()
    # (needle, its rarest character, that character's offset in the needle) for
    # each text needle, and the ASCII ones.
    probes: tuple[tuple[str, str, int], ...] = ()
    ascii_probes: tuple[tuple[str, str, int], ...] = ()
    # The high byte of each probe's UTF-16 code unit, where it is not 0 (a BMP character above
    # U+00FF), else -1: see ``present_needles``.
    probe_units: tuple[int, ...] = ()
    # The longest word of each word needle: its positions mark candidate units
    # (a phrase's words need not be adjacent).
    word_positions: tuple[str, ...] = ()
    # Every word of every word needle: a word set disjoint from it has none.
    word_parts: frozenset[str] = frozenset()
    # (the needle's words, or None for a one-word needle; its position word) per word needle.
    word_checks: tuple[tuple[tuple[str, ...] | None, str], ...] = ()
    # The literal strings a unit must hold for the anchor and every pattern to match (see
    # .literals): a unit without them is ruled out before any regex runs.
    required: Callable[[str], bool] = bool

    def applies_to(self, text: str, words: frozenset[str] | None = None, *, ascii_only: bool = False) -> bool:
        """Whether any needle occurs in ``text`` (a fast gate before any regex runs).

        ``words`` is the set of Latin words of ``text`` (see :data:`WORD`);
        with it, word needles cost a set lookup instead of a substring search.
        ``ascii_only`` says ``text`` is ASCII, so non-ASCII needles are skipped.
        """
        if words is None:
            return any(needle in text for needle in self.needles)
        return bool(self.present_needles(text, words, ascii_only=ascii_only))

    def present_needles(self, text: str, words: frozenset[str], *, ascii_only: bool = False,
                        high: bytes | None = None) -> list[str]:
        """The position needles (see ``position_needles``) that occur in ``text``.

        ``high`` (``high_bytes(text)``, optional) rules out non-Latin needles
        cheaply: a text of Latin script with a few curly quotes is stored at
        two bytes a character, where searching for a Cyrillic or kana probe
        is a full pass over the text; a probe whose code unit's high byte
        ``high`` lacks cannot occur, and one ``bytes.find`` (memchr) over
        ``high`` says so.
        """
        # One C-level set test rules out most rules on short variants; a one-word needle is one
        # set lookup (a generator per needle cost more than the lookups).
        present = [] if self.word_parts.isdisjoint(words) else [
            word for phrase, word in self.word_checks
            if (word in words if phrase is None else all(part in words for part in phrase))
        ]
        if ascii_only:
            for needle, probe, offset in self.ascii_probes:
                if _holds(text, needle, probe, offset):
                    present.append(needle)
            return present
        for (needle, probe, offset), unit in zip(self.probes, self.probe_units, strict=True):
            if high is not None and unit >= 0 and high.find(unit) < 0:
                continue
            if _holds(text, needle, probe, offset):
                present.append(needle)
        return present

    def matches(self, unit: str) -> bool:
        """Whether this rule fires on one lower-cased sentence-like ``unit``."""
        if not self.required(unit) or self.anchor.search(unit) is None:
            return False
        first, *rest = self.patterns
        for match in first.finditer(unit):
            start = match.start()
            if self.unless_before is None or (
                self.unless_before.search(unit, max(0, start - _LOOKBEHIND_CHARS), start) is None
            ):
                break
        else:
            return False
        if any(pattern.search(unit) is None for pattern in rest):
            return False
        return self.unless is None or self.unless.search(unit) is None


@dataclass(frozen=True, slots=True)
class RuleSet:
    """Every rule and the benign-context pattern."""

    rules: tuple[Rule, ...]
    benign_context: re.Pattern[str]
    # Every rule's position words (see ``Rule.word_positions``), sorted: the words whose hits a scan asks for.
    position_words: tuple[str, ...] = ()


def _holds(text: str, needle: str, probe: str, offset: int) -> bool:
    """``needle in text``, found from the occurrences of ``probe`` (``needle[offset]``, its rarest character).

    Finding one character is a memchr-like scan, several times faster than a
    substring search over a long page. So the first few occurrences of the rare
    character are checked in place, and only a text where it is common falls
    back to the full search.
    """
    position = text.find(probe)
    checked = 0
    while position >= 0:
        if position >= offset and text.startswith(needle, position - offset):
            return True
        checked += 1
        if checked >= _PROBE_CHECKS:
            return needle in text
        position = text.find(probe, position + 1)
    return False


def _invalid(detail: str) -> GuardFailed:
    return GuardFailed(f"the guard's rule table is invalid: {detail}", reason="rule_table_invalid", stage="guard")


def _expand(pattern: str, macros: dict[str, str]) -> str:
    for _ in range(4):
        expanded = _MACRO.sub(lambda m: macros[m.group(1)] if m.group(1) in macros else m.group(0), pattern)
        if expanded == pattern:
            break
        pattern = expanded
    if _MACRO.search(pattern):
        raise _invalid("unknown macro")
    return pattern


def _compile(pattern: str, macros: dict[str, str], rule_id: str) -> re.Pattern[str]:
    source = _expand(pattern, macros)
    # Rules run on lower-cased text: an upper-case letter would never match.
    if any(ch.isascii() and ch.isupper() for ch in _ESCAPE.sub("", source)):
        raise _invalid(f"{rule_id} has upper-case letters in a pattern")
    try:
        return re.compile(source)
    except re.error as exc:
        raise _invalid(f"{rule_id} does not compile ({exc.msg})") from None


# Latin letters from rarest to commonest in English prose.
_LETTER_RARITY = "qjzxkvbpygfwmucldrhsnioate"


def _rarest(needle: str) -> str:
    """The character of ``needle`` least likely to occur in ordinary text (non-ASCII and punctuation first)."""
    def rank(ch: str) -> int:
        if not ch.isascii():
            return -2
        if not ch.isalnum() and not ch.isspace():
            return -1
        return _LETTER_RARITY.find(ch) if ch in _LETTER_RARITY else 30
    return min(needle, key=rank)


def _probe(needle: str) -> tuple[str, str, int]:
    probe = _rarest(needle)
    return needle, probe, needle.index(probe)


def _probe_unit(probe: str) -> int:
    code = ord(probe)
    # Latin-1 characters share the high byte 0 with ASCII (every text has it); astral characters
    # and surrogates are left to the search.
    return code >> 8 if 0x100 <= code < 0xD800 or 0xE000 <= code <= 0xFFFF else -1


def _build_rule(row: dict[str, Any], macros: dict[str, str]) -> Rule:
    rule_id = str(row.get("id", ""))
    if not re.fullmatch(r"[a-z_]+(?:\.[a-z_]+)*", rule_id):
        raise _invalid("a rule has a missing or malformed id")
    category = row.get("category")
    if category not in KNOWN_CATEGORIES:
        raise _invalid(f"{rule_id} has an unknown category")
    try:
        severity = Severity[str(row.get("severity", "")).upper()]
    except KeyError:
        raise _invalid(f"{rule_id} has an unknown severity") from None
    confidence = row.get("confidence", 0.75)
    if not isinstance(confidence, float) or not 0.0 < confidence <= 1.0:
        raise _invalid(f"{rule_id} has a confidence outside 0..1")
    patterns = row.get("all")
    if not isinstance(patterns, list) or not patterns or not all(isinstance(p, str) for p in patterns):
        raise _invalid(f"{rule_id} needs a non-empty list of patterns in 'all'")
    needles = row.get("needles")
    if not isinstance(needles, list) or not needles or not all(
        isinstance(n, str) and n and n == n.lower() for n in needles
    ):
        raise _invalid(f"{rule_id} needs a non-empty list of lower-case needles")
    anchor = row.get("anchor")
    if not isinstance(anchor, str) or not anchor:
        raise _invalid(f"{rule_id} needs an anchor")
    unless_before = row.get("unless_before")
    unless = row.get("unless")
    locations = row.get("locations")
    if locations is not None:
        try:
            where: frozenset[Location] | None = frozenset(Location(name) for name in locations)
        except (TypeError, ValueError):
            raise _invalid(f"{rule_id} has an unknown location") from None
    else:
        where = None
    unit = row.get("unit", "sentence")
    anchor_pattern = _compile(anchor, macros, rule_id)
    compiled = tuple(_compile(p, macros, rule_id) for p in patterns)
    if unit not in ("sentence", "paragraph"):
        raise _invalid(f"{rule_id} has an unknown unit")
    word_needles = tuple(tuple(n.split(" ")) for n in needles if _WORD_NEEDLE.fullmatch(n))
    text_needles = tuple(n for n in needles if not _WORD_NEEDLE.fullmatch(n))
    return Rule(
        id=rule_id,
        category=category,
        severity=severity,
        language=str(row.get("language", "und")),
        confidence=confidence,
        needles=tuple(needles),
        needs_cjk=all(CJK.search(n) for n in needles),
        anchor=anchor_pattern,
        patterns=compiled,
        unless_before=_compile(unless_before, macros, rule_id) if isinstance(unless_before, str) else None,
        unless=_compile(unless, macros, rule_id) if isinstance(unless, str) else None,
        locations=where,
        paragraph=unit == "paragraph",
        word_needles=word_needles,
        text_needles=text_needles,
        probes=tuple(_probe(n) for n in text_needles),
        probe_units=tuple(_probe_unit(_probe(n)[1]) for n in text_needles),
        ascii_probes=tuple(_probe(n) for n in text_needles if n.isascii()),
        word_positions=tuple(max(parts, key=len) for parts in word_needles),
        word_parts=frozenset(part for parts in word_needles for part in parts),
        word_checks=tuple((None if len(parts) == 1 else parts, max(parts, key=len)) for parts in word_needles),
        required=checker(all_of([requirement(pattern) for pattern in (anchor_pattern, *compiled)])),
    )


def parse_tables(tables: list[dict[str, Any]]) -> RuleSet:
    """Build a :class:`RuleSet` from already-parsed TOML tables (macros are shared)."""
    macros: dict[str, str] = {}
    for table in tables:
        macros.update({str(k): str(v) for k, v in table.get("macros", {}).items()})
    rules: list[Rule] = []
    benign: list[str] = []
    for table in tables:
        rules.extend(_build_rule(row, macros) for row in table.get("rules", []))
        context = table.get("benign_context", {}).get("pattern")
        if isinstance(context, str):
            benign.append(_expand(context, macros))
    ids = [rule.id for rule in rules]
    if len(set(ids)) != len(ids):
        raise _invalid("rule ids are not unique")
    if not rules:
        raise _invalid("no rules")
    benign_context = re.compile("|".join(f"(?:{p})" for p in benign) if benign else r"(?!)")
    position_words = tuple(sorted({word for rule in rules for word in rule.word_positions}))
    return RuleSet(rules=tuple(rules), benign_context=benign_context, position_words=position_words)


@functools.cache
def load_rules() -> RuleSet:
    """Load and compile every ``rule_tables/*.toml`` shipped with the package (once)."""
    folder = resources.files(__package__ or "pagewarden._guard").joinpath("rule_tables")
    tables: list[dict[str, Any]] = []
    for entry in sorted(folder.iterdir(), key=lambda item: item.name):
        if entry.name.endswith(".toml"):
            try:
                tables.append(tomllib.loads(entry.read_text(encoding="utf-8")))
            except tomllib.TOMLDecodeError:
                raise _invalid(f"{entry.name} is not valid TOML") from None
    return parse_tables(tables)
