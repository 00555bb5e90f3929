"""Ingest of a static/client-rendered mix with a real Chromium: escalations counted, browser closed."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from typing import Any

import pytest

import pagewarden
from pagewarden import BrowserConfig
from pagewarden._ingest.robots_cache import RobotsCache
from pagewarden._ingest.runner import IngestOptions, ingest
from tests.ingest.site import build_site
from tests.reader import pages
from tests.support.server import FixtureServer

pytestmark = pytest.mark.browser


@pytest.mark.anyio
async def test_mix_of_static_and_rendered_pages(fixture_server: FixtureServer) -> None:
    """20 static and 8 client-rendered pages: one record each, the rendered ones read by the browser."""
    site = build_site(fixture_server, 20, private=2)
    fixture_server.add("/app.js", headers={"Content-Type": "text/javascript"}, body=pages.APP_SCRIPT.encode())
    fixture_server.add("/api/article.json", headers={"Content-Type": "application/json"},
                       body=pages.APP_JSON.encode())
    rendered = []
    for n in range(8):
        fixture_server.add(f"/app/{n}", headers={"Content-Type": "text/html"}, body=pages.APP_SHELL.encode())
        rendered.append(fixture_server.url(f"/app/{n}"))
    urls = site.all + rendered

    async def lines() -> AsyncIterator[str]:
        for url in urls:
            yield url + "\n"

    records: list[dict[str, Any]] = []
    reader = pagewarden.AsyncReader(
        unsafe_allow_destinations=(fixture_server.host_port,),
        browser=BrowserConfig(external_sandbox=os.geteuid() == 0),
    )
    async with reader:
        stats = await ingest(reader, lines(), records.append,
                             IngestOptions(render="auto", concurrency=4, per_host=4, min_delay=0.0, timeout=90),
                             robots=RobotsCache(reader.config))
    by_url = {record["url"]: record for record in records}
    assert len(records) == len(urls) == len(by_url)
    # (a generous per-read timeout: a loaded CI machine must not turn this into a timeout test)
    assert [by_url[url].get("code") for url in rendered] == [None] * 8
    assert all(by_url[url]["fetch"]["method"] == "browser" for url in rendered)
    assert all(by_url[url]["fetch"]["method"] == "http" for url in site.pages)
    assert stats.escalations == 8
    assert {by_url[url]["reason"] for url in site.private} == {"robots_disallowed"}
    assert reader.closed
