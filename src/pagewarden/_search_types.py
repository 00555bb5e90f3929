"""The search vocabulary: a validated query, a raw provider hit, a normalized hit, the provider protocol.

Providers receive a :class:`SearchQuery` that is already validated and a
deadline (an ``anyio.current_time()`` value); they return raw hits or raise a
:class:`~pagewarden.PagewardenError`. Everything a provider returns is
untrusted: the search layer normalizes, deduplicates, bounds and guards it.

It lives in the foundation (it imports nothing of pagewarden) because
``ReaderConfig.search`` is typed with :class:`SearchProvider`;
:mod:`._search.types` re-exports it for search code.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

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

SafeSearch = Literal["off", "moderate", "strict"]
TimeRange = Literal["day", "week", "month", "year"]
SAFE_SEARCH_LEVELS: tuple[str, ...] = ("off", "moderate", "strict")
TIME_RANGES: tuple[str, ...] = ("day", "week", "month", "year")


@dataclass(frozen=True, slots=True)
class SearchQuery:
    """A validated search request.

    Attributes:
        text: the query, trimmed, 1..400 characters.
        limit: how many hits are wanted (1..20).
        language: ISO 639-1 code, lower case, or ``None``.
        region: ISO 3166-1 alpha-2 code, upper case, or ``None``.
        safe_search: ``off``, ``moderate`` (default) or ``strict``.
        time_range: ``day``, ``week``, ``month``, ``year`` or ``None``.
    """

    text: str
    limit: int = 10
    language: str | None = None
    region: str | None = None
    safe_search: SafeSearch = "moderate"
    time_range: TimeRange | None = None


@dataclass(frozen=True, slots=True)
class RawHit:
    """One hit as a provider returned it (untrusted, not yet normalized)."""

    url: str
    title: str
    snippet: str = ""


@dataclass(frozen=True, slots=True)
class SearchHit:
    """A normalized search hit. Always untrusted and tainted.

    Attributes:
        url: canonical URL (redirect wrappers unwrapped, tracking parameters
            and fragment dropped).
        title: bounded, control characters stripped.
        snippet: bounded, control characters stripped.
        rank: 1-based position after deduplication.
        provider: the provider's name.
    """

    url: str
    title: str
    snippet: str
    rank: int
    provider: str
    trust: Literal["untrusted"] = "untrusted"
    tainted: Literal[True] = True

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "url": self.url,
            "title": self.title,
            "snippet": self.snippet,
            "rank": self.rank,
            "provider": self.provider,
            "trust": self.trust,
            "tainted": self.tainted,
        }


@dataclass(frozen=True, slots=True)
class ProviderFailure:
    """One member of a fused or fallback provider that failed while the search as a whole answered.

    Attributes:
        provider: the member's name.
        code: the failure's stable error code (``RATE_LIMITED``, ``TIMEOUT``, ...).
        reason: its named reason, if any.
        retryable: whether asking that member again later can succeed.
        retry_after: seconds to wait before asking it again, if known.
    """

    provider: str
    code: str
    reason: str | None
    retryable: bool
    retry_after: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "provider": self.provider,
            "code": self.code,
            "reason": self.reason,
            "retryable": self.retryable,
            "retry_after": self.retry_after,
        }


@dataclass(frozen=True, slots=True)
class SearchResults:
    """The outcome of one search: normalized, guarded hits.

    Attributes:
        query: the validated query that was run.
        hits: the hits that passed the guard, ranked from 1, at most ``query.limit``.
        withheld: how many inspected hits the guard withheld (a high or
            critical finding in the title, snippet or URL).
        provider: the name of the provider that answered (in a fallback
            chain, the member that succeeded; for a fused provider, its own name).
        failures: the members of a fused or fallback provider that failed
            although the search answered (partial results), in the order seen.
    """

    query: SearchQuery
    hits: tuple[SearchHit, ...]
    withheld: int
    provider: str
    failures: tuple[ProviderFailure, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "query": self.query.text,
            "provider": self.provider,
            "hits": [hit.to_dict() for hit in self.hits],
            "withheld": self.withheld,
            **({"failures": [failure.to_dict() for failure in self.failures]} if self.failures else {}),
        }


@runtime_checkable
class SearchProvider(Protocol):
    """A web search backend.

    ``name`` identifies it in hits, errors and cooldowns. ``search`` must
    finish by ``deadline`` (an ``anyio.current_time()`` value; the caller also
    enforces it) and either return hits or raise a ``PagewardenError``:
    ``RATE_LIMITED`` / ``BOT_CHALLENGE`` (with ``retry_after`` when known),
    ``PARSE_CHANGED``, ``NETWORK_ERROR``, ``TIMEOUT``, ``UPSTREAM_HTTP``. A
    failure must never be reported as an empty result.
    """

    name: str

    async def search(self, query: SearchQuery, *, deadline: float) -> Sequence[RawHit]:
        """Return the provider's hits for ``query``."""
        ...
