"""The guard entry points shared by the public async twins and the reader.

:func:`inspect_html_source` and :func:`inspect_text_source` run the built-in
guard (synchronous, CPU-bound: callers put them in a worker thread) and, when
extra guards are configured, build their :class:`GuardRequest` from the same
segmentation. :func:`aguard_html` and :func:`aguard_text` are the public async
twins of ``guard_html``/``guard_text``: the same arguments plus ``guards`` and
``guard_timeout``. The reader calls exactly these pieces, in the same order.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import partial

import anyio.to_thread
import lxml.html

from ..._config import DEFAULT_GUARD_TIMEOUT, check_guard_timeout, check_guards
from ..._html import parse_html
from ..._protocols import ContentGuard, GuardRequest
from ..guard import guard_html, guard_text
from ..report import GuardReport, Location
from .request import html_request, text_request
from .run import run_extra_guards

__all__ = ["Inspection", "aguard_html", "aguard_text", "inspect_html_source", "inspect_text_source"]

_TEXT_TYPES = frozenset({"text/plain", "text/markdown", "text/x-markdown"})


@dataclass(frozen=True, slots=True)
class Inspection:
    """The built-in verdict on one document and what extra guards need.

    Attributes:
        report: the built-in guard's report.
        request: the extra guards' request (``None`` when none are configured).
        tree: the parsed page, for the extractor (``None`` for text sources).
    """

    report: GuardReport
    request: GuardRequest | None
    tree: lxml.html.HtmlElement | None


def _media_type(content_type: object) -> str:
    return content_type.split(";")[0].strip().lower() if isinstance(content_type, str) else ""


def inspect_text_source(
    text: str,
    *,
    location: str | Location = "visible",
    url: str | None = None,
    content_type: str | None = None,
    profile: str = "balanced",
    requested_use: str = "answer_with_citation",
    with_request: bool = False,
) -> Inspection:
    """Run ``guard_text`` and, if ``with_request``, build the extra guards' request."""
    report = guard_text(text, location=location, profile=profile, requested_use=requested_use)
    request = None
    if with_request:
        # guard_text has validated every argument by now.
        request = text_request(text, Location(location), url=url, content_type=content_type,
                               requested_use=requested_use, profile=profile)
    return Inspection(report, request, None)


def inspect_html_source(
    html: str | lxml.html.HtmlElement,
    *,
    url: str | None = None,
    content_type: str | None = None,
    profile: str = "balanced",
    requested_use: str = "answer_with_citation",
    with_request: bool = False,
) -> Inspection:
    """Run ``guard_html`` on ``html`` (parsed once) and, if ``with_request``, build the extra guards' request.

    A ``text/plain`` or ``text/markdown`` source string is inspected as text,
    exactly as :func:`guard_html` does.
    """
    if isinstance(html, str) and _media_type(content_type) in _TEXT_TYPES:
        report = guard_html(html, url=url, content_type=content_type, profile=profile, requested_use=requested_use)
        request = None
        if with_request:
            request = text_request(html, Location.VISIBLE, url=url, content_type=content_type,
                                   requested_use=requested_use, profile=profile)
        return Inspection(report, request, None)
    tree = parse_html(html) if isinstance(html, str) and html.strip() else html
    report = guard_html(tree, url=url, content_type=content_type, profile=profile, requested_use=requested_use)
    root = tree if isinstance(tree, lxml.html.HtmlElement) else None
    request = None
    if with_request:
        if root is not None:
            request = html_request(root, url=url, content_type=content_type,
                                   requested_use=requested_use, profile=profile)
        else:
            request = GuardRequest((), url=url, content_type=content_type, requested_use=requested_use,
                                   profile=profile)
    return Inspection(report, request, root)


async def aguard_text(
    text: str,
    *,
    location: str | Location = "visible",
    profile: str = "balanced",
    requested_use: str = "answer_with_citation",
    guards: Iterable[ContentGuard] = (),
    guard_timeout: float = DEFAULT_GUARD_TIMEOUT,
) -> GuardReport:
    """The async twin of :func:`pagewarden.guard_text`, with extra guards.

    The built-in guard runs in a worker thread; then every guard in
    ``guards`` runs on the event loop under its own ``guard_timeout``. Extra
    guards can only make the decision stricter.

    Raises:
        InvalidInput: an argument is out of range.
        GuardFailed: an extra guard raised, timed out or answered invalidly.
    """
    checked = check_guards(guards)
    timeout = check_guard_timeout(guard_timeout)
    inspection = await anyio.to_thread.run_sync(
        partial(inspect_text_source, text, location=location, profile=profile, requested_use=requested_use,
                with_request=bool(checked))
    )
    if inspection.request is None:
        return inspection.report
    return await run_extra_guards(inspection.report, inspection.request, checked, timeout=timeout)


async def aguard_html(
    html: str | lxml.html.HtmlElement,
    *,
    url: str | None = None,
    content_type: str | None = None,
    profile: str = "balanced",
    requested_use: str = "answer_with_citation",
    guards: Iterable[ContentGuard] = (),
    guard_timeout: float = DEFAULT_GUARD_TIMEOUT,
) -> GuardReport:
    """The async twin of :func:`pagewarden.guard_html`, with extra guards.

    The page is parsed and the built-in guard runs in a worker thread; then
    every guard in ``guards`` judges the same segments on the event loop under
    its own ``guard_timeout``. Extra guards can only make the decision stricter.

    Raises:
        InvalidInput: an argument is out of range.
        ResponseTooLarge: ``html`` exceeds the parse limits.
        GuardFailed: an extra guard raised, timed out or answered invalidly.
    """
    checked = check_guards(guards)
    timeout = check_guard_timeout(guard_timeout)
    inspection = await anyio.to_thread.run_sync(
        partial(inspect_html_source, html, url=url, content_type=content_type, profile=profile,
                requested_use=requested_use, with_request=bool(checked))
    )
    if inspection.request is None:
        return inspection.report
    return await run_extra_guards(inspection.report, inspection.request, checked, timeout=timeout)
