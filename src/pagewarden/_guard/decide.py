"""Turn findings and truncation into a decision, with reasons and limitations.

The mapping follows the reference guard; the first rule that applies decides
(``benign_mention`` findings are ignored):

1. inspection truncated and a tool-chaining use -> ``deny`` (a partial
   inspection cannot authorize a tool action);
2. highest severity >= high and a tool-chaining use -> ``deny``;
3. highest severity >= high, or any finding outside visible text >= medium
   -> ``require_approval``;
4. highest severity >= low, or inspection truncated -> ``allow_with_warning``;
5. otherwise ``allow`` (which is not proof of safety).

Withholding needs a finding: a page is never withheld for its size alone.
The budgets grow with the page (see :mod:`.decoders`) so ordinary large pages
are inspected whole; if one is still hit, the report is ``truncated``, the
limitation says what was not examined, and the decision is at least
``allow_with_warning``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .report import Decision, Finding, Location, Severity

__all__ = [
    "BASE_LIMITATIONS",
    "CHAINING_USES",
    "MAX_LIST_ITEMS",
    "MAX_TEXT_CHARS",
    "bounded",
    "decide",
]

CHAINING_USES = frozenset({"search_more", "call_readonly_tool"})
MAX_TEXT_CHARS = 200
MAX_LIST_ITEMS = 32
BASE_LIMITATIONS: tuple[str, ...] = (
    "No finding is not proof of safety: the content remains untrusted.",
    "External stylesheets, scripts and computed visibility are not evaluated on the static path.",
    "Pattern heuristics miss paraphrased, translated or novel injections.",
)
_TRUNCATION_TEXT = {
    "character_budget": "the document-wide character budget was reached",
    "segment_count": "the segment budget was reached",
}


def bounded(items: Iterable[str]) -> tuple[str, ...]:
    """Deduplicate, cut each text to ``MAX_TEXT_CHARS`` and keep at most ``MAX_LIST_ITEMS``."""
    cut = (item if len(item) <= MAX_TEXT_CHARS else item[: MAX_TEXT_CHARS - 1] + "…" for item in items)
    return tuple(dict.fromkeys(cut))[:MAX_LIST_ITEMS]


def _describe(finding: Finding) -> str:
    where = "visible text" if finding.location is Location.VISIBLE else f"{finding.location} content"
    return f"{finding.category} ({finding.severity}) in {where} [{finding.reason}]"


def decide(
    findings: Sequence[Finding],
    *,
    truncated: bool,
    truncation_reasons: Sequence[str],
    requested_use: str,
) -> tuple[Decision, tuple[str, ...]]:
    """The decision and the reasons that name what decided it."""
    relevant = [f for f in findings if f.category != "benign_mention"]
    top = max((f.severity for f in relevant), default=Severity.INFO)
    chaining = requested_use in CHAINING_USES
    details = [_describe(f) for f in sorted(relevant, key=lambda f: -f.severity)]
    why = "; ".join(_TRUNCATION_TEXT.get(r, r) for r in truncation_reasons) or "inspection incomplete"
    if truncated and chaining:
        lead = f"Inspection was truncated ({why}); a truncated inspection cannot authorize a tool action."
        return Decision.DENY, bounded([lead, *details])
    if top >= Severity.HIGH and chaining:
        lead = f"A {top} finding forbids the tool-chaining use {requested_use}."
        return Decision.DENY, bounded([lead, *details])
    if top >= Severity.HIGH:
        return Decision.REQUIRE_APPROVAL, bounded([f"A {top} finding needs approval.", *details])
    if any(f.location is not Location.VISIBLE and f.severity >= Severity.MEDIUM for f in relevant):
        return Decision.REQUIRE_APPROVAL, bounded(["A medium finding outside visible text needs approval.", *details])
    if top >= Severity.LOW:
        lead = f"A {top} finding was reported."
        if truncated:
            lead += f" Inspection was also truncated ({why})."
        return Decision.ALLOW_WITH_WARNING, bounded([lead, *details])
    if truncated:
        return Decision.ALLOW_WITH_WARNING, bounded(
            [f"Inspection was truncated ({why}); no finding in what was examined, the rest was not inspected."])
    return Decision.ALLOW, ("No rule matched; this is not proof of safety.",)
