"""The guard's entry points: :func:`guard_html` and :func:`guard_text`.

Both validate their arguments (``INVALID_INPUT``), segment the content, scan
every segment with the shipped rules and map the findings to a decision. They
never modify the tree they are given and never put page text into the report:
findings carry rule ids and segment hashes only.
"""

from __future__ import annotations

from collections.abc import Iterable

import lxml.html

from .._config import GUARD_PROFILES, REQUESTED_USES
from .._errors import InvalidInput
from .._html import parse_html
from .decide import BASE_LIMITATIONS, bounded, decide
from .learned import LearnedPiece, learned_findings, load_detector
from .report import Finding, GuardReport, Location
from .rules import load_rules
from .scan import scan_segment_full
from .segments import (
    MAX_EXTRA_SEGMENTS,
    InspectionLimits,
    SegmentSet,
    collect_html_segments,
    collect_pieces,
    collect_text_segments,
)

__all__ = ["DEFAULT_LIMITS", "guard_html", "guard_text", "inspect_segments"]

DEFAULT_LIMITS = InspectionLimits()
MAX_FINDINGS = 256
_MAX_URL_CHARS = 8192
_MAX_CONTENT_TYPE_CHARS = 200
_TEXT_TYPES = frozenset({"text/plain", "text/markdown", "text/x-markdown"})


def _check_common(profile: object, requested_use: object) -> None:
    if profile not in GUARD_PROFILES:
        raise InvalidInput("profile must be balanced or strict", reason="invalid_profile", stage="guard")
    if requested_use not in REQUESTED_USES:
        raise InvalidInput(
            "requested_use must be one of " + ", ".join(REQUESTED_USES), reason="invalid_requested_use", stage="guard"
        )


def _location(value: object) -> Location:
    if isinstance(value, Location):
        return value
    if isinstance(value, str):
        try:
            return Location(value)
        except ValueError:
            pass
    raise InvalidInput(
        "location must be one of " + ", ".join(loc.value for loc in Location), reason="invalid_location", stage="guard"
    )


def inspect_segments(segment_set: SegmentSet, *, profile: str, requested_use: str) -> GuardReport:
    """Scan ``segment_set`` and decide; the shared back half of both entry points.

    A segment whose normalization hit a step budget counts as not fully
    inspected: the report is truncated (``normalization_budget``) and the
    decision fails closed.

    Every segment is then scored by the learned detector (as written and, for
    the lines normalization changed, as normalized); its findings join the
    rules' findings before the decision.
    """
    rules = load_rules()
    detector = load_detector()
    strict = profile == "strict"
    findings: list[Finding] = []
    pieces: list[LearnedPiece] = []
    exhausted = 0
    for segment in segment_set.segments:
        result = scan_segment_full(segment, rules, strict=strict)
        findings.extend(result.findings)
        exhausted += result.exhausted
        pieces.append(LearnedPiece(segment.location, segment.text, lowered=result.lowered))
        pieces.extend(LearnedPiece(segment.location, text, techniques) for text, techniques in result.normalized)
    findings.extend(learned_findings(detector, pieces, profile=profile))
    truncated = segment_set.truncated or exhausted > 0
    truncation_reasons = list(segment_set.truncation_reasons)
    if exhausted:
        truncation_reasons.append("normalization_budget")
    decision, reasons = decide(
        findings,
        truncated=truncated,
        truncation_reasons=truncation_reasons,
        requested_use=requested_use,
    )
    limitations = list(BASE_LIMITATIONS) + list(segment_set.notes)
    if segment_set.truncated:
        limitations.append("Inspection stopped at a budget; some content was not examined.")
    if exhausted:
        limitations.append(f"{exhausted} segment(s) hit a decoding budget; some encoded content was not decoded.")
    if len(findings) > MAX_FINDINGS:
        limitations.append(f"Only the first {MAX_FINDINGS} findings are listed.")
        findings = findings[:MAX_FINDINGS]
    return GuardReport(
        decision=decision,
        findings=tuple(findings),
        reasons=reasons,
        limitations=bounded(limitations),
        truncated=truncated,
        segments_inspected=len(segment_set.segments),
    )


def _extra_pieces(extra_segments: object) -> list[tuple[Location, str]]:
    if isinstance(extra_segments, (str, bytes)):
        raise InvalidInput("extra_segments must be (location, text) pairs", reason="invalid_extra_segments",
                           stage="guard")
    try:
        pairs = list(extra_segments)  # type: ignore[call-overload]
    except TypeError:
        raise InvalidInput("extra_segments must be (location, text) pairs", reason="invalid_extra_segments",
                           stage="guard") from None
    if len(pairs) > MAX_EXTRA_SEGMENTS:
        raise InvalidInput(f"at most {MAX_EXTRA_SEGMENTS} extra segments", reason="too_many_extra_segments",
                           stage="guard")
    pieces: list[tuple[Location, str]] = []
    for pair in pairs:
        if not isinstance(pair, tuple) or len(pair) != 2 or not isinstance(pair[1], str):
            raise InvalidInput("extra_segments must be (location, text) pairs", reason="invalid_extra_segments",
                               stage="guard")
        pieces.append((_location(pair[0]), pair[1]))
    return pieces


def guard_html(
    html: str | lxml.html.HtmlElement,
    *,
    url: str | None = None,
    content_type: str | None = None,
    profile: str = "balanced",
    requested_use: str = "answer_with_citation",
    extra_segments: Iterable[tuple[str, str]] = (),
) -> GuardReport:
    """Inspect an HTML page, hidden parts included, and decide what may be done with it.

    Args:
        html: the page source, or a tree from :func:`pagewarden._html.parse_html`
            (read only; it is never modified).
        url: the page's URL; scanned as an ``attribute`` segment.
        content_type: the media type; ``text/plain`` and ``text/markdown``
            sources are inspected as plain text.
        profile: ``balanced`` or ``strict`` (medium findings count as high).
        requested_use: what the caller wants to do with the content; the
            tool-chaining uses ``search_more`` and ``call_readonly_tool`` turn
            high findings and truncation into ``deny``.
        extra_segments: ``(location, text)`` pairs for content the caller got
            elsewhere (a browser's computed text, a search snippet), inspected
            with the page under their location (``visible``, ``hidden``, ...).
            At most ``MAX_EXTRA_SEGMENTS`` pairs.

    Raises:
        InvalidInput: an argument is out of range.
        ResponseTooLarge: ``html`` is a string whose structure exceeds the parse limits.
    """
    _check_common(profile, requested_use)
    extra = _extra_pieces(extra_segments)
    if url is not None and (not isinstance(url, str) or len(url) > _MAX_URL_CHARS):
        raise InvalidInput("url must be a string of at most 8192 characters", reason="invalid_url", stage="guard")
    media_type = ""
    if content_type is not None:
        if not isinstance(content_type, str) or len(content_type) > _MAX_CONTENT_TYPE_CHARS:
            raise InvalidInput("content_type must be a short string", reason="invalid_content_type", stage="guard")
        media_type = content_type.split(";")[0].strip().lower()
    if url:
        extra.append((Location.ATTRIBUTE, url))
    if isinstance(html, str):
        if media_type in _TEXT_TYPES:
            extra.insert(0, (Location.VISIBLE, html))
            return inspect_segments(collect_pieces(extra, DEFAULT_LIMITS), profile=profile,
                                    requested_use=requested_use)
        if not html.strip():
            return inspect_segments(collect_pieces(extra, DEFAULT_LIMITS), profile=profile,
                                    requested_use=requested_use)
        root = parse_html(html)
    elif isinstance(html, lxml.html.HtmlElement):
        root = html
    else:
        raise InvalidInput("html must be a string or a parsed lxml.html tree", reason="invalid_html", stage="guard")
    return inspect_segments(collect_html_segments(root, DEFAULT_LIMITS, extra), profile=profile,
                            requested_use=requested_use)


def guard_text(
    text: str,
    *,
    location: str | Location = "visible",
    profile: str = "balanced",
    requested_use: str = "answer_with_citation",
) -> GuardReport:
    """Inspect a plain-text or Markdown document as text from ``location``.

    Args:
        text: the whole document.
        location: where the text comes from (``visible`` for a Markdown page;
            non-visible locations raise the severity of what is found).
        profile: ``balanced`` or ``strict``.
        requested_use: as for :func:`guard_html`.

    Raises:
        InvalidInput: an argument is out of range.
    """
    _check_common(profile, requested_use)
    where = _location(location)
    if not isinstance(text, str):
        raise InvalidInput("text must be a string", reason="invalid_text", stage="guard")
    return inspect_segments(collect_text_segments(text, where, DEFAULT_LIMITS), profile=profile,
                            requested_use=requested_use)

