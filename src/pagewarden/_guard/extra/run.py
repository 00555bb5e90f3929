"""Run the extra guards and merge their answers into the built-in report.

Every configured guard runs concurrently on the event loop, each under its
own deadline (and under whatever deadline encloses the call, such as the
read's). The merge can only tighten: the merged decision is the strictest of
the built-in decision, each guard's stated decision, and the decision each
guard's findings imply under the built-in mapping (:func:`decide`), so a guard
that says ``allow`` next to a high finding still counts as the finding says.

Failure is never an allow. A guard that raises, overruns its deadline or
answers with an invalid report makes :func:`run_extra_guards` raise
``GUARD_FAILED`` naming the guard and the failure kind (never the guard's own
error text, which may quote the page).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import anyio

from ..._errors import GuardFailed
from ..._protocols import ContentGuard, GuardRequest
from ..decide import decide
from ..report import DECISION_ORDER, Decision, Finding, GuardReport, stricter
from .validate import MAX_GUARD_TEXT_CHARS, validate_report

__all__ = ["MAX_MERGED_ITEMS", "collect_extra_reports", "implied_decision", "merge_reports", "run_extra_guards"]

MAX_MERGED_ITEMS = 64
_MAX_MERGED_FINDINGS = 1_024
_MAX_FINDING_REASON_CHARS = 200


class _Outcome:
    """What one guard produced: a validated report, or the name of its failure."""

    __slots__ = ("failure", "report")

    def __init__(self) -> None:
        self.report: GuardReport | None = None
        self.failure: str | None = None


async def _run_one(guard: ContentGuard, request: GuardRequest, timeout: float, outcome: _Outcome) -> None:
    name = guard.name
    result: object = None
    with anyio.move_on_after(timeout) as scope:
        try:
            result = await guard.inspect(request)
        except Exception:
            # Broad on purpose: whatever a guard raises (its own bugs, a model
            # client's errors) is a failed verdict, never an allow.
            outcome.failure = "raised"
            return
    # A guard that swallowed the cancellation and returned anyway still overran.
    if scope.cancel_called or scope.cancelled_caught:
        outcome.failure = "timeout"
        return
    try:
        outcome.report = validate_report(name, result)
    except GuardFailed:
        outcome.failure = "invalid_result"


def _tag(name: str, finding: Finding) -> Finding:
    # Findings keep their fields; the reason says which guard produced them.
    reason = f"guard:{name}:{finding.reason}"[:_MAX_FINDING_REASON_CHARS]
    return Finding(finding.category, finding.severity, finding.confidence, finding.location,
                   finding.techniques, finding.segment_hash, reason)


def _text(item: str) -> str:
    return item if len(item) <= MAX_GUARD_TEXT_CHARS else item[: MAX_GUARD_TEXT_CHARS - 1] + "…"


def merge_reports(
    base: GuardReport, extra: Sequence[tuple[str, GuardReport]], *, requested_use: str
) -> GuardReport:
    """Merge validated extra reports into ``base``; the decision can only get stricter.

    Args:
        base: the built-in guard's report.
        extra: ``(guard name, report)`` pairs, already validated.
        requested_use: the use the reports were made for (drives :func:`decide`).
    """
    decision = base.decision
    leads: list[str] = []
    findings = list(base.findings)
    reasons: list[str] = []
    limitations = list(base.limitations)
    truncated = base.truncated
    for name, report in extra:
        own = implied_decision([(name, report)], requested_use=requested_use)
        if DECISION_ORDER.index(own) > DECISION_ORDER.index(decision):
            leads.append(f"Extra guard {name} made the decision stricter: {own}.")
        decision = stricter(decision, own)
        findings.extend(_tag(name, f) for f in report.findings)
        reasons.extend(f"{name}: {reason}" for reason in report.reasons)
        limitations.extend(f"{name}: {item}" for item in report.limitations)
        truncated = truncated or report.truncated
    merged_reasons = [*leads, *base.reasons, *reasons]
    return GuardReport(
        decision=decision,
        findings=tuple(findings[:_MAX_MERGED_FINDINGS]),
        reasons=tuple(dict.fromkeys(_text(r) for r in merged_reasons))[:MAX_MERGED_ITEMS],
        limitations=tuple(dict.fromkeys(_text(item) for item in limitations))[:MAX_MERGED_ITEMS],
        truncated=truncated,
        segments_inspected=base.segments_inspected,
    )


def implied_decision(extra: Sequence[tuple[str, GuardReport]], *, requested_use: str) -> Decision:
    """The strictest decision the extra reports state or imply by their findings (``allow`` if none)."""
    decision = Decision.ALLOW
    for _, report in extra:
        implied, _ = decide(
            report.findings, truncated=report.truncated,
            truncation_reasons=("extra_guard_incomplete",) if report.truncated else (),
            requested_use=requested_use,
        )
        decision = stricter(decision, stricter(report.decision, implied))
        if report.truncated:
            # An extra guard is opt-in strictness: one that admits it did not see
            # everything withholds (the built-in guard only warns, see decide.py).
            decision = stricter(decision, Decision.REQUIRE_APPROVAL)
    return decision


async def collect_extra_reports(
    request: GuardRequest, guards: Sequence[ContentGuard], *, timeout: float
) -> tuple[tuple[str, GuardReport], ...]:
    """Run ``guards`` concurrently on ``request``; their validated reports, by name, in guard order.

    Args:
        request: the segments and context the guards judge.
        guards: validated guards (see :func:`pagewarden._config.check_guards`).
        timeout: each guard's own deadline in seconds.

    Raises:
        GuardFailed: a guard raised (``extra_guard_raised``), overran its
            deadline (``extra_guard_timeout``) or answered with an invalid
            report (``extra_guard_invalid_result``).
    """
    if not math.isfinite(timeout) or timeout <= 0:
        raise GuardFailed("the extra guard deadline must be positive", reason="extra_guard_timeout", stage="guard")
    outcomes = [_Outcome() for _ in guards]
    async with anyio.create_task_group() as group:
        for guard, outcome in zip(guards, outcomes, strict=True):
            group.start_soon(_run_one, guard, request, timeout, outcome)
    extra: list[tuple[str, GuardReport]] = []
    for guard, outcome in zip(guards, outcomes, strict=True):
        if outcome.failure is not None or outcome.report is None:
            kind = outcome.failure or "invalid_result"
            raise GuardFailed(
                f"extra guard {guard.name} failed ({kind.replace('_', ' ')}); the content is not vouched for",
                reason=f"extra_guard_{kind}",
                stage="guard",
            )
        extra.append((guard.name, outcome.report))
    return tuple(extra)


async def run_extra_guards(
    base: GuardReport,
    request: GuardRequest,
    guards: Sequence[ContentGuard],
    *,
    timeout: float,
) -> GuardReport:
    """Run ``guards`` on ``request`` (see :func:`collect_extra_reports`) and merge them into ``base``."""
    if not guards:
        return base
    extra = await collect_extra_reports(request, guards, timeout=timeout)
    return merge_reports(base, extra, requested_use=request.requested_use)
