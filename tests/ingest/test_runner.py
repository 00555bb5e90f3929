"""The batch runner: one record per input, robots, resume after cancellation, politeness, bounded memory."""

from __future__ import annotations

import itertools
import json
import tracemalloc
from collections import Counter
from collections.abc import AsyncIterator, Iterable
from pathlib import Path
from typing import Any

import anyio
import pytest

import pagewarden
from pagewarden._ingest.files import JsonlSink, load_done_urls
from pagewarden._ingest.robots_cache import RobotsCache
from pagewarden._ingest.runner import IngestOptions, IngestStats, ingest
from pagewarden.testing import StaticResolver
from tests.ingest.fakes import FakeReader
from tests.ingest.site import build_site
from tests.support.server import FixtureServer

FAST = IngestOptions(render="never", concurrency=8, per_host=8, min_delay=0.0)


async def _lines(urls: Iterable[str]) -> AsyncIterator[str]:
    for url in urls:
        yield url + "\n"


def _reader(server: FixtureServer, **options: Any) -> pagewarden.AsyncReader:
    return pagewarden.AsyncReader(unsafe_allow_destinations=(server.host_port,), **options)


@pytest.mark.anyio
async def test_every_input_yields_one_record_and_robots_hold(fixture_server: FixtureServer) -> None:
    """300 loopback inputs (static, 404, 500, robots-disallowed) give exactly one record each, with the right codes."""
    site = build_site(fixture_server, 240, private=20, missing=20, broken=20)
    records: list[dict[str, Any]] = []
    async with _reader(fixture_server) as reader:
        stats = await ingest(reader, _lines(site.all), records.append, FAST, robots=RobotsCache(reader.config))
    assert sorted(record["url"] for record in records) == sorted(site.all)
    by_url = {record["url"]: record for record in records}
    assert all(by_url[url]["ok"] for url in site.pages)
    assert {(by_url[url]["code"], by_url[url]["reason"]) for url in site.private} == {
        ("UNSAFE_URL", "robots_disallowed")
    }
    assert {by_url[url]["reason"] for url in site.missing + site.broken} == {"http_404", "http_500"}
    assert not any(path.startswith("/private/") for path in fixture_server.paths)
    assert fixture_server.paths.count("/robots.txt") == 1
    assert (stats.done, stats.ok, stats.failures) == (300, 240, Counter({"UNSAFE_URL": 20, "UPSTREAM_HTTP": 40}))


@pytest.mark.anyio
async def test_robots_ignored_when_no_cache_is_given(fixture_server: FixtureServer) -> None:
    """Without a RobotsCache (--robots ignore) disallowed paths are read and robots.txt is never fetched."""
    site = build_site(fixture_server, 2, private=3)
    records: list[dict[str, Any]] = []
    async with _reader(fixture_server) as reader:
        await ingest(reader, _lines(site.all), records.append, FAST)
    assert all(record["ok"] for record in records) and len(records) == 5
    assert "/robots.txt" not in fixture_server.paths


@pytest.mark.anyio
async def test_cancel_then_resume_has_no_duplicates_and_no_gaps(fixture_server: FixtureServer, tmp_path: Path) -> None:
    """A run cancelled after 50 pages, then resumed from its output, covers every input exactly once."""
    site = build_site(fixture_server, 200, private=10, missing=10)
    out = tmp_path / "out.jsonl"
    sink = JsonlSink(str(out), append=True)
    options = IngestOptions(render="never", concurrency=4, per_host=4, min_delay=0.0)

    def stop_after_50(record: dict[str, Any]) -> None:
        sink.write(record)
        if sink.written >= 50:
            scope.cancel()

    async with _reader(fixture_server) as reader:
        with anyio.CancelScope() as scope:
            await ingest(reader, _lines(site.all), stop_after_50, options, robots=RobotsCache(reader.config))
        first = sink.written
        assert 50 <= first < len(site.all)
        done = load_done_urls(str(out))
        assert len(done) == first
        stats = await ingest(reader, _lines(site.all), sink.write, options, robots=RobotsCache(reader.config),
                             skip=done)
    sink.close()
    urls = [json.loads(line)["url"] for line in out.read_text().splitlines()]
    assert stats.skipped == first
    assert len(urls) == len(set(urls))
    assert sorted(urls) == sorted(site.all)


@pytest.mark.anyio
async def test_per_host_limits_and_spacing() -> None:
    """per_host caps each host's concurrent reads and min_delay spaces each host's request starts."""
    hosts = [f"h{n}.example" for n in range(3)]
    urls = [f"https://{host}/p/{n}" for n in range(8) for host in hosts]
    reader = FakeReader(delay=0.03)
    options = IngestOptions(render="never", concurrency=6, per_host=2, min_delay=0.02)
    stats = await ingest(reader, _lines(urls), lambda record: None, options)  # type: ignore[arg-type]
    assert stats.done == len(urls)
    assert max(reader.peak.values()) == 2
    assert reader.peak_total > 2  # hosts did run in parallel with each other
    for host in hosts:
        starts = reader.starts[host]
        gaps = [later - earlier for earlier, later in itertools.pairwise(starts)]
        assert min(gaps) >= 0.019


@pytest.mark.anyio
async def test_hosts_resolved_separately_each_get_robots(fixture_server: FixtureServer) -> None:
    """Three host names on one loopback server: robots.txt is fetched once per host, rules apply on each."""
    hosts = ["a.example", "b.example", "c.example"]
    resolver = StaticResolver({host: ["127.0.0.1"] for host in hosts})
    urls: list[str] = []
    for host in hosts:
        site = build_site(fixture_server, 5, private=2, host=host)
        urls += site.all
    records: list[dict[str, Any]] = []
    async with _reader(fixture_server, resolver=resolver) as reader:
        await ingest(reader, _lines(urls), records.append, IngestOptions(render="never", per_host=2, min_delay=0.0),
                     robots=RobotsCache(reader.config))
    assert fixture_server.paths.count("/robots.txt") == 3
    assert Counter(record.get("reason") for record in records) == Counter({None: 15, "robots_disallowed": 6})


@pytest.mark.anyio
async def test_input_queue_bound_is_respected() -> None:
    """The producer never reads more than queue_size + concurrency inputs ahead of the finished ones."""
    finished = 0
    ahead = 0

    async def lines() -> AsyncIterator[str]:
        nonlocal ahead
        for n in range(2_000):
            ahead = max(ahead, n - finished)
            yield f"https://h{n % 7}.example/{n}\n"

    def sink(record: dict[str, Any]) -> None:
        nonlocal finished
        finished += 1

    options = IngestOptions(render="never", concurrency=4, per_host=4, min_delay=0.0, queue_size=8)
    stats = await ingest(FakeReader(), lines(), sink, options)  # type: ignore[arg-type]
    assert finished == 2_000
    assert stats.queued_peak <= 8
    assert ahead <= 8 + 4 + 1


@pytest.mark.anyio
async def test_memory_stays_bounded_over_2000_pages(tmp_path: Path) -> None:
    """tracemalloc peak over 2,000 inputs written to a file stays under 3 MB (it does not grow with the input)."""
    urls = (f"https://h{n % 50}.example/page/{n}" for n in range(2_000))
    sink = JsonlSink(str(tmp_path / "out.jsonl"), append=True)
    tracemalloc.start()
    try:
        stats = await ingest(FakeReader(), _lines(urls), sink.write, IngestOptions(render="never", min_delay=0.0))  # type: ignore[arg-type]
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        sink.close()
    assert stats.done == 2_000
    assert peak < 3_000_000


@pytest.mark.anyio
async def test_max_pages_and_escalations_are_counted() -> None:
    """--max-pages stops after N inputs; browser reads count as escalations; malformed lines still yield records."""
    urls = [f"https://a.example/{n}" for n in range(10)]
    reader = FakeReader(browser=frozenset(urls[:3]))
    records: list[dict[str, Any]] = []

    async def lines() -> AsyncIterator[str]:
        yield "{not json\n"
        yield "# comment\n"
        for url in urls:
            yield url + "\n"

    stats = IngestStats(total=6)
    options = IngestOptions(render="auto", max_pages=6, per_host=8, min_delay=0.0)
    await ingest(reader, lines(), records.append, options, stats=stats)  # type: ignore[arg-type]
    assert len(records) == 6
    assert (stats.escalations, stats.failures) == (3, Counter({"INVALID_INPUT": 1}))
    assert stats.remaining == 0
