"""Check what an extra guard answered before anything trusts it.

An extra guard is code pagewarden did not write (possibly steered by a model
that read the page), so its answer is validated like input: exact types, known
decisions and severities, finite confidences, and hard size bounds on every
string and list. Anything off is ``GUARD_FAILED``; nothing is truncated or
repaired, because a guard that cannot follow the contract cannot be trusted
to have judged the page either.
"""

from __future__ import annotations

import math
import re

from ..._errors import GuardFailed
from ..report import Decision, Finding, GuardReport, Location, Severity

__all__ = [
    "MAX_CATEGORY_CHARS",
    "MAX_GUARD_FINDINGS",
    "MAX_GUARD_LIST_ITEMS",
    "MAX_GUARD_TEXT_CHARS",
    "MAX_HASH_CHARS",
    "MAX_TECHNIQUES",
    "validate_report",
]

MAX_GUARD_FINDINGS = 256
MAX_GUARD_LIST_ITEMS = 32
MAX_GUARD_TEXT_CHARS = 1_000
MAX_FINDING_REASON_CHARS = 200
MAX_CATEGORY_CHARS = 64
MAX_TECHNIQUES = 16
MAX_HASH_CHARS = 64
_SNAKE = re.compile(r"^[a-z][a-z0-9_]*$")
_HEX = re.compile(r"^[0-9a-f]*$")


def _invalid(name: str, what: str) -> GuardFailed:
    # The message names the rule the answer broke, never its content.
    return GuardFailed(
        f"extra guard {name} returned an invalid report: {what}", reason="extra_guard_invalid_result", stage="guard"
    )


def _check_texts(name: str, field: str, value: object) -> None:
    if not isinstance(value, tuple) or len(value) > MAX_GUARD_LIST_ITEMS:
        raise _invalid(name, f"{field} must be a tuple of at most {MAX_GUARD_LIST_ITEMS} strings")
    for item in value:
        if not isinstance(item, str) or len(item) > MAX_GUARD_TEXT_CHARS:
            raise _invalid(name, f"each of {field} must be a string of at most {MAX_GUARD_TEXT_CHARS} characters")


def _check_finding(name: str, finding: object) -> None:
    if type(finding) is not Finding:
        raise _invalid(name, "findings must be pagewarden.Finding objects")
    category = finding.category
    if not isinstance(category, str) or len(category) > MAX_CATEGORY_CHARS or not _SNAKE.match(category):
        raise _invalid(name, f"a finding category must be snake_case of at most {MAX_CATEGORY_CHARS} characters")
    if not isinstance(finding.severity, Severity):
        raise _invalid(name, "a finding severity must be a pagewarden.Severity")
    if not isinstance(finding.location, Location):
        raise _invalid(name, "a finding location must be a pagewarden.Location")
    confidence = finding.confidence
    if isinstance(confidence, bool) or not isinstance(confidence, int | float):
        raise _invalid(name, "a finding confidence must be a number")
    if not math.isfinite(confidence) or not 0.0 <= confidence <= 1.0:
        raise _invalid(name, "a finding confidence must be in 0..1")
    techniques = finding.techniques
    if not isinstance(techniques, tuple) or len(techniques) > MAX_TECHNIQUES:
        raise _invalid(name, f"finding techniques must be a tuple of at most {MAX_TECHNIQUES} names")
    if not all(isinstance(t, str) and len(t) <= MAX_CATEGORY_CHARS and _SNAKE.match(t) for t in techniques):
        raise _invalid(name, "each finding technique must be a short snake_case name")
    digest = finding.segment_hash
    if not isinstance(digest, str) or len(digest) > MAX_HASH_CHARS or not _HEX.match(digest):
        raise _invalid(name, f"a finding segment_hash must be at most {MAX_HASH_CHARS} lowercase hex digits")
    reason = finding.reason
    if not isinstance(reason, str) or len(reason) > MAX_FINDING_REASON_CHARS:
        raise _invalid(name, f"a finding reason must be a string of at most {MAX_FINDING_REASON_CHARS} characters")


def validate_report(name: str, result: object) -> GuardReport:
    """Return ``result`` if it is a well-formed, bounded :class:`GuardReport`, else raise ``GUARD_FAILED``."""
    if type(result) is not GuardReport:
        raise _invalid(name, "the answer must be a pagewarden.GuardReport")
    if type(result.decision) is not Decision:
        raise _invalid(name, "the decision must be a pagewarden.Decision")
    if not isinstance(result.truncated, bool):
        raise _invalid(name, "truncated must be a bool")
    findings = result.findings
    if not isinstance(findings, tuple) or len(findings) > MAX_GUARD_FINDINGS:
        raise _invalid(name, f"findings must be a tuple of at most {MAX_GUARD_FINDINGS} findings")
    for finding in findings:
        _check_finding(name, finding)
    _check_texts(name, "reasons", result.reasons)
    _check_texts(name, "limitations", result.limitations)
    return result
