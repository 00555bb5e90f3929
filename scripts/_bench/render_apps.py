"""The client-rendered fixture apps read with ``render="auto"`` against the raw-Playwright floor.

The apps are the test fixtures in ``tests/browser/apps`` (one per mount style:
``#root``, a classed section, ``<body>``, a custom element with shadow roots, a
hash-routed docs site that fades its Markdown in, lazy sections loaded on
scroll), served from loopback. Per app and read:

* pagewarden: ``read(url, render="auto")``: the static fetch, guard and
  extraction find the shell, escalate, render (settle, scroll when the page has
  lazy-loading hooks, visibility, guard, extraction);
* raw floor: one browser, a new context per read, ``goto`` and a wait until the
  same text (the app's last-rendered sentence, shadow roots included) is in the
  page, scrolling a viewport per animation frame for the lazy app.

Each read has its own URL (a query the server ignores), so no cache answers.
"""

from __future__ import annotations

import os
import statistics
import time
from pathlib import Path
from typing import Any

from playwright.async_api import async_playwright

import pagewarden
from _bench.server import serve_routes
from pagewarden._browser.config import BrowserConfig

__all__ = ["APPS", "apps_auto_vs_floor"]

ROOT = Path(__file__).resolve().parents[2] / "tests" / "browser" / "apps"
TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript", ".css": "text/css",
         ".json": "application/json", ".md": "text/markdown; charset=utf-8"}
# name, path (a fragment after "#" is kept), text that exists only once the app rendered it.
APPS = (
    ("root", "/apps/root/", "Return the library copy of the tide almanac before Friday"),
    ("section", "/apps/section/", "Collect the repaired bicycle from the workshop on Elm Street"),
    ("body", "/apps/body/", "Renew the passport before the autumn trip to Lisbon"),
    ("element", "/apps/element/", "Order a replacement hinge for the garden gate"),
    ("docs", "/apps/docs/#/guide/setup", "petrol is available at the garage on Quay Street"),
    ("lazy", "/apps/lazy/", "The mud there was firm and pale"),
)
# The floor's wait: the text in the page (open shadow roots included); scrolls a viewport per poll.
_FLOOR_WAIT = """(needle) => {
  const text = (root) => {
    let out = "";
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    for (let node = walker.currentNode; node; node = walker.nextNode()) {
      if (node.nodeType === 3) out += node.nodeValue;
      else if (node.shadowRoot) out += text(node.shadowRoot);
    }
    return out;
  };
  if (text(document.documentElement).includes(needle)) return true;
  window.scrollBy(0, window.innerHeight);
  return false;
}"""


def _route(path: str) -> tuple[str, bytes] | None:
    relative = path.removeprefix("/apps/")
    if path.endswith("/"):
        relative += "index.html"
    file = (ROOT / relative).resolve()
    if ROOT not in file.parents or not file.is_file() or file.suffix not in TYPES:
        return None
    return TYPES[file.suffix], file.read_bytes()


def _url(port: int, path: str, n: int) -> str:
    base, _, fragment = path.partition("#")
    return f"http://127.0.0.1:{port}{base}?r={n}" + (f"#{fragment}" if fragment else "")


async def apps_auto_vs_floor(executable: str, reads: int = 5) -> dict[str, Any]:
    """p50 per app for both sides (after one warm-up read each), their ratio, and the escalation reasons."""
    as_root = os.geteuid() == 0
    results: dict[str, Any] = {}
    counter = 0
    with serve_routes(_route, name="bench-apps") as port:
        config = pagewarden.ReaderConfig(
            unsafe_allow_destinations=(f"127.0.0.1:{port}",),
            browser=BrowserConfig(executable=executable, external_sandbox=as_root),
        )
        async with pagewarden.AsyncReader(config) as reader, async_playwright() as playwright:
            browser = await playwright.chromium.launch(executable_path=executable, chromium_sandbox=not as_root)
            try:
                for name, path, needle in APPS:
                    warden: list[float] = []
                    floor: list[float] = []
                    reasons: set[str] = set()
                    missing = 0
                    for i in range(reads + 1):
                        counter += 1
                        started = time.perf_counter()
                        document = await reader.read(_url(port, path, counter), render="auto")
                        elapsed = time.perf_counter() - started
                        reasons.add(str(document.fetch.escalation_reason))
                        missing += needle not in document.text
                        counter += 1
                        started = time.perf_counter()
                        context = await browser.new_context()
                        try:
                            page = await context.new_page()
                            await page.goto(_url(port, path, counter), wait_until="domcontentloaded")
                            await page.wait_for_function(_FLOOR_WAIT, arg=needle, polling="raf", timeout=10_000)
                            await page.content()
                        finally:
                            await context.close()
                        floor_elapsed = time.perf_counter() - started
                        if i > 0:  # the first round warms both sides up
                            warden.append(elapsed)
                            floor.append(floor_elapsed)
                    warden_p50 = statistics.median(warden) * 1000
                    floor_p50 = statistics.median(floor) * 1000
                    results[name] = {
                        "auto_p50_ms": round(warden_p50, 1),
                        "floor_p50_ms": round(floor_p50, 1),
                        "ratio": round(warden_p50 / floor_p50, 2),
                        "escalation": sorted(reasons),
                        "text_missing": missing,
                    }
            finally:
                await browser.close()
    ratios = [row["ratio"] for row in results.values()]
    return {"reads_per_app": reads, "apps": results, "median_ratio": round(statistics.median(ratios), 2)}
