"""The Brave provider against recorded JSON served by the loopback fixture server through the safe transport."""

from __future__ import annotations

import email.utils
import gzip
import time
import urllib.parse
from pathlib import Path
from typing import Any

import pytest

from pagewarden import (
    ConfigMissing,
    InvalidInput,
    PagewardenError,
    ParseChanged,
    RateLimited,
    ReaderConfig,
    ResponseTooLarge,
    Timeout,
    UnsafeURL,
    UpstreamHTTP,
)
from pagewarden._search.brave import BraveProvider, brave
from pagewarden._search.cooldown import Cooldowns
from pagewarden._search.query import validate_query
from pagewarden._search.run import run_search
from pagewarden._search.types import SearchResults
from tests.support.server import FixtureServer

pytestmark = pytest.mark.anyio

DATA = Path(__file__).parent / "data" / "brave"
KEY = "BSAtestKEY0123456789abcdefXYZ"
PATH = "/res/v1/web/search"
JSON = {"Content-Type": "application/json; charset=utf-8"}


def recorded(name: str) -> bytes:
    """A recorded Brave answer."""
    return (DATA / name).read_bytes()


def provider_for(server: FixtureServer, **kwargs: Any) -> BraveProvider:
    """A Brave provider pointed at the fixture server (allowed explicitly, like any private destination)."""
    config = ReaderConfig(unsafe_allow_destinations=(server.host_port,))
    return brave(KEY, endpoint=server.url(PATH), config=config, **kwargs)


async def _search(provider: BraveProvider, text: str = "python tutorial", **kwargs: Any) -> SearchResults:
    cooldowns = kwargs.pop("cooldowns", None) or Cooldowns()
    return await run_search(provider, validate_query(text, **kwargs), cooldowns=cooldowns)


async def test_normal_answer(fixture_server: FixtureServer) -> None:
    """Recorded results become clean hits: markup stripped, tracking dropped, private URLs dropped."""
    fixture_server.add(PATH, headers=JSON, body=recorded("results.json"))
    results = await _search(provider_for(fixture_server), limit=5)
    assert [(h.rank, h.url) for h in results.hits] == [
        (1, "https://docs.python.org/3/tutorial/"),
        (2, "https://www.w3schools.com/python/"),
        (3, "https://realpython.com/"),
    ]
    assert results.hits[0].title == "The Python Tutorial — Python 3 documentation"
    assert results.hits[0].snippet.endswith("informally & clearly.")
    assert results.hits[2].snippet == ""
    assert results.provider == "brave"


async def test_request_carries_key_header_and_mapped_parameters(fixture_server: FixtureServer) -> None:
    """The key travels in X-Subscription-Token only; query options map to Brave's parameters."""
    fixture_server.add(PATH, headers=JSON, body=recorded("empty.json"))
    await _search(
        provider_for(fixture_server),
        "café au lait",
        limit=7,
        language="ja",
        region="jp",
        safe_search="strict",
        time_range="month",
    )
    request = fixture_server.requests[-1]
    assert request.headers["x-subscription-token"] == KEY
    assert request.headers["accept"] == "application/json"
    assert KEY not in request.target
    params = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(request.target).query))
    assert params == {
        "q": "café au lait",
        "count": "7",
        "country": "JP",
        "search_lang": "jp",
        "safesearch": "strict",
        "freshness": "pm",
    }


async def test_empty_answer(fixture_server: FixtureServer) -> None:
    """An answer without a web section is an empty result, not an error."""
    fixture_server.add(PATH, headers=JSON, body=recorded("empty.json"))
    results = await _search(provider_for(fixture_server))
    assert results.hits == ()


async def test_gzip_answer(fixture_server: FixtureServer) -> None:
    """A gzip-encoded answer is decoded."""
    fixture_server.add(
        PATH, headers={**JSON, "Content-Encoding": "gzip"}, body=gzip.compress(recorded("results.json"))
    )
    results = await _search(provider_for(fixture_server))
    assert len(results.hits) == 3


async def test_429_with_retry_after_seconds_starts_that_cooldown(fixture_server: FixtureServer) -> None:
    """429 is RATE_LIMITED with Retry-After honoured, and the next call fails fast without a request."""
    fixture_server.add(PATH, status=429, headers={**JSON, "Retry-After": "17"}, body=b'{"type":"ErrorResponse"}')
    provider, cooldowns = provider_for(fixture_server), Cooldowns()
    with pytest.raises(RateLimited) as caught:
        await _search(provider, cooldowns=cooldowns)
    assert caught.value.retry_after == 17 and caught.value.status == 429
    assert 16 < cooldowns.remaining("brave") <= 17
    with pytest.raises(RateLimited) as again:
        await _search(provider, cooldowns=cooldowns)
    assert again.value.reason == "provider_cooling_down"
    assert len(fixture_server.requests) == 1


async def test_429_with_http_date(fixture_server: FixtureServer) -> None:
    """A Retry-After HTTP date is turned into seconds."""
    when = email.utils.formatdate(time.time() + 120, usegmt=True)
    fixture_server.add(PATH, status=429, headers={**JSON, "Retry-After": when})
    with pytest.raises(RateLimited) as caught:
        await _search(provider_for(fixture_server))
    assert 110 < (caught.value.retry_after or 0) <= 120


async def test_429_with_huge_retry_after_is_capped(fixture_server: FixtureServer) -> None:
    """A hostile Retry-After cannot disable search for longer than the cap."""
    fixture_server.add(PATH, status=429, headers={"Retry-After": "99999999"})
    with pytest.raises(RateLimited) as caught:
        await _search(provider_for(fixture_server))
    assert caught.value.retry_after == 300


# (status, extra headers, body, expected error, reason, retryable)
FAILURES: list[tuple[int, dict[str, str], bytes, type[PagewardenError], str, bool]] = [
    (500, JSON, b'{"type":"ErrorResponse"}', UpstreamHTTP, "http_500", True),
    (503, {}, b"", UpstreamHTTP, "http_503", True),
    (401, JSON, b'{"error":{"code":"SUBSCRIPTION_TOKEN_INVALID"}}', UpstreamHTTP, "api_key_rejected", False),
    (422, JSON, b"{}", UpstreamHTTP, "http_422", False),
    (302, {"Location": "https://elsewhere.example/"}, b"", UpstreamHTTP, "unexpected_redirect", False),
    (200, JSON, b'{"type": "search", "web": {"results": [', ParseChanged, "unexpected_response", True),
    (200, JSON, b"\xff\xfe not utf-8", ParseChanged, "unexpected_response", True),
    (200, {"Content-Type": "text/html"}, b"<html>maintenance</html>", ParseChanged, "unexpected_response", True),
    (200, JSON, b"[1, 2, 3]", ParseChanged, "unexpected_response", True),
    (200, JSON, b'{"unexpected": true}', ParseChanged, "unexpected_response", True),
]


@pytest.mark.parametrize(("status", "headers", "body", "error", "reason", "retryable"), FAILURES)
async def test_failures_are_typed(
    fixture_server: FixtureServer,
    status: int,
    headers: dict[str, str],
    body: bytes,
    error: type[PagewardenError],
    reason: str,
    retryable: bool,
) -> None:
    """Server errors, rejected keys, redirects and malformed JSON raise typed errors."""
    fixture_server.add(PATH, status=status, headers=headers, body=body)
    with pytest.raises(error) as caught:
        await _search(provider_for(fixture_server))
    assert caught.value.reason == reason
    assert caught.value.retryable is retryable


async def test_changed_shape(fixture_server: FixtureServer) -> None:
    """A recorded answer whose results moved elsewhere is PARSE_CHANGED."""
    fixture_server.add(PATH, headers=JSON, body=recorded("changed.json"))
    with pytest.raises(ParseChanged):
        await _search(provider_for(fixture_server))


async def test_oversized_answer(fixture_server: FixtureServer) -> None:
    """An answer over max_bytes is RESPONSE_TOO_LARGE."""
    fixture_server.add(PATH, headers=JSON, body=b'{"pad": "' + b"x" * 5_000 + b'"}')
    with pytest.raises(ResponseTooLarge):
        await _search(provider_for(fixture_server, max_bytes=1_024))


async def test_silent_server_times_out(fixture_server: FixtureServer) -> None:
    """A server that never answers gives TIMEOUT at the provider's deadline."""
    fixture_server.add(PATH, headers=JSON, body=recorded("empty.json"), delay_before=2.0)
    started = time.monotonic()
    with pytest.raises(Timeout):
        await _search(provider_for(fixture_server, timeout=0.3))
    assert time.monotonic() - started < 1.5


async def test_key_never_appears_in_errors_or_repr(fixture_server: FixtureServer) -> None:
    """Across failures, neither str, repr nor to_dict of any error, nor the provider's repr, shows the key."""
    provider = provider_for(fixture_server)
    assert KEY not in repr(provider) and KEY not in str(provider)
    seen: list[PagewardenError] = []
    for status, headers, body, *_ in FAILURES:
        fixture_server.add(PATH, status=status, headers=headers, body=body)
        with pytest.raises(PagewardenError) as caught:
            await _search(provider)
        seen.append(caught.value)
    fixture_server.add(PATH, status=429, headers={"Retry-After": "1"})
    with pytest.raises(PagewardenError) as limited:
        await _search(provider)
    seen.append(limited.value)
    fixture_server.stop()
    with pytest.raises(PagewardenError) as unreachable:
        await _search(provider)
    seen.append(unreachable.value)
    for error in seen:
        for text in (str(error), repr(error), repr(error.to_dict()), str(error.args)):
            assert KEY not in text


@pytest.mark.parametrize(("key", "error"), [(None, ConfigMissing), ("", ConfigMissing), ("has space", InvalidInput),
                                              ("line\nbreak", InvalidInput), ("k" * 257, InvalidInput)])
def test_bad_keys(key: str | None, error: type[PagewardenError]) -> None:
    """A missing key is CONFIG_MISSING, a malformed one INVALID_INPUT, and neither is quoted."""
    with pytest.raises(error) as caught:
        brave(key)
    if key:
        assert key not in str(caught.value)


def test_plain_http_endpoint_is_refused() -> None:
    """An http endpoint (the key in clear text) is refused unless explicitly allowed."""
    with pytest.raises(UnsafeURL) as caught:
        brave(KEY, endpoint="http://api.search.brave.com/res/v1/web/search")
    assert caught.value.reason == "api_endpoint_not_https"


def test_private_endpoint_is_refused_without_allowance() -> None:
    """The endpoint goes through the same address policy as any URL."""
    with pytest.raises(UnsafeURL):
        brave(KEY, endpoint="https://127.0.0.1/res/v1/web/search")


async def test_too_many_words(fixture_server: FixtureServer) -> None:
    """Brave's 50-word limit is INVALID_INPUT before any request."""
    with pytest.raises(InvalidInput) as caught:
        await _search(provider_for(fixture_server), " ".join(["w"] * 51))
    assert caught.value.reason == "query_too_many_words"
    assert fixture_server.requests == []
