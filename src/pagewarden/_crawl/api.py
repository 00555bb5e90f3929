"""The public face of crawling: :class:`CrawlPage`, :class:`CrawlRun` (``AsyncReader.crawl``) and ``map``.

``AsyncReader.crawl(...)`` returns a :class:`CrawlRun`: an async iterator of
:class:`CrawlPage` and an async context manager. Its work (the frontier and
the workers) runs in a task group opened in the caller's task, so leaving
early must close it: use ``async with reader.crawl(...) as pages`` (or
iterate to the end). Plain ``async for`` without ``async with`` works when
the loop runs to the end.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Any

import anyio
from anyio.abc import TaskGroup
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from .._config import ReaderConfig
from .._document import Document
from .._errors import ConfigMissing, InvalidInput, PagewardenError
from .._extract.outlinks import page_links
from .._html import parse_html
from .._ingest.records import document_record, failure_record
from .._ingest.robots_cache import RobotsCache
from .._net import check_link, fetch
from .crawler import Crawler, CrawlOptions, CrawlStats, Outcome, ReadFunction, local_read
from .frontier import QueuedPage
from .scope import Scope

if TYPE_CHECKING:
    from .._ingest.protocol import PageReader

__all__ = ["CrawlPage", "CrawlRun", "map_read", "map_site", "page_record", "run_map", "start_crawl"]

_HTML = frozenset({"text/html", "application/xhtml+xml"})


@dataclass(frozen=True, slots=True)
class CrawlPage:
    """One page of a crawl: the document read, or the typed failure, with where it was found.

    Attributes:
        url: the URL read (canonical form; a fragment route kept).
        depth: link hops from the start URL (0: the start; sitemap pages 1).
        found_on: the page (or sitemap) that linked to it; ``None`` for the start.
        document: the :class:`Document`, when the read succeeded.
        error: the :class:`PagewardenError`, when it did not (the guard
            withheld it, robots.txt forbids it, an HTTP error, a redirect out
            of scope...). A failed page's links are not followed.
    """

    url: str
    depth: int
    found_on: str | None
    document: Document | None = None
    error: PagewardenError | None = None

    @property
    def ok(self) -> bool:
        """Whether the page was read."""
        return self.document is not None

    def to_record(self) -> dict[str, Any]:
        """The JSONL record ``pagewarden crawl`` writes: ``ingest``'s record plus ``depth`` and ``found_on``."""
        extra = {"depth": self.depth, "found_on": self.found_on}
        if self.document is not None:
            return document_record(self.document, extra)
        error = self.error if self.error is not None else PagewardenError("no result", reason="no_result")
        return failure_record(self.url, error, extra)


def page_record(page: QueuedPage, outcome: Outcome) -> dict[str, Any]:
    """The output record of a crawled page, local or from a Ray actor."""
    if outcome.record is not None:
        record = dict(outcome.record)
        record["url"] = page.url
        record.setdefault("depth", page.depth)
        record.setdefault("found_on", page.found_on)
        return record
    return CrawlPage(page.url, page.depth, page.found_on, outcome.document, outcome.error).to_record()


class CrawlRun:
    """A running crawl: ``async with`` it, then ``async for page in run`` (see the module docstring).

    :attr:`stats` holds live counters (pages, failures, discovery, refusals by reason).
    """

    def __init__(self, crawler: Crawler, *, robots: bool = True) -> None:
        self._crawler = crawler
        self._robots = robots
        self._group: TaskGroup | None = None
        self._send: MemoryObjectSendStream[CrawlPage]
        self._receive: MemoryObjectReceiveStream[CrawlPage]
        self._send, self._receive = anyio.create_memory_object_stream[CrawlPage](
            max_buffer_size=crawler.options.concurrency
        )
        self._entered = False

    @property
    def stats(self) -> CrawlStats:
        """Live counters of this crawl."""
        return self._crawler.stats

    async def __aenter__(self) -> CrawlRun:
        if self._entered:
            raise ConfigMissing("a crawl can be run once", reason="crawl_already_started")
        self._entered = True
        group = anyio.create_task_group()
        await group.__aenter__()
        self._group = group
        group.start_soon(self._produce)
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        group, self._group = self._group, None
        if group is None:
            return None
        group.cancel_scope.cancel()
        try:
            return await group.__aexit__(exc_type, exc, tb)
        finally:
            self._receive.close()
            self._crawler.close()

    async def _produce(self) -> None:
        async def emit(page: QueuedPage, outcome: Outcome) -> None:
            await self._send.send(CrawlPage(page.url, page.depth, page.found_on, outcome.document, outcome.error))

        if self._robots:
            # Built here, on the crawl's event loop: the cache's locks belong to it.
            self._crawler.set_robots(RobotsCache(self._crawler.config))
        async with self._send:
            await self._crawler.run(emit)

    def __aiter__(self) -> AsyncIterator[CrawlPage]:
        if self._group is not None:
            return self._receive.__aiter__()
        return self._iterate_owned()

    async def _iterate_owned(self) -> AsyncGenerator[CrawlPage, None]:
        async with self:
            async for page in self._receive:
                yield page


def map_read(config: ReaderConfig) -> ReadFunction:
    """A read function for ``map``: a static fetch whose links are collected, the content never extracted."""

    async def read(page: QueuedPage, scope: Scope) -> Outcome:
        try:
            response = await fetch(page.url, config)
        except PagewardenError as error:
            return Outcome(False, error=error)
        if response.content_type not in _HTML:
            return Outcome(True, response.final_url)
        tree = await anyio.to_thread.run_sync(parse_html, response.text, abandon_on_cancel=True)
        url = response.final_url

        def link_filter(href: str) -> str | None:
            return check_link(href, url, config)

        links = page_links(tree, url, link_filter, max_links=config.limits.max_links,
                           max_href_chars=config.limits.max_url_chars)
        return Outcome(True, url, links.links, links.canonical, links.refused)

    return read


async def run_map(crawler: Crawler, robots: RobotsCache | None) -> list[str]:
    """Run a map crawl and list every in-scope URL it found, in discovery order (robots.txt applied)."""
    found = crawler.frontier.admitted_urls = []

    async def ignore(page: QueuedPage, outcome: Outcome) -> None:
        return None

    try:
        await crawler.run(ignore)
    finally:
        crawler.close()
    if robots is None:
        return list(found)
    listed: list[str] = []
    for url in found:
        try:
            await robots.check(url)
        except PagewardenError:
            continue
        listed.append(url)
    return listed


def _crawl_options(config: ReaderConfig, options: dict[str, Any], *, render: str | None) -> CrawlOptions:
    robots = options.pop("robots", "respect")
    if robots not in ("respect", "ignore"):
        raise InvalidInput("robots must be 'respect' or 'ignore'", reason="invalid_robots")
    for name in ("include", "exclude"):
        if name in options:
            value = options[name]
            options[name] = (value,) if isinstance(value, str) else tuple(value)
    try:
        return CrawlOptions(render=render or config.default_render, robots=robots == "respect", **options)
    except TypeError as error:
        raise InvalidInput(f"unknown crawl option ({error})"[:200], reason="invalid_crawl_option") from None


def start_crawl(reader: PageReader, start_url: str, *, render: str | None = None, **options: Any) -> CrawlRun:
    """The :class:`CrawlRun` behind ``AsyncReader.crawl`` (options: :class:`CrawlOptions` fields)."""
    crawl_options = _crawl_options(reader.config, dict(options), render=render)
    crawler = Crawler(reader.config, start_url, crawl_options, local_read(reader, crawl_options), robots=None)
    return CrawlRun(crawler, robots=crawl_options.robots)


async def map_site(reader: PageReader, start_url: str, **options: Any) -> list[str]:
    """``AsyncReader.map``: the in-scope URLs from sitemaps and links, pages fetched statically for links only."""
    crawl_options = _crawl_options(reader.config, dict(options), render="never")
    crawler = Crawler(reader.config, start_url, crawl_options, map_read(reader.config), robots=None)
    robots = RobotsCache(reader.config) if crawl_options.robots else None
    crawler.set_robots(robots)
    return await run_map(crawler, robots)
