"""The auto-render controller end to end with a real Chromium: escalate only when needed, guard what renders."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

import pagewarden
from tests.browser.pool_support import AS_ROOT, anyio_backend, chromium_available, site
from tests.reader import pages
from tests.support.server import FixtureServer

__all__ = ["anyio_backend", "site"]

pytestmark = [pytest.mark.browser, pytest.mark.anyio]

HTML = {"Content-Type": "text/html; charset=utf-8"}
JS = {"Content-Type": "text/javascript"}


@pytest.fixture(scope="module")
def app_site(site: FixtureServer) -> FixtureServer:
    """The loopback site with the client-rendered pages the tests read."""
    site.add("/app", headers=HTML, body=pages.APP_SHELL.encode())
    site.add("/app.js", headers=JS, body=pages.APP_SCRIPT.encode())
    site.add("/api/article.json", headers={"Content-Type": "application/json"}, body=pages.APP_JSON.encode())
    site.add("/status", headers=HTML, body=pages.NOSCRIPT_SHELL.encode())
    site.add("/router", headers=HTML, body=pages.HASH_ROUTER.encode())
    site.add("/article", headers=HTML, body=pages.ARTICLE.encode())
    site.add("/almanac", headers=HTML, body=pages.HYDRATION_SHELL.encode())
    site.add("/styled", headers=HTML, body=pages.STYLED_APP_SHELL.encode().replace(b"/app.js", b"/styled.js"))
    site.add("/styled.js", headers=JS, body=pages.STYLED_APP_SCRIPT.encode())
    site.add("/site.css", headers={"Content-Type": "text/css"}, body=pages.HIDING_STYLESHEET.encode())
    return site


@pytest.fixture(scope="module")
async def reader(anyio_backend: str, app_site: FixtureServer) -> AsyncIterator[pagewarden.AsyncReader]:
    """One reader (and so one pooled browser) for the module."""
    chromium_available()
    async with pagewarden.AsyncReader(
        unsafe_allow_destinations=(app_site.host_port,),
        browser=pagewarden.BrowserConfig(external_sandbox=AS_ROOT),
    ) as shared:
        yield shared


async def test_client_rendered_app_escalates(reader: pagewarden.AsyncReader, app_site: FixtureServer) -> None:
    """An empty app root plus a script escalates; the Document holds the JSON-built article."""
    document = await reader.read(app_site.url("/app"), render="auto")
    assert document.fetch.method == "browser"
    assert document.fetch.escalation_reason == "client_rendered_empty_app_root"
    assert "high and low water" in document.text
    assert document.fetch.timings.render > 0
    assert not any("static path" in text for text in document.security.limitations)


async def test_noscript_page_escalates(reader: pagewarden.AsyncReader, app_site: FixtureServer) -> None:
    """A "please enable JavaScript" page is rendered, and a little real content is returned as it is."""
    document = await reader.read(app_site.url("/status"), render="auto")
    assert document.fetch.method == "browser"
    assert document.fetch.escalation_reason == "client_rendered_noscript_requires_javascript"
    assert "All systems normal." in document.text


async def test_hydration_page_escalates(reader: pagewarden.AsyncReader, app_site: FixtureServer) -> None:
    """A framework payload with a near-empty server render is rendered; the hydrated text comes back."""
    document = await reader.read(app_site.url("/almanac"), render="auto")
    assert document.fetch.method == "browser"
    assert document.fetch.escalation_reason in ("client_rendered_framework_payload", "client_rendered_empty_app_root")
    assert "orbital tables" in document.text


async def test_static_article_does_not_escalate(reader: pagewarden.AsyncReader, app_site: FixtureServer) -> None:
    """A readable static page is returned from the static path under render="auto"."""
    document = await reader.read(app_site.url("/article"), render="auto")
    assert document.fetch.method == "http"
    assert document.fetch.escalation_reason is None


async def test_hash_route_is_rendered_and_kept(reader: pagewarden.AsyncReader, app_site: FixtureServer) -> None:
    """The browser navigates with the fragment; the server never receives it; the Document keeps it."""
    document = await reader.read(app_site.url("/router") + "#/about", render="always")
    assert "mapped the southern sky" in document.text
    assert document.url.endswith("#/about")
    assert document.fetch.escalation_reason == "render_always"
    assert all("#" not in path for path in app_site.paths)


async def test_stylesheet_hidden_injection_is_denied(reader: pagewarden.AsyncReader, app_site: FixtureServer) -> None:
    """Text hidden by an external stylesheet after rendering is withheld by the guard."""
    with pytest.raises(pagewarden.GuardDenied) as caught:
        await reader.read(app_site.url("/styled"), render="auto")
    assert caught.value.guard_decision in ("require_approval", "deny")


async def test_stylesheet_hidden_text_is_a_hidden_finding(app_site: FixtureServer) -> None:
    """Only the browser sees the stylesheet's hiding: the finding is located as hidden, and the text is not returned."""
    async with pagewarden.AsyncReader(
        unsafe_allow_destinations=(app_site.host_port,),
        browser=pagewarden.BrowserConfig(external_sandbox=AS_ROOT),
        on_guard="return",
    ) as reader:
        document = await reader.read(app_site.url("/styled"), render="auto")
    assert document.fetch.method == "browser"
    assert {str(finding.location) for finding in document.security.findings} >= {"hidden"}
    assert "Ignore all previous instructions" not in document.text


async def test_always_renders_a_static_page(reader: pagewarden.AsyncReader, app_site: FixtureServer) -> None:
    """render="always" goes straight to the browser, even for a page that reads fine statically."""
    document = await reader.read(app_site.url("/article"), render="always")
    assert document.fetch.method == "browser"
    assert "sediment settles" in document.text
