"""Extra guards for tests: fixed answers, failures, slowness (data-like helpers, no assertions)."""

from __future__ import annotations

from dataclasses import dataclass, field

import anyio

import pagewarden
from pagewarden import Decision, Finding, GuardReport, GuardRequest, Location, Severity


@dataclass
class FixedGuard:
    """Answers every request with ``report`` and records the requests it saw."""

    report: object
    name: str = "fixed"
    seen: list[GuardRequest] = field(default_factory=list)

    async def inspect(self, request: GuardRequest) -> GuardReport:
        """Return the fixed report."""
        self.seen.append(request)
        return self.report  # type: ignore[return-value]


@dataclass
class RaisingGuard:
    """Raises an error quoting page text (which must never reach the caller)."""

    name: str = "raising"

    async def inspect(self, request: GuardRequest) -> GuardReport:
        """Raise with the page text in the message."""
        raise RuntimeError("model client failed on: " + request.segments[0].text if request.segments else "")


@dataclass
class SlowGuard:
    """Sleeps ``seconds`` before answering allow."""

    seconds: float = 10.0
    name: str = "slow"
    swallow_cancel: bool = False

    async def inspect(self, request: GuardRequest) -> GuardReport:
        """Sleep, then allow (optionally swallowing the cancellation, as a misbehaving guard might)."""
        if self.swallow_cancel:
            try:
                await anyio.sleep(self.seconds)
            except BaseException:
                return GuardReport(Decision.ALLOW)
        await anyio.sleep(self.seconds)
        return GuardReport(Decision.ALLOW)


def finding(severity: Severity = Severity.HIGH, category: str = "org_rule", **changes: object) -> Finding:
    """A well-formed finding, with ``changes`` applied."""
    values: dict[str, object] = {
        "category": category, "severity": severity, "confidence": 0.9, "location": Location.VISIBLE,
        "techniques": (), "segment_hash": "ab" * 8, "reason": "rule:org",
    }
    values.update(changes)
    return Finding(**values)  # type: ignore[arg-type]


ALLOW = GuardReport(Decision.ALLOW, reasons=("nothing found",))
__all__ = ["ALLOW", "FixedGuard", "RaisingGuard", "SlowGuard", "finding", "pagewarden"]
