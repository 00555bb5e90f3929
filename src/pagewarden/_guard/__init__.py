"""The context guard: segment a page, normalize, match rules, decide.

``guard_html`` and ``guard_text`` are the entry points the reader calls (and
that the public namespace re-exports). The flow is::

    segments (locations, budgets) -> normalize (variants + techniques)
        -> rules (data tables, one prefilter) -> scan (findings) -> decide
"""

from .guard import guard_html, guard_text
from .report import DECISION_ORDER, Decision, Finding, GuardReport, Location, Severity, stricter
from .segments import InspectionLimits, Segment, SegmentSet

__all__ = [
    "DECISION_ORDER",
    "Decision",
    "Finding",
    "GuardReport",
    "InspectionLimits",
    "Location",
    "Segment",
    "SegmentSet",
    "Severity",
    "guard_html",
    "guard_text",
    "stricter",
]
