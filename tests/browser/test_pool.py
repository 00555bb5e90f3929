"""The browser pool with a real Chromium: reuse, isolation, queue, crashes, idle shutdown, no leaks."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest

from pagewarden._browser.fresh import FreshContext
from pagewarden._browser.pool import BrowserPool
from pagewarden._browser.processes import group_members
from pagewarden._browser.render import render
from pagewarden._egress import LOOPBACK_ENV
from pagewarden._errors import ConfigMissing, NetworkError, PagewardenError, RateLimited
from tests.browser.pool_support import (
    HTML,
    anyio_backend,
    browser_config,
    chromium_available,
    contexts_after_closes,
    page,
    pool,
    reader_config,
    site,
)
from tests.support.server import FixtureServer

pytestmark = [pytest.mark.browser, pytest.mark.anyio]
__all__ = ["anyio_backend", "pool", "site"]  # fixtures used by this module

STATE_PAGE = page(
    "<p id=out>pending</p><script>"
    "document.getElementById('out').textContent = 'cookie=[' + document.cookie + '] ls=[' +"
    " localStorage.getItem('k') + ']';"
    "document.cookie = 'k=v; path=/'; localStorage.setItem('k', 'v');</script>"
)


def _renderers(pid: int) -> list[int]:
    found = []
    for member in group_members(pid):
        try:
            command = Path(f"/proc/{member}/cmdline").read_bytes()
        except OSError:
            continue
        if b"--type=renderer" in command:
            found.append(member)
    return found


async def _wait_for(predicate: Callable[[], bool], timeout: float = 5.0) -> None:
    with anyio.fail_after(timeout):
        while not predicate():  # noqa: ASYNC110 - polling state that has no event
            await anyio.sleep(0.05)


async def test_one_browser_serves_many_reads(pool: BrowserPool, site: FixtureServer) -> None:
    """Several reads share one Chromium process (one launch, one pid) and leave no context open."""
    site.add("/reuse", headers=HTML, body=page("<p>reuse</p>"))
    before = pool.launches
    pids = set()
    for _ in range(3):
        rendered = await render(pool, site.url("/reuse"))
        assert "reuse" in rendered.html
        pids.update(pool.stats()["pids"])
    assert pool.launches - before <= 1
    assert len(pids) == 1
    assert await contexts_after_closes(pool) == 0


async def test_each_read_gets_a_fresh_context(pool: BrowserPool, site: FixtureServer) -> None:
    """Cookies and localStorage set by one read are invisible to the next (server- and page-side)."""
    site.add("/state", headers={**HTML, "Set-Cookie": "server=1; Path=/"}, body=STATE_PAGE)
    first = await render(pool, site.url("/state"))
    second = await render(pool, site.url("/state"))
    # Each read sees only the cookie its own response set, never the page-set k=v of the other read.
    for rendered in (first, second):
        assert "cookie=[server=1] ls=[null]" in rendered.html
    state_requests = [r for r in site.requests if r.path == "/state"]
    assert len(state_requests) == 2
    assert "cookie" not in state_requests[-1].headers


async def test_queue_full_is_rate_limited(site: FixtureServer) -> None:
    """With one slot and a queue of one, a third concurrent read is RATE_LIMITED at once; the others finish."""
    chromium_available()
    site.add("/slow", headers=HTML, body=page("<p>slow</p>"), delay_before=1.0)
    results: list[object] = []

    async def one() -> None:
        try:
            results.append(await render(limited, site.url("/slow")))
        except PagewardenError as exc:
            results.append(exc)

    limited = BrowserPool(browser_config(concurrency=1, max_queue=1), reader_config(site))
    async with limited, anyio.create_task_group() as group:
        group.start_soon(one)
        await _wait_for(lambda: limited.stats()["active"] == 1, 10)
        group.start_soon(one)
        await _wait_for(lambda: limited.stats()["waiting"] == 1)
        with pytest.raises(RateLimited) as caught:
            await render(limited, site.url("/slow"))
    assert caught.value.reason == "browser_queue_full"
    assert caught.value.retryable
    assert len(results) == 2
    assert all(not isinstance(r, Exception) for r in results)


async def test_browser_crash_fails_the_read_and_the_next_read_works(site: FixtureServer) -> None:
    """Killing Chromium mid-read gives NETWORK_ERROR browser_crashed (retryable); the next read relaunches."""
    chromium_available()
    site.add("/hang", headers=HTML, body=page("<p>late</p>"), delay_before=3.0)
    site.add("/ok", headers=HTML, body=page("<p>after crash</p>"))
    async with BrowserPool(browser_config(), reader_config(site)) as crashing:
        await render(crashing, site.url("/ok"))
        pid = crashing.stats()["pids"][0]
        caught: list[PagewardenError] = []

        async def doomed() -> None:
            try:
                await render(crashing, site.url("/hang"))
            except PagewardenError as exc:
                caught.append(exc)

        async with anyio.create_task_group() as group:
            group.start_soon(doomed)
            await _wait_for(lambda: crashing.stats()["active"] == 1)
            await anyio.sleep(0.3)
            os.killpg(pid, signal.SIGKILL)
        assert len(caught) == 1
        assert isinstance(caught[0], NetworkError)
        assert caught[0].reason == "browser_crashed"
        assert caught[0].retryable
        rendered = await render(crashing, site.url("/ok"))
        assert "after crash" in rendered.html
        assert crashing.launches == 2
        assert not group_members(pid)


async def test_renderer_crash_fails_only_that_read(site: FixtureServer) -> None:
    """Killing the page's renderer gives browser_renderer_crashed; the same browser serves the next read."""
    chromium_available()
    site.add("/spin", headers=HTML, body=page("<p>spin</p><script>fetch('/never')</script>"))
    site.add("/never", headers=HTML, body=b"x", delay_before=5.0)
    site.add("/ok2", headers=HTML, body=page("<p>still fine</p>"))
    async with BrowserPool(browser_config(settle_time=5.0), reader_config(site)) as crashing:
        await render(crashing, site.url("/ok2"))
        pid = crashing.stats()["pids"][0]
        with anyio.fail_after(10):
            async with anyio.create_task_group() as group:
                caught: list[PagewardenError] = []

                async def doomed() -> None:
                    try:
                        await render(crashing, site.url("/spin"))
                    except PagewardenError as exc:
                        caught.append(exc)

                group.start_soon(doomed)
                await _wait_for(lambda: bool(_renderers(pid)) and crashing.stats()["active"] == 1)
                await anyio.sleep(0.5)
                for renderer in _renderers(pid):
                    os.kill(renderer, signal.SIGKILL)
        assert [e.reason for e in caught] == ["browser_renderer_crashed"]
        assert "still fine" in (await render(crashing, site.url("/ok2"))).html
        assert crashing.launches == 1


async def test_spare_with_a_dead_renderer_is_not_given_to_a_read(
    site: FixtureServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pre-warmed context whose renderer died unnoticed is replaced, and the read succeeds."""
    chromium_available()
    site.add("/ok3", headers=HTML, body=page("<p>fresh renderer</p>"))
    # The crash event can reach the pool after the next read took the spare; never delivering it makes that
    # race certain, so only the spare's liveness check stands between the read and a dead page.
    monkeypatch.setattr(FreshContext, "_crash", lambda self, _page: None)
    async with BrowserPool(browser_config(), reader_config(site)) as pool:
        await render(pool, site.url("/ok3"))
        instance = pool._current
        assert instance is not None
        await _wait_for(lambda: instance.spare_ready is not None and pool.stats()["closing"] == 0)
        for renderer in _renderers(pool.stats()["pids"][0]):  # only the spare's page is open
            os.kill(renderer, signal.SIGKILL)
        rendered = await render(pool, site.url("/ok3"))
        assert "fresh renderer" in rendered.html
        assert rendered.timings["prewarmed"] == 0.0


async def test_idle_browser_shuts_down(site: FixtureServer) -> None:
    """After idle_timeout without reads, Chromium and its processes are gone; the next read relaunches."""
    chromium_available()
    site.add("/idle", headers=HTML, body=page("<p>idle</p>"))
    async with BrowserPool(browser_config(idle_timeout=0.3), reader_config(site)) as idle:
        await render(idle, site.url("/idle"))
        pid = idle.stats()["pids"][0]
        await _wait_for(lambda: idle.stats()["browsers"] == 0 and not group_members(pid))
        await render(idle, site.url("/idle"))
        assert idle.launches == 2


async def test_recycled_after_n_contexts(site: FixtureServer) -> None:
    """recycle_after=2: the third read runs on a new browser and the old one's processes are gone."""
    chromium_available()
    site.add("/r", headers=HTML, body=page("<p>recycle</p>"))
    async with BrowserPool(browser_config(recycle_after=2), reader_config(site)) as recycling:
        await render(recycling, site.url("/r"))
        first = recycling.stats()["pids"][0]
        await render(recycling, site.url("/r"))
        await render(recycling, site.url("/r"))
        assert recycling.launches == 2
        await _wait_for(lambda: not group_members(first))


async def test_aclose_is_idempotent_and_leaves_no_process(site: FixtureServer) -> None:
    """aclose() twice leaves no Chromium process of the pool; a read afterwards is CONFIG_MISSING."""
    chromium_available()
    site.add("/c", headers=HTML, body=page("<p>close</p>"))
    closing = BrowserPool(browser_config(), reader_config(site))
    await render(closing, site.url("/c"))
    pid = closing.stats()["pids"][0]
    assert group_members(pid)
    await closing.aclose()
    await closing.aclose()
    assert not group_members(pid)
    with pytest.raises(ConfigMissing) as caught:
        await render(closing, site.url("/c"))
    assert caught.value.reason == "browser_pool_closed"


async def test_cancelled_read_closes_its_context(pool: BrowserPool, site: FixtureServer) -> None:
    """A read cancelled by the caller's deadline leaves no open context behind."""
    site.add("/forever", headers=HTML, body=page("<p>x</p>"), delay_before=5.0)
    with anyio.move_on_after(1.0):
        await render(pool, site.url("/forever"))
    assert await contexts_after_closes(pool) == 0
    assert pool.stats()["active"] == 0


async def test_root_without_external_sandbox_is_refused(monkeypatch: pytest.MonkeyPatch, site: FixtureServer) -> None:
    """As root (euid 0) without external_sandbox, a read is CONFIG_MISSING before anything launches."""
    monkeypatch.setattr("pagewarden._browser.launch.os.geteuid", lambda: 0)
    async with BrowserPool(browser_config().replace(external_sandbox=False), reader_config(site)) as refused:
        with pytest.raises(ConfigMissing) as caught:
            await render(refused, site.url("/"))
        assert refused.launches == 0
    assert caught.value.reason == "sandbox_unavailable_as_root"


async def test_loopback_env_refuses_to_start(monkeypatch: pytest.MonkeyPatch, site: FixtureServer) -> None:
    """PLAYWRIGHT_DISABLE_FORCED_CHROMIUM_PROXIED_LOOPBACK in the environment refuses the launch."""
    monkeypatch.setenv(LOOPBACK_ENV, "1")
    async with BrowserPool(browser_config(), reader_config(site)) as refused:
        with pytest.raises(ConfigMissing) as caught:
            await render(refused, site.url("/"))
        assert refused.launches == 0
    assert caught.value.reason == "playwright_loopback_bypass_env"


EXIT_SCRIPT = textwrap.dedent(
    """
    import asyncio, os, sys
    from pagewarden._browser.config import BrowserConfig
    from pagewarden._browser.pool import BrowserPool
    from pagewarden._config import ReaderConfig

    async def main():
        pool = BrowserPool(BrowserConfig(external_sandbox=os.geteuid() == 0), ReaderConfig())
        async with pool.lease():
            print(pool.stats()["pids"][0], flush=True)
        return pool

    loop = asyncio.new_event_loop()
    keep = loop.run_until_complete(main())
    # Exit without aclose() and without closing the loop: only the finalizer can clean up.
    sys.exit(0)
    """
)


def test_interpreter_exit_kills_the_browser() -> None:
    """A process that exits without closing its pool leaves no Chromium behind (atexit finalizer)."""
    chromium_available()
    done = subprocess.run(
        [sys.executable, "-c", EXIT_SCRIPT], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    pid = int(done.stdout.split()[0])
    assert not group_members(pid)
