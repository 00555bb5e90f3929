"""The hostile-page battery: every hostile read ends typed within its deadline and never costs the next read.

One long-lived reader (one pooled browser) reads each page of
:mod:`tests.browser.hostile_pages`, then an ordinary control page. The
hostile read must end with one of its allowed outcomes within the read's
deadline plus a second; the control read on the same reader must succeed.
Speed (how much a fault slows the next read) is measured by
``scripts/bench faults``, not asserted here. After ``aclose()`` no process of
the browser is left.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterator

import pytest

import pagewarden
from pagewarden._browser.processes import group_members
from tests.browser.hostile_pages import CONTROL, HOSTILE, Hostile, install
from tests.browser.pool_support import AS_ROOT, anyio_backend, chromium_available
from tests.support.hostile import HostileServer

__all__ = ["anyio_backend"]

pytestmark = [pytest.mark.browser, pytest.mark.anyio]

# Seconds a hostile read may take (the reader's deadline); the bound checked is this plus one.
READ_TIMEOUT = 10.0
# A control read is ordinary; this bound only catches a reader left broken or wedged (speed is the bench's job).
CONTROL_TIMEOUT = 20.0


@pytest.fixture(scope="module")
def hostile_site() -> Iterator[HostileServer]:
    """The loopback server of the battery."""
    server = HostileServer()
    server.start()
    install(server)
    try:
        yield server
    finally:
        server.stop()


class _Run:
    """The reader of the battery and the browser processes it ever had."""

    def __init__(self, reader: pagewarden.AsyncReader) -> None:
        self.reader = reader
        self.pids: set[int] = set()
        self.count = 0

    def note_pids(self) -> None:
        pool = self.reader._pool
        if pool is not None:
            self.pids.update(pool.stats()["pids"])


@pytest.fixture(scope="module")
async def run(anyio_backend: str, hostile_site: HostileServer) -> AsyncIterator[_Run]:
    """One reader for the whole battery; after it closes, none of its browsers' processes may be left."""
    chromium_available()
    reader = pagewarden.AsyncReader(
        unsafe_allow_destinations=(hostile_site.host_port,),
        browser=pagewarden.BrowserConfig(external_sandbox=AS_ROOT),
    )
    state = _Run(reader)
    try:
        yield state
    finally:
        state.note_pids()
        await reader.aclose()
    assert [member for pid in state.pids for member in group_members(pid)] == []


async def _outcome(reader: pagewarden.AsyncReader, url: str, render: str, timeout: float) -> str | tuple[str, str]:
    try:
        await reader.read(url, render=render, timeout=timeout)
    except pagewarden.PagewardenError as exc:
        return (str(exc.code), exc.reason or "")
    return "ok"


async def _control(run: _Run, site: HostileServer) -> None:
    run.count += 1
    document = await run.reader.read(site.url(f"{CONTROL}?after={run.count}"), render="always",
                                     timeout=CONTROL_TIMEOUT)
    assert "ordinary article" in document.text
    run.note_pids()


@pytest.mark.timeout(600)
@pytest.mark.parametrize("case", HOSTILE, ids=[case.name for case in HOSTILE])
async def test_hostile_read_is_typed_and_the_next_read_succeeds(
    run: _Run, hostile_site: HostileServer, case: Hostile
) -> None:
    """The hostile page ends with an allowed typed outcome within its deadline; a control read then succeeds."""
    await _control(run, hostile_site)  # the browser is up and well before the hostile page
    run.count += 1
    started = time.monotonic()
    outcome = await _outcome(run.reader, hostile_site.url(f"/{case.name}?n={run.count}"), "always", READ_TIMEOUT)
    elapsed = time.monotonic() - started
    run.note_pids()
    assert outcome in case.outcomes
    assert elapsed <= READ_TIMEOUT + 1.0
    await _control(run, hostile_site)


STATIC = [case for case in HOSTILE if case.static]


@pytest.mark.parametrize("case", STATIC, ids=[case.name for case in STATIC])
async def test_static_path_names_the_fault(run: _Run, hostile_site: HostileServer, case: Hostile) -> None:
    """The static path ends the same hostile responses typed within their deadline (no browser involved)."""
    run.count += 1
    started = time.monotonic()
    outcome = await _outcome(run.reader, hostile_site.url(f"/{case.name}?n={run.count}"), "never", READ_TIMEOUT)
    assert outcome in case.static
    assert time.monotonic() - started <= READ_TIMEOUT + 1.0
