"""AsyncReader: the orchestration of one read, under one deadline.

A read travels: URL intake -> address policy and pinned transport -> decode ->
segments and built-in guard (worker thread) -> extra guards (event loop, each
under its own deadline too) -> guard outcome per ``on_guard`` -> extraction and
safe rendering (worker thread) -> Document. Everything after intake happens
inside a single ``anyio.fail_after`` scope, so DNS, connects, redirects, the
body, the guards and extraction share one deadline.

The reader also owns what must not be process-wide: its document and search
result caches (with in-flight sharing of identical requests) and the
per-provider search cooldowns. ``search`` and ``search_and_read`` live here
only as thin orchestration; their logic is in :mod:`pagewarden._search`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import anyio
import anyio.to_thread

from .._config import (
    RENDER_MODES,
    REQUESTED_USES,
    ReaderConfig,
    check_choice,
    check_max_characters,
    check_timeout,
)
from .._document import Document, FetchInfo, SecurityReport, Timings
from .._errors import ConfigMissing, ContentInsufficient, InvalidInput, Timeout, UnsupportedContentType
from .._guard.extra import collect_extra_reports, implied_decision, merge_reports
from .._guard.report import Decision, GuardReport
from .._net import FetchedResponse, fetch
from .._pdf import PDF_TYPES, PdfWorkers, read_pdf
from .._pipeline import ESCALATION_REASON_PREFIX, Rendered, enforce_guard, extract_response, inspect_response
from .._search.cache import SearchCache
from .._store.store import ReadStore
from .._search.cooldown import Cooldowns
from .._search.query import validate_query
from .._search.run import run_search
from .._search.search_and_read import SearchAndReadResult, check_concurrency, search_then_read
from .._search.types import SearchHit, SearchProvider, SearchQuery, SearchResults
from .documents import DocumentCache
from .session import finish_document

if TYPE_CHECKING:
    from .._crawl.api import CrawlRun
    from .._tools.audit import Writable
    from .._tools.budget import ToolBudget
    from .._tools.toolset import Toolset

    AuditLog = str | os.PathLike[str] | Writable
    from .._browser.pool import BrowserPool
    from .._browser.render import RenderedPage

__all__ = ["AsyncReader"]

T = TypeVar("T")

STATIC_LIMITATIONS = (
    "Fetched without running JavaScript: content a script would add or hide was not seen.",
)
# What the browser says when a navigation turns out not to be HTML (a PDF among others).
_BROWSER_NOT_HTML = frozenset({"browser_not_html", "browser_download_refused"})


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
        self._pdf: PdfWorkers | None = None
        self._documents = DocumentCache(self._config)
        self._searches = SearchCache(self._config.cache)
        self._cooldowns = Cooldowns()
        self._store = ReadStore(self._config.read_store)

    @property
    def store(self) -> ReadStore:
        """The pages this reader read (guard-allowed only), searchable offline: ``reader.store.search(query)``."""
        return self._store

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

    def toolset(self, *, budget: ToolBudget | None = None, audit_log: AuditLog | None = None) -> Toolset:
        """Model-facing tools over this reader: ``web_search`` (when a provider is configured),
        ``fetch_content`` and ``fetch_more``, with definitions for the major model APIs and a safe
        ``execute``. See docs/tools.md."""
        from .._tools import toolset_for

        return toolset_for(self, budget=budget, audit_log=audit_log)

    def crawl(
        self,
        start_url: str,
        *,
        max_pages: int = 100,
        max_depth: int = 5,
        scope: str = "site",
        include: tuple[str, ...] = (),
        exclude: tuple[str, ...] = (),
        sitemaps: bool = True,
        render: str | None = None,
        **options: Any,
    ) -> CrawlRun:
        """Crawl a site from ``start_url``: an async iterator of :class:`CrawlPage` (a document or a typed
        failure, with its depth and the page it was found on). Use ``async with reader.crawl(...) as pages``
        to stop early. ``scope`` is ``site``, ``host`` or ``prefix``; ``include``/``exclude`` are path globs;
        more ``options``: ``robots``, ``concurrency``, ``per_host``, ``min_delay``, ``max_characters``,
        ``timeout``, ``requested_use``. See docs/crawl.md."""
        from .._crawl.api import start_crawl

        self._check_open()
        return start_crawl(self, start_url, max_pages=max_pages, max_depth=max_depth, scope=scope,
                           include=include, exclude=exclude, sitemaps=sitemaps, render=render, **options)

    async def map(self, start_url: str, **options: Any) -> list[str]:
        """The in-scope URLs of a site from its sitemaps (robots.txt, indexes, gzip) and links, found by
        fetching pages statically without reading their content. Options as for :meth:`crawl` (``max_pages``
        pages are fetched for links, default 100). See docs/crawl.md."""
        from .._crawl.api import map_site

        self._check_open()
        return await map_site(self, start_url, **options)

    async def aclose(self) -> None:
        """Release the reader's resources (the browser, if one was started, the caches). Idempotent."""
        self._closed = True
        self._documents.clear()
        self._searches.clear()
        self._cooldowns.clear()
        self._store.close()
        pool, self._pool = self._pool, None
        if pool is not None:
            await pool.aclose()
        workers, self._pdf = self._pdf, None
        if workers is not None:
            await workers.aclose()

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
                that it needs JavaScript (scripts that would run, not JSON
                data blocks; a ``<noscript>`` notice; custom elements; an
                empty app root; a framework payload) goes to the browser,
                under the same deadline (``fetch.method="browser"``,
                ``fetch.escalation_reason`` = ``client_rendered_<sign>``).
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

        A document is cached for ``config.cache.document_ttl`` seconds under
        everything that changes it (the normalized URL with its fragment,
        ``render``, ``max_characters``, ``requested_use``, the guard profile
        and ``on_guard``); identical concurrent reads share one fetch.

        Raises:
            PagewardenError: with a stable ``code``; see :mod:`pagewarden` docs.
        """
        self._check_open()
        if not isinstance(url, str):
            raise InvalidInput("url must be a string", reason="invalid_url_type")
        mode = check_choice("render", self._config.default_render if render is None else render, RENDER_MODES)
        use = check_choice("requested_use", requested_use, REQUESTED_USES)
        limit = check_max_characters(self._config.max_characters if max_characters is None else max_characters)
        deadline = check_timeout(self._config.timeout if timeout is None else timeout)
        key = self._documents.key(url, mode, use, limit)
        work = partial(self._read_uncached, url, mode, use, limit)
        try:
            with anyio.fail_after(deadline):
                document = await self._documents.read(key, work)
        except TimeoutError:
            raise Timeout(
                f"the read did not finish within {deadline:g} s", reason="read_deadline", url=url, stage="read"
            ) from None
        document = finish_document(document, self._config, self._store)
        requested = url.strip()
        # A cached document may have been read under another spelling of the same URL.
        return document if document.url == requested else dataclasses.replace(document, url=requested)

    def _check_open(self) -> None:
        if self._closed:
            raise ConfigMissing("the reader is closed", reason="reader_closed")

    async def _read_uncached(self, url: str, mode: str, use: str, limit: int) -> Document:
        started = time.perf_counter()
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

    async def search(
        self,
        query: str,
        *,
        limit: int = 10,
        language: str | None = None,
        region: str | None = None,
        safe_search: str = "moderate",
        time_range: str | None = None,
        timeout: float | None = None,
    ) -> SearchResults:
        """Search the web with the configured provider (``config.search``).

        Args:
            query: 1..400 characters after trimming.
            limit: how many hits, 1..20.
            language: ISO 639-1 code (``"en"``), or ``None``.
            region: ISO 3166-1 alpha-2 code (``"US"``), or ``None``.
            safe_search: ``off``, ``moderate`` or ``strict``.
            time_range: ``day``, ``week``, ``month``, ``year`` or ``None``.
            timeout: deadline of the whole provider chain in seconds
                (default ``config.search_timeout``).

        Results are cached for ``config.cache.search_ttl`` seconds under the
        provider, the query and every option; identical concurrent searches
        share one provider call. Errors are never cached.

        Raises:
            ConfigMissing: no provider configured (``search_provider_missing``)
                or the reader is closed.
            PagewardenError: the provider's typed failure (``RATE_LIMITED``
                while a cooldown runs, ``BOT_CHALLENGE``, ``PARSE_CHANGED``,
                ``NETWORK_ERROR``, ``TIMEOUT`` ...).
        """
        provider = self._search_provider()
        validated = validate_query(
            query, limit=limit, language=language, region=region, safe_search=safe_search, time_range=time_range
        )
        seconds = check_timeout(self._config.search_timeout if timeout is None else timeout)
        return await self._search(provider, validated, seconds)

    def _search_provider(self) -> SearchProvider:
        self._check_open()
        provider = self._config.search
        if provider is None:
            raise ConfigMissing(
                "no search provider is configured: pass AsyncReader(search=...), for example search=ddgs()",
                reason="search_provider_missing",
            )
        return provider

    async def _search(self, provider: SearchProvider, query: SearchQuery, seconds: float) -> SearchResults:
        profile = self._config.guard_profile
        work = partial(
            run_search, provider, query, timeout=seconds, cooldowns=self._cooldowns, profile=profile,
            config=self._config,
        )
        try:
            with anyio.fail_after(seconds):
                return await self._searches.search(provider, query, profile, work)
        except TimeoutError:
            raise Timeout(
                f"the search did not finish within {seconds:g} s", reason="search_deadline", stage="search"
            ) from None

    async def search_and_read(
        self,
        query: str,
        *,
        limit: int = 5,
        language: str | None = None,
        region: str | None = None,
        safe_search: str = "moderate",
        time_range: str | None = None,
        render: str | None = None,
        concurrency: int = 4,
        per_host: int | None = None,
        timeout: float = 15.0,
        max_characters: int | None = None,
        requested_use: str = "answer_with_citation",
    ) -> SearchAndReadResult:
        """Search, then read the hits concurrently, all under one deadline.

        Args:
            query, limit, language, region, safe_search, time_range: as for
                :meth:`search` (``limit`` defaults to 5 here).
            render: as for :meth:`read` (default ``config.default_render``).
            concurrency: reads at a time, 1..16.
            per_host: reads at a time per host (lower-cased, trailing dot
                removed), 1..``concurrency``; default ``min(2, concurrency)``.
            timeout: one deadline in seconds for the search and every read;
                each read's own deadline (``config.timeout``) is cut to the
                time left.
            max_characters, requested_use: as for :meth:`read`.

        Each read goes through :meth:`read` (cache, guard, browser
        escalation). A page that fails is listed in ``failures`` (``kind``
        ``page_failure`` / ``page_timeout`` / ``overall_timeout`` /
        ``not_started``) while the other documents are kept; when the
        deadline fires during the reads, ``timed_out`` is true.

        Raises:
            PagewardenError: invalid arguments, the search's failure (a
                deadline during the search is ``TIMEOUT``), or
                ``CONFIG_MISSING`` (no provider; reader closed, also meanwhile).
                The caller's cancellation propagates as cancellation.
        """
        provider = self._search_provider()
        validated = validate_query(
            query, limit=limit, language=language, region=region, safe_search=safe_search, time_range=time_range
        )
        mode = check_choice("render", self._config.default_render if render is None else render, RENDER_MODES)
        use = check_choice("requested_use", requested_use, REQUESTED_USES)
        characters = None if max_characters is None else check_max_characters(max_characters)
        workers, host_workers = check_concurrency(concurrency, per_host)
        seconds = check_timeout(timeout)

        async def search(left: float) -> SearchResults:
            return await self._search(provider, validated, min(self._config.search_timeout, left))

        async def read(hit: SearchHit, left: float) -> Document:
            return await self.read(hit.url, render=mode, max_characters=characters, requested_use=use,
                                   timeout=min(self._config.timeout, left))

        return await search_then_read(
            search, read, timeout=seconds, concurrency=workers, per_host=host_workers,
            is_closed=lambda: self._closed,
        )

    def _browser_pool(self) -> BrowserPool:
        if self._pool is None:
            # Imported here: Playwright is only loaded when a read needs it.
            from .._browser.pool import BrowserPool

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
        from .._browser.render import render

        render_started = time.perf_counter()
        try:
            page = await render(self._browser_pool(), url)
        except ConfigMissing:
            # render="auto" without a usable browser keeps the original verdict.
            if when_unavailable is not None:
                raise when_unavailable from None
            raise
        except UnsupportedContentType as refused:
            # A navigation that turns out to be a PDF is read through the static PDF path
            # (same transport and policy); a browser never parses it.
            if refused.reason not in _BROWSER_NOT_HTML:
                raise
            response = await fetch(url, self._config)
            if response.content_type not in PDF_TYPES:
                raise refused from None
            return await self._process(url, response, use, limit, started, escalation=escalation)
        render_seconds = time.perf_counter() - render_started
        response = _rendered_response(page, static)
        return await self._process(
            url, response, use, limit, started, method="browser", escalation=escalation,
            render_seconds=render_seconds, render_limitations=page.limitations, static=static,
            render_truncated=page.truncated,
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
        render_truncated: bool = False,
        static: FetchedResponse | None = None,
    ) -> Document:
        config = self._config
        if response.content_type in PDF_TYPES:
            return await self._process_pdf(url, response, use, limit, started, escalation=escalation)
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
            render_limitations=render_limitations, render_truncated=render_truncated,
        )

    async def _process_pdf(
        self, url: str, response: FetchedResponse, use: str, limit: int, started: float, *, escalation: str | None
    ) -> Document:
        if self._pdf is None:
            limits = self._config.limits
            self._pdf = PdfWorkers(max_workers=limits.pdf_workers, memory_bytes=limits.pdf_memory_bytes)
        # The transport hands a PDF over as Latin-1 text: one character per byte.
        data = response.text.encode("latin-1")
        result = await read_pdf(data, url=response.final_url, config=self._config, requested_use=use,
                                max_characters=limit, workers=self._pdf)
        stages = _Stages(guard=result.guard_seconds, render=0.0, total=time.perf_counter() - started, static=None)
        return _build_document(url, response, result.report, result.rendered, stages, method="http",
                               escalation=escalation, render_limitations=())


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
    render_truncated: bool = False,
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
        # A render stopped by its scroll bound with more page below is truncated too.
        truncated=rendered.truncated or render_truncated,
        content_sha256=hashlib.sha256(extraction.markdown.encode("utf-8")).hexdigest(),
        fetch=fetch_info,
        security=security,
        page_links=rendered.page_links,
        unsafe_raw_markdown=extraction.markdown,
    )
