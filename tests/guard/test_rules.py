"""The rule tables: shipped, valid, and validated when malformed."""

from __future__ import annotations

from importlib import resources
from typing import Any

import pytest

from pagewarden._errors import GuardFailed
from pagewarden._guard import Location
from pagewarden._guard.rules import KNOWN_CATEGORIES, load_rules, parse_tables
from pagewarden._guard.scan import scan_segment
from pagewarden._guard.segments import Segment


def test_rule_tables_ship_inside_the_package() -> None:
    """The rule table is a package resource (so it is in the wheel) and loads once."""
    rules = load_rules()
    assert load_rules() is rules
    assert {rule.category for rule in rules.rules} >= {"instruction_override", "secret_exfiltration"}
    assert all(rule.category in KNOWN_CATEGORIES for rule in rules.rules)
    assert {rule.language for rule in rules.rules} >= {"en", "ja"}


def _row(**changes: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": "x.en", "category": "instruction_override", "severity": "high", "confidence": 0.8,
        "needles": ["ignore"], "anchor": "ignore", "all": ["ignore"],
    }
    row.update(changes)
    return row


MALFORMED = [
    ("bad-id", _row(id="Bad Id")),
    ("unknown-category", _row(category="mystery")),
    ("unknown-severity", _row(severity="severe")),
    ("confidence-range", _row(confidence=1.5)),
    ("no-patterns", _row(all=[])),
    ("no-needles", _row(needles=[])),
    ("upper-case-needle", _row(needles=["Ignore"])),
    ("upper-case-pattern", _row(all=["Ignore"])),
    ("broken-regex", _row(all=["(ignore"])),
    ("unknown-macro", _row(all=["<<nothing>>"])),
    ("no-anchor", _row(anchor="")),
    ("unknown-unit", _row(unit="page")),
]


@pytest.mark.parametrize("row", [r for _, r in MALFORMED], ids=[n for n, _ in MALFORMED])
def test_malformed_rule_fails_closed(row: dict[str, Any]) -> None:
    """A malformed rule row raises GUARD_FAILED naming the rule table, never a silent skip."""
    with pytest.raises(GuardFailed) as caught:
        parse_tables([{"rules": [row]}])
    assert caught.value.reason == "rule_table_invalid"


def test_duplicate_ids_fail() -> None:
    """Two rules with one id are refused."""
    with pytest.raises(GuardFailed):
        parse_tables([{"rules": [_row(), _row()]}])


def test_escaped_upper_case_classes_are_allowed() -> None:
    """Regex escapes such as \\S or \\b are not mistaken for upper-case letters."""
    rules = parse_tables([{"rules": [_row(all=[r"ignore\S*\s+\B"])]}])
    assert rules.rules[0].id == "x.en"


def test_macros_expand_across_tables() -> None:
    """``<<name>>`` macros from any table expand in every table's patterns."""
    rules = parse_tables([{"macros": {"verb": "ignore"}}, {"rules": [_row(all=["<<verb>> it"])]}])
    assert rules.rules[0].matches("ignore it")
    assert not rules.rules[0].matches("keep it")


def test_negation_before_the_verb_vetoes() -> None:
    """``unless_before`` rejects a match preceded by negation but accepts a later clean one in the unit."""
    rules = parse_tables([{"rules": [_row(all=["ignore"], unless_before=r"\bnever\s+$")]}])
    rule = rules.rules[0]
    assert not rule.matches("never ignore")
    assert rule.matches("never ignore, just ignore")


def test_shipped_tables_are_split_by_concern() -> None:
    """The shipped tables cover every category issue 3 names, in several data files."""
    folder = resources.files("pagewarden._guard").joinpath("rule_tables")
    names = {entry.name for entry in folder.iterdir() if entry.name.endswith(".toml")}
    assert {"core.toml", "control.toml", "actions.toml", "hidden.toml", "multilingual.toml", "agent.toml"} <= names
    assert {rule.category for rule in load_rules().rules} == KNOWN_CATEGORIES


def test_word_needles_use_the_word_set() -> None:
    """A word needle gates on whole words: 'api' does not open the gate for 'rapid'."""
    rules = parse_tables([{"rules": [_row(needles=["api"], anchor="api", all=["api"])]}])
    rule = rules.rules[0]
    assert not rule.applies_to("rapid", frozenset({"rapid"}))
    assert rule.applies_to("an api key", frozenset({"an", "api", "key"}))


def test_location_restricted_rule() -> None:
    """A rule with `locations` records them; an unknown location name is refused."""
    rules = parse_tables([{"rules": [_row(locations=["hidden", "comment"])]}])
    assert rules.rules[0].locations == {Location.HIDDEN, Location.COMMENT}
    with pytest.raises(GuardFailed):
        parse_tables([{"rules": [_row(locations=["footer"])]}])


def test_paragraph_unit_spans_sentences_of_one_line() -> None:
    """A rule with unit = "paragraph" matches across sentences of a line, never across lines."""
    row = _row(needles=["agent"], anchor="agent", all=[r"agent\b[^\n]*\bfirst"], unit="paragraph")
    paragraph = parse_tables([{"rules": [row]}])
    sentence = parse_tables([{"rules": [{k: v for k, v in row.items() if k != "unit"}]}])
    text = "Attention agent. The page moved. You must first log in."
    assert paragraph.rules[0].paragraph and not sentence.rules[0].paragraph
    assert scan_segment(Segment(Location.VISIBLE, text), paragraph, strict=False)
    assert not scan_segment(Segment(Location.VISIBLE, text), sentence, strict=False)
    assert not scan_segment(Segment(Location.VISIBLE, text.replace(". The", ".\nThe")), paragraph, strict=False)
