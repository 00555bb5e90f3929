"""custom(): sync and async callables, output conversion, failure mapping."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from pagewarden import (
    InvalidInput,
    NetworkError,
    PagewardenError,
    ParseChanged,
    RateLimited,
    Timeout,
    UnknownError,
)
from pagewarden._search.cooldown import Cooldowns
from pagewarden._search.custom import custom
from pagewarden._search.query import validate_query
from pagewarden._search.run import run_search
from pagewarden._search.types import SearchQuery

pytestmark = pytest.mark.anyio

ROWS: list[dict[str, Any]] = [
    {"url": "https://example.com/1", "title": "One", "snippet": "first"},
    {"url": "https://example.com/2", "title": "Two"},
    {"url": "https://example.com/3", "title": "Three", "snippet": None},
]


async def test_sync_callable_receives_the_validated_query() -> None:
    """A sync callable gets the SearchQuery and its rows become hits (snippet optional)."""
    seen: list[SearchQuery] = []

    def backend(query: SearchQuery) -> list[dict[str, Any]]:
        seen.append(query)
        return ROWS

    results = await run_search(custom(backend), validate_query("  q  ", limit=5), cooldowns=Cooldowns())
    assert seen[0].text == "q" and seen[0].limit == 5
    assert [(h.title, h.snippet) for h in results.hits] == [("One", "first"), ("Two", ""), ("Three", "")]
    assert results.provider == "custom"


async def test_async_callable_and_generator_output() -> None:
    """An async callable works, and any iterable of mappings (a generator) is accepted."""

    async def backend(query: SearchQuery) -> Iterator[Mapping[str, str]]:
        return (row for row in ROWS[:1])

    results = await run_search(custom(backend, name="mine"), validate_query("q"), cooldowns=Cooldowns())
    assert [h.url for h in results.hits] == ["https://example.com/1"] and results.provider == "mine"


class AsyncCallable:
    """An object whose __call__ is async."""

    async def __call__(self, query: SearchQuery) -> list[dict[str, str]]:
        return ROWS[:1]


async def test_async_callable_object() -> None:
    """An instance with an async __call__ is awaited."""
    results = await run_search(custom(AsyncCallable()), validate_query("q"), cooldowns=Cooldowns())
    assert len(results.hits) == 1


BAD_ANSWERS: list[tuple[str, object]] = [
    ("None", None),
    ("a string", "https://example.com"),
    ("a mapping", {"url": "https://example.com", "title": "t"}),
    ("a non-mapping row", ["https://example.com"]),
    ("a row without title", [{"url": "https://example.com"}]),
    ("a non-text url", [{"url": 1, "title": "t"}]),
    ("a non-text snippet", [{"url": "https://example.com", "title": "t", "snippet": 3}]),
    ("too many rows", [{"url": "https://example.com", "title": "t"}] * 1_001),
]


@pytest.mark.parametrize(("why", "answer"), BAD_ANSWERS, ids=[b[0] for b in BAD_ANSWERS])
async def test_bad_answers_are_parse_changed(why: str, answer: object) -> None:
    """Answers that are not an iterable of {url, title[, snippet]} rows are PARSE_CHANGED."""
    def backend(query: SearchQuery) -> Any:
        return answer

    with pytest.raises(ParseChanged) as caught:
        await run_search(custom(backend), validate_query("q"), cooldowns=Cooldowns())
    assert caught.value.reason == "invalid_provider_output"


EXCEPTION_CASES: list[tuple[BaseException, type[PagewardenError]]] = [
    (RateLimited("typed", retry_after=7), RateLimited),
    (InvalidInput("typed"), InvalidInput),
    (TimeoutError("key=SECRET"), Timeout),
    (ConnectionRefusedError("key=SECRET"), NetworkError),
    (KeyError("key=SECRET"), UnknownError),
    (RuntimeError("key=SECRET"), UnknownError),
]


@pytest.mark.parametrize(("error", "expected"), EXCEPTION_CASES)
@pytest.mark.parametrize("is_async", [False, True])
async def test_exceptions_are_mapped(error: BaseException, expected: type[PagewardenError], is_async: bool) -> None:
    """Typed errors pass through; others map to TIMEOUT/NETWORK_ERROR/UNKNOWN without their message."""

    def sync_backend(query: SearchQuery) -> list[dict[str, str]]:
        raise error

    async def async_backend(query: SearchQuery) -> list[dict[str, str]]:
        raise error

    provider = custom(async_backend if is_async else sync_backend)
    with pytest.raises(expected) as caught:
        await run_search(provider, validate_query("q"), cooldowns=Cooldowns())
    assert "SECRET" not in str(caught.value) and "SECRET" not in str(caught.value.to_dict())


@pytest.mark.parametrize(("function", "name"), [(None, "custom"), ("text", "custom"), (len, ""), (len, "x" * 101)])
def test_invalid_arguments(function: Any, name: str) -> None:
    """custom() needs a callable and a 1..100 character name."""
    with pytest.raises(InvalidInput):
        custom(function, name=name)
