"""Query validation: every argument's range, as a table."""

from __future__ import annotations

from typing import Any

import pytest

from pagewarden import InvalidInput
from pagewarden._search.query import validate_query
from pagewarden._search.types import SearchQuery

# (kwargs, expected SearchQuery fields or the expected InvalidInput reason)
VALID: list[tuple[dict[str, Any], dict[str, Any]]] = [
    ({"text": "python"}, {"text": "python", "limit": 10, "safe_search": "moderate", "language": None}),
    ({"text": "  padded  "}, {"text": "padded"}),
    ({"text": "a\tb\r\nc\x00d"}, {"text": "a b c d"}),
    ({"text": "x" * 400}, {"text": "x" * 400}),
    ({"text": "  " + "x" * 400 + "  "}, {"text": "x" * 400}),
    ({"text": "q", "limit": 1}, {"limit": 1}),
    ({"text": "q", "limit": 20}, {"limit": 20}),
    ({"text": "q", "language": "EN", "region": "us"}, {"language": "en", "region": "US"}),
    ({"text": "q", "safe_search": "off"}, {"safe_search": "off"}),
    ({"text": "q", "safe_search": "strict"}, {"safe_search": "strict"}),
    ({"text": "q", "time_range": "week"}, {"time_range": "week"}),
    ({"text": "日本語の検索"}, {"text": "日本語の検索"}),
]

INVALID: list[tuple[dict[str, Any], str]] = [
    ({"text": ""}, "empty_query"),
    ({"text": "   \t\n "}, "empty_query"),
    ({"text": "x" * 401}, "query_too_long"),
    ({"text": None}, "invalid_query"),
    ({"text": b"bytes"}, "invalid_query"),
    ({"text": "q", "limit": 0}, "invalid_limit"),
    ({"text": "q", "limit": 21}, "invalid_limit"),
    ({"text": "q", "limit": True}, "invalid_limit"),
    ({"text": "q", "limit": 5.0}, "invalid_limit"),
    ({"text": "q", "language": "eng"}, "invalid_language"),
    ({"text": "q", "language": "e1"}, "invalid_language"),
    ({"text": "q", "language": "ü1"}, "invalid_language"),
    ({"text": "q", "region": "USA"}, "invalid_region"),
    ({"text": "q", "region": ""}, "invalid_region"),
    ({"text": "q", "safe_search": "on"}, "invalid_safe_search"),
    ({"text": "q", "safe_search": None}, "invalid_safe_search"),
    ({"text": "q", "time_range": "hour"}, "invalid_time_range"),
    ({"text": "q", "time_range": "d"}, "invalid_time_range"),
]


@pytest.mark.parametrize(("kwargs", "expected"), VALID)
def test_valid_queries(kwargs: dict[str, Any], expected: dict[str, Any]) -> None:
    """Valid arguments become a SearchQuery with trimmed text and normalized codes."""
    query = validate_query(**kwargs)
    assert isinstance(query, SearchQuery)
    for field, value in expected.items():
        assert getattr(query, field) == value


@pytest.mark.parametrize(("kwargs", "reason"), INVALID)
def test_invalid_queries(kwargs: dict[str, Any], reason: str) -> None:
    """Out-of-range arguments raise INVALID_INPUT naming the argument."""
    with pytest.raises(InvalidInput) as caught:
        validate_query(**kwargs)
    assert caught.value.reason == reason


def test_message_never_echoes_the_query() -> None:
    """A refused query is not quoted in the error (it may carry personal data)."""
    secret = "my-private-words " * 30
    with pytest.raises(InvalidInput) as caught:
        validate_query(secret)
    assert "private" not in str(caught.value)
    assert "private" not in repr(caught.value.to_dict())
