"""What a hostile page leaves behind: its renderer is ended, its floods and frames stop in the page, the DOM bound."""

from __future__ import annotations

import dataclasses

import pytest
from playwright.async_api import Request, Route

from pagewarden._browser.fresh import FreshContext
from pagewarden._browser.observer import MAX_FRAMES
from pagewarden._browser.pool import BrowserPool
from pagewarden._browser.render import _FRAMES_CUT, render
from pagewarden._browser.routing import PageGuard
from pagewarden._errors import ResponseTooLarge
from tests.browser.pool_support import (
    HTML,
    anyio_backend,
    browser_config,
    chromium_available,
    page,
    pool,
    reader_config,
    site,
)
from tests.support.server import FixtureServer

pytestmark = [pytest.mark.browser, pytest.mark.anyio]
__all__ = ["anyio_backend", "pool", "site"]  # fixtures used by this module

FLOODS = [
    # (name, how the page points its 400 elements at a URL)
    ("script_src", "const e = document.createElement('script'); e.src = '/flood.js?' + i;"),
    ("script_attribute", "const e = document.createElement('script'); e.setAttribute('src', '/flood.js?' + i);"),
    ("stylesheet_attribute", "const e = document.createElement('link'); e.rel = 'stylesheet';"
                             " e.setAttribute('HREF', '/flood.css?' + i);"),
]


@pytest.fixture
def stop_pages(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Records, for every context closed, whether its page's renderer was ended first."""
    seen: list[bool] = []
    original = FreshContext.close

    async def close(self: FreshContext, *, stop_page: bool = False) -> bool:
        seen.append(stop_page)
        return await original(self, stop_page=stop_page)

    monkeypatch.setattr(FreshContext, "close", close)
    return seen


@pytest.mark.parametrize("make", [f[1] for f in FLOODS], ids=[f[0] for f in FLOODS])
async def test_element_floods_stop_in_the_page(
    pool: BrowserPool, site: FixtureServer, monkeypatch: pytest.MonkeyPatch, make: str
) -> None:
    """Past the request budget, script-made script and stylesheet elements never become requests at all."""
    routed: list[str] = []
    original = PageGuard.handle_route

    async def counting(self: PageGuard, route: Route, request: Request) -> None:
        routed.append(request.url)
        await original(self, route, request)

    monkeypatch.setattr(PageGuard, "handle_route", counting)
    site.add("/flood.js", headers={"Content-Type": "text/javascript"}, body=b"void 0;")
    site.add("/flood.css", headers={"Content-Type": "text/css"}, body=b"p { margin: 0 }")
    site.add("/element_flood", headers=HTML, body=page(
        f"<p>flood</p><script>for (let i = 0; i < 400; i++) {{ {make} document.head.appendChild(e); }}</script>"
    ))
    with pytest.raises(ResponseTooLarge) as caught:
        await render(pool, site.url("/element_flood"))
    assert caught.value.reason == "browser_request_budget"
    # The document, the budget's worth of elements, and nothing of the other 300.
    assert len(routed) <= pool.policy.max_requests + 1


async def test_a_failed_read_ends_its_renderer_and_an_ordinary_one_does_not(
    pool: BrowserPool, site: FixtureServer, stop_pages: list[bool]
) -> None:
    """A read that failed has its page's renderer ended before the close; the next read is unaffected."""
    site.add("/plain", headers=HTML, body=page("<p>an ordinary page</p>"))
    site.add("/fetches", headers=HTML, body=page(
        "<p>flood</p><script>for (let i = 0; i < 500; i++) fetch('/nothing?' + i).catch(() => {});</script>"
    ))
    await render(pool, site.url("/plain"))
    with pytest.raises(ResponseTooLarge):
        await render(pool, site.url("/fetches"))
    # The failed read waited for its context's close (within its deadline) before it raised.
    assert pool.stats()["closing"] == 0
    rendered = await render(pool, site.url("/plain"))
    assert "an ordinary page" in rendered.html
    assert stop_pages[:2] == [False, True]


# (case, refused iframes in the page, whether its loading is stopped at the frame bound)
FRAME_CASES = [
    ("under_the_bound", MAX_FRAMES - 50, False),
    # Well past it: the parser's runs between two yields are long on a loaded machine.
    ("past_the_bound", MAX_FRAMES * 5, True),
]


@pytest.mark.timeout(120)
@pytest.mark.parametrize(("frames", "stopped"), [c[1:] for c in FRAME_CASES], ids=[c[0] for c in FRAME_CASES])
async def test_frames_past_the_bound_stop_the_page_loading(
    pool: BrowserPool, site: FixtureServer, frames: int, stopped: bool
) -> None:
    """Past MAX_FRAMES frames the page's loading stops: what was parsed is read, truncated, and no more frames load."""
    name = f"/frames_{frames}"
    site.add(name, headers=HTML, body=page(
        "<p>Before the frames.</p>" + "".join(f"<iframe src='/fr?{i}'></iframe>" for i in range(frames))
        + "<p>After the frames.</p>"
    ))
    rendered = await render(pool, site.url(name))
    assert "Before the frames." in rendered.html
    assert ("After the frames." in rendered.html) is not stopped
    assert rendered.truncated is stopped
    assert (_FRAMES_CUT in rendered.limitations) is stopped
    parsed = rendered.html.count("<iframe")
    refused = rendered.requests_blocked.get("subframe", 0)
    if stopped:
        # The parser yields every few frames and the stop takes effect at the next yield: a margin past the bound.
        assert MAX_FRAMES < parsed < frames, parsed
        assert 0 < refused < frames, refused
    else:
        assert parsed == refused == frames
    if stopped:
        # The read waited for its page's teardown: the next read finds no context of it still closing.
        assert pool.stats()["closing"] == 0, pool.stats()


async def test_dom_bound_fires_while_the_page_is_still_loading(site: FixtureServer) -> None:
    """A DOM past the bound before DOMContentLoaded (a script still loading after it) is DOM-too-large, not TIMEOUT."""
    chromium_available()
    site.add("/never.js", headers={"Content-Type": "text/javascript"}, body=b"void 0;", delay_before=30.0)
    site.add("/early_bomb", headers=HTML, body=page(
        "<div id=b></div><script>const b = document.getElementById('b');"
        "for (let i = 0; i < 3000; i++) b.appendChild(document.createElement('i'));</script>"
        "<script src='/never.js'></script><p>never parsed</p>"
    ))
    config = browser_config(navigation_timeout=5.0)
    async with BrowserPool(config, reader_config(site)) as small:
        small.policy = dataclasses.replace(small.policy, max_dom_nodes=1000)
        with pytest.raises(ResponseTooLarge) as caught:
            await render(small, site.url("/early_bomb"))
    assert caught.value.reason == "browser_dom_too_large"


# (case, a script that makes frames past the bound by other means than markup)
SCRIPT_FRAMES = [
    ("loop", "for (let i = 0; i < 1000; i++) { const f = document.createElement('iframe'); f.src = '/fr?' + i;"
             " document.body.appendChild(f); }"),
    ("timers", "let n = 0; function more() { for (let i = 0; i < 50; i++) { const f = document.createElement("
               "'iframe'); f.src = '/fr?' + (n++); document.body.appendChild(f); } if (n < 1000) setTimeout(more, 0);"
               " } more();"),
    ("about_blank", "for (let i = 0; i < 1000; i++) document.body.appendChild(document.createElement('iframe'));"),
    ("srcdoc", "for (let i = 0; i < 1000; i++) { const f = document.createElement('iframe');"
               " f.srcdoc = '<p>x</p>'; document.body.appendChild(f); }"),
    # Each srcdoc frame makes three like itself: the main document never holds more than one frame.
    ("nested", "window.__src = '<p>n</p><script>for (let i = 0; i < 3; i++) {"
               " const f = document.createElement(\"iframe\"); f.srcdoc = top.__src;"
               " document.body.appendChild(f); }<' + '/script>'; const f = document.createElement('iframe');"
               " f.srcdoc = window.__src; document.body.appendChild(f);"),
]


@pytest.fixture
def script_stops(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Records the outcome of every stop of a page's scripts at the frame bound."""
    seen: list[bool] = []
    original = FreshContext.stop_scripts

    async def stop_scripts(self: FreshContext, *, timeout: float = 1.0) -> bool:
        stopped = await original(self, timeout=timeout)
        seen.append(stopped)
        return stopped

    monkeypatch.setattr(FreshContext, "stop_scripts", stop_scripts)
    return seen


@pytest.mark.timeout(120)
@pytest.mark.parametrize("script", [c[1] for c in SCRIPT_FRAMES], ids=[c[0] for c in SCRIPT_FRAMES])
async def test_frames_made_by_scripts_stop_the_page_at_the_bound(
    pool: BrowserPool, site: FixtureServer, script_stops: list[bool], script: str
) -> None:
    """Frames made by script (loop, timers, about:blank, srcdoc, nested) stop the page at the bound; read truncated."""
    site.add("/fr", headers=HTML, body=page("<p>a frame</p>"))
    site.add("/script_frames", headers=HTML, body=page(f"<p>Before the frames.</p><script>{script}</script>"))
    rendered = await render(pool, site.url("/script_frames"))
    assert "Before the frames." in rendered.html
    assert rendered.truncated
    assert _FRAMES_CUT in rendered.limitations
    # The browser counted the frames and the page took the stop: its scripts no longer run.
    assert True in script_stops
    # The read waited for its page's teardown.
    assert pool.stats()["closing"] == 0, pool.stats()


# (case, a script making frames in one call or by markup, the iframes the page may hold after it, truncated)
MARKUP_FRAMES = [
    # Under the bound nothing is refused, whichever way the frames are made.
    ("loop_under_the_bound", "for (let i = 0; i < 150; i++) document.body.appendChild(document.createElement("
                             "'iframe'));", 150, False),
    ("inner_html_under_the_bound", "document.getElementById('d').innerHTML = '<iframe></iframe>'.repeat(150);",
     150, False),
    # One assignment of 1,000 frames, which no script termination interrupts, is refused whole.
    ("inner_html", "document.getElementById('d').innerHTML = '<iframe></iframe>'.repeat(1000);", 0, True),
    ("insert_adjacent_html", "document.body.insertAdjacentHTML('beforeend', '<IFRAME></IFRAME>'.repeat(1000));",
     0, True),
    # A fragment of 1,000 frames built off the page and inserted in one call: refused whole when it joins the page.
    ("fragment", "const f = document.createDocumentFragment(); for (let i = 0; i < 1000; i++)"
                 " f.appendChild(document.createElement('iframe')); document.body.appendChild(f);", 0, True),
    # A page's own frames below the bound, built off the page: all kept.
    ("subtree_under_the_bound", "const d = document.createElement('div'); for (let i = 0; i < 150; i++)"
                                " d.appendChild(document.createElement('iframe')); document.body.append(d);",
     150, False),
    # document.write in a loop: the parser's frames stop one past the bound.
    ("document_write", "for (let i = 0; i < 1000; i++) document.write('<iframe></iframe>');", MAX_FRAMES + 1, True),
]


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("script", "held", "truncated"), [c[1:] for c in MARKUP_FRAMES], ids=[c[0] for c in MARKUP_FRAMES]
)
async def test_frames_past_the_bound_are_refused_in_the_page(
    pool: BrowserPool, site: FixtureServer, script: str, held: int, truncated: bool
) -> None:
    """Past the bound, frame elements and frame markup are refused in the page (one big assignment whole)."""
    site.add("/markup_frames", headers=HTML, body=page(
        f"<p>Before the frames.</p><div id=d></div><script>{script}</script><p>After the script.</p>"
    ))
    rendered = await render(pool, site.url("/markup_frames"))
    assert "Before the frames." in rendered.html
    assert rendered.html.count("<iframe") == held
    assert rendered.truncated is truncated
    assert (_FRAMES_CUT in rendered.limitations) is truncated
