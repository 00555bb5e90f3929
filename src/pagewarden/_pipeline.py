"""The synchronous, CPU-bound middle of a read: parse, guard, extract.

It runs in a worker thread so the event loop stays responsive and the read's
deadline can abandon it. The order is the security contract: the guard sees
the whole raw page first, its decision is enforced before anything else, and
only then is the readable content measured (so an injected page that is also
short is denied, not escalated to the browser).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import partial

from ._config import ReaderConfig
from ._errors import ContentInsufficient, GuardDenied
from ._extract import Extraction, extract_html, extract_plain, is_sufficient
from ._guard import guard_html, guard_text
from ._guard.report import GuardReport
from ._html import parse_html
from ._net import FetchedResponse, check_link

__all__ = ["Processed", "process_response"]

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})


@dataclass(frozen=True, slots=True)
class Processed:
    """What the middle of a read produced, with its timings in seconds."""

    report: GuardReport
    extraction: Extraction
    guard_seconds: float
    extract_seconds: float


def _enforce(report: GuardReport, url: str) -> None:
    if report.decision.withholds:
        raise GuardDenied(
            f"the content guard withheld the page ({report.decision})",
            reason=f"guard_{report.decision}",
            url=url,
            stage="guard",
            guard_decision=str(report.decision),
            warning_categories=report.warning_categories,
        )


def process_response(response: FetchedResponse, config: ReaderConfig, requested_use: str) -> Processed:
    """Guard then extract ``response``; raise ``GUARD_DENIED`` or ``CONTENT_INSUFFICIENT``."""
    url = response.final_url
    link_filter = partial(check_link, base_url=url, config=config)
    started = time.perf_counter()
    if response.content_type in HTML_TYPES:
        tree = parse_html(response.text)
        report = guard_html(
            tree, url=url, content_type=response.content_type,
            profile=config.guard_profile, requested_use=requested_use,
        )
        guarded = time.perf_counter()
        _enforce(report, url)
        extraction = extract_html(tree, final_url=url, link_filter=link_filter, max_links=config.limits.max_links)
    else:
        report = guard_text(
            response.text, location="visible", profile=config.guard_profile, requested_use=requested_use
        )
        guarded = time.perf_counter()
        _enforce(report, url)
        extraction = extract_plain(
            response.text, content_type=response.content_type, final_url=url,
            link_filter=link_filter, max_links=config.limits.max_links,
        )
    extracted = time.perf_counter()
    if not is_sufficient(extraction, min_chars=config.limits.min_readable_chars):
        raise ContentInsufficient(
            f"the page has too little readable content ({extraction.readable_chars} characters)",
            reason="too_little_text",
            url=url,
            stage="extract",
        )
    return Processed(report, extraction, guarded - started, extracted - guarded)
