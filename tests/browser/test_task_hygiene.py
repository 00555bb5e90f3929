"""No strays: the suite fails on a pending task destroyed or a process left alive, and the pool leaves neither."""

from __future__ import annotations

import asyncio
import contextlib
import os
from pathlib import Path

import pytest

from pagewarden._browser.pool import BrowserPool
from pagewarden._browser.render import render
from pagewarden._errors import PagewardenError
from tests.browser.pool_support import HTML, anyio_backend, browser_config, chromium_available, page, reader_config
from tests.support.server import FixtureServer

__all__ = ["anyio_backend"]

REPO = Path(__file__).resolve().parents[2]


def test_a_pending_task_destroyed_fails_the_test(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """A task left pending when its loop is closed and collected fails the test that did it."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    pytester.makeconftest("from tests.conftest import *  # noqa: F403\n")
    pytester.makepyfile(
        test_inner="""
import asyncio
import gc

def test_leaves_a_task():
    loop = asyncio.new_event_loop()
    loop.create_task(asyncio.sleep(3600))
    loop.run_until_complete(asyncio.sleep(0))
    loop.close()
    gc.collect()
"""
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*task(s) destroyed while pending*"])


def test_a_process_left_alive_fails_the_run(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """A process a test started and never ended, even in a session of its own, fails the run and is killed."""
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    pytester.makeconftest("from tests.conftest import *  # noqa: F403\n")
    pytester.makepyfile(
        test_inner="""
import subprocess

def test_starts_and_forgets():
    subprocess.Popen(["sleep", "120"], start_new_session=True)
"""
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*leftover processes: 1 still alive after the run (now killed): sleep*"])


def _pagewarden_tasks() -> list[asyncio.Task[object]]:
    return [t for t in asyncio.all_tasks() if t.get_name().startswith("pagewarden-") and not t.done()]


@pytest.mark.browser
@pytest.mark.anyio
async def test_pool_leaves_no_task_after_hostile_reads(anyio_backend: str) -> None:
    """After floods of requests and frames and the pool's close, no task the pool or routing started is pending."""
    chromium_available()
    with FixtureServer() as site:
        site.add("/flood", headers=HTML, body=page(
            "<p>flood</p><script>for (let i = 0; i < 3000; i++) fetch('/f?' + i).catch(() => {});</script>"))
        site.add("/frames", headers=HTML, body=page(
            "<p>frames</p>" + "".join(f"<iframe src='/f?{i}'></iframe>" for i in range(200))))
        site.add("/f", headers=HTML, body=b"<p>x</p>")
        async with BrowserPool(browser_config(), reader_config(site)) as pool:
            for path in ("/flood", "/frames", "/flood"):
                with contextlib.suppress(PagewardenError):
                    await render(pool, site.url(path))
        assert _pagewarden_tasks() == []
