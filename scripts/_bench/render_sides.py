"""The in-process sides of the render benchmark and the batch runner they share.

* :class:`WardenSide`: pagewarden as users run it, one long-lived
  ``AsyncReader`` and ``await reader.read(url, render="always")`` (a pooled
  Chromium behind the pinning proxy, a fresh context per read, the request
  policy, the isolated-world visibility pass, the guard and extraction).
* :class:`FloorSide`: the raw-Playwright floor: one browser, a new context per
  read, no policy, no proxy, no visibility pass; ``goto`` (DOMContentLoaded),
  wait until the article's last words are in the DOM, ``page.content()``.
* :func:`cold_read`: a cold launch per read: start Playwright and Chromium,
  the same steps as the floor, close everything.

Every read returns the text it got, so the runner can check it is complete
(:data:`~render_site.MARKER`).
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import anyio
from playwright.async_api import Browser, Playwright, async_playwright

import pagewarden
from _bench.metrics import percentile
from _bench.render_site import MARKER
from pagewarden._browser.config import BrowserConfig
from pagewarden._browser.discovery import find_chromium

__all__ = [
    "Batch", "FloorSide", "WardenSide", "chromium_path", "cold_read", "median_split", "read_split", "run_batch",
]

AS_ROOT = os.geteuid() == 0
_WAIT_FOR_CONTENT = f"document.documentElement.textContent.includes({MARKER!r})"


def read_split(document: Any) -> dict[str, float]:
    """A rendered read's own stage times in ms: the render, the guard and the extraction of its snapshot,
    the rest (thread hops, assembly) and the total, from ``document.fetch.timings``."""
    timings = document.fetch.timings
    parts = {"render": timings.render, "guard": timings.guard, "extract": timings.extract}
    split = {name: seconds * 1000 for name, seconds in parts.items()}
    split["rest"] = max(0.0, timings.total * 1000 - sum(split.values()))
    split["total"] = timings.total * 1000
    return split


def median_split(splits: list[dict[str, float]]) -> dict[str, float]:
    """The median of each stage over ``splits`` (ms, one decimal); empty when there are none."""
    if not splits:
        return {}
    return {key: round(statistics.median(s[key] for s in splits), 1) for key in splits[0]}


def chromium_path() -> str:
    """The Chromium every side uses (pagewarden's discovery order)."""
    return str(find_chromium().path)


@dataclass
class Batch:
    """The outcome of one batch of reads at one concurrency."""

    concurrency: int
    seconds: list[float] = field(default_factory=list)
    wall: float = 0.0
    incomplete: int = 0
    errors: dict[str, int] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        """p50/p95 latency (ms), throughput (pages/s) and failures."""
        ms = sorted(s * 1000 for s in self.seconds)
        done = len(self.seconds)
        return {
            "concurrency": self.concurrency,
            "reads": done,
            "p50_ms": round(statistics.median(ms), 1) if ms else None,
            "p95_ms": round(percentile(ms, 0.95), 1) if ms else None,
            "pages_per_s": round(done / self.wall, 2) if self.wall and done else None,
            "incomplete": self.incomplete,
            "errors": dict(self.errors),
        }


async def run_batch(read: Callable[[str], Awaitable[str]], urls: list[str], concurrency: int) -> Batch:
    """Read ``urls`` with at most ``concurrency`` reads in flight; time each read and the whole batch."""
    batch = Batch(concurrency)
    limiter = anyio.Semaphore(concurrency)

    async def one(url: str) -> None:
        async with limiter:
            started = time.perf_counter()
            try:
                text = await read(url)
            except Exception as exc:  # a failed read is counted, never hidden
                key = getattr(exc, "reason", None) or type(exc).__name__
                batch.errors[key] = batch.errors.get(key, 0) + 1
                return
            batch.seconds.append(time.perf_counter() - started)
            if MARKER not in text:
                batch.incomplete += 1

    started = time.perf_counter()
    async with anyio.create_task_group() as group:
        for url in urls:
            group.start_soon(one, url)
    batch.wall = time.perf_counter() - started
    return batch


class WardenSide:
    """pagewarden: one ``AsyncReader`` with a browser pool of ``concurrency`` slots."""

    name = "pagewarden"

    def __init__(self, port: int, concurrency: int, executable: str, policy: str = "default") -> None:
        browser = BrowserConfig(
            executable=executable, external_sandbox=AS_ROOT, concurrency=concurrency, policy=policy
        )
        # No document cache: every read of the same page must render it again.
        self._config = pagewarden.ReaderConfig(
            unsafe_allow_destinations=(f"127.0.0.1:{port}",), browser=browser,
            cache=pagewarden.CacheConfig(max_entries=0),
        )
        self.reader: Any = None
        # The read's own stage times (ms) of every read since the last clear: what its latency is made of.
        self.read_timings: list[dict[str, float]] = []

    async def __aenter__(self) -> WardenSide:
        self.reader = pagewarden.AsyncReader(self._config)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.reader.aclose()

    async def read(self, url: str) -> str:
        """One ``read(render="always")``; its text (its stage times go to :attr:`read_timings`)."""
        document = await self.reader.read(url, render="always", max_characters=100_000)
        self.read_timings.append(read_split(document))
        return str(document.text)

    def pool_stats(self) -> dict[str, Any]:
        """The browser pool's counters (launches, contexts, spares)."""
        pool = getattr(self.reader, "_pool", None)
        return pool.stats() if pool is not None else {}


class FloorSide:
    """The raw-Playwright floor: one browser, a new context per read, nothing else."""

    name = "raw floor"

    def __init__(self, executable: str) -> None:
        self._executable = executable
        self._playwright: Playwright | None = None
        self._manager: Any = None
        self.browser: Browser | None = None

    async def __aenter__(self) -> FloorSide:
        self._manager = async_playwright()
        self._playwright = await self._manager.__aenter__()
        self.browser = await self._playwright.chromium.launch(
            executable_path=self._executable, chromium_sandbox=not AS_ROOT
        )
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self.browser is not None:
            await self.browser.close()
        await self._manager.__aexit__(None, None, None)

    async def read(self, url: str) -> str:
        """goto, wait for the article's last words, ``page.content()``, close the context."""
        if self.browser is None:
            raise RuntimeError("the floor side is not started")
        return await _read_in(self.browser, url)


async def _read_in(browser: Browser, url: str) -> str:
    context = await browser.new_context()
    try:
        page = await context.new_page()
        await page.goto(url, wait_until="domcontentloaded")
        await page.wait_for_function(_WAIT_FOR_CONTENT, polling="raf")
        return await page.content()
    finally:
        await context.close()


async def cold_read(url: str, executable: str) -> str:
    """A cold read: launch Playwright and Chromium, read as the floor does, close everything."""
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=executable, chromium_sandbox=not AS_ROOT)
        try:
            return await _read_in(browser, url)
        finally:
            await browser.close()
