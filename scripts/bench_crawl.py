"""Crawl benchmark: ``pagewarden crawl``'s engine against ``ingest`` given the same URL list.

Passes, each timed from the start to the last page (robots.txt respected,
``render="auto"``, no minimum delay, per-host limit = concurrency, document
cache off, in this one process, alternating so load drifts hit both sides):

* ``docs``: the test suite's documentation site (``tests/crawl/sites.py``:
  336 readable pages in 10 sections, a sitemap index with a gzip sitemap, 4
  pages disallowed by robots.txt), crawled from ``/``, at each
  ``--concurrency`` (default 1 and 4); then ``ingest`` reads the URL list the
  crawl produced (the same pages, the same failures). The crawl's overhead is
  ``crawl seconds / ingest seconds - 1``: sitemaps, link discovery, canonical
  form, dedup and the journal (kept, as the CLI keeps it).
* ``rendered``: a hash-routed app of ``--routes`` routes whose links exist only
  after rendering, crawled with one browser (concurrency 2).
* ``ray``: the docs site crawled with reads on a local Ray runtime with
  ``--ray-actors`` actors (frontier in this process); the time includes
  starting Ray, the actors and their readers. Skipped without the ray extra.

The best of ``--rounds`` rounds (default 4, alternating which side runs first) is reported for each docs pass.

Usage: ``scripts/bench crawl [--concurrency 1,4] [--rounds N] [--routes N]
[--passes docs,rendered,ray] [--ray-actors N] [--json]``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import anyio  # noqa: E402
from tests.crawl.sites import SiteServer, docs_site, hash_app  # noqa: E402


def _reader(port: int, **options: Any) -> Any:
    import pagewarden

    return pagewarden.AsyncReader(
        unsafe_allow_destinations=(f"127.0.0.1:{port}",),
        cache=pagewarden.CacheConfig(document_ttl=0, search_ttl=0),
        browser=pagewarden.BrowserConfig(external_sandbox=os.geteuid() == 0, concurrency=2),
        **options,
    )


async def _crawl(port: int, start: str, concurrency: int, journal: str | None
                 ) -> tuple[float, list[str], int, float]:
    from pagewarden._crawl.api import page_record
    from pagewarden._crawl.crawler import Crawler, CrawlOptions, local_read
    from pagewarden._ingest.robots_cache import RobotsCache

    urls: list[str] = []
    ok = 0
    async with _reader(port) as reader:
        options = CrawlOptions(max_pages=10_000, max_depth=10, concurrency=concurrency, per_host=concurrency,
                               min_delay=0, render="auto")
        crawler = Crawler(reader.config, start, options, local_read(reader, options),
                          robots=RobotsCache(reader.config), journal=journal)

        async def emit(page: Any, outcome: Any) -> None:
            nonlocal ok
            json.dumps(page_record(page, outcome))  # the CLI's record and serialisation
            urls.append(page.url)
            ok += outcome.ok

        started, cpu = time.perf_counter(), time.process_time()
        try:
            await crawler.run(emit)
        finally:
            crawler.close()
        return time.perf_counter() - started, urls, ok, time.process_time() - cpu


async def _ingest(port: int, urls: list[str], concurrency: int) -> tuple[float, int, float]:
    from pagewarden._ingest.robots_cache import RobotsCache
    from pagewarden._ingest.runner import IngestOptions, ingest

    async def lines() -> Any:
        for url in urls:
            yield url + "\n"

    records: list[dict[str, Any]] = []

    def sink(record: dict[str, Any]) -> None:
        json.dumps(record)  # the CLI's serialisation, as on the crawl side
        records.append(record)

    async with _reader(port) as reader:
        started, cpu = time.perf_counter(), time.process_time()
        await ingest(reader, lines(), sink,
                     IngestOptions(render="auto", concurrency=concurrency, per_host=concurrency, min_delay=0),
                     robots=RobotsCache(reader.config))
        ok = sum(bool(record["ok"]) for record in records)
        return time.perf_counter() - started, ok, time.process_time() - cpu


def _docs(concurrency: int, rounds: int) -> dict[str, Any]:
    router, _ = docs_site()
    server = SiteServer(router).start()
    start = f"http://127.0.0.1:{server.port}/"
    best_crawl = best_ingest = best_crawl_cpu = best_ingest_cpu = float("inf")
    pages = ok = 0
    try:
        with tempfile.TemporaryDirectory() as workdir:
            urls: list[str] = []
            for round_number in range(rounds):
                journal = str(Path(workdir) / f"journal-{concurrency}-{round_number}")
                # Alternate which side goes first, so warm-up and load drift hit both.
                if round_number % 2 and urls:
                    ingest_seconds, ingest_ok, ingest_cpu = anyio.run(_ingest, server.port, urls, concurrency)
                    seconds, urls, ok, cpu = anyio.run(_crawl, server.port, start, concurrency, journal)
                else:
                    seconds, urls, ok, cpu = anyio.run(_crawl, server.port, start, concurrency, journal)
                    ingest_seconds, ingest_ok, ingest_cpu = anyio.run(_ingest, server.port, urls, concurrency)
                best_crawl, best_crawl_cpu = min(best_crawl, seconds), min(best_crawl_cpu, cpu)
                best_ingest, best_ingest_cpu = min(best_ingest, ingest_seconds), min(best_ingest_cpu, ingest_cpu)
                pages = len(urls)
                if ingest_ok != ok:
                    raise SystemExit(f"bench: crawl read {ok} pages, ingest {ingest_ok}")
    finally:
        server.stop()
    return {
        "pass": "docs", "concurrency": concurrency, "pages": pages, "ok": ok,
        "crawl_seconds": round(best_crawl, 3), "ingest_seconds": round(best_ingest, 3),
        "crawl_pages_per_second": round(pages / best_crawl, 1),
        "ingest_pages_per_second": round(pages / best_ingest, 1),
        "crawl_overhead": round(best_crawl / best_ingest - 1, 3),
        "crawl_cpu_seconds": round(best_crawl_cpu, 3), "ingest_cpu_seconds": round(best_ingest_cpu, 3),
        "crawl_cpu_overhead": round(best_crawl_cpu / best_ingest_cpu - 1, 3),
    }


def _rendered(routes: int) -> dict[str, Any]:
    server = SiteServer(hash_app([f"/guide/page-{n}" for n in range(routes)])).start()
    try:
        seconds, urls, ok, _ = anyio.run(_crawl, server.port, f"http://127.0.0.1:{server.port}/", 2, None)
    finally:
        server.stop()
    return {"pass": "rendered", "concurrency": 2, "pages": len(urls), "ok": ok, "crawl_seconds": round(seconds, 3),
            "crawl_pages_per_second": round(len(urls) / seconds, 2)}


def _ray(actors: int) -> dict[str, Any]:
    import ray

    from pagewarden._apps.ray.crawl import ray_read
    from pagewarden._crawl.crawler import Crawler, CrawlOptions
    from pagewarden._ingest.robots_cache import RobotsCache
    from pagewarden._reader import AsyncReader

    router, _ = docs_site()
    server = SiteServer(router).start()
    start = f"http://127.0.0.1:{server.port}/"
    options = CrawlOptions(max_pages=10_000, max_depth=10, concurrency=4 * actors, per_host=4 * actors,
                           min_delay=0, render="auto")
    started = time.perf_counter()
    ray.init(num_cpus=actors, include_dashboard=False, log_to_driver=False, configure_logging=False)
    pages = ok = 0
    try:
        read, close = ray_read("local", {"unsafe_allow_destinations": [f"127.0.0.1:{server.port}"],
                                         "cache": {"document_ttl": 0, "search_ttl": 0}},
                               actors=actors, concurrency_per_actor=4, render="auto",
                               requested_use="answer_with_citation")
        config = AsyncReader(unsafe_allow_destinations=(f"127.0.0.1:{server.port}",)).config

        async def run() -> None:
            nonlocal pages, ok
            crawler = Crawler(config, start, options, read, robots=RobotsCache(config))

            async def emit(page: Any, outcome: Any) -> None:
                nonlocal pages, ok
                pages += 1
                ok += outcome.ok

            await crawler.run(emit)

        try:
            anyio.run(run)
        finally:
            close()
    finally:
        seconds = time.perf_counter() - started
        ray.shutdown()
        server.stop()
    return {"pass": "ray", "actors": actors, "pages": pages, "ok": ok, "crawl_seconds": round(seconds, 3),
            "crawl_pages_per_second": round(pages / seconds, 1)}


def main() -> int:
    """Run the benchmark and print a table (or JSON)."""
    parser = argparse.ArgumentParser(prog="scripts/bench crawl")
    parser.add_argument("--concurrency", default="1,4")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--routes", type=int, default=30)
    parser.add_argument("--passes", default="docs,rendered,ray")
    parser.add_argument("--ray-actors", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    passes = set(args.passes.split(","))
    results: list[dict[str, Any]] = []

    def show(result: dict[str, Any], line: str) -> None:
        results.append(result)
        if not args.json:
            print(line, flush=True)

    if "docs" in passes:
        for concurrency in (int(value) for value in args.concurrency.split(",")):
            r = _docs(concurrency, args.rounds)
            show(r, f"    docs  concurrency {concurrency}: {r['pages']} pages ({r['ok']} ok)  crawl "
                    f"{r['crawl_pages_per_second']:.1f} pages/s, ingest of the same URLs "
                    f"{r['ingest_pages_per_second']:.1f} pages/s, crawl overhead {r['crawl_overhead']:+.1%} "
                    f"(CPU {r['crawl_cpu_seconds']:.2f} s vs {r['ingest_cpu_seconds']:.2f} s, "
                    f"{r['crawl_cpu_overhead']:+.1%})")
    if "rendered" in passes:
        r = _rendered(args.routes)
        show(r, f"rendered  hash-routed app: {r['pages']} pages ({r['ok']} ok)  "
                f"{r['crawl_pages_per_second']:.2f} pages/s in {r['crawl_seconds']:.1f} s")
    if "ray" in passes:
        try:
            import ray  # noqa: F401
        except ImportError:
            print("     ray  skipped: the ray extra is not installed", flush=True)
        else:
            r = _ray(args.ray_actors)
            show(r, f"     ray  {r['actors']} actors: {r['pages']} pages ({r['ok']} ok)  "
                    f"{r['crawl_pages_per_second']:.1f} pages/s in {r['crawl_seconds']:.1f} s (Ray start included)")
    if args.json:
        print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
