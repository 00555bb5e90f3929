"""AsyncReader: the public face of reading, searching, crawling and the tools, one deadline per call.

A read travels: URL intake -> address policy and pinned transport -> decode ->
segments and built-in guard (worker thread) -> extra guards (event loop, each
under its own deadline too) -> guard outcome per ``on_guard`` -> extraction and
safe rendering (worker thread) -> Document. Everything after intake happens
inside a single ``anyio.fail_after`` scope, so DNS, connects, redirects, the
body, the guards and extraction share one deadline.

Each method validates its arguments, applies the deadline and hands the work
to the module that does it: the uncached read path to :mod:`.read_path`
(assembly in :mod:`.assemble`), caching to :mod:`.documents`, what happens to
every document handed out to :mod:`.session`, search to
:mod:`pagewarden._search`, crawling to :mod:`pagewarden._crawl`, the tools to
:mod:`pagewarden._tools`. A new capability is a method here over a module of
its own. The reader owns what must not be process-wide: its caches (with
in-flight sharing of identical requests), the per-provider search cooldowns,
the read store and the pools the read path starts.
"""

from __future__ import annotations

import dataclasses
import os
from functools import partial
from types import TracebackType
from typing import TYPE_CHECKING, Any

import anyio

from .._config import (
    RENDER_MODES,
    REQUESTED_USES,
    ReaderConfig,
    check_choice,
    check_max_characters,
    check_timeout,
)
from .._document import Document
from .._errors import ConfigMissing, InvalidInput, Timeout
from .._search.cache import SearchCache
from .._search.cooldown import Cooldowns
from .._search.query import validate_query
from .._search.run import run_search
from .._search.search_and_read import SearchAndReadResult, check_concurrency, search_then_read
from .._search.types import SearchHit, SearchProvider, SearchQuery, SearchResults
from .._store.store import ReadStore
from .documents import DocumentCache
from .read_path import ReadPath
from .session import finish_document

if TYPE_CHECKING:
    from .._crawl.api import CrawlRun
    from .._tools.audit import Writable
    from .._tools.budget import ToolBudget
    from .._tools.toolset import Toolset

    AuditLog = str | os.PathLike[str] | Writable
    from .._browser.pool import BrowserPool

__all__ = ["AsyncReader"]

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
        self._reads = ReadPath(self._config)
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
        await self._reads.aclose()

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
        work = partial(self._reads.read, url, mode, use, limit)
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

    @property
    def _pool(self) -> BrowserPool | None:
        # For tests that inspect the browser pool: None until a read needed it.
        return self._reads.pool

    def _browser_pool(self) -> BrowserPool:
        # For tests that start the browser pool ahead of a read.
        return self._reads.browser_pool()

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
