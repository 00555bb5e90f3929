"""Guard vectors per category (``vectors/<category>.toml``): attacks caught, look-alikes left alone."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from pagewarden._guard import guard_text
from pagewarden._guard.rules import load_rules

VECTORS = Path(__file__).parent / "vectors"
CATEGORY_FILES = sorted(p for p in VECTORS.glob("*.toml") if p.stem != "normalization")


def _rows() -> list[tuple[str, dict[str, Any]]]:
    rows = []
    for path in CATEGORY_FILES:
        with path.open("rb") as handle:
            rows.extend((path.stem, row) for row in tomllib.load(handle)["case"])
    return rows


ROWS = _rows()
IDS = [f"{category}-{row['kind']}-{index}" for index, (category, row) in enumerate(ROWS)]


@pytest.mark.parametrize(("category", "row"), ROWS, ids=IDS)
def test_vector(category: str, row: dict[str, Any]) -> None:
    """An attack row yields a finding of its file's category; a benign row yields none of it."""
    report = guard_text(row["text"], location=row.get("location", "visible"))
    matched = [f for f in report.findings if f.category == category]
    if row["kind"] == "attack":
        assert matched, "attack not detected"
        if "rule" in row:
            assert f"rule:{row['rule']}" in {f.reason for f in matched}
        if "decision" in row:
            assert str(report.decision) == row["decision"]
    else:
        assert row["kind"] == "benign"
        assert matched == []
        assert str(report.decision) == row.get("decision", "allow")


def test_every_category_file_has_both_kinds() -> None:
    """Each category file holds attacks and benign look-alikes side by side."""
    for path in CATEGORY_FILES:
        kinds = {row["kind"] for name, row in ROWS if name == path.stem}
        assert kinds == {"attack", "benign"}, path.name


def test_every_shipped_rule_is_exercised() -> None:
    """Every rule in the shipped tables fires on at least one attack vector."""
    fired: set[str] = set()
    for _, row in ROWS:
        if row["kind"] == "attack":
            report = guard_text(row["text"], location=row.get("location", "visible"))
            fired.update(f.reason.removeprefix("rule:") for f in report.findings)
    missing = sorted(rule.id for rule in load_rules().rules if rule.id not in fired)
    assert missing == []


@pytest.mark.parametrize(("category", "row"), ROWS, ids=IDS)
def test_report_never_quotes_page_text(category: str, row: dict[str, Any]) -> None:
    """Findings, reasons and limitations name rules and hashes only: no 16-character run of the text appears."""
    text = row["text"]
    report = guard_text(text, location=row.get("location", "visible"))
    serialized = repr(report.to_dict()).lower()
    windows = {text[i : i + 16].lower() for i in range(max(0, len(text) - 15))}
    assert not any(window in serialized for window in windows)
