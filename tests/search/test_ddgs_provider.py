"""The ddgs provider against recorded responses (its HTTP layer is replaced; never the network)."""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import primp
import pytest
from ddgs import exceptions as ddgs_exceptions
from ddgs import http_client as ddgs_http

from pagewarden import (
    BotChallenge,
    InvalidInput,
    NetworkError,
    PagewardenError,
    ParseChanged,
    RateLimited,
    Timeout,
    UpstreamHTTP,
)
from pagewarden._search.cooldown import Cooldowns
from pagewarden._search.ddgs_provider import ddgs, ddgs_region, translate_ddgs_error
from pagewarden._search.query import validate_query
from pagewarden._search.run import run_search
from pagewarden._search.types import SearchResults

pytestmark = pytest.mark.anyio

DATA = Path(__file__).parent / "data" / "ddgs"


def page(name: str) -> str:
    """A recorded page."""
    return (DATA / name).read_text("utf-8")


@dataclass
class FakeResponse:
    """What ddgs' HttpClient.request returns: a status and a text."""

    status_code: int
    text: str
    content: bytes = b""


@dataclass
class FakeHttp:
    """Replaces ddgs' HTTP layer: answers with ``answer`` and records each request."""

    answer: FakeResponse | BaseException | Callable[[], FakeResponse]
    requests: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)

    def request(self, method: str, url: str, **kwargs: Any) -> FakeResponse:
        """Record the request and answer it."""
        self.requests.append((method, url, kwargs))
        if isinstance(self.answer, BaseException):
            raise self.answer
        if callable(self.answer):
            return self.answer()
        return self.answer


@pytest.fixture(autouse=True)
def no_real_requests(monkeypatch: pytest.MonkeyPatch) -> None:
    """primp (ddgs' Rust HTTP client, invisible to the socket tripwire) must never be asked to send."""

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a test tried to reach the network through primp")

    monkeypatch.setattr(primp.Client, "request", refuse, raising=False)


@pytest.fixture
def serve(monkeypatch: pytest.MonkeyPatch) -> Callable[..., FakeHttp]:
    """Install a FakeHttp as ddgs' HTTP layer."""

    def install(answer: Any) -> FakeHttp:
        fake = FakeHttp(answer)
        def request(client: Any, method: str, url: str, **kwargs: Any) -> FakeResponse:
            return fake.request(method, url, **kwargs)

        monkeypatch.setattr(ddgs_http.HttpClient, "request", request)
        return fake

    return install


async def _search(provider: Any, text: str = "python tutorial", **kwargs: Any) -> SearchResults:
    return await run_search(provider, validate_query(text, **kwargs), cooldowns=Cooldowns())


async def test_normal_page(serve: Callable[..., FakeHttp]) -> None:
    """A recorded DuckDuckGo page yields its organic hits, unwrapped and cleaned; the ad is dropped."""
    fake = serve(FakeResponse(200, page("results.html")))
    results = await _search(ddgs())
    assert [h.url for h in results.hits] == [
        "https://docs.python.org/3/tutorial/",
        "https://www.w3schools.com/python/?ref=search",
        "https://realpython.com/",
    ]
    assert results.hits[0].title == "The Python Tutorial — Python 3 documentation"
    assert results.hits[0].snippet.startswith("Python is an easy to learn")
    assert results.provider == "ddgs:duckduckgo" and results.withheld == 0
    method, url, kwargs = fake.requests[0]
    assert (method, url) == ("POST", "https://html.duckduckgo.com/html/")
    assert kwargs["data"]["q"] == "python tutorial"


async def test_empty_result_page(serve: Callable[..., FakeHttp]) -> None:
    """DuckDuckGo's own "No results." page is the one genuine empty result."""
    serve(FakeResponse(200, page("no_results.html")))
    results = await _search(ddgs(), "xqzvbnmlkjh wrpoiuytr")
    assert results.hits == ()


# (status, recorded page, expected error, expected reason)
FAILURES: list[tuple[int, str, type[PagewardenError], str]] = [
    (429, "", RateLimited, "http_429"),
    (202, "challenge.html", BotChallenge, "http_202_challenge"),
    (403, "", BotChallenge, "http_403_challenge"),
    (200, "challenge.html", BotChallenge, "challenge_page"),
    (200, "layout_changed.html", ParseChanged, "no_results_parsed"),
    (200, "", ParseChanged, "empty_page"),
    (503, "", UpstreamHTTP, "http_503"),
    (404, "", UpstreamHTTP, "http_404"),
]


@pytest.mark.parametrize(("status", "name", "error", "reason"), FAILURES)
async def test_failures_are_typed(
    serve: Callable[..., FakeHttp], status: int, name: str, error: type[PagewardenError], reason: str
) -> None:
    """Rate limits, challenges, layout changes and HTTP failures raise typed errors, never an empty result."""
    serve(FakeResponse(status, page(name) if name else ""))
    with pytest.raises(error) as caught:
        await _search(ddgs())
    assert caught.value.reason == reason
    if isinstance(caught.value, UpstreamHTTP):
        assert caught.value.retryable is (status >= 500)


async def test_rate_limit_starts_a_cooldown(serve: Callable[..., FakeHttp]) -> None:
    """After a 429, the next search fails fast without sending a request."""
    fake = serve(FakeResponse(429, ""))
    cooldowns = Cooldowns()
    provider = ddgs()
    with pytest.raises(RateLimited):
        await run_search(provider, validate_query("q"), cooldowns=cooldowns)
    with pytest.raises(RateLimited) as again:
        await run_search(provider, validate_query("q"), cooldowns=cooldowns)
    assert again.value.reason == "provider_cooling_down"
    assert len(fake.requests) == 1


async def test_parser_crash_is_parse_changed(serve: Callable[..., FakeHttp]) -> None:
    """A page the library's parser raises on (here: nothing but a comment) is PARSE_CHANGED."""
    serve(FakeResponse(200, "<!-- nothing else -->"))
    with pytest.raises(ParseChanged) as caught:
        await _search(ddgs())
    assert caught.value.reason == "markup_changed"


@pytest.mark.parametrize(
    ("exception", "expected"),
    [
        (ddgs_exceptions.TimeoutException("timed out"), Timeout),
        (ddgs_exceptions.DDGSException("ConnectError: dns"), NetworkError),
        (ddgs_exceptions.RatelimitException("202 Ratelimit"), RateLimited),
    ],
)
async def test_library_exceptions_are_typed(
    serve: Callable[..., FakeHttp], exception: Exception, expected: type[PagewardenError]
) -> None:
    """The library's exceptions are translated at the provider boundary."""
    serve(exception)
    with pytest.raises(expected):
        await _search(ddgs())


# Every exception class ddgs defines, and what it must become. A new upstream
# class makes test_every_library_exception_is_mapped fail until it is added.
LIBRARY_EXCEPTIONS: dict[str, type[PagewardenError]] = {
    "DDGSException": NetworkError,
    "RatelimitException": RateLimited,
    "TimeoutException": Timeout,
}


def test_every_library_exception_is_mapped() -> None:
    """Each exception class in ddgs.exceptions has an explicit, typed translation."""
    found = {
        name: cls
        for name, cls in inspect.getmembers(ddgs_exceptions, inspect.isclass)
        if issubclass(cls, Exception) and cls.__module__ == "ddgs.exceptions"
    }
    assert set(found) == set(LIBRARY_EXCEPTIONS)
    for name, cls in found.items():
        assert type(translate_ddgs_error(cls("x"), "ddgs:duckduckgo")) is LIBRARY_EXCEPTIONS[name]


async def test_slow_library_call_hits_the_deadline(serve: Callable[..., FakeHttp]) -> None:
    """A library call that blocks past the provider's deadline gives TIMEOUT without waiting for it."""

    def slow() -> FakeResponse:
        time.sleep(1.0)
        return FakeResponse(200, page("results.html"))

    serve(slow)
    started = time.monotonic()
    with pytest.raises(Timeout):
        await _search(ddgs(timeout=0.2))
    assert time.monotonic() - started < 0.9


async def test_query_options_reach_the_request(serve: Callable[..., FakeHttp]) -> None:
    """Region, language and time range are mapped to DuckDuckGo's parameters."""
    fake = serve(FakeResponse(200, page("results.html")))
    await _search(ddgs(), "q", language="ja", region="jp", time_range="week")
    payload = fake.requests[0][2]["data"]
    assert payload["l"] == "jp-jp" and payload["df"] == "w"


REGION_CASES: list[tuple[str | None, str | None, str, str]] = [
    (None, None, "duckduckgo", "wt-wt"),
    (None, None, "mojeek", "us-en"),
    ("en", "US", "duckduckgo", "us-en"),
    ("en", "GB", "duckduckgo", "uk-en"),
    ("en", "GB", "mojeek", "gb-en"),
    ("de", None, "duckduckgo", "de-de"),
    (None, "CH", "duckduckgo", "ch-de"),
    (None, "ZZ", "duckduckgo", "zz-en"),
    ("ko", None, "duckduckgo", "kr-kr"),
    ("ja", None, "wikipedia", "jp-ja"),
]


@pytest.mark.parametrize(("language", "region", "backend", "expected"), REGION_CASES)
def test_region_mapping(language: str | None, region: str | None, backend: str, expected: str) -> None:
    """Language and region map to ddgs' country-language code per backend."""
    query = validate_query("q", language=language, region=region)
    assert ddgs_region(query, backend) == expected


async def test_json_backend_empty_answer_is_empty(serve: Callable[..., FakeHttp]) -> None:
    """A structured (JSON) backend that parsed an empty list is a genuine empty result."""
    serve(FakeResponse(200, '{"results": []}'))
    results = await _search(ddgs("grokipedia"))
    assert results.hits == ()


@pytest.mark.parametrize("backend", ["nope", "auto", ""])
def test_unknown_backend(backend: str) -> None:
    """Only the installed ddgs text engines can be chosen."""
    with pytest.raises(InvalidInput) as caught:
        ddgs(backend)
    assert caught.value.reason == "invalid_backend"
