"""search_read_pages and reader.store: pages read in the session are searchable offline, guarded content only."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

import pagewarden
from pagewarden._store import ReadStoreConfig
from pagewarden._tools import toolset_for
from tests.support.server import FixtureServer
from tests.tools import pages

pytestmark = pytest.mark.anyio


@pytest.fixture
async def reader(fixture_server: FixtureServer) -> AsyncIterator[pagewarden.AsyncReader]:
    """A static-only reader allowed to reach the fixture server's pages."""
    fixture_server.add("/long", headers=pages.HTML, body=pages.LONG_ARTICLE.encode())
    fixture_server.add("/short", headers=pages.HTML, body=pages.SHORT_ARTICLE.encode())
    fixture_server.add("/injection", headers=pages.HTML, body=pages.INJECTION.encode())
    async with pagewarden.AsyncReader(
        unsafe_allow_destinations=(fixture_server.host_port,), default_render="never", on_guard="return"
    ) as opened:
        yield opened


async def test_read_pages_are_found_without_the_network(
    reader: pagewarden.AsyncReader, fixture_server: FixtureServer
) -> None:
    """After two reads the store finds each by its words; searching makes no request."""
    await reader.read(fixture_server.url("/long"))
    await reader.read(fixture_server.url("/short"))
    requests = len(fixture_server.requests)
    hits = reader.store.search("glaciers moraine")
    assert [hit.url for hit in hits] == [fixture_server.url("/long")]
    assert hits[0].title == "How glaciers shape valleys"
    assert reader.store.search("sediment coast")[0].url == fixture_server.url("/short")
    assert len(fixture_server.requests) == requests


async def test_withheld_pages_never_enter_the_store(
    reader: pagewarden.AsyncReader, fixture_server: FixtureServer
) -> None:
    """A page the guard withholds (returned here only because on_guard="return") is not indexed."""
    document = await reader.read(fixture_server.url("/injection"))
    assert document.security.decision.withholds
    assert len(reader.store) == 0
    assert reader.store.search("deltas sediment") == ()


async def test_tool_returns_bounded_untrusted_hits(
    reader: pagewarden.AsyncReader, fixture_server: FixtureServer
) -> None:
    """The search_read_pages tool answers from the store, with rank, url, title, excerpt and untrusted markers."""
    tools = toolset_for(reader)
    await tools.execute("fetch_content", {"url": fixture_server.url("/long"), "max_characters": None, "render": None})
    result = await tools.execute("search_read_pages", {"query": "moraine ridges", "limit": 3})
    assert result["security"] == {"trust": "untrusted", "tainted": True}
    (hit,) = result["hits"]
    assert hit["rank"] == 1 and hit["url"] == fixture_server.url("/long")
    assert "moraine" in hit["excerpt"].lower() and len(hit["excerpt"]) <= 500
    for marker in pages.FORBIDDEN_IN_OUTPUT:
        assert marker not in str(result)


async def test_tool_not_offered_when_the_store_is_off(fixture_server: FixtureServer) -> None:
    """With the read store disabled, search_read_pages is neither defined nor executable."""
    config = pagewarden.ReaderConfig(read_store=ReadStoreConfig(enabled=False))
    async with pagewarden.AsyncReader(config) as reader:
        tools = toolset_for(reader)
        assert "search_read_pages" not in tools.names
        result = await tools.execute("search_read_pages", {"query": "x", "limit": None})
    assert result["error"]["reason"] == "unknown_tool"


@pytest.mark.parametrize("fmt", ["anthropic", "openai_responses", "openai_chat_completions", "bedrock"])
async def test_tool_is_in_every_format(reader: pagewarden.AsyncReader, fmt: str) -> None:
    """search_read_pages is published in every model-API format."""
    definitions = getattr(toolset_for(reader), f"{fmt}_definitions")()
    assert "search_read_pages" in str(definitions)


async def test_a_store_failure_never_fails_the_read(
    reader: pagewarden.AsyncReader, fixture_server: FixtureServer, caplog: pytest.LogCaptureFixture
) -> None:
    """When the store cannot take a page, the read still returns it and a warning names the reason."""
    reader.store.close()
    document = await reader.read(fixture_server.url("/short"))
    assert document.title == "River deltas"
    assert "store_closed" in caplog.text
