"""Pre-warmed contexts: ready before a read, used by exactly one read, refused before it, closed with the pool."""

from __future__ import annotations

from collections.abc import Callable

import anyio
import pytest
from playwright.async_api import Error as PlaywrightError

from pagewarden._browser.fresh import FreshContext, ReadHooks
from pagewarden._browser.pool import BrowserPool
from pagewarden._browser.render import render
from pagewarden._browser.routing import PageGuard
from pagewarden._errors import UnknownError
from tests.browser.pool_support import (
    HTML,
    anyio_backend,
    browser_config,
    canary,
    chromium_available,
    page,
    reader_config,
    site,
)
from tests.support.server import FixtureServer

pytestmark = [pytest.mark.browser, pytest.mark.anyio]
__all__ = ["anyio_backend", "canary", "site"]  # fixtures used by this module

READS = 6


async def _wait_for(predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    with anyio.fail_after(timeout):
        # Polling is right here: the spare is prepared by a background task with no event of its own.
        while not predicate():  # noqa: ASYNC110
            await anyio.sleep(0.02)


def _instance(pool: BrowserPool) -> object:
    instance = pool._current
    assert instance is not None
    return instance


async def test_each_read_gets_its_own_context_and_later_reads_are_prewarmed(
    site: FixtureServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every read attaches a different, never-used context; reads after the first find theirs ready."""
    chromium_available()
    site.add("/p", headers=HTML, body=page("<p>prewarmed page text</p>"))
    attached: list[FreshContext] = []
    original = FreshContext.attach

    def recording(self: FreshContext, hooks: ReadHooks, *, deadline: float) -> object:
        attached.append(self)
        return original(self, hooks, deadline=deadline)

    monkeypatch.setattr(FreshContext, "attach", recording)
    async with BrowserPool(browser_config(), reader_config(site)) as pool:
        warmed = []
        for _ in range(READS):
            rendered = await render(pool, site.url("/p"))
            warmed.append(rendered.timings["prewarmed"])
            # Give the spare time to be ready (and the read's context time to close, in the background),
            # as a caller pausing between reads would.
            await _wait_for(
                lambda: _instance(pool).spare_ready is not None  # type: ignore[attr-defined]
                and pool.stats()["closing"] == 0
            )
        assert warmed[0] == 0.0
        assert warmed[1:] == [1.0] * (READS - 1)
        assert len({id(fresh.context) for fresh in attached}) == READS
        assert all(fresh.closed and fresh.session.closed for fresh in attached)
        stats = pool.stats()
        assert (stats["contexts"], stats["spare"], stats["closing"]) == (0, 1, 0)


async def test_stats_count_every_context(site: FixtureServer) -> None:
    """Read contexts, spares and closing contexts are exactly the browser's live contexts."""
    chromium_available()
    site.add("/p", headers=HTML, body=page("<p>counted</p>"))
    async with BrowserPool(browser_config(), reader_config(site)) as pool:
        await render(pool, site.url("/p"))
        instance = _instance(pool)
        await _wait_for(lambda: instance.spare_ready is not None)  # type: ignore[attr-defined]
        stats = pool.stats()
        total = stats["contexts"] + stats["spare"] + stats["closing"]
        assert total == len(instance.browser.contexts)  # type: ignore[attr-defined]


async def test_spare_is_closed_on_aclose(site: FixtureServer) -> None:
    """aclose closes the ready spare's context and revokes its proxy credentials."""
    chromium_available()
    site.add("/p", headers=HTML, body=page("<p>closing</p>"))
    pool = BrowserPool(browser_config(), reader_config(site))
    await render(pool, site.url("/p"))
    instance = _instance(pool)
    await _wait_for(lambda: instance.spare_ready is not None)  # type: ignore[attr-defined]
    spare = instance.spare_ready  # type: ignore[attr-defined]
    await pool.aclose()
    assert spare.closed and spare.session.closed
    assert spare.page.is_closed()
    assert pool.stats()["spare"] == 0


async def test_spare_refuses_requests_before_a_read_attaches(site: FixtureServer, canary: FixtureServer) -> None:
    """Until a read is attached, a spare's page cannot load anything: every routed request is aborted."""
    chromium_available()
    site.add("/p", headers=HTML, body=page("<p>x</p>"))
    before = len(site.requests)
    async with BrowserPool(browser_config(), reader_config(site)) as pool:
        await render(pool, site.url("/p"))
        instance = _instance(pool)
        await _wait_for(lambda: instance.spare_ready is not None)  # type: ignore[attr-defined]
        spare = instance.spare_ready  # type: ignore[attr-defined]
        requests_after_read = len(site.requests)
        with pytest.raises(PlaywrightError, match="ERR_BLOCKED_BY_CLIENT"):
            await spare.page.goto(site.url("/p"))
        assert len(site.requests) == requests_after_read > before
    assert canary.requests == []


async def test_context_serves_one_read_only(site: FixtureServer) -> None:
    """Attaching a second read to a used context is refused (browser_context_reused)."""
    chromium_available()
    site.add("/p", headers=HTML, body=page("<p>once</p>"))
    async with BrowserPool(browser_config(), reader_config(site), prewarm=False) as pool, pool.lease() as lease:
        fresh, prewarmed = await lease.fresh_context()
        try:
            assert prewarmed is False

            def hooks() -> ReadHooks:
                guard = PageGuard(pool.policy, pool.reader_config, site.url("/p"), lambda _error: None)
                return ReadHooks(guard, on_crash=lambda: None, on_request=lambda _r: None, on_response=lambda _r: None)

            fresh.attach(hooks(), deadline=float("inf"))
            with pytest.raises(UnknownError) as caught:
                fresh.attach(hooks(), deadline=float("inf"))
            assert caught.value.reason == "browser_context_reused"
        finally:
            await fresh.close()
        with pytest.raises(UnknownError):
            fresh.attach(hooks(), deadline=float("inf"))


async def test_no_spare_without_prewarm(site: FixtureServer) -> None:
    """With prewarm=False no context exists between reads."""
    chromium_available()
    site.add("/p", headers=HTML, body=page("<p>cold</p>"))
    async with BrowserPool(browser_config(), reader_config(site), prewarm=False) as pool:
        for _ in range(2):
            rendered = await render(pool, site.url("/p"))
            assert rendered.timings["prewarmed"] == 0.0
        await anyio.sleep(0.3)
        assert (pool.stats()["contexts"], pool.stats()["spare"]) == (0, 0)


async def test_recycled_browser_keeps_no_spare(site: FixtureServer) -> None:
    """A browser about to be recycled prepares no spare, and its replacement serves the next read."""
    chromium_available()
    site.add("/p", headers=HTML, body=page("<p>recycle</p>"))
    async with BrowserPool(browser_config(recycle_after=2), reader_config(site)) as pool:
        await render(pool, site.url("/p"))
        first = _instance(pool)
        await _wait_for(lambda: first.spare_ready is not None)  # type: ignore[attr-defined]
        await render(pool, site.url("/p"))  # the second and last read of the first browser
        await _wait_for(lambda: first.done.is_set())  # type: ignore[attr-defined]
        rendered = await render(pool, site.url("/p"))
        assert "recycle" in rendered.html
        assert pool.launches == 2


# (pool concurrency, reads in a row, how many of them may return before their context is closed)
BACKGROUND_CLOSE_CASES = [
    pytest.param(2, 1, 1, id="one-read-returns-at-once"),
    # The second read finds the first still closing and closes its own before returning.
    pytest.param(1, 3, 2, id="closes-beyond-concurrency-wait"),
]


@pytest.mark.parametrize(("concurrency", "reads", "early"), BACKGROUND_CLOSE_CASES)
async def test_read_contexts_close_in_the_background_up_to_the_concurrency(
    site: FixtureServer, monkeypatch: pytest.MonkeyPatch, concurrency: int, reads: int, early: int
) -> None:
    """A read returns before its context is closed; closing contexts never exceed the concurrency."""
    chromium_available()
    site.add("/p", headers=HTML, body=page("<p>closed later</p>"))
    original = FreshContext.close
    closing_seen: list[int] = []

    async def slow_close(self: FreshContext, *, stop_page: bool = False) -> bool:
        await anyio.sleep(0.6)
        return await original(self, stop_page=stop_page)

    monkeypatch.setattr(FreshContext, "close", slow_close)
    async with BrowserPool(browser_config(concurrency=concurrency), reader_config(site), prewarm=False) as pool:
        await render(pool, site.url("/p"))  # launches the browser, which the timed reads must not include
        with anyio.fail_after(5):
            while pool.stats()["closing"]:  # noqa: ASYNC110 - the close runs in a task with no event
                await anyio.sleep(0.02)
        quick = 0
        for _ in range(reads):
            started = anyio.current_time()
            await render(pool, site.url("/p"))
            quick += anyio.current_time() - started < 0.5
            closing_seen.append(pool.stats()["closing"])
        assert quick == early
        assert max(closing_seen) <= concurrency
        assert closing_seen[0] == 1
        with anyio.fail_after(5):
            while pool.stats()["closing"]:  # noqa: ASYNC110 - the close runs in a task with no event
                await anyio.sleep(0.02)
        assert len(_instance(pool).browser.contexts) == 0  # type: ignore[attr-defined]
