"""The middle of a read: inspect, enforce the guard outcome, extract, render safely.

The CPU-bound steps (:func:`inspect_response`, :func:`extract_response`) run in
worker threads so the event loop stays responsive and the read's deadline can
abandon them; the extra guards run on the event loop between them. Without
extra guards, :func:`guard_and_extract` runs the three steps in one worker-thread
call (one round trip between threads instead of two, each a wake-up that
waits for a CPU on a loaded machine). The order
is the security contract: the guard (built-in, then extra) sees the whole raw
page first, its outcome is enforced (:func:`enforce_guard`) before anything
else, and only then is the readable content measured (so an injected page that
is also short is denied, not escalated to the browser) and rendered.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import partial

import lxml.html

from ._config import ReaderConfig
from ._document import PageLinks
from ._errors import ContentInsufficient, GuardDenied
from ._extract import (
    ESCALATION_MAX_READABLE_CHARS,
    Extraction,
    client_rendered_sign,
    extract_html,
    extract_plain,
    is_sufficient,
)
from ._extract.dynamic import GENERAL_SIGNS
from ._extract.outlinks import page_links
from ._extract.truncate import truncate_one
from ._guard import BROWSER_HIDDEN_ATTRIBUTE
from ._guard.extra import Inspection, inspect_html_source, inspect_text_source
from ._guard.report import Decision, GuardReport, top_findings
from ._html import parse_html
from ._net import FetchedResponse, check_link
from ._safe import redact_lines, rule_block_filter, safe_markdown
from ._safe.render import plain_text_markdown

__all__ = [
    "ESCALATION_REASON_PREFIX",
    "HTML_TYPES",
    "Rendered",
    "enforce_guard",
    "extract_response",
    "guard_and_extract",
    "inspect_response",
]

HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
MARKDOWN_TYPES = frozenset({"text/markdown", "text/x-markdown"})
# CONTENT_INSUFFICIENT reasons starting with this name a sign of a
# client-rendered shell; they are the only ones the auto controller escalates.
ESCALATION_REASON_PREFIX = "client_rendered_"


@dataclass(frozen=True, slots=True)
class Rendered:
    """What a read returns besides the fetch facts: extracted, redacted if asked, rendered safely.

    Attributes:
        extraction: the extractor's result (its ``markdown`` is the unsafe raw Markdown).
        markdown: the safe Markdown, cut to the read's ``max_characters``.
        text: the plain text, cut likewise (redacted line by line when redacting).
        links: the links of the content (links of withheld blocks left out).
        truncated: whether ``markdown`` or ``text`` was cut.
        extract_seconds: time spent extracting and rendering.
        page_links: every link of the whole page, for crawling (empty when
            the guard withheld blocks, whose links must not resurface).
    """

    extraction: Extraction
    markdown: str
    text: str
    links: tuple[str, ...]
    truncated: bool
    extract_seconds: float
    page_links: PageLinks = field(default_factory=PageLinks)


def inspect_response(response: FetchedResponse, config: ReaderConfig, requested_use: str) -> Inspection:
    """Parse (HTML) and run the built-in guard; build the extra guards' request when any are configured."""
    url = response.final_url
    with_request = bool(config.guards)
    if response.content_type in HTML_TYPES:
        return inspect_html_source(
            parse_html(response.text), url=url, content_type=response.content_type,
            profile=config.guard_profile, requested_use=requested_use, with_request=with_request,
        )
    return inspect_text_source(
        response.text, location="visible", url=url, content_type=response.content_type,
        profile=config.guard_profile, requested_use=requested_use, with_request=with_request,
    )


def enforce_guard(
    report: GuardReport, *, builtin: GuardReport, extra_decision: Decision, url: str, on_guard: str
) -> None:
    """Raise ``GUARD_DENIED`` when ``on_guard`` says a withholding decision must not return content.

    ``raise`` withholds every ``require_approval`` and ``deny``. ``redact``
    withholds them only when redaction cannot locate what decided: a
    truncated built-in inspection, or an extra guard (which reports no
    location in the output) that alone asks to withhold. ``return`` never
    withholds.
    """
    if not report.decision.withholds or on_guard == "return":
        return
    if on_guard == "redact" and not builtin.truncated and not extra_decision.withholds:
        return
    reason = f"guard_{report.decision}" if on_guard == "raise" else "guard_unredactable"
    message = f"the content guard withheld the page ({report.decision})"
    strongest = top_findings(report.findings, 3)
    if strongest:
        # Category, severity, location and confidence only: never the page's text.
        message += ": " + "; ".join(strongest)
    if on_guard == "redact":
        message += "; what decided it cannot be located for redaction"
    raise GuardDenied(
        message,
        reason=reason,
        url=url,
        stage="guard",
        guard_decision=str(report.decision),
        warning_categories=report.warning_categories,
    )


def _drop_hidden(tree: lxml.html.HtmlElement) -> None:
    # In a browser snapshot, content judged hidden by computed style carries
    # the marker attribute. The guard has already inspected it as hidden; it
    # is not part of what a reader sees, so it never reaches the extraction.
    for element in tree.xpath(f"//*[@{BROWSER_HIDDEN_ATTRIBUTE}]"):
        if element.getparent() is not None:
            element.drop_tree()


def _check_sufficient(extraction: Extraction, inspection: Inspection, config: ReaderConfig, *, url: str,
                      method: str) -> None:
    if method == "browser":
        # After a render, a page with little but real content is returned as
        # it is: the threshold decides escalation, not success.
        if extraction.readable_chars == 0:
            raise ContentInsufficient("the rendered page has no readable text", reason="empty_render", url=url,
                                      stage="extract")
        return
    if inspection.tree is not None and extraction.readable_chars < ESCALATION_MAX_READABLE_CHARS:
        sign = client_rendered_sign(inspection.tree)
        if sign in GENERAL_SIGNS and is_sufficient(extraction, min_chars=config.limits.min_readable_chars):
            # A general sign (any script, a custom element, a noscript notice) on a page that reads as it
            # is: returned as it is, as before, rather than made to depend on a browser.
            sign = None
        if sign is not None:
            raise ContentInsufficient(
                f"the page appears to need JavaScript ({sign}, {extraction.readable_chars} readable characters)",
                reason=ESCALATION_REASON_PREFIX + sign,
                url=url,
                stage="extract",
            )
    if not is_sufficient(extraction, min_chars=config.limits.min_readable_chars):
        raise ContentInsufficient(
            f"the page has too little readable content ({extraction.readable_chars} characters)",
            reason="too_little_text",
            url=url,
            stage="extract",
        )


def _extract(response: FetchedResponse, inspection: Inspection, config: ReaderConfig, method: str) -> Extraction:
    url = response.final_url
    if method == "browser" and inspection.tree is not None:
        _drop_hidden(inspection.tree)
    link_filter = partial(check_link, base_url=url, config=config)
    if inspection.tree is not None:
        return extract_html(inspection.tree, final_url=url, link_filter=link_filter,
                            max_links=config.limits.max_links)
    return extract_plain(
        response.text, content_type=response.content_type, final_url=url,
        link_filter=link_filter, max_links=config.limits.max_links,
    )


def _page_links(inspection: Inspection, url: str, config: ReaderConfig) -> PageLinks:
    # After extraction: for a rendered page the hidden-marked parts are gone.
    if inspection.tree is None:
        return PageLinks()
    return page_links(inspection.tree, url, partial(check_link, base_url=url, config=config),
                      max_links=config.limits.max_links, max_href_chars=config.limits.max_url_chars)


def extract_response(
    response: FetchedResponse,
    inspection: Inspection,
    report: GuardReport,
    config: ReaderConfig,
    requested_use: str,
    max_characters: int,
    method: str = "http",
) -> Rendered:
    """Extract the readable content, check it is sufficient, and render it safely.

    ``method`` is ``http`` for a static page (which may be found to be the
    shell of a client-rendered app: ``CONTENT_INSUFFICIENT`` with a reason
    starting with :data:`ESCALATION_REASON_PREFIX`) or ``browser`` for a
    rendered snapshot (hidden-marked content dropped; any text suffices).

    Raises:
        ContentInsufficient: too little readable content, or extraction failed.
    """
    url = response.final_url
    started = time.perf_counter()
    extraction = _extract(response, inspection, config, method)
    try:
        _check_sufficient(extraction, inspection, config, url=url, method=method)
    except ContentInsufficient as insufficient:
        if inspection.tree is not None:
            # The guard passed the page: a crawl may still follow its links.
            insufficient.page_links = _page_links(inspection, url, config)
        raise
    redacting = config.on_guard == "redact" and report.decision is not Decision.ALLOW
    block_filter = (
        rule_block_filter(profile=config.guard_profile, requested_use=requested_use) if redacting else None
    )
    is_plain = inspection.tree is None and response.content_type not in MARKDOWN_TYPES
    source = plain_text_markdown(extraction.markdown) if is_plain else extraction.markdown
    safe = safe_markdown(
        source,
        link_filter=partial(check_link, base_url=url, config=config),
        max_links=config.limits.max_links,
        max_characters=max_characters,
        block_filter=block_filter,
    )
    text, links = extraction.text, extraction.links
    withheld = False
    if block_filter is not None:
        text, withheld_lines = redact_lines(text, block_filter)
        withheld = bool(safe.withheld or withheld_lines)
        if withheld:
            # Links that only occurred in withheld blocks must not resurface here.
            links = tuple(link for link in links if link in safe.all_links or link in text)
    text, text_cut = truncate_one(text, max_characters)
    outlinks = _page_links(inspection, url, config) if not withheld else PageLinks()
    return Rendered(extraction, safe.markdown, text, links, safe.truncated or text_cut,
                    time.perf_counter() - started, outlinks)


def guard_and_extract(
    response: FetchedResponse, config: ReaderConfig, requested_use: str, max_characters: int, method: str = "http"
) -> tuple[GuardReport, float, Rendered]:
    """Without extra guards: :func:`inspect_response`, :func:`enforce_guard`, then :func:`extract_response`.

    One call for a worker thread, in the same order as the steps taken one by
    one: a withheld page raises ``GUARD_DENIED`` before anything is extracted.
    Returns the built-in report, the seconds the guard took, and the rendering.
    """
    started = time.perf_counter()
    inspected = inspect_response(response, config, requested_use)
    guard_seconds = time.perf_counter() - started
    report = inspected.report
    enforce_guard(report, builtin=report, extra_decision=Decision.ALLOW, url=response.final_url,
                  on_guard=config.on_guard)
    rendered = extract_response(response, inspected, report, config, requested_use, max_characters, method)
    return report, guard_seconds, rendered
