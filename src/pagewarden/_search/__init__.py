"""Web search: providers, hit normalization, cooldowns, search_and_read, cache.

The flow of one search: :func:`validate_query` -> :func:`run_search` (one
deadline; cooldown check; the provider or fallback chain, see
:mod:`.calling`) -> output shape check -> :mod:`.normalize` (unwrap,
canonicalize, drop refused URLs, dedupe) -> guard per hit -> ranked
:class:`SearchResults`.

Providers: :func:`ddgs` (keyless, the ddgs library), :func:`brave` (Brave
Search API over the safe transport), :func:`searxng` (a self-hosted SearXNG's
JSON API), :func:`fallback`, :func:`fused` (concurrent, reciprocal-rank
fusion) and :func:`custom`.
"""

from .brave import BraveProvider, brave
from .cooldown import Cooldowns
from .custom import CustomProvider, custom
from .ddgs_provider import DdgsProvider, ddgs
from .fallback import FallbackProvider, fallback
from .fused import FusedProvider, fused
from .query import validate_query
from .run import run_search
from .searxng import SearxngProvider, searxng
from .types import ProviderFailure, RawHit, SearchHit, SearchProvider, SearchQuery, SearchResults

__all__ = [
    "BraveProvider",
    "Cooldowns",
    "CustomProvider",
    "DdgsProvider",
    "FallbackProvider",
    "FusedProvider",
    "ProviderFailure",
    "RawHit",
    "SearchHit",
    "SearchProvider",
    "SearchQuery",
    "SearchResults",
    "SearxngProvider",
    "brave",
    "custom",
    "ddgs",
    "fallback",
    "fused",
    "run_search",
    "searxng",
    "validate_query",
]
