"""The SearXNG provider against a SearXNG-compatible JSON fixture on loopback, through the safe transport."""

from __future__ import annotations

import json
import urllib.parse
from typing import Any

import pytest

from pagewarden import (
    InvalidInput,
    PagewardenError,
    ParseChanged,
    RateLimited,
    ReaderConfig,
    UnsafeURL,
    UpstreamHTTP,
    fused,
    searxng,
)
from pagewarden._search.cooldown import Cooldowns
from pagewarden._search.query import validate_query
from pagewarden._search.run import run_search
from pagewarden._search.searxng import SearxngProvider
from pagewarden._search.types import SearchResults
from tests.search.provider_fakes import ScriptedProvider, hits
from tests.support.server import FixtureServer

pytestmark = pytest.mark.anyio

JSON = {"Content-Type": "application/json"}


def answer(*results: dict[str, Any], unresponsive: list[list[str]] | None = None) -> bytes:
    """A SearXNG /search?format=json answer."""
    return json.dumps(
        {
            "query": "tides",
            "number_of_results": 0,
            "results": list(results),
            "answers": [],
            "suggestions": [],
            "unresponsive_engines": unresponsive or [],
        }
    ).encode()


def provider_for(server: FixtureServer, **kwargs: Any) -> SearxngProvider:
    """A SearXNG provider pointed at the fixture server (a named loopback destination)."""
    return searxng(server.url("/"), config=ReaderConfig(unsafe_allow_destinations=(server.host_port,)), **kwargs)


async def _search(provider: Any, **kwargs: Any) -> SearchResults:
    return await run_search(provider, validate_query("tides explained", **kwargs), cooldowns=Cooldowns())


async def test_results_become_hits_and_parameters_map(fixture_server: FixtureServer) -> None:
    """Results map to hits (content as snippet) and query options map to SearXNG's parameters."""
    fixture_server.add(
        "/search",
        headers=JSON,
        body=answer(
            {"url": "https://tides.example.org/", "title": "Tides", "content": "How tides work", "engines": ["bing"]},
            {"url": "http://127.0.0.1/admin", "title": "private", "content": ""},
        ),
    )
    results = await _search(
        provider_for(fixture_server, engines=["bing", "mojeek"]),
        language="de",
        safe_search="strict",
        time_range="week",
    )
    assert [(h.url, h.title, h.snippet) for h in results.hits] == [
        ("https://tides.example.org/", "Tides", "How tides work")
    ]
    request = fixture_server.requests[-1]
    params = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(request.target).query))
    assert params == {
        "q": "tides explained",
        "format": "json",
        "pageno": "1",
        "categories": "general",
        "safesearch": "2",
        "language": "de",
        "time_range": "week",
        "engines": "bing,mojeek",
    }
    assert request.headers["accept"] == "application/json"


@pytest.mark.parametrize(
    ("status", "body", "headers", "error", "reason"),
    [
        (403, b"Forbidden", {"Content-Type": "text/html"}, UpstreamHTTP, "searxng_json_disabled"),
        (429, b"", {"Content-Type": "text/html", "Retry-After": "12"}, RateLimited, "http_429"),
        (502, b"", {"Content-Type": "text/html"}, UpstreamHTTP, "http_502"),
        (200, b"<html>", {"Content-Type": "text/html"}, ParseChanged, "unexpected_response"),
        (200, b'{"results": {}}', JSON, ParseChanged, "unexpected_response"),
        (200, answer(unresponsive=[["google", "CAPTCHA"]]), JSON, UpstreamHTTP, "searxng_engines_unresponsive"),
    ],
)
async def test_failures_are_typed(
    fixture_server: FixtureServer,
    status: int,
    body: bytes,
    headers: dict[str, str],
    error: type[PagewardenError],
    reason: str,
) -> None:
    """Each SearXNG failure maps to its typed error with a named reason, never an empty result."""
    fixture_server.add("/search", status=status, headers=headers, body=body)
    with pytest.raises(error) as caught:
        await _search(provider_for(fixture_server))
    assert caught.value.reason == reason


async def test_empty_answer_is_an_empty_result(fixture_server: FixtureServer) -> None:
    """No results and no unresponsive engines is a genuine empty result."""
    fixture_server.add("/search", headers=JSON, body=answer())
    assert (await _search(provider_for(fixture_server))).hits == ()


async def test_fused_with_a_local_searxng(fixture_server: FixtureServer) -> None:
    """A SearXNG instance fuses with another provider; agreement puts the shared page first."""
    shared = "https://shared.example.org/tides"
    fixture_server.add(
        "/search",
        headers=JSON,
        body=answer({"url": "https://only-searx.example.org/", "title": "S"}, {"url": shared, "title": "Shared"}),
    )
    other = ScriptedProvider("other", hits("https://only-other.example.org/", shared))
    results = await _search(fused([provider_for(fixture_server), other]))
    assert results.hits[0].url == shared
    assert len(results.hits) == 3


def test_endpoint_policy() -> None:
    """A plain-http instance that is not a named destination is refused; bad engine names are invalid."""
    with pytest.raises(UnsafeURL):
        searxng("http://search.example.org")
    with pytest.raises(InvalidInput):
        searxng("https://search.example.org", engines="bing")
    with pytest.raises(InvalidInput):
        searxng("https://search.example.org", engines=["Bing!"])
