"""Web search: providers, hit normalization, cooldowns, search_and_read, cache."""

from .types import RawHit, SearchHit, SearchProvider, SearchQuery

__all__ = ["RawHit", "SearchHit", "SearchProvider", "SearchQuery"]
