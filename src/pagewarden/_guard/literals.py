"""Literal strings that a match of a regular expression must contain: an exact pre-check before ``search``.

Why: a rule pattern that starts with a character class or an alternation of
contexts ("a request: after punctuation, after 'please', after 'you must'")
makes ``sre`` try the whole pattern at almost every position of a unit,
20-250 ns a character, and most units a rule is tried on hold no match.
Every match of such a pattern holds some of its words (its verbs, its
objects), and ``str.__contains__`` for those runs in C and stops early.

:func:`requirement` reads a pattern's parse tree and returns what any match
must contain, as a tree: a set of strings (one of them occurs in the match),
all of several requirements (a sequence), or one of several (an
alternation); :func:`checker` compiles it into one function. A unit that
does not meet it holds no match, so the regex need not run. Anything the analysis does not understand
requires nothing (it never rules out a unit it should not); a
case-insensitive pattern requires nothing at all.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from re import _constants as sre  # type: ignore[attr-defined]
from re import _parser as sre_parse  # type: ignore[attr-defined]
from typing import Any, cast

__all__ = ["ANYTHING", "MAX_TESTS", "AllOf", "AnyOf", "Choices", "Requirement", "all_of", "checker", "prune",
           "requirement"]

# A set of more strings than this costs more to check than it saves: it requires nothing.
_MAX_CHOICES = 48
# A character class of at most this many literal characters is a set of one-character strings.
_MAX_CLASS_CHARS = 8
# Nesting kept below the top sequence, and parts kept per sequence: a deeper or longer tree rules
# out few more units and costs more Python calls to check than the regex it spares.
_MAX_DEPTH = 3
_MAX_PARTS = 4
# The most substring tests a pattern's check may take (see ``requirement``).
MAX_TESTS = 40


@dataclass(frozen=True, slots=True)
class Choices:
    """One of ``strings`` occurs in the match."""

    strings: tuple[str, ...]

    def expression(self) -> str:
        """Whether ``text`` meets this requirement, as a Python expression."""
        return "(" + " or ".join(f"{choice!r} in text" for choice in self.strings) + ")"


@dataclass(frozen=True, slots=True)
class AllOf:
    """Every part holds (a sequence); no parts: nothing is required."""

    parts: tuple[Requirement, ...]

    def expression(self) -> str:
        """Whether ``text`` meets this requirement, as a Python expression."""
        return "(" + " and ".join(part.expression() for part in self.parts) + ")" if self.parts else "True"


@dataclass(frozen=True, slots=True)
class AnyOf:
    """One of the parts holds (an alternation)."""

    parts: tuple[Requirement, ...]

    def expression(self) -> str:
        """Whether ``text`` meets this requirement, as a Python expression."""
        return "(" + " or ".join(part.expression() for part in self.parts) + ")"


Requirement = Choices | AllOf | AnyOf
ANYTHING: Requirement = AllOf(())


def _choices(strings: set[str]) -> Requirement:
    if not strings or len(strings) > _MAX_CHOICES:
        return ANYTHING
    return Choices(tuple(sorted(strings, key=lambda text: (-len(text), text))))


def _strength(req: Requirement) -> tuple[int, int]:
    # Sets of long strings first: they are rare in text, so a unit that fails them fails early.
    if isinstance(req, Choices):
        return min(map(len, req.strings)), -len(req.strings)
    return 0, 0


def all_of(parts: Sequence[Requirement]) -> Requirement:
    """The requirement that every one of ``parts`` holds."""
    flat: list[Requirement] = []
    for part in parts:
        flat.extend(part.parts if isinstance(part, AllOf) else (part,))
    unique = list(dict.fromkeys(flat))
    if len(unique) == 1:
        return unique[0]
    return AllOf(tuple(sorted(unique, key=_strength, reverse=True)))


def _any_of(parts: Sequence[Requirement]) -> Requirement:
    strings: set[str] = set()
    others: list[Requirement] = []
    for part in parts:
        if part == ANYTHING:
            return ANYTHING
        if isinstance(part, Choices):
            strings.update(part.strings)
        elif isinstance(part, AnyOf):
            others.extend(part.parts)
        else:
            others.append(part)
    if strings:
        merged = _choices(strings)
        if merged == ANYTHING:
            return ANYTHING
        others.append(merged)
    return others[0] if len(others) == 1 else AnyOf(tuple(others))


def _class(items: Sequence[tuple[Any, Any]]) -> Requirement:
    if len(items) > _MAX_CLASS_CHARS or not all(op is sre.LITERAL for op, _ in items):
        return ANYTHING
    return _choices({chr(code) for _, code in items})


def _item(op: Any, av: Any) -> Requirement:
    """What a match of one parse-tree item (not a plain literal) must contain."""
    if op is sre.SUBPATTERN:
        _group, add_flags, _del_flags, inner = av
        return ANYTHING if add_flags & re.IGNORECASE else _sequence(inner)
    if op is sre.ATOMIC_GROUP:
        return _sequence(av)
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
        low, _high, inner = av
        return _sequence(inner) if low >= 1 else ANYTHING
    if op is sre.IN:
        return _class(av)
    if op is sre.BRANCH:
        return _any_of([_sequence(alternative) for alternative in av[1]])
    # Anchors, lookarounds, other classes, wildcards, back references: nothing required.
    return ANYTHING


def _sequence(items: Sequence[tuple[Any, Any]]) -> Requirement:
    """Every item of a sequence is in its match; a run of consecutive literals is one string."""
    parts: list[Requirement] = []
    run: list[str] = []
    for op, av in items:
        if op is sre.LITERAL:
            run.append(chr(av))
            continue
        if run:
            parts.append(Choices(("".join(run),)))
            run = []
        parts.append(_item(op, av))
    if run:
        parts.append(Choices(("".join(run),)))
    return all_of(parts)


def _strongest(req: Requirement) -> Requirement:
    """A set of strings that ``req`` implies (ANYTHING if none): its own, or that of a part."""
    if isinstance(req, Choices):
        return req
    if isinstance(req, AllOf):
        sets = [part for part in map(_strongest, req.parts) if part != ANYTHING]
        return max(sets, key=_strength) if sets else ANYTHING
    return _any_of([_strongest(part) for part in req.parts])


def prune(req: Requirement, depth: int = 0) -> Requirement:
    """A weaker requirement than ``req`` (implied by it) that is cheap to check: see ``_MAX_DEPTH``."""
    if isinstance(req, Choices):
        return req
    if isinstance(req, AnyOf):
        if depth >= _MAX_DEPTH:
            return _strongest(req)
        return _any_of([prune(part, depth + 1) for part in req.parts])
    parts = [prune(part, depth) for part in req.parts]
    if depth >= _MAX_DEPTH:
        parts = [part for part in parts if isinstance(part, Choices)]
    return all_of(sorted(parts, key=_strength, reverse=True)[:_MAX_PARTS])


def _tests(req: Requirement) -> int:
    """How many ``in`` tests checking ``req`` may take."""
    return len(req.strings) if isinstance(req, Choices) else sum(map(_tests, req.parts))


def requirement(pattern: re.Pattern[str]) -> Requirement:
    """What every match of ``pattern`` contains (``ANYTHING`` when nothing is known), pruned.

    The tree is pruned to the deepest nesting whose check takes at most
    ``MAX_TESTS`` substring tests: a unit of a paragraph rule is up to a
    thousand characters, and hundreds of failing tests over it cost more
    than the regex.
    """
    if pattern.flags & re.IGNORECASE:
        return ANYTHING
    parsed = sre_parse.parse(pattern.pattern, pattern.flags)
    if parsed.state.flags & re.IGNORECASE:
        return ANYTHING
    full = _sequence(list(parsed))
    for depth in range(_MAX_DEPTH, 0, -1):
        pruned = prune(full, _MAX_DEPTH - depth)
        if _tests(pruned) <= MAX_TESTS:
            return pruned
    return prune(full, _MAX_DEPTH)


def checker(req: Requirement) -> Callable[[str], bool]:
    """Whether a text meets ``req``, as one compiled function.

    Why compiled: checking the tree with a call per node cost more than the
    ``in`` tests themselves. The expression holds only ``in`` tests of
    ``repr``-quoted strings joined by ``and``/``or``, whatever the strings are.
    """
    source = "lambda text: " + req.expression()
    return cast("Callable[[str], bool]", eval(compile(source, "<requirement>", "eval")))  # noqa: S307 - see above
