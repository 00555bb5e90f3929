"""The literal pre-check of a rule never rules out a unit on which its regexes match."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pagewarden._guard.literals import ANYTHING, all_of, checker, requirement
from pagewarden._guard.rules import Rule, load_rules

# (pattern, texts that may match: the check must pass, texts that cannot: the check must fail)
_VECTORS = (
    (r"ignore\s+(?:all\s+)?previous", ("ignore previous", "ignore  all previous"), ("ignore", "previous only")),
    (r"\b(?:reveal|leak)\s+(?:the\s+)?(?:password|secret)s?", ("reveal secrets",), ("show the password",)),
    (r"(?:^|[:;])\s*(?:say|print)\s+[\"']", ("say '", ": print \""), ("tell me",)),
    (r"a(?:b|c)d|xyz", ("abd", "xyz"), ("ab", "xy")),
    (r"(?:ab)?cd", ("cd",), ("ab",)),
    (r"x{0,3}y+", ("y",), ("x",)),
    (r"[^a]bc", ("zbc",), ("b c",)),
)
# Patterns from which nothing can be required: every text passes.
_NOTHING_REQUIRED = (r"(?i)ignore", r"\w+", r"(?:a|)b?", r".*", r"(?=abc)", r"(?i:abc)d?")


@pytest.mark.parametrize(("pattern", "may_match", "cannot_match"), _VECTORS)
def test_requirement_vectors(pattern: str, may_match: tuple[str, ...], cannot_match: tuple[str, ...]) -> None:
    """A text holding a match passes the check; a text lacking a required word fails it."""
    check = checker(requirement(re.compile(pattern)))
    for text in may_match:
        assert check(text), text
    for text in cannot_match:
        assert not check(text), text


@pytest.mark.parametrize("pattern", _NOTHING_REQUIRED)
def test_nothing_required(pattern: str) -> None:
    """Case-insensitive patterns, classes, optional parts and lookarounds require nothing."""
    assert requirement(re.compile(pattern)) == ANYTHING
    assert checker(ANYTHING)("")


def _regexes_match(rule: Rule, unit: str) -> bool:
    """The rule's regexes without the pre-check (what ``Rule.matches`` decided before it)."""
    return (rule.anchor.search(unit) is not None and rule.patterns[0].search(unit) is not None
            and all(pattern.search(unit) is not None for pattern in rule.patterns[1:]))


def _pattern_words() -> list[str]:
    words: set[str] = set()
    for rule in load_rules().rules:
        for pattern in (rule.anchor, *rule.patterns):
            words.update(re.findall(r"[a-z]{2,}|[^\x00-\x7f\\]{2,}", pattern.pattern))
    return sorted(words)


_PIECES = st.sampled_from([*_pattern_words(), " ", " ", ", ", ": ", "'", "\"", "\n", ". ", "-", "@", "$", "1"])


@settings(max_examples=1000, deadline=None)
@given(st.lists(_PIECES, max_size=30).map("".join))
def test_check_never_rules_out_a_match(unit: str) -> None:
    """On text built from the rules' own words, a unit every regex of a rule matches passes its check."""
    for rule in load_rules().rules:
        if _regexes_match(rule, unit):
            assert rule.required(unit), (rule.id, unit)


def test_all_of_flattens() -> None:
    """Requiring nothing alongside something requires that thing."""
    only = requirement(re.compile("abc"))
    assert all_of([ANYTHING, only]) == only
