"""Web search: providers, hit normalization, cooldowns, search_and_read, cache.

The flow of one search: :func:`validate_query` -> :func:`run_search` (one
deadline; cooldown check; the provider or fallback chain, see
:mod:`.calling`) -> output shape check -> :mod:`.normalize` (unwrap,
canonicalize, drop refused URLs, dedupe) -> guard per hit -> ranked
:class:`SearchResults`.

Providers: :func:`ddgs` (keyless, the ddgs library), :func:`brave` (Brave
Search API over the safe transport), :func:`fallback` and :func:`custom`.
"""

from .brave import BraveProvider, brave
from .cooldown import Cooldowns
from .custom import CustomProvider, custom
from .ddgs_provider import DdgsProvider, ddgs
from .fallback import FallbackProvider, fallback
from .query import validate_query
from .run import run_search
from .types import RawHit, SearchHit, SearchProvider, SearchQuery, SearchResults

__all__ = [
    "BraveProvider",
    "Cooldowns",
    "CustomProvider",
    "DdgsProvider",
    "FallbackProvider",
    "RawHit",
    "SearchHit",
    "SearchProvider",
    "SearchQuery",
    "SearchResults",
    "brave",
    "custom",
    "ddgs",
    "fallback",
    "run_search",
    "validate_query",
]
