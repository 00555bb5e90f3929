"""The leak test: many reads mixing successes and every fault leave no context and no process behind."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import anyio
import pytest

from pagewarden._browser.pool import BrowserPool
from pagewarden._browser.processes import group_members, live_processes
from pagewarden._browser.render import render
from pagewarden._errors import PagewardenError
from tests.browser.pool_support import (
    HTML,
    anyio_backend,
    browser_config,
    canary,
    chromium_available,
    contexts_after_closes,
    page,
    reader_config,
    site,
)
from tests.support.server import FixtureServer

pytestmark = [pytest.mark.browser, pytest.mark.anyio]
__all__ = ["anyio_backend", "canary", "site"]  # fixtures used by this module

READS = 200
# (path, body, delay_before, share of the reads); every fault of the issue is in the mix.
MIX: list[tuple[str, bytes, float | None, int]] = [
    ("/ok", page("<h1>fine</h1><p>An ordinary page.</p>"), None, 110),
    ("/missing", page("<p>gone</p>"), None, 16),
    ("/loop", page("<p>spin</p><script>while (true) {}</script>"), None, 12),
    ("/never", page("<p>never</p>"), 30.0, 12),
    ("/bomb", page("<div id=b></div><script>const b = document.getElementById('b');"
                   "for (let i = 0; i < 150000; i++) b.appendChild(document.createElement('i'));</script>"), None, 12),
    ("/flood", page("<script>for (let i = 0; i < 300; i++) fetch('/f?' + i).catch(() => {});</script>"), None, 12),
    ("/popup", page("<p>popup</p><script>window.open('/ok'); document.body.appendChild("
                    "document.createElement('iframe')).src = '/ok';</script>"), None, 12),
    ("/escape", page("<p>escape</p>"), None, 14),  # redirects to the canary
]


def _children() -> set[int]:
    """Live processes whose parent is this test process (the Playwright driver, mostly)."""
    me = str(os.getpid())
    found = set()
    for pid in live_processes():
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[1] == me:
            found.add(pid)
    return found


# 200 reads with deadline faults take about two minutes on two quiet cores; the default 120 s is too tight.
@pytest.mark.timeout(900)
async def test_many_mixed_reads_leak_nothing(site: FixtureServer, canary: FixtureServer) -> None:
    """After READS reads (faults, a browser crash and recycling included) no context or process is left."""
    chromium_available()
    for path, body, delay, _share in MIX:
        site.add(path, status=404 if path == "/missing" else 200, headers=HTML, body=body, delay_before=delay)
    site.redirect("/escape", canary.url("/caught"))
    plan = [path for path, _body, _delay, share in MIX for _ in range(share)]
    assert len(plan) == READS
    children_before = _children()
    pids: set[int] = set()
    outcomes: dict[str, int] = {}
    async with BrowserPool(browser_config(concurrency=2, recycle_after=40), reader_config(site)) as pool:

        async def one(path: str) -> None:
            try:
                with anyio.fail_after(3.0):
                    await render(pool, site.url(path))
                key = "ok"
            except (PagewardenError, TimeoutError) as exc:
                key = getattr(exc, "reason", None) or type(exc).__name__
            outcomes[key] = outcomes.get(key, 0) + 1
            pids.update(pool.stats()["pids"])

        limiter = anyio.Semaphore(2)

        async def limited(index: int, path: str) -> None:
            async with limiter:
                if index == READS // 2 and pool.stats()["pids"]:
                    os.killpg(pool.stats()["pids"][0], signal.SIGKILL)  # a crash in the middle
                await one(path)

        async with anyio.create_task_group() as group:
            for index, path in enumerate(plan[::7] + [p for i, p in enumerate(plan) if i % 7]):
                group.start_soon(limited, index, path)
        assert await contexts_after_closes(pool) == 0
        assert pool.stats()["active"] == 0
        assert pool.launches >= 3  # first launch, recycling, and the crash
    assert sum(outcomes.values()) == READS
    assert outcomes.get("ok", 0) >= 20  # a loaded machine may time out some ordinary reads
    assert canary.requests == []
    assert [member for pid in pids for member in group_members(pid)] == []
    with anyio.fail_after(5):
        while _children() - children_before:  # noqa: ASYNC110 - polling state that has no event
            await anyio.sleep(0.05)
