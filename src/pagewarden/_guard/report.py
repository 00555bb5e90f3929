"""The guard's report vocabulary, defined in the foundation (:mod:`pagewarden._report`).

The protocols and the document need these types below the guard, so they
live there; guard code imports them from here.
"""

from __future__ import annotations

from .._report import (
    DECISION_ORDER,
    Decision,
    Finding,
    GuardReport,
    Location,
    Severity,
    stricter,
    top_findings,
)

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
