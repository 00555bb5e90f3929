"""AsyncReader.search and its sync twin: provider configuration, deadline, per-reader cooldowns."""

from __future__ import annotations

import pytest

import pagewarden
from tests.reader.search_support import FakeProvider

HITS = [
    ("https://example.org/deltas?utm_source=x", "How river deltas form", "Sediment settles where rivers slow."),
    ("https://example.net/tides", "Tide tables", "When the sea comes in."),
]


@pytest.mark.anyio
async def test_search_returns_normalized_hits() -> None:
    """search() validates the query, calls the provider and returns ranked, untrusted hits."""
    provider = FakeProvider(HITS)
    async with pagewarden.AsyncReader(search=provider) as reader:
        results = await reader.search("  river deltas ", limit=5, language="EN", region="gb")
    assert [(hit.rank, hit.url) for hit in results.hits] == [
        (1, "https://example.org/deltas"), (2, "https://example.net/tides"),
    ]
    assert all(hit.trust == "untrusted" and hit.tainted for hit in results.hits)
    query = provider.calls[0]
    assert (query.text, query.limit, query.language, query.region) == ("river deltas", 5, "en", "GB")
    assert results.to_dict()["provider"] == "fake"


@pytest.mark.anyio
async def test_search_without_provider_is_config_missing() -> None:
    """A reader without config.search raises CONFIG_MISSING naming the missing provider."""
    async with pagewarden.AsyncReader() as reader:
        with pytest.raises(pagewarden.ConfigMissing) as caught:
            await reader.search("river deltas")
    assert caught.value.reason == "search_provider_missing"


@pytest.mark.anyio
async def test_closed_reader_refuses_search() -> None:
    """After aclose() search raises CONFIG_MISSING (reader_closed)."""
    reader = pagewarden.AsyncReader(search=FakeProvider(HITS))
    await reader.aclose()
    with pytest.raises(pagewarden.ConfigMissing) as caught:
        await reader.search("river deltas")
    assert caught.value.reason == "reader_closed"


@pytest.mark.anyio
async def test_search_deadline_is_timeout() -> None:
    """A provider slower than the search timeout yields TIMEOUT."""
    async with pagewarden.AsyncReader(search=FakeProvider(HITS, delay=5.0)) as reader:
        with pytest.raises(pagewarden.Timeout):
            await reader.search("river deltas", timeout=0.2)


@pytest.mark.anyio
async def test_config_search_timeout_is_the_default() -> None:
    """Without a timeout argument, config.search_timeout bounds the search."""
    async with pagewarden.AsyncReader(search=FakeProvider(HITS, delay=5.0), search_timeout=0.2) as reader:
        with pytest.raises(pagewarden.Timeout):
            await reader.search("river deltas")


@pytest.mark.anyio
async def test_cooldowns_belong_to_one_reader() -> None:
    """A rate limit cools the provider down for this reader only: it fails fast there, not elsewhere."""
    provider = FakeProvider(HITS, error=pagewarden.RateLimited("slow down", reason="test_rate", retry_after=30.0))
    async with pagewarden.AsyncReader(search=provider) as first, pagewarden.AsyncReader(search=provider) as second:
        with pytest.raises(pagewarden.RateLimited):
            await first.search("river deltas")
        provider.error = None
        with pytest.raises(pagewarden.RateLimited) as caught:
            await first.search("river deltas")
        results = await second.search("river deltas")
    assert caught.value.retry_after is not None
    assert 0 < caught.value.retry_after <= 30.0
    assert len(provider.calls) == 2
    assert len(results.hits) == 2


BAD_OPTIONS: list[tuple[dict[str, object], str]] = [
    ({"search": object()}, "invalid_search_provider"),
    ({"search": FakeProvider(name="")}, "invalid_search_provider"),
    ({"search_timeout": 0}, "invalid_search_timeout"),
    ({"search_timeout": 301}, "invalid_search_timeout"),
]


@pytest.mark.parametrize(("options", "reason"), BAD_OPTIONS)
def test_search_options_are_validated(options: dict[str, object], reason: str) -> None:
    """A provider without a name or search method, or a bad search timeout, is INVALID_INPUT."""
    with pytest.raises(pagewarden.InvalidInput) as caught:
        pagewarden.AsyncReader(**options)
    assert caught.value.reason == reason


BAD_QUERIES: list[tuple[str, dict[str, object], str]] = [
    ("   ", {}, "empty_query"),
    ("x" * 401, {}, "query_too_long"),
    ("deltas", {"limit": 0}, "invalid_limit"),
    ("deltas", {"time_range": "decade"}, "invalid_time_range"),
]


@pytest.mark.parametrize(("query", "arguments", "reason"), BAD_QUERIES)
@pytest.mark.anyio
async def test_invalid_queries_never_reach_the_provider(query: str, arguments: dict[str, object], reason: str) -> None:
    """Query validation happens before the provider is called."""
    provider = FakeProvider(HITS)
    async with pagewarden.AsyncReader(search=provider) as reader:
        with pytest.raises(pagewarden.InvalidInput) as caught:
            await reader.search(query, **arguments)  # type: ignore[arg-type]
    assert caught.value.reason == reason
    assert provider.calls == []


def test_sync_reader_search() -> None:
    """Reader.search blocks and returns the same results as the async reader."""
    with pagewarden.Reader(search=FakeProvider(HITS)) as reader:
        results = reader.search("river deltas", limit=1)
    assert [hit.url for hit in results.hits] == ["https://example.org/deltas"]


def test_sync_reader_search_without_provider() -> None:
    """The sync twin raises the same CONFIG_MISSING without a provider."""
    with pagewarden.Reader() as reader, pytest.raises(pagewarden.ConfigMissing) as caught:
        reader.search("river deltas")
    assert caught.value.reason == "search_provider_missing"
