"""SyncToolset: the blocking twin over pagewarden.Reader's private event loop."""

from __future__ import annotations

import pytest

import pagewarden
from pagewarden import InvalidInput
from pagewarden._tools import SyncToolset, toolset_for
from tests.support.server import FixtureServer
from tests.tools import pages


def _sync_toolset(reader: pagewarden.Reader) -> SyncToolset:
    # The wiring Reader.toolset() uses.
    return SyncToolset(toolset_for(reader._reader), reader._call)


def test_sync_execute_and_definitions(fixture_server: FixtureServer) -> None:
    """The sync twin returns the same results and definitions as the async toolset."""
    fixture_server.add("/long", headers=pages.HTML, body=pages.LONG_ARTICLE.encode())
    with pagewarden.Reader(unsafe_allow_destinations=(fixture_server.host_port,), default_render="never") as reader:
        tools = _sync_toolset(reader)
        assert tools.names == ("fetch_content", "fetch_more", "search_read_pages")
        assert tools.anthropic_definitions() == tools.toolset.anthropic_definitions()
        assert tools.bedrock_definitions() == tools.toolset.bedrock_definitions()
        assert tools.openai_responses_definitions() == tools.toolset.openai_responses_definitions()
        assert tools.openai_chat_completions_definitions() == tools.toolset.openai_chat_completions_definitions()
        page = tools.execute("fetch_content", {"url": fixture_server.url("/long"), "max_characters": 500})
        more = tools.execute("fetch_more", f'{{"cursor": "{page["cursor"]}"}}')
        assert more["characters"]["start"] == page["characters"]["end"]
        bad = tools.execute("fetch_content", {"url": None})
        assert bad["error"]["code"] == "INVALID_INPUT"


def test_closed_reader_is_a_tool_error() -> None:
    """After Reader.close() a call is a CONFIG_MISSING tool error, not an exception."""
    reader = pagewarden.Reader()
    tools = _sync_toolset(reader)
    reader.close()
    result = tools.execute("fetch_content", {"url": "https://example.org/"})
    assert result["error"]["code"] == "CONFIG_MISSING"


@pytest.mark.anyio
async def test_sync_inside_event_loop_raises() -> None:
    """Calling the sync twin from async code is the developer's bug and raises, as Reader.read does."""
    reader = pagewarden.Reader()
    try:
        with pytest.raises(InvalidInput) as caught:
            _sync_toolset(reader).execute("fetch_content", {"url": "https://example.org/"})
        assert caught.value.reason == "sync_api_in_event_loop"
    finally:
        reader._closed = True  # never started: nothing to release, and close() refuses inside a loop


def test_sync_store_and_canary(fixture_server: FixtureServer) -> None:
    """The sync reader exposes the read store, and the sync toolset the canary and check_output."""
    fixture_server.add("/long", headers=pages.HTML, body=pages.LONG_ARTICLE.encode())
    with pagewarden.Reader(unsafe_allow_destinations=(fixture_server.host_port,), default_render="never") as reader:
        reader.read(fixture_server.url("/long"))
        assert reader.store.search("moraine")[0].url == fixture_server.url("/long")
        tools = _sync_toolset(reader)
        assert tools.canary == tools.toolset.canary
        assert tools.check_output(f"leaked: {tools.canary}").leaked
        found = tools.execute("search_read_pages", {"query": "glaciers"})
        assert found["hits"][0]["url"] == fixture_server.url("/long")
        refused = tools.execute("search_read_pages", {"query": tools.canary})
        assert refused["error"]["reason"] == "canary_in_tool_arguments"
