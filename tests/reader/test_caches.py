"""The cache wired into AsyncReader: documents in read(), results in search()."""

from __future__ import annotations

import anyio
import pytest

import pagewarden
from tests.reader import pages
from tests.reader.search_support import FakeProvider
from tests.support.server import FixtureServer

HTML = {"Content-Type": "text/html; charset=utf-8"}


def _reader(server: FixtureServer, **options: object) -> pagewarden.AsyncReader:
    return pagewarden.AsyncReader(unsafe_allow_destinations=(server.host_port,), default_render="never", **options)


@pytest.fixture
def site(fixture_server: FixtureServer) -> FixtureServer:
    """The fixture server with one article and one slow copy of it."""
    fixture_server.add("/article", headers=HTML, body=pages.ARTICLE.encode())
    fixture_server.add("/slow", headers=HTML, body=pages.ARTICLE.encode(), delay_before=0.3)
    return fixture_server


@pytest.mark.anyio
async def test_repeated_read_is_served_from_the_cache(site: FixtureServer) -> None:
    """Reading the same URL twice fetches it once and returns the same content."""
    async with _reader(site) as reader:
        first = await reader.read(site.url("/article"))
        second = await reader.read(site.url("/article"))
    assert site.paths == ["/article"]
    assert second.content_sha256 == first.content_sha256
    assert second.retrieved_at == first.retrieved_at


@pytest.mark.anyio
async def test_other_spellings_of_the_url_share_the_entry(site: FixtureServer) -> None:
    """The key is the normalized URL; the returned Document still names the URL as requested."""
    async with _reader(site) as reader:
        await reader.read(site.url("/article"))
        other = await reader.read(f"  HTTP://127.0.0.1:{site.port}/x/../article  ")
    assert site.paths == ["/article"]
    assert other.url == f"HTTP://127.0.0.1:{site.port}/x/../article"


# Each variation of a read that changes the result must miss the cache.
VARIANTS: list[tuple[str, dict[str, object]]] = [
    ("#section", {}),
    ("", {"max_characters": 500}),
    ("", {"requested_use": "summarize"}),
    ("", {"render": "auto"}),
]


@pytest.mark.parametrize(("suffix", "arguments"), VARIANTS)
@pytest.mark.anyio
async def test_everything_that_changes_the_result_is_in_the_key(
    site: FixtureServer, suffix: str, arguments: dict[str, object]
) -> None:
    """A different fragment, max_characters, requested_use or render mode is a separate entry."""
    async with _reader(site) as reader:
        await reader.read(site.url("/article"))
        await reader.read(site.url("/article") + suffix, **arguments)  # type: ignore[arg-type]
    assert site.paths == ["/article", "/article"]


@pytest.mark.anyio
async def test_identical_concurrent_reads_share_one_fetch(site: FixtureServer) -> None:
    """Two reads of the same slow page at the same time make one request and both get the Document."""
    titles: list[str | None] = []
    async with _reader(site) as reader:

        async def read() -> None:
            titles.append((await reader.read(site.url("/slow"))).title)

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(read)
            tasks.start_soon(read)
    assert site.paths == ["/slow"]
    assert titles == ["How river deltas form", "How river deltas form"]


@pytest.mark.anyio
async def test_disabled_cache_fetches_every_time(site: FixtureServer) -> None:
    """max_entries=0 turns the cache and the sharing off."""
    async with _reader(site, cache=pagewarden.CacheConfig(max_entries=0)) as reader:
        await reader.read(site.url("/article"))
        await reader.read(site.url("/article"))
    assert site.paths == ["/article", "/article"]


@pytest.mark.anyio
async def test_failures_are_not_cached(site: FixtureServer) -> None:
    """A failed read is retried on the next call: errors are never stored."""
    site.add("/flaky", status=503, headers={"Content-Type": "text/plain"}, body=b"busy")
    async with _reader(site) as reader:
        with pytest.raises(pagewarden.UpstreamHTTP):
            await reader.read(site.url("/flaky"))
        site.add("/flaky", headers=HTML, body=pages.ARTICLE.encode())
        document = await reader.read(site.url("/flaky"))
    assert document.title == "How river deltas form"
    assert site.paths == ["/flaky", "/flaky"]


@pytest.mark.anyio
async def test_a_waiter_keeps_its_own_deadline(site: FixtureServer) -> None:
    """A read waiting on another's in-flight fetch still times out on its own, shorter deadline."""
    outcome: list[str] = []
    async with _reader(site) as reader:

        async def long_read() -> None:
            outcome.append("long:" + str((await reader.read(site.url("/slow"), timeout=5.0)).title))

        async def short_read() -> None:
            try:
                await reader.read(site.url("/slow"), timeout=0.1)
            except pagewarden.Timeout as error:
                outcome.append("short:" + str(error.reason))

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(long_read)
            await anyio.sleep(0.02)
            tasks.start_soon(short_read)
    assert outcome == ["short:read_deadline", "long:How river deltas form"]
    assert site.paths == ["/slow"]


@pytest.mark.anyio
async def test_aclose_clears_the_caches(site: FixtureServer) -> None:
    """After aclose() nothing stays in memory and the reader refuses further calls."""
    reader = _reader(site, search=FakeProvider([(site.url("/article"), "Deltas", "")]))
    await reader.read(site.url("/article"))
    await reader.search("river deltas")
    assert (len(reader._documents), len(reader._searches)) == (1, 1)
    await reader.aclose()
    assert (len(reader._documents), len(reader._searches)) == (0, 0)
    with pytest.raises(pagewarden.ConfigMissing):
        await reader.read(site.url("/article"))


@pytest.mark.anyio
async def test_repeated_search_calls_the_provider_once() -> None:
    """The same query and options are served from the search cache."""
    provider = FakeProvider([("https://example.org/deltas", "Deltas", "How sediment builds land.")])
    async with pagewarden.AsyncReader(search=provider) as reader:
        first = await reader.search("river deltas")
        second = await reader.search("  river   deltas ")
    assert len(provider.calls) == 1
    assert second == first


SEARCH_VARIANTS: list[dict[str, object]] = [
    {"limit": 3},
    {"language": "de"},
    {"region": "CH"},
    {"safe_search": "strict"},
    {"time_range": "week"},
]


@pytest.mark.parametrize("arguments", SEARCH_VARIANTS)
@pytest.mark.anyio
async def test_search_options_are_in_the_key(arguments: dict[str, object]) -> None:
    """Each search option that changes the result makes a separate provider call."""
    provider = FakeProvider([("https://example.org/deltas", "Deltas", "")])
    async with pagewarden.AsyncReader(search=provider) as reader:
        await reader.search("river deltas")
        await reader.search("river deltas", **arguments)  # type: ignore[arg-type]
    assert len(provider.calls) == 2


@pytest.mark.anyio
async def test_guard_profile_is_in_the_search_key() -> None:
    """Two readers with different guard profiles never share entries (each has its own cache anyway)."""
    provider = FakeProvider([("https://example.org/deltas", "Deltas", "")])
    async with pagewarden.AsyncReader(search=provider) as balanced, \
            pagewarden.AsyncReader(search=provider, guard_profile="strict") as strict:
        await balanced.search("river deltas")
        await strict.search("river deltas")
    assert len(provider.calls) == 2


@pytest.mark.anyio
async def test_search_errors_are_not_cached() -> None:
    """A failed search is retried by the next call, and a later success is cached."""
    provider = FakeProvider([("https://example.org/deltas", "Deltas", "")],
                            error=pagewarden.ParseChanged("layout", reason="test_layout"))
    async with pagewarden.AsyncReader(search=provider) as reader:
        with pytest.raises(pagewarden.ParseChanged):
            await reader.search("river deltas")
        provider.error = None
        await reader.search("river deltas")
        await reader.search("river deltas")
    assert len(provider.calls) == 2


@pytest.mark.anyio
async def test_identical_concurrent_searches_share_one_call() -> None:
    """Two identical searches at the same time call the provider once."""
    provider = FakeProvider([("https://example.org/deltas", "Deltas", "")], delay=0.2)
    async with pagewarden.AsyncReader(search=provider) as reader, anyio.create_task_group() as tasks:
        tasks.start_soon(reader.search, "river deltas")
        tasks.start_soon(reader.search, "river deltas")
    assert len(provider.calls) == 1


@pytest.mark.anyio
async def test_zero_search_ttl_calls_the_provider_every_time() -> None:
    """search_ttl=0 stores no search results (documents are unaffected)."""
    provider = FakeProvider([("https://example.org/deltas", "Deltas", "")])
    async with pagewarden.AsyncReader(search=provider, cache=pagewarden.CacheConfig(search_ttl=0)) as reader:
        await reader.search("river deltas")
        await reader.search("river deltas")
    assert len(provider.calls) == 2
