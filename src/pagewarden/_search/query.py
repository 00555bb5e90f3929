"""Query validation: turn caller arguments into a :class:`SearchQuery` or raise ``INVALID_INPUT``.

Rules (the same for every provider; each provider maps the result to its own
vocabulary):

* ``text``: a string, 1..400 characters after trimming; control characters
  (tab, CR, LF included) become spaces and runs of whitespace collapse, so a
  query can never smuggle a header-like line into a provider request.
* ``limit``: an integer 1..20 (``bool`` is refused).
* ``language``: ISO 639-1, two ASCII letters, stored lower case.
* ``region``: ISO 3166-1 alpha-2, two ASCII letters, stored upper case.
* ``safe_search``: ``off``, ``moderate`` or ``strict``.
* ``time_range``: ``day``, ``week``, ``month``, ``year`` or ``None``.

Messages never echo the query text (it may carry personal data).
"""

from __future__ import annotations

import re
from typing import cast

from .._errors import InvalidInput
from .types import SAFE_SEARCH_LEVELS, TIME_RANGES, SafeSearch, SearchQuery, TimeRange

__all__ = ["MAX_LIMIT", "MAX_QUERY_CHARS", "validate_query"]

MAX_QUERY_CHARS = 400
MAX_LIMIT = 20
_TWO_LETTERS = re.compile(r"^[A-Za-z]{2}$")


def _clean_text(text: object) -> str:
    if not isinstance(text, str):
        raise InvalidInput("the query must be a string", reason="invalid_query", stage="search")
    # Control characters (Cc) become spaces; whitespace then collapses.
    spaced = "".join(" " if (ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F) else ch for ch in text)
    cleaned = " ".join(spaced.split())
    if not cleaned:
        raise InvalidInput("the query is empty", reason="empty_query", stage="search")
    if len(cleaned) > MAX_QUERY_CHARS:
        raise InvalidInput(
            f"the query is longer than {MAX_QUERY_CHARS} characters", reason="query_too_long", stage="search"
        )
    return cleaned


def _code(name: str, value: object, standard: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not _TWO_LETTERS.match(value):
        raise InvalidInput(f"{name} must be a two-letter {standard} code", reason=f"invalid_{name}", stage="search")
    return value


def validate_query(
    text: str,
    *,
    limit: int = 10,
    language: str | None = None,
    region: str | None = None,
    safe_search: str = "moderate",
    time_range: str | None = None,
) -> SearchQuery:
    """Validate search arguments and return the :class:`SearchQuery` every provider receives.

    Raises:
        InvalidInput: any argument is out of range; ``reason`` names which
            (``empty_query``, ``query_too_long``, ``invalid_limit``,
            ``invalid_language``, ``invalid_region``, ``invalid_safe_search``,
            ``invalid_time_range``, ``invalid_query``).
    """
    cleaned = _clean_text(text)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise InvalidInput(f"limit must be an integer in 1..{MAX_LIMIT}", reason="invalid_limit", stage="search")
    lang = _code("language", language, "ISO 639-1")
    reg = _code("region", region, "ISO 3166-1 alpha-2")
    if not isinstance(safe_search, str) or safe_search not in SAFE_SEARCH_LEVELS:
        raise InvalidInput(
            "safe_search must be one of: " + ", ".join(SAFE_SEARCH_LEVELS), reason="invalid_safe_search", stage="search"
        )
    if time_range is not None and (not isinstance(time_range, str) or time_range not in TIME_RANGES):
        raise InvalidInput(
            "time_range must be one of: " + ", ".join(TIME_RANGES), reason="invalid_time_range", stage="search"
        )
    return SearchQuery(
        text=cleaned,
        limit=limit,
        language=lang.lower() if lang else None,
        region=reg.upper() if reg else None,
        safe_search=cast(SafeSearch, safe_search),
        time_range=cast("TimeRange | None", time_range),
    )
