"""Crawl4AI driver of the render benchmark; runs in its own venv (``.bench/crawl4ai-venv``), never in pagewarden's.

Usage: ``<crawl4ai python> render_c4a_driver.py PLAN.json RESULT.json``. The
plan names the CDP endpoint of a Chromium the benchmark started, the URLs of
each batch, and optional memory checkpoints. Crawl4AI is used as its
documentation shows: ``AsyncWebCrawler(config=BrowserConfig(cdp_url=...))``,
``arun`` one URL after another and ``arun_many`` with a semaphore dispatcher
of the batch's concurrency; ``CacheMode.BYPASS`` so every read really loads
the page (the URLs differ anyway). Results (per-read seconds, wall time,
whether the Markdown holds the article's last words, errors, memory) go to
RESULT.json as JSON; stdout is left to Crawl4AI's own logging.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from crawl4ai import AsyncWebCrawler, BrowserConfig, CacheMode, CrawlerRunConfig
from crawl4ai.async_dispatcher import SemaphoreDispatcher

from _bench.render_memory import tree_memory


def _text(result: Any) -> str:
    markdown = getattr(result, "markdown", None)
    raw = getattr(markdown, "raw_markdown", None)
    return str(raw if raw is not None else markdown or "")


async def _sequential(crawler: Any, urls: list[str], run: Any, marker: str, checkpoints: dict[int, Any],
                      browser_pid: int | None) -> dict[str, Any]:
    seconds: list[float] = []
    incomplete = 0
    errors: dict[str, int] = {}
    memory: dict[str, Any] = {}
    wall_started = time.perf_counter()
    for index, url in enumerate(urls, 1):
        started = time.perf_counter()
        result = await crawler.arun(url, config=run)
        elapsed = time.perf_counter() - started
        if not getattr(result, "success", False):
            key = str(getattr(result, "error_message", "failed")).replace("\n", " ")[:300]
            errors[key] = errors.get(key, 0) + 1
        else:
            seconds.append(elapsed)
            incomplete += marker not in _text(result)
        if index in checkpoints:
            # Same pause as the pagewarden side before it samples (bench_render.MEMORY_PAUSE).
            await asyncio.sleep(1.0)
            roots = [p for p in (browser_pid,) if p] + [os.getpid()]
            memory[str(index)] = tree_memory(*roots)
    return {"concurrency": 1, "seconds": seconds, "wall": time.perf_counter() - wall_started,
            "incomplete": incomplete, "errors": errors, "memory": memory}


async def _many(crawler: Any, urls: list[str], run: Any, marker: str, concurrency: int) -> dict[str, Any]:
    dispatcher = SemaphoreDispatcher(semaphore_count=concurrency, max_session_permit=concurrency)
    started = time.perf_counter()
    results = await crawler.arun_many(urls, config=run, dispatcher=dispatcher)
    wall = time.perf_counter() - started
    seconds: list[float] = []
    incomplete = 0
    errors: dict[str, int] = {}
    for result in results:
        if not getattr(result, "success", False):
            key = str(getattr(result, "error_message", "failed")).replace("\n", " ")[:300]
            errors[key] = errors.get(key, 0) + 1
            continue
        info = getattr(result, "dispatch_result", None)
        if info is not None and info.end_time and info.start_time:
            delta = info.end_time - info.start_time
            seconds.append(delta.total_seconds() if hasattr(delta, "total_seconds") else float(delta))
        incomplete += marker not in _text(result)
    return {"concurrency": concurrency, "seconds": seconds, "wall": wall, "incomplete": incomplete,
            "errors": errors}


async def main(plan: dict[str, Any]) -> dict[str, Any]:
    browser = BrowserConfig(cdp_url=plan["cdp_url"], headless=True, verbose=False)
    run = CrawlerRunConfig(cache_mode=CacheMode.BYPASS, verbose=False)
    marker = plan["marker"]
    out: dict[str, Any] = {"batches": []}
    async with AsyncWebCrawler(config=browser) as crawler:
        for url in plan.get("warmup", []):
            await crawler.arun(url, config=run)
        for batch in plan["batches"]:
            if batch["concurrency"] == 1:
                checkpoints = {int(n): True for n in batch.get("memory_at", [])}
                out["batches"].append(await _sequential(crawler, batch["urls"], run, marker, checkpoints,
                                                        plan.get("browser_pid")))
            else:
                out["batches"].append(await _many(crawler, batch["urls"], run, marker, batch["concurrency"]))
    return out


if __name__ == "__main__":
    plan_path, result_path = Path(sys.argv[1]), Path(sys.argv[2])
    result = asyncio.run(main(json.loads(plan_path.read_text())))
    result_path.write_text(json.dumps(result))
