"""The guard's vocabulary and its report: decisions, severities, findings.

A leaf of the foundation (it imports nothing of pagewarden): the protocols
(:mod:`._protocols`), the document (:mod:`._document`) and the guard itself
all speak it, so it sits below them. :mod:`._guard.report` re-exports it for guard code.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "DECISION_ORDER",
    "Decision",
    "Finding",
    "GuardReport",
    "Location",
    "Severity",
    "stricter",
    "top_findings",
]


class Decision(enum.StrEnum):
    """What may be done with the content, from most to least permissive."""

    ALLOW = "allow"
    ALLOW_WITH_WARNING = "allow_with_warning"
    REQUIRE_APPROVAL = "require_approval"
    DENY = "deny"

    @property
    def withholds(self) -> bool:
        """Whether content with this decision must not be returned."""
        return self in (Decision.REQUIRE_APPROVAL, Decision.DENY)


DECISION_ORDER: tuple[Decision, ...] = tuple(Decision)


def top_findings(findings: Sequence[Finding], limit: int = 5) -> tuple[str, ...]:
    """Summaries of the ``limit`` strongest non-benign findings, strongest first, one per category and location."""
    ranked = sorted((f for f in findings if f.category != "benign_mention"),
                    key=lambda f: (-f.severity, -f.confidence))
    seen: set[tuple[str, str]] = set()
    out: list[str] = []
    for finding in ranked:
        key = (finding.category, str(finding.location))
        if key not in seen:
            seen.add(key)
            out.append(finding.summary())
        if len(out) >= limit:
            break
    return tuple(out)


def stricter(a: Decision, b: Decision) -> Decision:
    """The stricter of two decisions."""
    return a if DECISION_ORDER.index(a) >= DECISION_ORDER.index(b) else b


class Severity(enum.IntEnum):
    """Ordered severities of a finding."""

    INFO = 0
    LOW = 1
    MEDIUM = 2
    HIGH = 3
    CRITICAL = 4

    def __str__(self) -> str:
        return self.name.lower()


class Location(enum.StrEnum):
    """Where in the page a segment came from."""

    VISIBLE = "visible"
    HIDDEN = "hidden"
    COMMENT = "comment"
    METADATA = "metadata"
    TEMPLATE = "template"
    ATTRIBUTE = "attribute"


@dataclass(frozen=True, slots=True)
class Finding:
    """One rule match.

    Attributes:
        category: what kind of manipulation (``instruction_override``, ...).
        severity: how bad, after location and profile adjustments.
        confidence: 0..1.
        location: the segment's location.
        techniques: normalization steps that were needed for the match
            (``unicode_nfkc``, ``base64_decoded``, ...).
        segment_hash: first 16 hex digits of SHA-256 of the segment text.
        reason: a bounded text naming the rule that matched.
    """

    category: str
    severity: Severity
    confidence: float
    location: Location
    techniques: tuple[str, ...]
    segment_hash: str
    reason: str

    def summary(self) -> str:
        """One line naming the category, severity, location and confidence (no page text)."""
        return f"{self.category} ({self.severity}, {self.location}, confidence {self.confidence:.2f})"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (no page text)."""
        return {
            "category": self.category,
            "severity": str(self.severity),
            "confidence": round(self.confidence, 3),
            "location": str(self.location),
            "techniques": list(self.techniques),
            "segment_hash": self.segment_hash,
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True)
class GuardReport:
    """The guard's verdict on one document or text.

    Attributes:
        decision: the overall decision.
        findings: every finding, in segment order.
        reasons: short human-readable statements of why the decision was taken.
        limitations: what this inspection could not see; never empty, because
            no finding is not proof of safety.
        truncated: inspection stopped at a budget before seeing everything
            (which alone forces at least ``require_approval``).
    """

    decision: Decision
    findings: tuple[Finding, ...] = ()
    reasons: tuple[str, ...] = ()
    limitations: tuple[str, ...] = ()
    truncated: bool = False
    segments_inspected: int = field(default=0, compare=False)

    @property
    def warning_categories(self) -> tuple[str, ...]:
        """Distinct non-benign categories, in first-seen order."""
        return tuple(dict.fromkeys(f.category for f in self.findings if f.category != "benign_mention"))

    def top_findings(self, limit: int = 5) -> tuple[str, ...]:
        """Summaries of the strongest non-benign findings (see :func:`top_findings`)."""
        return top_findings(self.findings, limit)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (no page text)."""
        return {
            "decision": str(self.decision),
            "findings": [f.to_dict() for f in self.findings],
            "reasons": list(self.reasons),
            "limitations": list(self.limitations),
            "truncated": self.truncated,
        }
