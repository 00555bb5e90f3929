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
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal, TypeVar

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
from ._errors import ConfigMissing, ContentInsufficient, InvalidInput, Timeout
from ._guard.extra import collect_extra_reports, implied_decision, merge_reports
from ._guard.report import Decision, GuardReport
from ._net import FetchedResponse, fetch
from ._pipeline import ESCALATION_REASON_PREFIX, Rendered, enforce_guard, extract_response, inspect_response

if TYPE_CHECKING:
    from ._browser.pool import BrowserPool
    from ._browser.render import RenderedPage

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
        self._pool: BrowserPool | None = None

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
        """Release the reader's resources (the browser, if one was started). Idempotent."""
        self._closed = True
        pool, self._pool = self._pool, None
        if pool is not None:
            await pool.aclose()

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
            render: ``"never"``: static HTTP only. ``"auto"``: fetch and guard
                the static page first; a page the guard withholds is never
                rendered; only a page with little readable text *and* signs
                of a client-rendered app (an empty app root, a framework
                payload, a "please enable JavaScript" notice, a script-only
                body) goes to the browser, under the same deadline
                (``fetch.method="browser"``, ``fetch.escalation_reason``).
                Without a usable browser the original ``CONTENT_INSUFFICIENT``
                stands. ``"always"``: the browser only, no static pre-read
                (so the guard never sees the raw HTML before the page's
                scripts ran: do not use it where secrets, authenticated state
                or high-impact tools are involved); without a browser it
                raises ``CONFIG_MISSING``. Defaults to ``config.default_render``.
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
        started = time.perf_counter()
        try:
            with anyio.fail_after(deadline):
                if mode == "always":
                    # No static pre-read: the raw HTML is never fetched, so
                    # the guard first sees the page after its scripts ran.
                    return await self._read_rendered(url, use, limit, started, escalation="render_always")
                response = await fetch(url, self._config)
                try:
                    return await self._process(url, response, use, limit, started)
                except ContentInsufficient as insufficient:
                    reason = insufficient.reason or ""
                    if mode != "auto" or not reason.startswith(ESCALATION_REASON_PREFIX):
                        raise
                    return await self._read_rendered(
                        url, use, limit, started, escalation=reason, static=response, when_unavailable=insufficient
                    )
        except TimeoutError:
            raise Timeout(
                f"the read did not finish within {deadline:g} s", reason="read_deadline", url=url, stage="read"
            ) from None

    def _browser_pool(self) -> BrowserPool:
        if self._pool is None:
            # Imported here: Playwright is only loaded when a read needs it.
            from ._browser.pool import BrowserPool

            self._pool = BrowserPool(self._config.browser, self._config)
        return self._pool

    async def _read_rendered(
        self,
        url: str,
        use: str,
        limit: int,
        started: float,
        *,
        escalation: str,
        static: FetchedResponse | None = None,
        when_unavailable: ContentInsufficient | None = None,
    ) -> Document:
        from ._browser.render import render

        render_started = time.perf_counter()
        try:
            page = await render(self._browser_pool(), url)
        except ConfigMissing:
            # render="auto" without a usable browser keeps the original verdict.
            if when_unavailable is not None:
                raise when_unavailable from None
            raise
        render_seconds = time.perf_counter() - render_started
        response = _rendered_response(page, static)
        return await self._process(
            url, response, use, limit, started, method="browser", escalation=escalation,
            render_seconds=render_seconds, render_limitations=page.limitations, static=static,
        )

    async def _process(
        self,
        url: str,
        response: FetchedResponse,
        use: str,
        limit: int,
        started: float,
        *,
        method: Literal["http", "browser"] = "http",
        escalation: str | None = None,
        render_seconds: float = 0.0,
        render_limitations: tuple[str, ...] = (),
        static: FetchedResponse | None = None,
    ) -> Document:
        config = self._config
        inspected, guard_seconds = await anyio.to_thread.run_sync(
            partial(_timed, inspect_response, response, config, use), abandon_on_cancel=True
        )
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
            partial(extract_response, response, inspected, report, config, use, limit, method),
            abandon_on_cancel=True,
        )
        stages = _Stages(
            guard=guard_seconds, render=render_seconds, total=time.perf_counter() - started,
            static=static,
        )
        return _build_document(
            url, response, report, rendered, stages, method=method, escalation=escalation,
            render_limitations=render_limitations,
        )


@dataclass(frozen=True, slots=True)
class _Stages:
    guard: float
    render: float
    total: float
    static: FetchedResponse | None


def _rendered_response(page: RenderedPage, static: FetchedResponse | None) -> FetchedResponse:
    # The snapshot is handed to the same guard and extraction as a static
    # body: serialized UTF-8 HTML whose computed-hidden parts carry markers.
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


def _timed(function: Callable[..., T], *args: Any) -> tuple[T, float]:
    started = time.perf_counter()
    result = function(*args)
    return result, time.perf_counter() - started


def _build_document(
    url: str,
    response: FetchedResponse,
    report: GuardReport,
    rendered: Rendered,
    stages: _Stages,
    *,
    method: Literal["http", "browser"],
    escalation: str | None,
    render_limitations: tuple[str, ...],
) -> Document:
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
        truncated=rendered.truncated,
        content_sha256=hashlib.sha256(extraction.markdown.encode("utf-8")).hexdigest(),
        fetch=fetch_info,
        security=security,
        unsafe_raw_markdown=extraction.markdown,
    )
