"""The auto controller without a browser: when it escalates, and what it keeps when it cannot."""

from __future__ import annotations

import pytest

import pagewarden
from tests.reader import pages
from tests.support.server import FixtureServer

HTML = {"Content-Type": "text/html; charset=utf-8"}
MISSING_BROWSER = pagewarden.BrowserConfig(executable="/nonexistent/chromium", external_sandbox=True)


def _reader(server: FixtureServer) -> pagewarden.AsyncReader:
    return pagewarden.AsyncReader(unsafe_allow_destinations=(server.host_port,), browser=MISSING_BROWSER)


@pytest.mark.anyio
async def test_always_without_browser_is_config_missing(fixture_server: FixtureServer) -> None:
    """render="always" with no usable browser raises CONFIG_MISSING naming the problem, and fetches nothing."""
    async with _reader(fixture_server) as reader:
        with pytest.raises(pagewarden.ConfigMissing) as caught:
            await reader.read(fixture_server.url("/app"), render="always")
    assert caught.value.reason == "chromium_path_invalid"
    assert fixture_server.paths == []


@pytest.mark.anyio
async def test_never_keeps_content_insufficient_for_a_shell(fixture_server: FixtureServer) -> None:
    """render="never" on a client-rendered shell is CONTENT_INSUFFICIENT naming the sign it saw."""
    fixture_server.add("/app", headers=HTML, body=pages.APP_SHELL.encode())
    async with _reader(fixture_server) as reader:
        with pytest.raises(pagewarden.ContentInsufficient) as caught:
            await reader.read(fixture_server.url("/app"), render="never")
    assert caught.value.reason == "client_rendered_empty_app_root"


@pytest.mark.anyio
async def test_auto_without_browser_keeps_the_original_verdict(fixture_server: FixtureServer) -> None:
    """render="auto" with no usable browser raises the static CONTENT_INSUFFICIENT, not CONFIG_MISSING."""
    fixture_server.add("/app", headers=HTML, body=pages.APP_SHELL.encode())
    async with _reader(fixture_server) as reader:
        with pytest.raises(pagewarden.ContentInsufficient) as caught:
            await reader.read(fixture_server.url("/app"), render="auto")
    assert caught.value.reason == "client_rendered_empty_app_root"


@pytest.mark.anyio
async def test_short_page_without_signs_does_not_escalate(fixture_server: FixtureServer) -> None:
    """A short page without client-rendering signs is simply too short; no browser is involved."""
    fixture_server.add("/short", headers=HTML, body=pages.SHORT.encode())
    async with _reader(fixture_server) as reader:
        with pytest.raises(pagewarden.ContentInsufficient) as caught:
            await reader.read(fixture_server.url("/short"), render="auto")
        assert reader._pool is None
    assert caught.value.reason == "too_little_text"


@pytest.mark.anyio
async def test_guard_denial_is_never_escalated(fixture_server: FixtureServer) -> None:
    """A shell whose static HTML fails the guard is denied before any rendering."""
    fixture_server.add("/app", headers=HTML, body=pages.SHELL_WITH_HIDDEN_INJECTION.encode())
    async with _reader(fixture_server) as reader:
        with pytest.raises(pagewarden.GuardDenied):
            await reader.read(fixture_server.url("/app"), render="auto")
        assert reader._pool is None


@pytest.mark.anyio
async def test_readable_static_page_never_starts_a_browser(fixture_server: FixtureServer) -> None:
    """render="auto" on a readable static article returns it from HTTP without creating a browser pool."""
    fixture_server.add("/article", headers=HTML, body=pages.ARTICLE.encode())
    async with _reader(fixture_server) as reader:
        document = await reader.read(fixture_server.url("/article"), render="auto")
        assert reader._pool is None
    assert document.fetch.method == "http"


SHORT_WITH_SCRIPT = (
    "<html><head><title>Opening hours</title></head><body><main><h1>Opening hours</h1>"
    "<p>The reading room opens at nine every weekday and closes at six; on Saturdays it closes at one.</p>"
    "<p>Bank holidays follow the Saturday hours.</p></main>"
    "<script>window.dataLayer = window.dataLayer || []; dataLayer.push({event: 'view'});</script></body></html>"
)


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["never", "auto"])
async def test_short_readable_page_with_a_script_reads_without_a_browser(
    fixture_server: FixtureServer, mode: str
) -> None:
    """A short static page that reads as it is stays a static read, although it has a script (a general sign)."""
    fixture_server.add("/hours", headers=HTML, body=SHORT_WITH_SCRIPT.encode())
    async with _reader(fixture_server) as reader:
        document = await reader.read(fixture_server.url("/hours"), render=mode)
        assert reader._pool is None
    assert document.fetch.method == "http"
    assert "closes at six" in document.text
