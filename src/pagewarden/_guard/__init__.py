"""The context guard: segment a page, normalize, match rules, decide.

``guard_html`` and ``guard_text`` are the entry points the reader calls (and
that the public namespace re-exports). The flow is::

    segments (locations, budgets) -> normalize (variants + techniques)
        -> rules (data tables, one prefilter) -> scan (findings) -> decide

``inspect_segments`` runs the back half on an already built :class:`SegmentSet`
(for callers that collect segments themselves, such as the browser path).
"""

from .guard import DEFAULT_LIMITS, guard_html, guard_text, inspect_segments
from .report import DECISION_ORDER, Decision, Finding, GuardReport, Location, Severity, stricter
from .segments import (
    BROWSER_HIDDEN_ATTRIBUTE,
    MAX_EXTRA_SEGMENTS,
    InspectionLimits,
    Segment,
    SegmentSet,
    collect_html_segments,
    collect_text_segments,
)

__all__ = [
    "BROWSER_HIDDEN_ATTRIBUTE",
    "DECISION_ORDER",
    "DEFAULT_LIMITS",
    "MAX_EXTRA_SEGMENTS",
    "Decision",
    "Finding",
    "GuardReport",
    "InspectionLimits",
    "Location",
    "Segment",
    "SegmentSet",
    "Severity",
    "collect_html_segments",
    "collect_text_segments",
    "guard_html",
    "guard_text",
    "inspect_segments",
    "stricter",
]
