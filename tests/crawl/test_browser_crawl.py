"""Crawling apps whose links exist only after JavaScript ran, with a real Chromium."""

from __future__ import annotations

import os
import urllib.parse
from collections.abc import Callable

import pytest

from pagewarden import AsyncReader, BrowserConfig
from pagewarden.testing import StaticResolver
from tests.crawl.sites import HASH_ROUTES, PUSH_ROUTES, Router, SiteServer, hash_app, push_state_app

pytestmark = pytest.mark.browser

APPS = [
    # (app, the pages a crawl must read, as path + fragment)
    (hash_app, {"/"} | {f"/#{route}" for route in HASH_ROUTES if route != "/"}),  # "#/" is "/"
    (push_state_app, {"/"} | set(PUSH_ROUTES)),
]


@pytest.mark.anyio
@pytest.mark.parametrize(("app", "expected"), APPS)
async def test_links_found_only_after_rendering(app: Callable[[], Router], expected: set[str]) -> None:
    """Every route of a client-rendered app is read once, found through links its script drew."""
    server = SiteServer(app()).start()
    try:
        reader = AsyncReader(resolver=StaticResolver({"app.test": ["127.0.0.1"]}),
                             unsafe_allow_destinations=(f"127.0.0.1:{server.port}",),
                             browser=BrowserConfig(external_sandbox=os.geteuid() == 0))
        async with reader, reader.crawl(f"http://app.test:{server.port}/", render="auto", min_delay=0,
                                        max_pages=20, timeout=30) as run:
            pages = [page async for page in run]
    finally:
        server.stop()
    read = set()
    for page in pages:
        assert page.document is not None, page.error
        parts = urllib.parse.urlsplit(page.url)
        read.add(parts.path + (f"#{parts.fragment}" if parts.fragment else ""))
    assert read == expected
    assert len(pages) == len(expected)
    assert all(page.document is not None and page.document.fetch.method == "browser" for page in pages)
