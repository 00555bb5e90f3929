"""AsyncReader: the orchestration of one read, under one deadline.

A read travels: URL intake -> address policy and pinned transport -> decode ->
segments and built-in guard (worker thread) -> extra guards (event loop, each
under its own deadline too) -> guard outcome per ``on_guard`` -> extraction and
safe rendering (worker thread) -> Document. Everything after intake happens
inside a single ``anyio.fail_after`` scope, so DNS, connects, redirects, the
body, the guards and extraction share one deadline.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial
from types import TracebackType
from typing import Any, TypeVar

import anyio
import anyio.to_thread

from ._config import (
    RENDER_MODES,
    REQUESTED_USES,
    ReaderConfig,
    check_choice,
    check_max_characters,
    check_timeout,
)
from ._document import Document, FetchInfo, SecurityReport, Timings
from ._errors import ConfigMissing, InvalidInput, Timeout
from ._guard.extra import collect_extra_reports, implied_decision, merge_reports
from ._guard.report import Decision, GuardReport
from ._net import FetchedResponse, fetch
from ._pipeline import Rendered, enforce_guard, extract_response, inspect_response

__all__ = ["AsyncReader"]

T = TypeVar("T")

STATIC_LIMITATIONS = (
    "Fetched without running JavaScript: content a script would add or hide was not seen.",
)


class AsyncReader:
    """Reads public web pages into guarded, citable Markdown.

    ``AsyncReader(config=None, **options)``: ``options`` are
    :class:`ReaderConfig` fields applied on top of ``config`` (or of the
    defaults), validated once. Use it as an async context manager, or call
    :meth:`aclose` when done. After closing, every call raises
    ``CONFIG_MISSING``.
    """

    def __init__(self, config: ReaderConfig | None = None, **options: Any) -> None:
        if config is not None and not isinstance(config, ReaderConfig):
            raise InvalidInput("config must be a pagewarden.ReaderConfig", reason="invalid_config")
        base = config if config is not None else ReaderConfig()
        self._config = base.replace(**options) if options else base
        self._closed = False

    @property
    def config(self) -> ReaderConfig:
        """The validated configuration of this reader."""
        return self._config

    @property
    def closed(self) -> bool:
        """Whether :meth:`aclose` was called."""
        return self._closed

    async def __aenter__(self) -> AsyncReader:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Release the reader's resources. Idempotent."""
        self._closed = True

    async def read(
        self,
        url: str,
        *,
        render: str | None = None,
        max_characters: int | None = None,
        requested_use: str = "answer_with_citation",
        timeout: float | None = None,
    ) -> Document:
        """Fetch ``url``, guard it, and return it as a :class:`Document`.

        Args:
            url: an absolute http(s) URL of a public page.
            render: ``"never"`` (static HTTP only), ``"auto"`` (static first,
                the browser only when the page lacks readable content) or
                ``"always"``. Defaults to ``config.default_render``. Rendering
                is not available yet: ``"auto"`` reads statically and
                ``"always"`` raises ``CONFIG_MISSING``.
            max_characters: cap on the returned Markdown/text (200..100,000).
            requested_use: what the caller will do with the content; tool-
                chaining uses are judged more strictly by the guard.
            timeout: deadline of the whole read in seconds (default
                ``config.timeout``).

        Raises:
            PagewardenError: with a stable ``code``; see :mod:`pagewarden` docs.
        """
        if self._closed:
            raise ConfigMissing("the reader is closed", reason="reader_closed")
        if not isinstance(url, str):
            raise InvalidInput("url must be a string", reason="invalid_url_type")
        mode = check_choice("render", self._config.default_render if render is None else render, RENDER_MODES)
        use = check_choice("requested_use", requested_use, REQUESTED_USES)
        limit = check_max_characters(self._config.max_characters if max_characters is None else max_characters)
        deadline = check_timeout(self._config.timeout if timeout is None else timeout)
        if mode == "always":
            raise ConfigMissing(
                "rendering is not available in this version: use render='never' or 'auto'",
                reason="browser_unavailable",
            )
        started = time.perf_counter()
        config = self._config
        try:
            with anyio.fail_after(deadline):
                response = await fetch(url, config)
                inspection = await anyio.to_thread.run_sync(
                    partial(_timed, inspect_response, response, config, use), abandon_on_cancel=True
                )
                inspected, guard_seconds = inspection
                report, extra_decision = inspected.report, Decision.ALLOW
                if inspected.request is not None:
                    extra_started = time.perf_counter()
                    extra = await collect_extra_reports(inspected.request, config.guards, timeout=config.guard_timeout)
                    report = merge_reports(inspected.report, extra, requested_use=use)
                    extra_decision = implied_decision(extra, requested_use=use)
                    guard_seconds += time.perf_counter() - extra_started
                enforce_guard(report, builtin=inspected.report, extra_decision=extra_decision,
                              url=response.final_url, on_guard=config.on_guard)
                rendered = await anyio.to_thread.run_sync(
                    partial(extract_response, response, inspected, report, config, use, limit),
                    abandon_on_cancel=True,
                )
        except TimeoutError:
            raise Timeout(
                f"the read did not finish within {deadline:g} s", reason="read_deadline", url=url, stage="read"
            ) from None
        return _build_document(url, response, report, rendered, guard_seconds, time.perf_counter() - started)


def _timed(function: Callable[..., T], *args: Any) -> tuple[T, float]:
    started = time.perf_counter()
    result = function(*args)
    return result, time.perf_counter() - started


def _build_document(
    url: str, response: FetchedResponse, report: GuardReport, rendered: Rendered, guard_seconds: float,
    total: float,
) -> Document:
    extraction = rendered.extraction
    timings = Timings(
        total=total,
        dns=response.dns_seconds,
        connect=response.connect_seconds,
        http=response.http_seconds,
        guard=guard_seconds,
        extract=rendered.extract_seconds,
    )
    fetch_info = FetchInfo(
        method="http",
        status=response.status,
        content_type=response.content_type,
        charset=response.charset,
        compressed_bytes=response.compressed_bytes,
        decoded_bytes=response.decoded_bytes,
        redirects=response.redirects,
        timings=timings,
    )
    security = SecurityReport(
        decision=report.decision,
        findings=report.findings,
        limitations=tuple(dict.fromkeys((*report.limitations, *STATIC_LIMITATIONS))),
    )
    return Document(
        # The fragment was never sent; it stays on the requested URL only.
        url=url.strip(),
        final_url=response.final_url,
        title=extraction.title,
        markdown=rendered.markdown,
        text=rendered.text,
        links=rendered.links,
        metadata=extraction.metadata,
        retrieved_at=datetime.now(UTC),
        truncated=rendered.truncated,
        content_sha256=hashlib.sha256(extraction.markdown.encode("utf-8")).hexdigest(),
        fetch=fetch_info,
        security=security,
        unsafe_raw_markdown=extraction.markdown,
    )
