"""The single entry point that runs a search: deadline, provider chain, normalization, guard.

:func:`run_search` is what the reader (``AsyncReader.search``) and
``search_and_read`` call. One deadline (``timeout``, 10 s by default) covers
the whole provider chain; expiring is ``TIMEOUT`` (``search_deadline_exceeded``).
A caller's own cancellation (or an enclosing deadline such as
``search_and_read``'s) propagates unchanged.

After the providers answered, hits are normalized
(:mod:`pagewarden._search.normalize`), then each candidate, in provider
order, is run through the built-in guard as one text (title, snippet and
URL, location ``visible``). A candidate with any ``high`` or ``critical``
finding, a withholding decision, or a truncated inspection is withheld and
counted; the others are ranked from 1 until ``query.limit`` are kept.
Guarding stops once the limit is reached, so ``withheld`` counts the
withheld hits among those inspected.
"""

from __future__ import annotations

import math

import anyio
import anyio.lowlevel

from .._config import GUARD_PROFILES, ReaderConfig
from .._errors import GuardFailed, InvalidInput, PagewardenError, Timeout
from .._guard import Severity, guard_text
from .calling import call_provider, check_provider
from .cooldown import Cooldowns
from .normalize import CandidateHit, normalize_hits
from .types import ProviderFailure, SearchHit, SearchProvider, SearchQuery, SearchResults

__all__ = ["DEFAULT_SEARCH_TIMEOUT", "guard_hit", "run_search"]

DEFAULT_SEARCH_TIMEOUT = 10.0
_MAX_TIMEOUT = 300.0


def guard_hit(candidate: CandidateHit, profile: str) -> bool:
    """Whether the guard lets ``candidate`` through (no high/critical finding, no withholding decision)."""
    try:
        report = guard_text(
            candidate.title + "\n" + candidate.snippet + "\n" + candidate.url, location="visible", profile=profile
        )
    except PagewardenError:
        raise
    except Exception as exc:
        raise GuardFailed(
            f"the guard failed on a search hit ({type(exc).__name__})", reason="search_guard_failed", stage="guard"
        ) from None
    if report.truncated or report.decision.withholds:
        return False
    return not any(finding.severity >= Severity.HIGH for finding in report.findings)


def _check_arguments(query: object, timeout: object, cooldowns: object, profile: object) -> float:
    if not isinstance(query, SearchQuery):
        raise InvalidInput("query must be a SearchQuery (see validate_query)", reason="invalid_query", stage="search")
    if isinstance(timeout, bool) or not isinstance(timeout, int | float):
        raise InvalidInput("timeout must be a number of seconds", reason="invalid_timeout", stage="search")
    seconds = float(timeout)
    if not math.isfinite(seconds) or not 0 < seconds <= _MAX_TIMEOUT:
        raise InvalidInput(f"timeout must be in (0, {_MAX_TIMEOUT:g}] seconds", reason="invalid_timeout")
    if not isinstance(cooldowns, Cooldowns):
        raise InvalidInput("cooldowns must be a Cooldowns", reason="invalid_cooldowns", stage="search")
    if profile not in GUARD_PROFILES:
        raise InvalidInput("profile must be balanced or strict", reason="invalid_profile", stage="search")
    return seconds


async def run_search(
    provider: SearchProvider,
    query: SearchQuery,
    *,
    timeout: float = DEFAULT_SEARCH_TIMEOUT,
    cooldowns: Cooldowns,
    profile: str = "balanced",
    config: ReaderConfig | None = None,
) -> SearchResults:
    """Run ``query`` on ``provider`` (a single provider or a fallback chain) and return guarded hits.

    Args:
        provider: the reader's search provider.
        query: a validated query (:func:`validate_query`).
        timeout: seconds for the whole provider chain.
        cooldowns: the reader's cooldown table.
        profile: guard profile for the hits, ``balanced`` or ``strict``.
        config: the reader's config; its ``unsafe_allow_destinations`` decide
            which hit URLs survive (a default config when ``None``).

    Raises:
        InvalidInput: bad arguments.
        Timeout: the chain did not answer in time.
        RateLimited, BotChallenge, ParseChanged, NetworkError, UpstreamHTTP,
        UnknownError, ...: the provider's (or the chain's most informative)
        failure. Never an empty result for a failure.
    """
    seconds = _check_arguments(query, timeout, cooldowns, profile)
    check_provider(provider)
    failures: list[ProviderFailure] = []
    try:
        with anyio.fail_after(seconds):
            deadline = anyio.current_effective_deadline()
            raw, answered_by = await call_provider(
                provider, query, deadline=deadline, cooldowns=cooldowns, failures=failures
            )
    except TimeoutError:
        raise Timeout("the search did not finish in time", reason="search_deadline_exceeded", stage="search") from None
    candidates = normalize_hits(raw, config)
    hits: list[SearchHit] = []
    withheld = 0
    for candidate in candidates:
        if len(hits) >= query.limit:
            break
        # Guarding is CPU work; let cancellation in between hits.
        await anyio.lowlevel.checkpoint()
        if not guard_hit(candidate, profile):
            withheld += 1
            continue
        hits.append(
            SearchHit(
                url=candidate.url,
                title=candidate.title,
                snippet=candidate.snippet,
                rank=len(hits) + 1,
                provider=answered_by,
            )
        )
    return SearchResults(
        query=query, hits=tuple(hits), withheld=withheld, provider=answered_by, failures=tuple(failures)
    )
