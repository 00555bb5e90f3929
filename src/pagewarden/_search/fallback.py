"""``fallback([p1, p2, ...])``: try the next provider only after a retryable failure.

The chain advances after ``RATE_LIMITED``, ``BOT_CHALLENGE``, ``TIMEOUT``,
``NETWORK_ERROR``, ``PARSE_CHANGED`` and a retryable ``UPSTREAM_HTTP`` (429,
5xx, a dropped connection); a member that is cooling down counts as
``RATE_LIMITED`` and is skipped without being called. An empty result is an
answer (the next provider is not asked), and ``INVALID_INPUT``,
``CONFIG_MISSING``, ``UNKNOWN``, ``UNSAFE_URL`` or a non-retryable
``UPSTREAM_HTTP`` (a rejected API key) stop the chain at once: asking another
provider would hide a bug or a misconfiguration.

When every member failed, the most informative failure is raised: a
challenge beats a rate limit, which beats a changed layout, which beats an
HTTP failure or a timeout, which beat a network error (a later, weaker
failure never hides an earlier challenge). Ties go to the later failure.

The whole chain runs under the caller's single deadline
(:func:`~pagewarden._search.run.run_search` owns it); members share it.
"""

from __future__ import annotations

from collections.abc import Iterable

from .._errors import (
    BotChallenge,
    InvalidInput,
    NetworkError,
    PagewardenError,
    ParseChanged,
    RateLimited,
    Timeout,
    UpstreamHTTP,
)
from .calling import ChainProvider, ProviderAnswer, call_provider, check_name, check_provider
from .cooldown import Cooldowns
from .types import ProviderFailure, SearchProvider, SearchQuery

__all__ = ["FallbackProvider", "advances", "fallback", "most_informative"]

MAX_MEMBERS = 16
# Higher is more informative.
_WEIGHT: tuple[tuple[type[PagewardenError], int], ...] = (
    (BotChallenge, 5),
    (RateLimited, 4),
    (ParseChanged, 3),
    (UpstreamHTTP, 2),
    (Timeout, 2),
    (NetworkError, 1),
)


def advances(exc: PagewardenError) -> bool:
    """Whether ``exc`` from one member lets the chain try the next one."""
    if isinstance(exc, UpstreamHTTP):
        return exc.retryable
    return isinstance(exc, BotChallenge | RateLimited | Timeout | NetworkError | ParseChanged)


def _weight(exc: PagewardenError) -> int:
    return next((weight for cls, weight in _WEIGHT if isinstance(exc, cls)), 0)


def most_informative(failures: list[PagewardenError]) -> PagewardenError:
    """The failure to raise when every member failed (ties go to the later one)."""
    best = failures[0]
    for failure in failures[1:]:
        if _weight(failure) >= _weight(best):
            best = failure
    return best


class FallbackProvider(ChainProvider):
    """Providers tried in order; see the module docstring."""

    def __init__(self, providers: tuple[SearchProvider, ...], name: str) -> None:
        self.providers = providers
        self.name = name

    async def search_chain(
        self,
        query: SearchQuery,
        *,
        deadline: float,
        cooldowns: Cooldowns | None,
        failures: list[ProviderFailure] | None = None,
    ) -> ProviderAnswer:
        """Ask each member in turn until one answers (an empty answer included)."""
        seen: list[PagewardenError] = []
        for provider in self.providers:
            try:
                answer = await call_provider(provider, query, deadline=deadline, cooldowns=cooldowns, failures=failures)
            except PagewardenError as exc:
                if not advances(exc):
                    raise
                seen.append(exc)
                if failures is not None:
                    failures.append(
                        ProviderFailure(
                            provider=getattr(provider, "name", "?"),
                            code=exc.code.value,
                            reason=exc.reason,
                            retryable=exc.retryable,
                            retry_after=exc.retry_after,
                        )
                    )
                continue
            return answer
        raise most_informative(seen)

    def __repr__(self) -> str:
        return f"FallbackProvider(name={self.name!r})"


def fallback(providers: Iterable[SearchProvider], *, name: str | None = None) -> FallbackProvider:
    """A provider that asks ``providers`` in order, moving on only after a retryable failure.

    Args:
        providers: 1..16 providers with distinct names (fallback chains nest).
        name: the chain's name; defaults to ``fallback(<member names>)``.

    Raises:
        InvalidInput: no provider, too many, duplicate names, or an object
            that is not a provider.
    """
    if isinstance(providers, str | bytes) or not isinstance(providers, Iterable):
        raise InvalidInput("fallback() needs a list of search providers", reason="invalid_provider")
    members = tuple(providers)
    if not 1 <= len(members) <= MAX_MEMBERS:
        raise InvalidInput(f"fallback() needs 1..{MAX_MEMBERS} providers", reason="invalid_provider")
    names = [check_provider(member) for member in members]
    if len(set(names)) != len(names):
        raise InvalidInput("fallback() providers need distinct names", reason="duplicate_provider_name")
    chain_name = name if name is not None else ("fallback(" + ",".join(names) + ")")[:100]
    return FallbackProvider(members, check_name(chain_name))
