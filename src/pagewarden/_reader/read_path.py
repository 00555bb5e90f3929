"""The read path of one reader: static fetch, guard, extraction, escalation to the browser, PDFs.

:class:`ReadPath` holds what the path starts lazily and must close: the
browser pool (Playwright is imported only when a read needs it) and the PDF
worker pool. :meth:`ReadPath.read` is one uncached read under the caller's
deadline:

* ``render="never"`` / ``"auto"``: fetch over the pinned transport, then the
  built-in guard and extraction in a worker thread (one call when no extra
  guard is configured), the extra guards on the event loop between them; in
  ``auto`` a page with too little readable text and signs
  that it needs JavaScript is rendered instead (``escalation_reason``);
* ``render="always"``: the browser only, no static pre-read;
* a PDF (by content type, also when a navigation turns out to be one) goes
  to the PDF reader in its worker pool; a browser never parses it.

The document is assembled in :mod:`.assemble`; caching, the store and the
public signatures are :class:`~pagewarden.AsyncReader`'s.
"""

from __future__ import annotations

import time
from functools import partial
from typing import TYPE_CHECKING, Literal

import anyio
import anyio.to_thread

from .._config import ReaderConfig
from .._document import Document
from .._errors import ConfigMissing, ContentInsufficient, UnsupportedContentType
from .._guard.extra import collect_extra_reports, implied_decision, merge_reports
from .._net import FetchedResponse, fetch
from .._pdf import PDF_TYPES, PdfWorkers, read_pdf
from .._pipeline import (
    ESCALATION_REASON_PREFIX,
    Rendered,
    enforce_guard,
    extract_response,
    guard_and_extract,
    inspect_response,
)
from .._report import Decision, GuardReport
from .assemble import Stages, build_document, rendered_response, timed

if TYPE_CHECKING:
    from .._browser.pool import BrowserPool

__all__ = ["ReadPath"]

# What the browser says when a navigation turns out not to be HTML (a PDF among others).
_BROWSER_NOT_HTML = frozenset({"browser_not_html", "browser_download_refused"})


class ReadPath:
    """The uncached read path of one reader, with the browser and PDF pools it starts on demand.

    Attributes:
        pool: the browser pool, ``None`` until a read needed the browser.
        pdf: the PDF worker pool, ``None`` until a read met a PDF.
    """

    def __init__(self, config: ReaderConfig) -> None:
        self._config = config
        self.pool: BrowserPool | None = None
        self.pdf: PdfWorkers | None = None

    async def aclose(self) -> None:
        """Close the browser pool and the PDF workers, if they were started (idempotent)."""
        pool, self.pool = self.pool, None
        if pool is not None:
            await pool.aclose()
        workers, self.pdf = self.pdf, None
        if workers is not None:
            await workers.aclose()

    async def read(self, url: str, mode: str, use: str, limit: int) -> Document:
        """Read ``url`` in render ``mode`` (already validated), uncached, under the caller's deadline."""
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

    def browser_pool(self) -> BrowserPool:
        """The browser pool, started on first use."""
        if self.pool is None:
            # Imported here: Playwright is only loaded when a read needs it.
            from .._browser.pool import BrowserPool

            self.pool = BrowserPool(self._config.browser, self._config)
        return self.pool

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
            page = await render(self.browser_pool(), url)
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
        response = rendered_response(page, static)
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
        if config.guards:
            report, guard_seconds, rendered = await self._guard_with_extras_then_extract(response, use, limit, method)
        else:
            # Guard, its outcome, extraction: one worker-thread round trip (see _pipeline).
            report, guard_seconds, rendered = await anyio.to_thread.run_sync(
                partial(guard_and_extract, response, config, use, limit, method), abandon_on_cancel=True
            )
        stages = Stages(
            guard=guard_seconds, render=render_seconds, total=time.perf_counter() - started,
            static=static,
        )
        return build_document(
            url, response, report, rendered, stages, method=method, escalation=escalation,
            render_limitations=render_limitations, render_truncated=render_truncated,
        )

    async def _guard_with_extras_then_extract(
        self, response: FetchedResponse, use: str, limit: int, method: str
    ) -> tuple[GuardReport, float, Rendered]:
        """The built-in guard (worker thread), the extra guards (event loop), the outcome, the extraction."""
        config = self._config
        inspected, guard_seconds = await anyio.to_thread.run_sync(
            partial(timed, inspect_response, response, config, use), abandon_on_cancel=True
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
        return report, guard_seconds, rendered

    async def _process_pdf(
        self, url: str, response: FetchedResponse, use: str, limit: int, started: float, *, escalation: str | None
    ) -> Document:
        if self.pdf is None:
            limits = self._config.limits
            self.pdf = PdfWorkers(max_workers=limits.pdf_workers, memory_bytes=limits.pdf_memory_bytes)
        # The transport hands a PDF over as Latin-1 text: one character per byte.
        data = response.text.encode("latin-1")
        result = await read_pdf(data, url=response.final_url, config=self._config, requested_use=use,
                                max_characters=limit, workers=self.pdf)
        stages = Stages(guard=result.guard_seconds, render=0.0, total=time.perf_counter() - started, static=None)
        return build_document(url, response, result.report, result.rendered, stages, method="http",
                               escalation=escalation, render_limitations=())
