"""End-to-end guard decisions over the data table in ``cases.toml``."""

from __future__ import annotations

from typing import Any

import pytest

from pagewarden._guard import GuardReport, guard_html, guard_text

from ._data import load_table

CASES = load_table("cases.toml", "case")


def _run(case: dict[str, Any]) -> GuardReport:
    options = {
        "profile": case.get("profile", "balanced"),
        "requested_use": case.get("requested_use", "answer_with_citation"),
    }
    if "html" in case:
        return guard_html(case["html"], **options)
    return guard_text(case["text"], location=case.get("location", "visible"), **options)


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_case_decision_and_findings(case: dict[str, Any]) -> None:
    """Each table row yields its expected decision, categories and locations."""
    report = _run(case)
    assert str(report.decision) == case["decision"]
    findings = [f for f in report.findings if f.category != "benign_mention"]
    categories = {f.category for f in findings}
    if case["categories"]:
        assert set(case["categories"]) <= categories
    else:
        assert findings == []
    if "locations" in case:
        assert set(case["locations"]) <= {str(f.location) for f in findings}


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_case_report_holds_no_page_text(case: dict[str, Any]) -> None:
    """Reports name rules and hashes only; no eight-character run of page text leaks into them."""
    report = _run(case)
    source = case.get("html", case.get("text", ""))
    serialized = repr(report.to_dict())
    words = [w for w in source.replace("<", " ").replace(">", " ").split() if len(w) >= 8 and w.isalpha()]
    leaked = [w for w in words if w in serialized and w.lower() not in _VOCABULARY]
    assert leaked == []


# Words that legitimately appear in reports (location names, limitation text).
_VOCABULARY = frozenset({"external", "template"})
