"""The block filter behind ``on_guard="redact"``: the built-in rules, block by block.

The guard's findings name a rule, a location and a segment hash, not a
character span, and a segment can hold a whole page's visible text. So
redaction re-runs the built-in guard (:func:`pagewarden.guard_text`, same
profile and use) on each block of the output: every Markdown block
(paragraph, heading, list-item paragraph, code block, table) and every line
of the plain text in which a rule matches is replaced whole by a
``[withheld by pagewarden: <category>]`` marker. The granularity is the block,
not the matched words.
"""

from __future__ import annotations

from .._guard import guard_text
from .._guard.report import Severity
from .render import BlockFilter, withheld_marker

__all__ = ["redact_lines", "rule_block_filter"]


def rule_block_filter(*, profile: str, requested_use: str) -> BlockFilter:
    """A filter returning the first non-benign category (low or worse) the built-in rules find in a block."""
    cache: dict[str, str | None] = {}

    def check(text: str) -> str | None:
        if text not in cache:
            report = guard_text(text, location="visible", profile=profile, requested_use=requested_use)
            categories = [
                f.category for f in report.findings if f.category != "benign_mention" and f.severity >= Severity.LOW
            ]
            # A block too large for one inspection is withheld rather than trusted.
            cache[text] = categories[0] if categories else ("inspection_truncated" if report.truncated else None)
        return cache[text]

    return check


def redact_lines(text: str, block_filter: BlockFilter) -> tuple[str, tuple[str, ...]]:
    """Replace every line of ``text`` the filter objects to by a marker; return the text and the categories."""
    lines = text.split("\n")
    categories: list[str] = []
    for index, line in enumerate(lines):
        if line.strip():
            category = block_filter(line)
            if category is not None:
                categories.append(category)
                lines[index] = withheld_marker(category)
    return "\n".join(lines), tuple(categories)
