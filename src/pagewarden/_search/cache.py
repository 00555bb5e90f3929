"""The search result cache of one reader: results keyed by everything that changes them.

The LRU, TTL and in-flight sharing are the generic :class:`~pagewarden._cache.ResultCache`;
what belongs to search is the key: the provider's name, the validated query
(with every option) and the guard profile the hits were judged under.
Errors are never cached.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from .._cache import ResultCache
from .._config import CacheConfig
from .types import SearchProvider, SearchQuery, SearchResults

__all__ = ["SearchCache"]


class SearchCache(ResultCache[SearchResults]):
    """:class:`SearchResults` for ``config.search_ttl`` seconds, bounded by ``config.max_entries``."""

    def __init__(self, config: CacheConfig) -> None:
        super().__init__(config.max_entries, config.search_ttl)

    async def search(
        self, provider: SearchProvider, query: SearchQuery, profile: str, work: Callable[[], Awaitable[SearchResults]]
    ) -> SearchResults:
        """The cached or shared results for this search, else ``await work()``."""
        return await self.get_or_run((provider.name, query, profile), work)
