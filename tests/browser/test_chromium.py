"""The discovered Chromium really launches under Playwright and renders a page."""

from __future__ import annotations

import os

import pytest
from playwright.async_api import async_playwright

from pagewarden._browser.discovery import find_chromium
from pagewarden._errors import ConfigMissing

PAGE = """<!doctype html>
<html><head><title>pagewarden smoke</title></head>
<body><h1 id="title">pagewarden</h1><p id="sum"></p>
<script>document.getElementById("sum").textContent = String(6 * 7);</script>
</body></html>"""


@pytest.mark.browser
@pytest.mark.anyio
async def test_discovered_chromium_renders_a_page() -> None:
    """The Chromium found by discovery launches headless and runs a page's script (no network)."""
    try:
        executable = find_chromium()
    except ConfigMissing as exc:
        pytest.fail(f"{exc} (deselect with -m 'not browser')")
    async with async_playwright() as playwright:
        # Chromium's sandbox cannot start as root; only then run without it.
        # The browser pool (issue 4) replaces this with an explicit external_sandbox setting.
        browser = await playwright.chromium.launch(
            executable_path=executable.path, headless=True, chromium_sandbox=os.geteuid() != 0
        )
        try:
            assert browser.version.split(".")[0].isdigit()
            page = await browser.new_page()
            await page.set_content(PAGE)
            assert await page.title() == "pagewarden smoke"
            assert await page.inner_text("#title") == "pagewarden"
            assert await page.inner_text("#sum") == "42"
        finally:
            await browser.close()
