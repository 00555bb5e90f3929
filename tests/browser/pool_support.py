"""Shared helpers and fixtures of the browser-pool tests (pool, render, attacks, leaks, doctor).

Import the fixtures you use into the test module (``from tests.browser.pool_support import site, ...``);
pytest then finds them there. Kept out of a ``conftest.py`` because other engineers' browser tests share
this folder and need none of it.

* ``site``: a module-scoped loopback :class:`FixtureServer` the pool may reach (explicit allowance).
* ``canary``: a second module-scoped server on another port that nothing allows; every attack test
  asserts it recorded zero requests.
* ``pool``: a module-scoped :class:`BrowserPool` allowing ``site`` only.

As root, pools run with ``external_sandbox=True`` (Chromium's sandbox cannot start as root); the one
sandboxed launch is proven by ``test_sandbox.py`` under an unprivileged user.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from typing import Any

import anyio
import pytest

from pagewarden._browser.config import BrowserConfig
from pagewarden._browser.discovery import find_chromium
from pagewarden._browser.pool import BrowserPool
from pagewarden._browser.processes import group_members
from pagewarden._config import ReaderConfig
from pagewarden._errors import ConfigMissing
from tests.support.server import FixtureServer

__all__ = [
    "HTML",
    "anyio_backend",
    "browser_config",
    "canary",
    "chromium_available",
    "page",
    "pool",
    "pool_processes",
    "reader_config",
    "site",
]

HTML = {"Content-Type": "text/html; charset=utf-8"}
AS_ROOT = os.geteuid() == 0


def page(body: str, head: str = "") -> bytes:
    """A small HTML document."""
    return f"<!doctype html><html><head><title>t</title>{head}</head><body>{body}</body></html>".encode()


def browser_config(**changes: Any) -> BrowserConfig:
    """A pool config for tests: no sandbox as root, otherwise the defaults."""
    return BrowserConfig(external_sandbox=AS_ROOT, **changes)


def reader_config(*servers: FixtureServer, **changes: Any) -> ReaderConfig:
    """A reader config allowing exactly ``servers``."""
    return ReaderConfig(unsafe_allow_destinations=tuple(s.host_port for s in servers), **changes)


def chromium_available() -> None:
    """Fail (not skip) when no Chromium is installed: browser tests are deselected with -m 'not browser'."""
    try:
        find_chromium()
    except ConfigMissing as exc:
        pytest.fail(f"{exc} (deselect with -m 'not browser')")


async def contexts_after_closes(pool: BrowserPool, within: float = 5.0) -> int:
    """The pool's read contexts once the background closes of finished reads are done (bounded wait)."""
    with anyio.fail_after(within):
        while pool.stats()["closing"]:  # noqa: ASYNC110 - polling state that has no event
            await anyio.sleep(0.02)
    return int(pool.stats()["contexts"])


def pool_processes(pool: BrowserPool, pids: list[int]) -> list[int]:
    """Live processes left in the process groups of the browsers ``pids`` (ours only)."""
    return [member for pid in pids for member in group_members(pid)]


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    """Module scope, so module-scoped async fixtures (one pool per module) work."""
    return "asyncio"


@pytest.fixture(scope="module")
def site() -> Iterator[FixtureServer]:
    """The allowed loopback server."""
    server = FixtureServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def canary() -> Iterator[FixtureServer]:
    """A loopback server nothing allows; it must never see a request."""
    server = FixtureServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
async def pool(anyio_backend: str, site: FixtureServer) -> AsyncIterator[BrowserPool]:
    """One pool for the module, allowing ``site`` only."""
    chromium_available()
    async with BrowserPool(browser_config(), reader_config(site)) as shared:
        yield shared
