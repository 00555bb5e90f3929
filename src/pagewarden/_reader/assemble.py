"""Assembling a :class:`~pagewarden.Document` from a read's parts: response, guard report, rendering, timings.

The last step of every read path (static, rendered, PDF): the fetch facts
and stage timings become :class:`~pagewarden.FetchInfo`, the guard report
and the path's own caveats become the :class:`~pagewarden.SecurityReport`.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from .._document import Document, FetchInfo, SecurityReport, Timings
from .._net import FetchedResponse
from .._pipeline import Rendered
from .._report import GuardReport

if TYPE_CHECKING:
    from .._browser.render import RenderedPage

__all__ = ["STATIC_LIMITATIONS", "Stages", "build_document", "rendered_response", "timed"]

T = TypeVar("T")

STATIC_LIMITATIONS = (
    "Fetched without running JavaScript: content a script would add or hide was not seen.",
)


@dataclass(frozen=True, slots=True)
class Stages:
    """Seconds spent per stage, and the static response a rendered read started from."""

    guard: float
    render: float
    total: float
    static: FetchedResponse | None


def rendered_response(page: RenderedPage, static: FetchedResponse | None) -> FetchedResponse:
    """The rendered snapshot as a response: the same guard and extraction as a static body read it.

    Serialized UTF-8 HTML whose computed-hidden parts carry markers.
    """
    html = page.html
    return FetchedResponse(
        requested_url=page.url,
        final_url=page.final_url,
        status=page.status,
        content_type=page.content_type,
        charset="utf-8",
        text=html,
        compressed_bytes=page.bytes_received + (static.compressed_bytes if static is not None else 0),
        decoded_bytes=len(html.encode("utf-8", "surrogatepass")),
        redirects=static.redirects if static is not None else 0,
    )


def timed(function: Callable[..., T], *args: Any) -> tuple[T, float]:
    """``function(*args)`` and the seconds it took (run in a worker thread by the read path)."""
    started = time.perf_counter()
    result = function(*args)
    return result, time.perf_counter() - started


def build_document(
    url: str,
    response: FetchedResponse,
    report: GuardReport,
    rendered: Rendered,
    stages: Stages,
    *,
    method: Literal["http", "browser"],
    escalation: str | None,
    render_limitations: tuple[str, ...],
    render_truncated: bool = False,
) -> Document:
    """The :class:`Document` of one read, with its fetch facts, timings and security report."""
    extraction = rendered.extraction
    static = stages.static if stages.static is not None else response
    timings = Timings(
        total=stages.total,
        dns=static.dns_seconds,
        connect=static.connect_seconds,
        http=static.http_seconds,
        guard=stages.guard,
        extract=rendered.extract_seconds,
        render=stages.render,
    )
    fetch_info = FetchInfo(
        method=method,
        status=response.status,
        content_type=response.content_type,
        charset=response.charset,
        compressed_bytes=response.compressed_bytes,
        decoded_bytes=response.decoded_bytes,
        redirects=response.redirects,
        timings=timings,
        escalation_reason=escalation,
    )
    if method == "browser":
        # Computed visibility was evaluated: the static-path caveat no longer applies.
        guard_limitations = tuple(text for text in report.limitations if "static path" not in text)
        limitations = (*guard_limitations, *render_limitations)
    else:
        limitations = (*report.limitations, *STATIC_LIMITATIONS)
    security = SecurityReport(
        decision=report.decision,
        findings=report.findings,
        limitations=tuple(dict.fromkeys(limitations)),
    )
    return Document(
        # The fragment was never sent over HTTP; it stays on the requested URL.
        url=url.strip(),
        final_url=response.final_url,
        title=extraction.title,
        markdown=rendered.markdown,
        text=rendered.text,
        links=rendered.links,
        metadata=extraction.metadata,
        retrieved_at=datetime.now(UTC),
        # A render stopped by its scroll bound with more page below is truncated too.
        truncated=rendered.truncated or render_truncated,
        content_sha256=hashlib.sha256(extraction.markdown.encode("utf-8")).hexdigest(),
        fetch=fetch_info,
        security=security,
        page_links=rendered.page_links,
        unsafe_raw_markdown=extraction.markdown,
    )
