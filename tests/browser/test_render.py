"""render() with a real Chromium: client-rendered content, response checks, budgets and deadlines."""

from __future__ import annotations

import time
from pathlib import Path

import anyio
import pytest

from pagewarden._browser.pool import BrowserPool
from pagewarden._browser.render import BROWSER_LIMITATIONS, render
from pagewarden._errors import (
    NetworkError,
    ResponseTooLarge,
    Timeout,
    UnsafeURL,
    UnsupportedContentType,
    UpstreamHTTP,
)
from tests.browser.pool_support import (
    HTML,
    anyio_backend,
    browser_config,
    canary,
    chromium_available,
    contexts_after_closes,
    page,
    pool,
    reader_config,
    site,
)
from tests.support.server import FixtureServer

pytestmark = [pytest.mark.browser, pytest.mark.anyio]
__all__ = ["anyio_backend", "canary", "pool", "site"]  # fixtures used by this module

APP = page(
    "<div id=root></div><script>"
    "fetch('/api/article.json').then(r => r.json()).then(d => {"
    " const root = document.getElementById('root');"
    " root.innerHTML = '<h1>' + d.title + '</h1><p>' + d.body + '</p><p id=route>route ' + location.hash + '</p>';"
    "});</script>"
)
ARTICLE = b'{"title": "Rendered title", "body": "Text that only exists after the app fetched it."}'

STATUS_CASES = [(404, False), (429, True), (503, True)]
BUDGET_CASES = [
    # (name, body, expected reasons)
    (
        "dom_bomb",
        "<div id=b></div><script>const b = document.getElementById('b');"
        "for (let i = 0; i < 150000; i++) b.appendChild(document.createElement('i'));</script>",
        {"browser_dom_too_large", "dom_node_budget"},
    ),
    (
        "request_flood",
        "<script>for (let i = 0; i < 300; i++) fetch('/flood?i=' + i).catch(() => {});</script>",
        {"browser_request_budget"},
    ),
    (
        "byte_budget",
        # Three 2 MB responses: each is under the proxy's per-connection cap, together over the page budget.
        "<p>big</p><script>for (const i of [1, 2, 3]) fetch('/big.json?' + i).then(r => r.text()).catch(() => {});"
        "</script>",
        {"browser_byte_budget"},
    ),
]


async def test_client_rendered_app_with_hash_route(pool: BrowserPool, site: FixtureServer) -> None:
    """An app that fetches its content from its own origin is rendered, and the fragment reaches its router."""
    site.add("/app", headers=HTML, body=APP)
    site.add("/api/article.json", headers={"Content-Type": "application/json"}, body=ARTICLE)
    rendered = await render(pool, site.url("/app") + "#/articles/7")
    assert "Text that only exists after the app fetched it." in rendered.html
    assert "route #/articles/7" in rendered.html
    assert rendered.url.endswith("/app#/articles/7")
    assert rendered.final_url.endswith("/app#/articles/7")
    assert (rendered.status, rendered.content_type) == (200, "text/html")
    assert all(item in rendered.limitations for item in BROWSER_LIMITATIONS)
    assert rendered.node_count > 5
    assert {"navigation", "settle", "snapshot", "total"} <= set(rendered.timings)
    assert not any("#" in r.target for r in site.requests)


async def test_hidden_content_is_marked(pool: BrowserPool, site: FixtureServer) -> None:
    """Text hidden by an external stylesheet and by script is marked hidden in the snapshot."""
    site.add("/hide.css", headers={"Content-Type": "text/css"}, body=b".x { display: none }")
    site.add(
        "/hidden",
        headers=HTML,
        body=page(
            "<p>Visible paragraph of text.</p><p class=x>css hidden</p><p id=s>script hidden</p>"
            "<script>document.getElementById('s').style.opacity = '0';</script>",
            head="<link rel=stylesheet href=/hide.css>",
        ),
    )
    html = (await render(pool, site.url("/hidden"))).html
    assert 'class="x" data-pagewarden-hidden="display_none"' in html
    assert 'id="s" style="opacity: 0;" data-pagewarden-hidden="opacity"' in html


async def test_images_fonts_and_media_are_blocked(pool: BrowserPool, site: FixtureServer) -> None:
    """With images refused by the policy, Blink never requests them (nothing to route or count); the site sees none."""
    site.add("/img", headers=HTML, body=page("<p>pic</p><img src=/pic.png><img src=/pic2.png>"
                                             "<script>new Image().src = '/pic3.png';</script>"))
    rendered = await render(pool, site.url("/img"))
    assert "type_image" not in rendered.requests_blocked
    assert rendered.requests == 1  # the document only
    assert not {"/pic.png", "/pic2.png", "/pic3.png"} & set(site.paths)


@pytest.mark.parametrize(("status", "retryable"), STATUS_CASES)
async def test_error_status(pool: BrowserPool, site: FixtureServer, status: int, retryable: bool) -> None:
    """A non-2xx main document is UPSTREAM_HTTP with its status; 429 and 5xx are retryable."""
    site.add(f"/status{status}", status=status, headers=HTML, body=page("<p>error</p>"))
    with pytest.raises(UpstreamHTTP) as caught:
        await render(pool, site.url(f"/status{status}"))
    assert (caught.value.status, caught.value.retryable) == (status, retryable)


async def test_non_html_is_refused(pool: BrowserPool, site: FixtureServer) -> None:
    """A JSON main document is UNSUPPORTED_CONTENT_TYPE."""
    site.add("/data", headers={"Content-Type": "application/json"}, body=b'{"a": 1}')
    with pytest.raises(UnsupportedContentType) as caught:
        await render(pool, site.url("/data"))
    assert caught.value.reason == "browser_not_html"


async def test_download_is_refused(pool: BrowserPool, site: FixtureServer) -> None:
    """A main document served as an attachment is refused, never downloaded."""
    site.add("/file", headers={"Content-Type": "application/octet-stream",
                               "Content-Disposition": "attachment; filename=x.bin"}, body=b"\0" * 100)
    with pytest.raises((UnsupportedContentType, NetworkError)):
        await render(pool, site.url("/file"))


async def test_intake_refusal_launches_nothing(site: FixtureServer) -> None:
    """A private URL is UNSAFE_URL before any browser starts."""
    async with BrowserPool(browser_config(), reader_config(site)) as fresh:
        with pytest.raises(UnsafeURL):
            await render(fresh, "http://10.1.2.3/")
        assert fresh.launches == 0


async def test_redirect_to_unallowed_address_is_refused_by_the_proxy(
    pool: BrowserPool, site: FixtureServer, canary: FixtureServer
) -> None:
    """A redirect hop to a non-allowed loopback port is refused by the proxy (routing never sees hops)."""
    site.redirect("/to-canary", canary.url("/stolen"))
    with pytest.raises(UnsafeURL) as caught:
        await render(pool, site.url("/to-canary"))
    assert caught.value.stage == "browser_proxy"
    assert canary.requests == []


@pytest.mark.parametrize(("name", "body", "reasons"), BUDGET_CASES, ids=[c[0] for c in BUDGET_CASES])
async def test_budgets(pool: BrowserPool, site: FixtureServer, name: str, body: str, reasons: set[str]) -> None:
    """DOM bombs, request floods and byte floods end the read with RESPONSE_TOO_LARGE, quickly."""
    site.add(f"/{name}", headers=HTML, body=page(body))
    site.add("/big.json", headers={"Content-Type": "application/json"}, body=b"[" + b"1," * 1_000_000 + b"1]")
    started = time.monotonic()
    with pytest.raises(ResponseTooLarge) as caught:
        await render(pool, site.url(f"/{name}"))
    assert caught.value.reason in reasons
    assert time.monotonic() - started < 15
    assert await contexts_after_closes(pool) == 0


FAULTS = [
    ("infinite_loop", page("<p>spin</p><script>while (true) {}</script>"), None),
    ("never_finishes", page("<p>never</p>"), 30.0),
    ("loop_after_load", page("<p>later</p><script>setTimeout(() => { while (true) {} }, 10)</script>"), None),
]


@pytest.mark.parametrize(("name", "body", "delay"), FAULTS, ids=[f[0] for f in FAULTS])
async def test_deadline_holds(
    pool: BrowserPool, site: FixtureServer, name: str, body: bytes, delay: float | None
) -> None:
    """A stuck page cannot hold the read past the caller's deadline (+10%) and leaves no context open."""
    site.add(f"/{name}", headers=HTML, body=body, delay_before=delay)
    deadline = 2.5
    started = time.monotonic()
    with pytest.raises((TimeoutError, Timeout)), anyio.fail_after(deadline):
        await render(pool, site.url(f"/{name}"))
    assert time.monotonic() - started <= deadline * 1.1
    assert await contexts_after_closes(pool) == 0


async def test_navigation_timeout_without_caller_deadline(site: FixtureServer) -> None:
    """Without a caller deadline, the policy's navigation timeout bounds a silent server (TIMEOUT)."""
    chromium_available()
    site.add("/silent", headers=HTML, body=page("<p>x</p>"), delay_before=10.0)
    async with BrowserPool(browser_config(navigation_timeout=1.0), reader_config(site)) as quick:
        started = time.monotonic()
        with pytest.raises(Timeout) as caught:
            await render(quick, site.url("/silent"))
        assert time.monotonic() - started < 5
    assert caught.value.reason == "browser_navigation_timeout"


async def test_strict_policy_refuses_third_parties(site: FixtureServer, tmp_path: Path) -> None:
    """Under the strict policy a script from another allowed host is blocked as third_party."""
    chromium_available()
    with FixtureServer() as other:
        other.add("/lib.js", headers={"Content-Type": "text/javascript"}, body=b"document.title = 'third';")
        site.add("/strict", headers=HTML, body=page(f"<p>strict</p><script src='{other.url('/lib.js')}'></script>"))
        async with BrowserPool(browser_config(policy="strict"), reader_config(site, other)) as strict:
            rendered = await render(strict, site.url("/strict"))
        assert rendered.requests_blocked.get("third_party") == 1
        assert other.requests == []
        async with BrowserPool(browser_config(), reader_config(site, other)) as default:
            await render(default, site.url("/strict"))
        assert other.paths == ["/lib.js"]
