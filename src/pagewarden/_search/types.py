"""The search vocabulary, defined in the foundation (:mod:`pagewarden._search_types`).

``ReaderConfig.search`` is typed with :class:`SearchProvider`, so the
vocabulary sits below the configuration; search code imports it from here.
"""

from __future__ import annotations

from .._search_types import (
    SAFE_SEARCH_LEVELS,
    TIME_RANGES,
    ProviderFailure,
    RawHit,
    SafeSearch,
    SearchHit,
    SearchProvider,
    SearchQuery,
    SearchResults,
    TimeRange,
)

__all__ = [
    "SAFE_SEARCH_LEVELS",
    "TIME_RANGES",
    "ProviderFailure",
    "RawHit",
    "SafeSearch",
    "SearchHit",
    "SearchProvider",
    "SearchQuery",
    "SearchResults",
    "TimeRange",
]
