"""One PDF read, from fetched bytes to a guarded :class:`~pagewarden._pipeline.Rendered`.

The same order as a page (the security contract of :mod:`pagewarden._pipeline`):
parse (in a worker process, under the read's deadline) -> segments -> built-in
guard -> extra guards -> the guard outcome enforced -> only then is the
visible text measured and rendered. Hidden text reaches the guard as
``hidden`` and is never part of the Markdown or the text.
"""

from __future__ import annotations

import dataclasses
import re
import time
from dataclasses import dataclass
from functools import partial
from typing import Any

import anyio.to_thread

from .._config import ReaderConfig
from .._document import Metadata
from .._errors import ContentInsufficient
from .._extract import Extraction
from .._extract.result import clean_field, readable_length
from .._extract.truncate import truncate_one
from .._guard import SegmentSet, inspect_segments
from .._guard.extra import collect_extra_reports, implied_decision, merge_reports
from .._guard.report import Decision, GuardReport
from .._net import check_link
from .._net.decode import PDF_MEDIA_TYPES
from .._pipeline import Rendered, enforce_guard
from .._safe import Unit, redact_lines, rule_block_filter, safe_units
from .facts import PdfFacts, parse_facts
from .layout import PageBlocks, body_size, join_units, markdown_units, page_blocks, render_text
from .pool import PdfJob, PdfWorkers
from .segments import guard_request, pdf_notes, pdf_pieces, pdf_segments

__all__ = ["PDF_TYPES", "PdfRead", "read_pdf"]

PDF_TYPES = PDF_MEDIA_TYPES
_PDF_DATE = re.compile(r"^D:(\d{4})(\d{2})?(\d{2})?")


@dataclass(frozen=True, slots=True)
class PdfRead:
    """The outcome of :func:`read_pdf`: the merged report, the rendered content, time in the guards."""

    report: GuardReport
    rendered: Rendered
    guard_seconds: float
    page_count: int


@dataclass(frozen=True, slots=True)
class _Inspected:
    facts: PdfFacts
    pages: list[PageBlocks]
    segments: SegmentSet
    report: GuardReport
    prepare_seconds: float  # checking the facts, the layout and the segments
    guard_seconds: float  # the built-in guard alone


def _inspect(raw: dict[str, Any], url: str, config: ReaderConfig, use: str) -> _Inspected:
    started = time.perf_counter()
    facts = parse_facts(raw, url=url)
    body = body_size(facts.pages)
    pages = [page_blocks(page, body) for page in facts.pages]
    segments = pdf_segments(pdf_pieces(facts, pages), url=url, notes=pdf_notes(facts))
    guard_started = time.perf_counter()
    report = inspect_segments(segments, profile=config.guard_profile, requested_use=use)
    ended = time.perf_counter()
    return _Inspected(facts, pages, segments, report, guard_started - started, ended - guard_started)


def _date(value: str | None) -> str | None:
    match = _PDF_DATE.match(value or "")
    if match is None:
        return None
    return "-".join(part for part in match.groups() if part)


def _extraction(inspected: _Inspected, units: list[Unit], url: str, config: ReaderConfig) -> Extraction:
    info = inspected.facts.metadata
    markdown = join_units(units)
    text = render_text(inspected.pages)
    heading = next((b.text for p in inspected.pages for b in p.blocks if b.kind == "heading"), None)
    title = clean_field(info.get("Title")) or clean_field(heading)
    links: list[str] = []
    for page in inspected.facts.pages:
        for uri in page.links:
            checked = check_link(uri, base_url=url, config=config)
            if checked is not None and checked not in links and len(links) < config.limits.max_links:
                links.append(checked)
    metadata = Metadata(author=clean_field(info.get("Author")), date=_date(info.get("CreationDate")),
                        description=clean_field(info.get("Subject")))
    return Extraction(title, markdown, text, metadata, tuple(links), readable_length(text))


def _check_sufficient(inspected: _Inspected, extraction: Extraction, config: ReaderConfig, url: str) -> None:
    if extraction.readable_chars == 0:
        hidden = any(page.hidden for page in inspected.facts.pages)
        if hidden:
            raise ContentInsufficient("the PDF has no visible text (all of its text is hidden)",
                                      reason="pdf_no_visible_text", url=url, stage="extract")
        raise ContentInsufficient("the PDF has no text layer (scanned pages are not read: no OCR)",
                                  reason="pdf_no_text_layer", url=url, stage="extract")
    if extraction.readable_chars < config.limits.min_readable_chars:
        raise ContentInsufficient(
            f"the PDF has too little readable content ({extraction.readable_chars} characters)",
            reason="too_little_text", url=url, stage="extract")


def _render(inspected: _Inspected, report: GuardReport, url: str, config: ReaderConfig, use: str,
            max_characters: int) -> Rendered:
    started = time.perf_counter()
    units = markdown_units(inspected.pages, url)
    extraction = _extraction(inspected, units, url, config)
    _check_sufficient(inspected, extraction, config, url)
    redacting = config.on_guard == "redact" and report.decision is not Decision.ALLOW
    block_filter = rule_block_filter(profile=config.guard_profile, requested_use=use) if redacting else None
    safe = safe_units(
        units if block_filter is None else markdown_units(inspected.pages, url, block_filter),
        link_filter=partial(check_link, base_url=url, config=config),
        max_links=config.limits.max_links,
        max_characters=max_characters,
    )
    text = extraction.text
    if block_filter is not None:
        text, _withheld = redact_lines(text, block_filter)
    text, text_cut = truncate_one(text, max_characters)
    return Rendered(extraction, safe.markdown, text, extraction.links, safe.truncated or text_cut,
                    time.perf_counter() - started)


def _guarded_render(raw: dict[str, Any], url: str, config: ReaderConfig, use: str, max_characters: int
                    ) -> tuple[_Inspected, Rendered]:
    inspected = _inspect(raw, url, config, use)
    enforce_guard(inspected.report, builtin=inspected.report, extra_decision=Decision.ALLOW, url=url,
                  on_guard=config.on_guard)
    return inspected, _render(inspected, inspected.report, url, config, use, max_characters)


async def read_pdf(
    data: bytes, *, url: str, config: ReaderConfig, requested_use: str, max_characters: int, workers: PdfWorkers
) -> PdfRead:
    """Parse, guard and render one PDF; see the module docstring.

    Raises:
        DocumentUnreadable: encrypted, malformed, or a worker limit crossed.
        ResponseTooLarge: over a ``max_pdf_*`` limit.
        GuardDenied: the guard withheld the document (per ``on_guard``).
        ContentInsufficient: no text layer, no visible text, or too little text.
    """
    limits = config.limits
    job = PdfJob(max_pages=limits.max_pdf_pages, max_characters=limits.max_pdf_characters,
                 cpu_seconds=limits.pdf_cpu_seconds)
    parse_started = time.perf_counter()
    parsed: list[float] = []

    # Both run in the thread that exchanged with the worker (one trip, see PdfWorkers.run): the parse ends there.
    def inspect(raw: dict[str, Any]) -> _Inspected:
        parsed.append(time.perf_counter())
        return _inspect(raw, url, config, requested_use)

    def guarded_render(raw: dict[str, Any]) -> tuple[_Inspected, Rendered]:
        parsed.append(time.perf_counter())
        return _guarded_render(raw, url, config, requested_use, max_characters)

    if not config.guards:
        # No extra guard to await: guard, enforce and render in that same trip.
        inspected, rendered = await workers.run(data, job, guarded_render, url=url)
        report, guard_seconds = inspected.report, inspected.guard_seconds
    else:
        inspected = await workers.run(data, job, inspect, url=url)
        extra_started = time.perf_counter()
        request = guard_request(inspected.segments, url=url, requested_use=requested_use,
                                profile=config.guard_profile)
        extra = await collect_extra_reports(request, config.guards, timeout=config.guard_timeout)
        report = merge_reports(inspected.report, extra, requested_use=requested_use)
        guard_seconds = inspected.guard_seconds + time.perf_counter() - extra_started
        extra_decision = implied_decision(extra, requested_use=requested_use)
        enforce_guard(report, builtin=inspected.report, extra_decision=extra_decision, url=url,
                      on_guard=config.on_guard)
        rendered = await anyio.to_thread.run_sync(
            partial(_render, inspected, report, url, config, requested_use, max_characters), abandon_on_cancel=True
        )
    parse_seconds = parsed[0] - parse_started
    # fetch.timings.extract of a PDF counts the worker's parse and the layout; fetch.timings.guard only the guards.
    rendered = dataclasses.replace(
        rendered, extract_seconds=rendered.extract_seconds + parse_seconds + inspected.prepare_seconds)
    return PdfRead(report, rendered, guard_seconds, inspected.facts.page_count)
