"""Build the :class:`~pagewarden.GuardRequest` extra guards receive.

The request is built from the same segmentation the built-in guard uses
(:mod:`pagewarden._guard.segments`), so an extra guard judges exactly what the
built-in one judged, location by location. It is only built when extra guards
are configured: a read without them pays nothing.
"""

from __future__ import annotations

import hashlib

import lxml.html

from ..._protocols import GuardRequest, GuardSegment
from ..report import Location
from ..segments import InspectionLimits, SegmentSet, collect_html_segments, collect_text_segments

__all__ = ["html_request", "segment_digest", "text_request"]

_LIMITS = InspectionLimits()


def segment_digest(text: str) -> str:
    """First 16 hex digits of SHA-256 over ``text``: the same identifier the built-in findings carry."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _request(
    segment_set: SegmentSet, *, url: str | None, content_type: str | None, requested_use: str, profile: str
) -> GuardRequest:
    segments = tuple(
        GuardSegment(segment.location, segment.text, segment.vias, segment_digest(segment.text))
        for segment in segment_set.segments
    )
    return GuardRequest(
        segments=segments,
        url=url,
        content_type=content_type,
        requested_use=requested_use,
        profile=profile,
        truncated=segment_set.truncated,
    )


def html_request(
    root: lxml.html.HtmlElement, *, url: str | None, content_type: str | None, requested_use: str, profile: str
) -> GuardRequest:
    """The request for a parsed HTML page (the tree is only read)."""
    return _request(
        collect_html_segments(root, _LIMITS),
        url=url, content_type=content_type, requested_use=requested_use, profile=profile,
    )


def text_request(
    text: str, location: Location, *, url: str | None, content_type: str | None, requested_use: str, profile: str
) -> GuardRequest:
    """The request for a plain-text or Markdown document read from ``location``."""
    return _request(
        collect_text_segments(text, location, _LIMITS),
        url=url, content_type=content_type, requested_use=requested_use, profile=profile,
    )
