"""Pool isolation: a hostile read's failure stays with that read; no other read loses its browser for it."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import anyio
import pytest

from pagewarden._browser.contexts import MAX_STUCK, ContextSupply
from pagewarden._browser.pool import BrowserPool
from pagewarden._browser.render import render
from tests.browser.pool_support import HTML, anyio_backend, browser_config, chromium_available, page, reader_config
from tests.support.server import FixtureServer

__all__ = ["anyio_backend"]

pytestmark = pytest.mark.anyio


class _Context:
    """A stand-in BrowserContext: only its "close" event matters here."""

    def __init__(self) -> None:
        self.listeners: list[Callable[[Any], None]] = []

    def on(self, event: str, callback: Callable[[Any], None]) -> None:
        assert event == "close"
        self.listeners.append(callback)

    def closed_late(self) -> None:
        for callback in self.listeners:
            callback(self)


class _Session:
    """A stand-in proxy session."""

    def __init__(self) -> None:
        self.closed = False

    def revoke(self) -> None:
        self.closed = True


class _Fresh:
    """A stand-in FreshContext whose close does or does not finish in time."""

    def __init__(self, closes: bool) -> None:
        self.context = _Context()
        self.session = _Session()
        self.closes = closes
        self.stopped_page: bool | None = None

    async def close(self, *, stop_page: bool = False) -> bool:
        await asyncio.sleep(0)
        self.stopped_page = stop_page
        return self.closes


def _supply(stuck: list[int]) -> ContextSupply:
    async def never(_on_context: object) -> Any:
        raise AssertionError("no context is made in these tests")

    return ContextSupply(
        never, wants_spare=lambda: False, max_background_closes=8, on_stuck=lambda: stuck.append(1)
    )


async def _settled(supply: ContextSupply) -> None:
    with anyio.fail_after(5):
        await supply.drain()


async def test_a_context_that_will_not_close_is_abandoned_and_counted() -> None:
    """A close that times out abandons the context (counted, stuck until Chromium closes it); nothing is stopped."""
    stuck: list[int] = []
    supply = _supply(stuck)
    wedged, fine = _Fresh(closes=False), _Fresh(closes=True)
    await supply.release(wedged)  # type: ignore[arg-type]
    await supply.release(fine)  # type: ignore[arg-type]
    await _settled(supply)
    assert (supply.abandoned, len(supply.stuck), supply.closing, stuck) == (1, 1, set(), [])
    assert wedged.session.closed and fine.session.closed  # each read's proxy session ends with it
    wedged.context.closed_late()
    assert supply.stuck == set()
    assert supply.abandoned == 1


async def test_stuck_contexts_piling_up_retire_the_browser() -> None:
    """Only when MAX_STUCK abandoned contexts are open at once is the browser asked to retire."""
    stuck: list[int] = []
    supply = _supply(stuck)
    for _ in range(MAX_STUCK - 1):
        await supply.release(_Fresh(closes=False))  # type: ignore[arg-type]
    await _settled(supply)
    assert stuck == []
    await supply.release(_Fresh(closes=False))  # type: ignore[arg-type]
    await _settled(supply)
    assert stuck == [1]


class _SlowFresh(_Fresh):
    """A stand-in FreshContext whose close takes ``delay`` seconds."""

    def __init__(self, delay: float) -> None:
        super().__init__(closes=True)
        self.delay = delay

    async def close(self, *, stop_page: bool = False) -> bool:
        await asyncio.sleep(self.delay)
        return await super().close(stop_page=stop_page)


# (case, seconds the close takes, seconds the read may wait for it, whether it is closed when release returns)
WAIT_CASES = [
    ("no_wait", 0.2, 0.0, False),
    ("close_within_the_wait", 0.05, 2.0, True),
    ("close_past_the_wait", 1.0, 0.1, False),
]


@pytest.mark.parametrize(("delay", "wait", "closed"), [c[1:] for c in WAIT_CASES], ids=[c[0] for c in WAIT_CASES])
async def test_release_waits_for_the_close_at_most_as_long_as_asked(delay: float, wait: float, closed: bool) -> None:
    """release(wait=...) returns once the close is done or the wait is over; the close itself always finishes."""
    supply = _supply([])
    fresh = _SlowFresh(delay)
    started = anyio.current_time()
    await supply.release(fresh, wait=wait)  # type: ignore[arg-type]
    assert anyio.current_time() - started < min(delay, wait) + 0.5
    assert (not supply.closing) is closed
    await _settled(supply)
    assert supply.closing == set() and fresh.session.closed


async def test_a_dead_browser_does_not_count_abandoned_contexts() -> None:
    """Contexts of a browser that is gone fail to close for that reason only; they are not counted."""
    stuck: list[int] = []
    supply = _supply(stuck)
    supply.browser_dead = True
    await supply.release(_Fresh(closes=False))  # type: ignore[arg-type]
    assert (supply.abandoned, supply.stuck) == (0, set())


@pytest.mark.browser
async def test_a_retired_browser_finishes_its_in_flight_read(anyio_backend: str) -> None:
    """Retiring a browser mid-read lets that read finish on it; the next read gets a new browser."""
    chromium_available()
    with FixtureServer() as site:
        site.add("/slow", headers=HTML, body=page("<h1>slow</h1><p>It arrives after a while.</p>"), delay_before=1.0)
        site.add("/ok", headers=HTML, body=page("<h1>ok</h1><p>An ordinary page.</p>"))
        async with BrowserPool(browser_config(), reader_config(site)) as pool:
            await render(pool, site.url("/ok"))
            first = pool.stats()["pids"]
            async with anyio.create_task_group() as group:
                results: list[str] = []

                async def slow_read() -> None:
                    results.append((await render(pool, site.url("/slow"))).final_url)

                group.start_soon(slow_read)
                await anyio.sleep(0.3)
                instance = pool._current
                assert instance is not None and instance.active == 1
                pool.retire(instance)
                assert not instance.done.is_set()  # still serving the slow read
            assert results == [site.url("/slow")]
            assert instance is not None
            with anyio.fail_after(10):
                await instance.done.wait()  # stopped once its read was done
            await render(pool, site.url("/ok?again"))
            assert pool.launches == 2
            assert pool.stats()["pids"] != first
