"""The decision mapping, rule by rule."""

from __future__ import annotations

import pytest

from pagewarden._guard import Decision, Finding, Location, Severity
from pagewarden._guard.decide import BASE_LIMITATIONS, MAX_TEXT_CHARS, decide


def _finding(severity: Severity, location: Location = Location.VISIBLE, category: str = "x") -> Finding:
    return Finding(category, severity, 0.8, location, (), "0" * 16, "rule:x")


ROWS = [
    # (name, findings, truncated, requested_use, expected)
    ("truncated-chaining", [], True, "search_more", Decision.DENY),
    ("truncated-tool", [], True, "call_readonly_tool", Decision.DENY),
    ("truncated-warns-only", [], True, "summarize", Decision.ALLOW_WITH_WARNING),
    ("truncated-with-low-finding", [_finding(Severity.LOW)], True, "summarize", Decision.ALLOW_WITH_WARNING),
    ("truncated-high-finding-withholds", [_finding(Severity.HIGH)], True, "summarize", Decision.REQUIRE_APPROVAL),
    ("high-chaining", [_finding(Severity.HIGH)], False, "search_more", Decision.DENY),
    ("critical-chaining", [_finding(Severity.CRITICAL)], False, "call_readonly_tool", Decision.DENY),
    ("high", [_finding(Severity.HIGH)], False, "answer_with_citation", Decision.REQUIRE_APPROVAL),
    ("medium-hidden", [_finding(Severity.MEDIUM, Location.ATTRIBUTE)], False, "summarize",
     Decision.REQUIRE_APPROVAL),
    ("medium-hidden-chaining", [_finding(Severity.MEDIUM, Location.COMMENT)], False, "search_more",
     Decision.REQUIRE_APPROVAL),
    ("medium-visible", [_finding(Severity.MEDIUM)], False, "summarize", Decision.ALLOW_WITH_WARNING),
    ("low-visible", [_finding(Severity.LOW)], False, "extract_facts", Decision.ALLOW_WITH_WARNING),
    ("low-hidden", [_finding(Severity.LOW, Location.HIDDEN)], False, "summarize", Decision.ALLOW_WITH_WARNING),
    ("info", [_finding(Severity.INFO)], False, "summarize", Decision.ALLOW),
    ("benign-mention-ignored", [_finding(Severity.CRITICAL, category="benign_mention")], False, "search_more",
     Decision.ALLOW),
    ("nothing", [], False, "search_more", Decision.ALLOW),
]


@pytest.mark.parametrize(("findings", "truncated", "use", "expected"), [r[1:] for r in ROWS],
                         ids=[r[0] for r in ROWS])
def test_decision_mapping(findings: list[Finding], truncated: bool, use: str, expected: Decision) -> None:
    """The first applicable rule of the mapping decides."""
    decision, reasons = decide(findings, truncated=truncated, truncation_reasons=("character_budget",),
                               requested_use=use)
    assert decision is expected
    assert reasons
    assert all(len(reason) <= MAX_TEXT_CHARS for reason in reasons)


def test_truncation_reason_is_named() -> None:
    """A truncated decision says which budget was reached."""
    _, reasons = decide([], truncated=True, truncation_reasons=("segment_count",), requested_use="summarize")
    assert "segment budget" in reasons[0]


def test_limitations_cover_the_known_gaps() -> None:
    """The base limitations say no finding is not proof, CSS is not evaluated, and heuristics miss paraphrase."""
    text = " ".join(BASE_LIMITATIONS).lower()
    assert "not proof of safety" in text
    assert "stylesheets" in text and "computed visibility" in text
    assert "paraphrase" in text
