"""An agent loop end to end, offline: a scripted model searches, reads, continues, and meets an injection."""

from __future__ import annotations

import json
from typing import Any

import pytest

import pagewarden
from pagewarden._search.types import RawHit
from pagewarden._tools import toolset_for
from pagewarden._tools.output import FENCE_OVERHEAD
from tests.support.server import FixtureServer
from tests.tools import pages
from tests.tools.fakes import FakeSearchProvider, ScriptedModel, ToolCall, call

PAGE_SIZE = 1_500


def _script(as_json: bool) -> ScriptedModel:
    def encode(name: str, **arguments: Any) -> ToolCall:
        made = call(name, **arguments)
        # Anthropic and Bedrock hand arguments over as objects, OpenAI as JSON text.
        return made if as_json else ToolCall(name, json.loads(str(made.arguments)))

    return ScriptedModel([
        lambda results: encode("web_search", query="how do glaciers shape valleys", limit=5, language=None,
                               region=None, time_range=None),
        lambda results: encode("fetch_content", url=results[-1]["hits"][0]["url"], max_characters=PAGE_SIZE,
                               render="never"),
        lambda results: encode("fetch_more", cursor=results[-1]["cursor"], max_characters=None),
        lambda results: encode("fetch_more", cursor=results[-1]["cursor"], max_characters=None),
        lambda results: encode("fetch_content", url=results[0]["hits"][1]["url"], max_characters=None, render=None),
    ])


@pytest.mark.anyio
@pytest.mark.parametrize("as_json", [True, False], ids=["arguments-as-json-text", "arguments-as-object"])
async def test_agent_loop(fixture_server: FixtureServer, as_json: bool) -> None:
    """search, fetch_content, fetch_more twice, an injected page: bounded fenced pages, then GUARD_DENIED."""
    fixture_server.add("/glaciers", headers=pages.HTML, body=pages.LONG_ARTICLE.encode())
    fixture_server.add("/poisoned", headers=pages.HTML, body=pages.INJECTION.encode())
    provider = FakeSearchProvider([
        RawHit(url=fixture_server.url("/glaciers"), title="How glaciers shape valleys", snippet="Ice at work."),
        RawHit(url=fixture_server.url("/poisoned"), title="River deltas", snippet="Where rivers meet the sea."),
    ])
    model = _script(as_json)
    async with pagewarden.AsyncReader(
        unsafe_allow_destinations=(fixture_server.host_port,), search=provider
    ) as reader:
        toolset = toolset_for(reader)
        calls = []
        while (next_call := model.next_call()) is not None:
            calls.append(next_call.name)
            model.observe(await toolset.execute(next_call.name, next_call.arguments))
    search, first, second, third, poisoned = model.results
    assert calls == ["web_search", "fetch_content", "fetch_more", "fetch_more", "fetch_content"]
    assert [hit["url"] for hit in search["hits"]] == [fixture_server.url("/glaciers"), fixture_server.url("/poisoned")]
    assert [page["characters"]["start"] for page in (first, second, third)] == [
        0, first["characters"]["end"], second["characters"]["end"]]
    for page in (first, second, third):
        assert page["url"] == fixture_server.url("/glaciers")
        assert page["characters"]["end"] - page["characters"]["start"] <= PAGE_SIZE
        assert len(page["text"]) <= PAGE_SIZE + FENCE_OVERHEAD + len(page["url"])
        assert page["text"].startswith("<<<PAGEWARDEN_UNTRUSTED_CONTENT nonce=")
        assert page["cursor"] and page["truncated"] is True
    assert "Section 1:" in first["text"] and "Section 1:" not in second["text"]
    assert poisoned["error"]["code"] == "GUARD_DENIED"
    assert poisoned["error"]["retryable"] is False
    assert poisoned["error"]["warning_categories"]
    everything = json.dumps(model.results)
    for marker in pages.FORBIDDEN_IN_OUTPUT:
        assert marker not in everything
    # Two page reads, no more: fetch_more never went back to the server.
    assert sorted(fixture_server.paths) == ["/glaciers", "/poisoned"]
