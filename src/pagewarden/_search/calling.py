"""Calling one provider: cooldown check, the call, failure mapping, output shape check.

:func:`call_provider` is what :func:`~pagewarden._search.run.run_search` and the
fallback chain use for every provider, so the rules are the same at every
level:

* a provider that is cooling down is not called: ``RATE_LIMITED`` with the
  remaining seconds;
* a ``RATE_LIMITED`` or ``BOT_CHALLENGE`` from the provider starts its
  cooldown (``retry_after`` is filled in with the applied cooldown when the
  provider gave none);
* a provider raising something that is not a ``PagewardenError`` (a
  third-party implementation's bug) becomes ``UNKNOWN``
  (``provider_failed``), ``TimeoutError`` becomes ``TIMEOUT`` and ``OSError``
  becomes ``NETWORK_ERROR``; the original exception is not chained or quoted
  (it could carry a key or a response body);
* the answer must be a bounded sequence of :class:`RawHit`, else
  ``PARSE_CHANGED`` (``invalid_provider_output``).

Composite providers (the fallback chain) subclass :class:`ChainProvider` and
get the reader's :class:`Cooldowns`, so each member cools down on its own.
"""

from __future__ import annotations

from collections.abc import Sequence

from .._errors import BotChallenge, InvalidInput, NetworkError, PagewardenError, RateLimited, Timeout, UnknownError
from .cooldown import Cooldowns
from .normalize import validate_raw_hits
from .types import ProviderFailure, RawHit, SearchQuery

__all__ = ["ChainProvider", "ProviderAnswer", "call_provider", "check_name", "check_provider"]

ProviderAnswer = tuple[tuple[RawHit, ...], str]
_MAX_NAME_CHARS = 100


class ChainProvider:
    """Base of providers that call other providers (and therefore manage their members' cooldowns)."""

    name: str

    async def search_chain(
        self,
        query: SearchQuery,
        *,
        deadline: float,
        cooldowns: Cooldowns | None,
        failures: list[ProviderFailure] | None = None,
    ) -> ProviderAnswer:
        """Return ``(hits, name of the member that answered)``; members that failed go to ``failures``."""
        raise NotImplementedError

    async def search(self, query: SearchQuery, *, deadline: float) -> Sequence[RawHit]:
        """The :class:`SearchProvider` entry point (no cooldown tracking when used on its own)."""
        hits, _ = await self.search_chain(query, deadline=deadline, cooldowns=None)
        return hits


def check_name(name: object) -> str:
    """Validate a provider name: printable text of 1..100 characters."""
    if not isinstance(name, str) or not 0 < len(name) <= _MAX_NAME_CHARS or not name.isprintable():
        raise InvalidInput(
            f"a search provider needs a printable name of 1..{_MAX_NAME_CHARS} characters",
            reason="invalid_provider",
            stage="search",
        )
    return name


def check_provider(provider: object) -> str:
    """Validate that ``provider`` looks like a :class:`SearchProvider`; return its name."""
    name = check_name(getattr(provider, "name", None))
    if not callable(getattr(provider, "search", None)):
        raise InvalidInput(
            "a search provider needs an async search(query, *, deadline) method", reason="invalid_provider"
        )
    return name


def _translate(exc: Exception, name: str) -> PagewardenError:
    label = name[:60]
    if isinstance(exc, TimeoutError):
        return Timeout(f"search provider {label} timed out", reason="provider_timeout", stage="search")
    if isinstance(exc, OSError):
        return NetworkError(f"search provider {label} lost its connection", reason="provider_network", stage="search")
    return UnknownError(
        f"search provider {label} failed ({type(exc).__name__})", reason="provider_failed", stage="search"
    )


async def call_provider(
    provider: object,
    query: SearchQuery,
    *,
    deadline: float,
    cooldowns: Cooldowns | None,
    failures: list[ProviderFailure] | None = None,
) -> ProviderAnswer:
    """Run one provider (or chain) under the cooldown rules; return ``(shape-checked hits, answering name)``.

    A chain records the members that failed on the way into ``failures`` (when given).
    """
    name = check_provider(provider)
    if isinstance(provider, ChainProvider):
        return await provider.search_chain(query, deadline=deadline, cooldowns=cooldowns, failures=failures)
    if cooldowns is not None:
        cooldowns.check(name)
    try:
        raw = await provider.search(query, deadline=deadline)  # type: ignore[attr-defined]
    except (RateLimited, BotChallenge) as exc:
        if cooldowns is not None:
            applied = cooldowns.start(name, exc.retry_after)
            if exc.retry_after is None:
                exc.retry_after = applied
        raise
    except PagewardenError:
        raise
    except Exception as exc:
        raise _translate(exc, name) from None
    return validate_raw_hits(raw, name), name
