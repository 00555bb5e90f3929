"""A real Chromium behind the pinning proxy: pages load through it, other loopback ports stay unreachable."""

from __future__ import annotations

import os

import pytest
from playwright.async_api import async_playwright

from pagewarden._browser.discovery import find_chromium
from pagewarden._egress import launch_args
from pagewarden._errors import ConfigMissing
from tests.egress.proxy_support import config_for, running_proxy
from tests.support.server import FixtureServer
from tests.support.tripwire import SocketTripwire

PAGE = """<!doctype html>
<html><head><title>proxied</title></head><body>
<p id="data">waiting</p><p id="done">no</p>
<img src="http://127.0.0.1:{canary}/img.png">
<script>
  const attempts = [
    fetch("/data.json").then(r => r.json()).then(j => {{ document.getElementById("data").textContent = j.word; }}),
    fetch("http://127.0.0.1:{canary}/direct"),
    fetch("/hop"),
    fetch("http://169.254.169.254/latest/meta-data/"),
    new Promise((resolve, reject) => {{
      const x = new XMLHttpRequest(); x.open("GET", "http://127.0.0.1:{canary}/xhr");
      x.onloadend = resolve; x.send();
    }}),
  ];
  Promise.allSettled(attempts).then(() => {{ document.getElementById("done").textContent = "yes"; }});
</script></body></html>"""


@pytest.mark.browser
@pytest.mark.anyio
async def test_chromium_reaches_only_allowed_destinations_through_the_proxy(
    socket_tripwire: SocketTripwire, fixture_server: FixtureServer
) -> None:
    """A page loads through the proxy; its requests to another loopback port, via a redirect, or to metadata fail."""
    try:
        executable = find_chromium()
    except ConfigMissing as exc:
        pytest.fail(f"{exc} (deselect with -m 'not browser')")
    with FixtureServer() as canary:
        fixture_server.add("/", headers={"Content-Type": "text/html"}, body=PAGE.format(canary=canary.port).encode())
        fixture_server.add("/data.json", headers={"Content-Type": "application/json"}, body=b'{"word": "pinned"}')
        fixture_server.redirect("/hop", canary.url("/after-redirect"))
        canary.add("/direct", headers={"Content-Type": "text/plain", "Access-Control-Allow-Origin": "*"}, body=b"leak")
        async with running_proxy(config_for(fixture_server), socket_tripwire) as proxy:
            session = proxy.new_session()
            settings = launch_args(proxy)
            async with async_playwright() as playwright:
                browser = await playwright.chromium.launch(
                    executable_path=executable.path,
                    headless=True,
                    # Chromium's sandbox cannot start as root; only then run without it.
                    chromium_sandbox=os.geteuid() != 0,
                    **settings,
                )
                try:
                    context = await browser.new_context(proxy=session.proxy_settings(), service_workers="block")
                    page = await context.new_page()
                    response = await page.goto(fixture_server.url("/"))
                    assert response is not None and response.status == 200
                    await page.wait_for_function("document.getElementById('done').textContent === 'yes'")
                    word = await page.inner_text("#data")
                    await context.close()
                finally:
                    await browser.close()
            refused = session.ledger.by_reason
            forwarded = session.requests_forwarded
        assert canary.requests == []
    assert word == "pinned"
    # The page's own document and JSON came through this context's credentials...
    assert forwarded >= 2
    assert {"/", "/data.json", "/hop"} <= {request.path for request in fixture_server.requests}
    # ...and every attempt at the canary (direct, img, XHR, redirect hop) and at
    # metadata reached the proxy and was refused there.
    assert refused.get("address_loopback", 0) >= 4
    assert refused.get("address_cloud_metadata", 0) == 1
