"""A PDF as the guard's segments: visible text, hidden runs and the low-trust parts.

The guard is fed through its public segment interface
(:class:`~pagewarden._guard.Segment`, :class:`~pagewarden._guard.SegmentSet`,
:func:`~pagewarden._guard.inspect_segments`); nothing here reaches into its
internals. Locations:

- ``visible``: each page's visible text (``vias``: ``pdf_page_N``);
- ``hidden``: each hidden run (``vias``: the technique from :mod:`.hidden`
  and ``pdf_page_N``, so a finding's segment names where the text hid);
- ``metadata``: the document information (``pdf_info_title``...), outline
  titles, attachment names, document JavaScript (name and script) and the
  JavaScript of link, annotation and open actions (``pdf_action_javascript``);
- ``attribute``: annotation texts, form field values, names and tooltips,
  and link URIs.

The same segments make the extra guards' :class:`~pagewarden.GuardRequest`.
Budgets are the guard's own (:data:`~pagewarden._guard.DEFAULT_LIMITS`): a long
piece is cut into overlapping windows; crossing the segment or character
budget marks the set truncated, so the decision fails closed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator

from .._guard import DEFAULT_LIMITS, InspectionLimits, Location, Segment, SegmentSet
from .._protocols import GuardRequest, GuardSegment
from .facts import PdfFacts
from .layout import PageBlocks

__all__ = ["PDF_NOTES", "guard_request", "pdf_notes", "pdf_pieces", "pdf_segments"]

PDF_NOTES = (
    "Read as a PDF: reading order follows the drawing order; PDF JavaScript was never run.",
    "PDF: text drawn in images (scans) is not read (no OCR); soft masks, blend modes and optional content "
    "set on form XObjects are not evaluated when judging what is hidden.",
)
_ENCRYPTED_NOTE = ("PDF: the file is encrypted (readable with an empty password); the JavaScript of its link, "
                   "annotation and open actions was not scanned.")

Piece = tuple[Location, str, tuple[str, ...]]


def pdf_pieces(facts: PdfFacts, pages: list[PageBlocks]) -> Iterator[Piece]:
    """Every located piece of the document, visible text first."""
    for page in pages:
        text = "\n".join(block.text for block in page.blocks)
        if text.strip():
            yield Location.VISIBLE, text, (f"pdf_page_{page.number}",)
    for page_facts in facts.pages:
        where = f"pdf_page_{page_facts.number}"
        for technique, text in page_facts.hidden:
            yield Location.HIDDEN, text, (technique, where)
    for key, value in facts.metadata.items():
        yield Location.METADATA, value, (f"pdf_info_{key.lower()}",)
    for title in facts.outline:
        yield Location.METADATA, title, ("pdf_outline",)
    for name in facts.attachments:
        yield Location.METADATA, name, ("pdf_attachment_name",)
    for name, script in facts.javascript:
        yield Location.METADATA, f"{name}\n{script}", ("pdf_javascript",)
    for script in facts.actions:
        yield Location.METADATA, script, ("pdf_action_javascript",)
    for page_facts in facts.pages:
        where = f"pdf_page_{page_facts.number}"
        for via, text in page_facts.annotations:
            yield Location.ATTRIBUTE, text, (via, where)
        for uri in page_facts.links:
            yield Location.ATTRIBUTE, uri, ("pdf_link_uri", where)


def _windows(text: str, size: int, overlap: int) -> Iterator[str]:
    step = max(1, size - overlap)
    start = 0
    while True:
        yield text[start : start + size]
        if start + size >= len(text):
            return
        start += step


def pdf_notes(facts: PdfFacts) -> tuple[str, ...]:
    """The limitations of this document's inspection: the general PDF notes, and pages whose covering
    shapes were too many to check them all."""
    notes = PDF_NOTES + ((_ENCRYPTED_NOTE,) if facts.encrypted else ())
    crowded = [page.number for page in facts.pages if page.covers_truncated]
    if not crowded:
        return notes
    listed = ", ".join(str(number) for number in crowded[:10]) + (" ..." if len(crowded) > 10 else "")
    return (*notes, f"PDF: pages {listed} hold more opaque shapes and images than are checked for "
                    "covering text; text covered by the later ones counts as visible.")


def pdf_segments(
    pieces: Iterable[Piece],
    *,
    url: str | None = None,
    limits: InspectionLimits = DEFAULT_LIMITS,
    notes: tuple[str, ...] = PDF_NOTES,
) -> SegmentSet:
    """The segments of ``pieces`` within the guard's budgets (the URL last, as an ``attribute``)."""
    segments: list[Segment] = []
    budget = limits.max_total_chars
    all_pieces = list(pieces)
    if url:
        all_pieces.append((Location.ATTRIBUTE, url, ("url",)))
    for location, text, vias in all_pieces:
        collapsed = "\n".join(" ".join(line.split()) for line in text.split("\n") if line.strip())
        if not collapsed:
            continue
        for window in _windows(collapsed, limits.max_segment_chars, limits.window_overlap):
            if len(segments) >= limits.max_segments:
                return SegmentSet(tuple(segments), True, ("segment_count",), notes)
            if len(window) > budget:
                if budget > 0:
                    segments.append(Segment(location, window[:budget], vias))
                return SegmentSet(tuple(segments), True, ("character_budget",), notes)
            budget -= len(window)
            segments.append(Segment(location, window, vias))
    return SegmentSet(tuple(segments), False, (), notes)


def guard_request(
    segment_set: SegmentSet, *, url: str | None, requested_use: str, profile: str
) -> GuardRequest:
    """The extra guards' request, built from exactly the segments the built-in guard judged."""
    return GuardRequest(
        segments=tuple(
            GuardSegment(
                segment.location, segment.text, segment.vias,
                hashlib.sha256(segment.text.encode("utf-8", "surrogatepass")).hexdigest()[:16],
            )
            for segment in segment_set.segments
        ),
        url=url,
        content_type="application/pdf",
        requested_use=requested_use,
        profile=profile,
        truncated=segment_set.truncated,
    )
