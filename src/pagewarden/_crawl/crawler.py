"""The crawl engine: a frontier in this process, reads through a pluggable read function, politeness, traps.

Data flow::

    start URL --+--> frontier (scope, canonical key, traps, journal) --> N workers --> emit(page, outcome)
    sitemaps ---+          ^                                              |
                           +---- links of each read page (depth + 1) <----+

Each worker takes the next queued page, checks robots.txt (RFC 9309, shared
with ``ingest``), takes the host's politeness slot (per-host concurrency,
minimum delay raised to the site's ``Crawl-delay``), reads the page through
``read`` (a local :class:`~pagewarden.AsyncReader`, or an actor of a Ray
pool), then admits the page's links and only then emits the page, so the
journal never misses a link of a page whose record was written.

A page that failed (the guard withheld it, an HTTP error, a redirect out of
scope, robots.txt...) is emitted as a failure and its links are not followed.
The crawl ends when the queue is empty and no read is in flight, or when
``max_pages`` pages were taken.
"""

from __future__ import annotations

import time
import urllib.parse
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio

from .._config import RENDER_MODES, ReaderConfig, check_choice
from .._document import Document, PageLinks
from .._errors import ContentInsufficient, InvalidInput, PagewardenError, UnknownError, UnsafeURL
from .._extract.outlinks import is_route_fragment
from .._ingest.hosts import HostLimiter, host_key
from .._ingest.runner import IngestStats
from .._net import check_link, parse_target
from .._net.redirects import redirect_policy
from .frontier import Frontier, QueuedPage
from .scope import SCOPES, Scope, TrapLimits
from .sitemaps import SitemapLimits, read_sitemaps

if TYPE_CHECKING:
    from .._ingest.protocol import PageReader
    from .._ingest.robots_cache import RobotsCache

__all__ = ["CrawlOptions", "CrawlStats", "Crawler", "Outcome", "ReadFunction", "local_read", "start_target"]


@dataclass(frozen=True, slots=True)
class CrawlOptions:
    """How a crawl runs (validated once; see docs/crawl.md).

    Attributes:
        max_pages: pages read at most (failures included), 1..1,000,000.
        max_depth: link hops from the start URL (sitemap pages count as 1).
        scope: ``site``, ``host`` or ``prefix`` (:mod:`.scope`).
        include, exclude: shell globs on the path and query (or the whole URL).
        sitemaps: discover pages from robots.txt sitemaps or ``/sitemap.xml``.
        render: the render mode of every read.
        robots: obey robots.txt (``Disallow`` and ``Crawl-delay``).
        concurrency, per_host, min_delay: politeness, as for ``ingest``.
        max_characters, timeout, requested_use: passed to every read.
        traps: limits on discovered URLs (:class:`TrapLimits`).
        sitemap_limits: limits on sitemap discovery.
        max_frontier: URLs admitted at most (the seen set's bound).
    """

    max_pages: int = 100
    max_depth: int = 5
    scope: str = "site"
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    sitemaps: bool = True
    render: str = "auto"
    robots: bool = True
    concurrency: int = 4
    per_host: int = 2
    min_delay: float = 0.5
    max_characters: int | None = None
    timeout: float | None = None
    requested_use: str = "answer_with_citation"
    traps: TrapLimits = field(default_factory=TrapLimits)
    sitemap_limits: SitemapLimits = field(default_factory=SitemapLimits)
    max_frontier: int = 100_000

    def __post_init__(self) -> None:
        check_choice("scope", self.scope, SCOPES)
        check_choice("render", self.render, RENDER_MODES)
        for name, value, low, high in (
            ("max_pages", self.max_pages, 1, 1_000_000), ("max_depth", self.max_depth, 0, 1_000),
            ("concurrency", self.concurrency, 1, 256), ("per_host", self.per_host, 1, 256),
            ("max_frontier", self.max_frontier, 1, 10_000_000),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise InvalidInput(f"{name} must be an integer in {low}..{high}", reason=f"invalid_{name}")
        if not self.min_delay >= 0:
            raise InvalidInput("min_delay must be 0 or more seconds", reason="invalid_min_delay")
        for glob in (*self.include, *self.exclude):
            if not isinstance(glob, str) or not glob or len(glob) > 1_000:
                raise InvalidInput("include/exclude globs must be non-empty strings", reason="invalid_glob")


@dataclass
class CrawlStats(IngestStats):
    """Live counters of a crawl: those of ``ingest`` plus discovery counts."""

    command: str = "crawl"
    admitted: int = 0
    sitemap_pages: int = 0
    sitemaps_fetched: int = 0
    sitemaps_failed: int = 0
    refused_links: int = 0
    refusals: Counter[str] = field(default_factory=Counter)
    trap_samples: dict[str, list[str]] = field(default_factory=dict)

    def count_outcome(self, outcome: Outcome) -> None:
        """Account for one finished page (what :meth:`IngestStats.count` does for a record)."""
        self.done += 1
        record = outcome.record or {}
        if outcome.ok:
            self.ok += 1
            fetch = record.get("fetch")
            method = outcome.document.fetch.method if outcome.document is not None else (
                fetch.get("method") if isinstance(fetch, dict) else None)
            if method == "browser":
                self.escalations += 1
        else:
            self.failed += 1
            self.failures[str(outcome.error.code) if outcome.error is not None else str(record.get("code"))] += 1

    def detail_lines(self) -> list[str]:
        """Summary lines beyond ``ingest``'s: discovery, links refused by the URL policy, traps."""
        lines = [f"  discovered {self.admitted} in scope · sitemaps {self.sitemaps_fetched} read, "
                 f"{self.sitemaps_failed} failed, {self.sitemap_pages} pages listed · "
                 f"links refused by the URL policy {self.refused_links}"]
        if self.refusals:
            lines.append("  not queued: " + ", ".join(f"{name} {count}" for name, count in
                                                       sorted(self.refusals.items())))
        for reason, samples in sorted(self.trap_samples.items()):
            lines.append(f"  trap {reason}: e.g. {samples[0]}")
        return lines

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary."""
        data = super().to_dict()
        data.update(admitted=self.admitted, sitemap_pages=self.sitemap_pages, refused_links=self.refused_links,
                    refusals=dict(sorted(self.refusals.items())))
        return data


@dataclass(frozen=True, slots=True)
class Outcome:
    """One read's result as the engine needs it (the same for a local read and a Ray actor's record).

    ``record`` is the JSON-ready record when the read produced one (Ray);
    otherwise ``document`` or ``error`` is set. ``links_of_failure``: the read
    failed only for too little readable content, after the guard passed the
    page, so its links (``links``) are followed all the same.
    """

    ok: bool
    final_url: str | None = None
    links: tuple[str, ...] = ()
    canonical: str | None = None
    refused: int = 0
    document: Document | None = None
    error: PagewardenError | None = None
    record: dict[str, Any] | None = None
    links_of_failure: bool = False

    @classmethod
    def failure(cls, error: PagewardenError, record: dict[str, Any] | None = None) -> Outcome:
        """A failed read; a page of links found too short keeps its links (see the class docstring)."""
        links = getattr(error, "page_links", None) if isinstance(error, ContentInsufficient) else None
        if isinstance(links, PageLinks):
            return cls(False, None, links.links, links.canonical, links.refused, error=error, record=record,
                       links_of_failure=True)
        return cls(False, error=error, record=record)


ReadFunction = Callable[[QueuedPage, Scope], Awaitable[Outcome]]
Emit = Callable[[QueuedPage, Outcome], Awaitable[None]]


def _redirect_check(scope: Scope) -> Callable[[str], str | None]:
    # Only the boundary (host, port, prefix): include/exclude globs judge links, not where a page lands.
    return lambda url: "redirect_out_of_scope" if scope.reason(url) == "out_of_scope" else None


def local_read(reader: PageReader, options: CrawlOptions) -> ReadFunction:
    """A read function over a local reader: redirects out of scope are refused before they are followed."""

    async def read(page: QueuedPage, scope: Scope) -> Outcome:
        try:
            with redirect_policy(_redirect_check(scope)):
                document = await reader.read(page.url, render=options.render, max_characters=options.max_characters,
                                             timeout=options.timeout, requested_use=options.requested_use)
        except PagewardenError as error:
            return Outcome.failure(error)
        except Exception:
            # One page's bug must not end a crawl; cancellation still passes.
            return Outcome(False, error=UnknownError("unexpected error while reading the page",
                                                     reason="unexpected_error", url=page.url))
        links = document.page_links
        return Outcome(True, document.final_url, links.links, links.canonical, links.refused, document=document)

    return read


def start_target(start_url: str, config: ReaderConfig) -> str:
    """The start URL in canonical form (a fragment route kept); raises the read's own refusal."""
    if not isinstance(start_url, str):
        raise InvalidInput("start_url must be a string", reason="invalid_url_type")
    target = parse_target(start_url, config)
    fragment = urllib.parse.urlsplit(start_url.strip()).fragment
    return f"{target.url}#{fragment}" if fragment and is_route_fragment(fragment) else target.url


class Crawler:
    """One crawl: the frontier, the politeness, the workers (see the module docstring)."""

    def __init__(
        self,
        config: ReaderConfig,
        start_url: str,
        options: CrawlOptions,
        read: ReadFunction,
        *,
        robots: RobotsCache | None,
        stats: CrawlStats | None = None,
        journal: str | None = None,
    ) -> None:
        self.config = config
        self.options = options
        self.start = start_target(start_url, config)
        self.scope = Scope.from_start(self.start, options.scope, options.include, options.exclude)
        self.frontier = Frontier(self.scope, max_depth=options.max_depth, traps=options.traps,
                                 max_frontier=options.max_frontier, journal=journal)
        self.stats = stats if stats is not None else CrawlStats()
        self._read = read
        self._robots = robots
        self._limiter = HostLimiter(options.per_host, options.min_delay)
        self._taken = 0
        self._active = 0
        self._changed = anyio.Condition()
        self._resumed = False

    def restore(self, journal: str, done: set[str]) -> None:
        """Continue an earlier crawl from its journal; ``done`` holds the URLs already in the output."""
        already = self.frontier.restore(journal, done)
        self._resumed = self.frontier.admitted > 0
        self._taken = already
        self.stats.skipped = already

    def set_robots(self, robots: RobotsCache | None) -> None:
        """Use ``robots`` (built on the crawl's event loop) for robots.txt; ``None`` ignores robots.txt."""
        self._robots = robots

    def close(self) -> None:
        """Close the journal."""
        self.frontier.close()

    def _sync_stats(self) -> None:
        self.stats.admitted = self.frontier.admitted
        # The progress total grows with discovery, up to max_pages (resumed pages not counted).
        known = min(self.frontier.admitted, self.options.max_pages) - self.stats.skipped
        self.stats.total = max(known, self.stats.done)
        self.stats.refusals = self.frontier.refusals
        self.stats.trap_samples = self.frontier.trap_samples

    async def run(self, emit: Emit) -> CrawlStats:
        """Crawl until the frontier is exhausted or ``max_pages`` were taken; ``emit`` gets every page."""
        try:
            async with anyio.create_task_group() as group:
                if not self._resumed:
                    self.frontier.admit(self.start, 0, None, exempt=True)
                    if self.options.sitemaps and self.options.max_depth >= 1:
                        # Alongside the reads (the start page need not wait for the
                        # sitemaps); counted as active so the crawl cannot end before it.
                        self._active += 1
                        group.start_soon(self._sitemaps_task)
                self._sync_stats()
                for _ in range(self.options.concurrency):
                    group.start_soon(self._work, emit)
        finally:
            self.stats.finished = time.monotonic()
            self._sync_stats()
        return self.stats

    async def _sitemaps_task(self) -> None:
        try:
            await self._discover_sitemaps()
        finally:
            async with self._changed:
                self._active -= 1
                self._changed.notify_all()

    async def _discover_sitemaps(self) -> None:
        roots: list[str] = []
        rules = await self._robots.rules_for(self.start) if self._robots is not None else None
        if rules is not None:
            roots = [url for raw in rules.sitemaps if (url := check_link(raw, self.start, self.config)) is not None]
        if not roots:
            parts = urllib.parse.urlsplit(self.start)
            roots = [f"{parts.scheme}://{parts.netloc}/sitemap.xml"]
        delay = rules.crawl_delay if rules else None
        found = await read_sitemaps(roots, self.config, in_scope=lambda url: self.scope.reason(url) is None,
                                    limits=self.options.sitemap_limits,
                                    slot=lambda url: self._limiter.slot(host_key(url), delay))
        self.stats.sitemaps_fetched, self.stats.sitemaps_failed = found.fetched, found.failed
        self.stats.sitemap_pages = len(found.pages)
        self.stats.refused_links += found.refused
        for url, sitemap in found.pages:
            self.frontier.admit(url, 1, sitemap)

    async def _next(self) -> QueuedPage | None:
        async with self._changed:
            while True:
                if self._taken >= self.options.max_pages:
                    return None
                if self.frontier.queue:
                    self._taken += 1
                    self._active += 1
                    return self.frontier.queue.popleft()
                if self._active == 0:
                    self._changed.notify_all()
                    return None
                await self._changed.wait()

    async def _work(self, emit: Emit) -> None:
        while (page := await self._next()) is not None:
            try:
                outcome = await self._visit(page)
                self._follow(page, outcome)
                self.stats.count_outcome(outcome)
                self._sync_stats()
                await emit(page, outcome)
            finally:
                async with self._changed:
                    self._active -= 1
                    self._changed.notify_all()

    async def _visit(self, page: QueuedPage) -> Outcome:
        delay: float | None = None
        if self._robots is not None:
            try:
                await self._robots.check(page.url)
            except PagewardenError as error:
                return Outcome(False, error=error)
            rules = await self._robots.rules_for(page.url)
            delay = rules.crawl_delay if rules is not None else None
        async with self._limiter.slot(host_key(page.url), delay):
            outcome = await self._read(page, self.scope)
        if outcome.ok and outcome.final_url and self.scope.reason(outcome.final_url) == "out_of_scope":
            # A redirect left the scope where it could not be stopped (in the browser, on Ray).
            left = UnsafeURL("the page redirected out of the crawl's scope", reason="redirect_out_of_scope",
                             url=page.url, stage="crawl")
            return Outcome(False, error=left)
        return outcome

    def _follow(self, page: QueuedPage, outcome: Outcome) -> None:
        if not outcome.ok and not outcome.links_of_failure:
            return
        self.stats.refused_links += outcome.refused
        document_url, _, route = page.url.partition("#")
        if outcome.final_url and outcome.final_url != document_url:
            # Redirected: the target is this page (a fragment route stays on it).
            self.frontier.mark_seen(f"{outcome.final_url}#{route}" if route else outcome.final_url)
        if outcome.canonical and not route and self.scope.reason(outcome.canonical) is None:
            # rel=canonical within scope: the canonical page is this one. (The
            # routes of a hash-routed app share one document and its canonical.)
            self.frontier.mark_seen(outcome.canonical)
        if page.depth + 1 > self.options.max_depth:
            if outcome.links:
                self.frontier.refusals["max_depth"] += len(outcome.links)
            return
        for link in outcome.links:
            self.frontier.admit(link, page.depth + 1, page.url)
