"""``fused([p1, p2, ...], weights=...)``: ask several providers at once and merge them by reciprocal-rank fusion.

Members run concurrently under the caller's single deadline (the one
:func:`~pagewarden._search.run.run_search` owns). A member that has not
answered a short margin before that deadline (2 % of the time left, at most
50 ms) is cancelled and counted as ``TIMEOUT``, so the members that did answer
are still fused instead of the whole search timing out. Each member runs under
the usual rules of :func:`~pagewarden._search.calling.call_provider` (its own
cooldown, failure translation, output shape check), so fused providers nest
with :func:`~pagewarden._search.fallback.fallback` in both directions.

Fusion, per member answer:

1. every hit is normalized (:func:`~pagewarden._search.normalize.normalize_hits`:
   redirect wrappers unwrapped, tracking parameters dropped, refused URLs
   dropped) and ranked from 1 within that member after deduplication;
2. members are grouped by the upstream index they draw from (see
   :func:`upstream_index_of`): ``ddgs("yahoo")``, ``ddgs("bing")`` and
   ``ddgs("duckduckgo")`` all serve Bing's index, ``brave(key)`` and
   ``ddgs("brave")`` both serve Brave's. A group contributes **one** term per
   URL, at the best rank any of its members gave it (weighted by that member's
   weight; the larger weight on a tie), so two front-ends of one index agreeing
   is one vote, not two;
3. ``score(url) = sum over groups of weight / (k + rank)`` with ``k = 60``;
   URLs are ordered by score, ties by the best rank, then by member order.
   Title and snippet come from the member occurrence with the best rank.

Failures: every member failure is kept as a :class:`ProviderFailure` (code,
reason, retryable, retry_after; never a message from upstream) and reported
on :attr:`SearchResults.failures`. When every member failed, the search fails:
a non-retryable failure (a bug or a misconfiguration, as in a fallback chain)
is raised first, otherwise the most informative one (a challenge beats a rate
limit, which beats a changed layout, ...).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import anyio

from .._config import ReaderConfig
from .._errors import InvalidInput, PagewardenError, Timeout, UpstreamHTTP
from .calling import ChainProvider, ProviderAnswer, call_provider, check_name, check_provider
from .cooldown import Cooldowns
from .fallback import advances, most_informative
from .normalize import CandidateHit, normalize_hits
from .types import ProviderFailure, RawHit, SearchProvider, SearchQuery

__all__ = [
    "DDGS_UPSTREAM_INDEX",
    "DEFAULT_K",
    "FusedProvider",
    "fuse_candidates",
    "fuse_rankings",
    "fused",
    "upstream_index_of",
]

DEFAULT_K = 60
MAX_MEMBERS = 16
MAX_WEIGHT = 100.0
_MARGIN_SHARE = 0.02
_MAX_MARGIN = 0.05

# Which index a ddgs text backend serves. DuckDuckGo and Yahoo draw their web
# results mainly from Bing, Startpage from Google.
DDGS_UPSTREAM_INDEX: dict[str, str] = {
    "bing": "bing",
    "duckduckgo": "bing",
    "yahoo": "bing",
    "google": "google",
    "startpage": "google",
    "brave": "brave",
    "mojeek": "mojeek",
    "yandex": "yandex",
    "wikipedia": "wikipedia",
    "grokipedia": "grokipedia",
}


def upstream_index_of(provider: object) -> str:
    """The correlation group of ``provider``: its ``upstream_index`` attribute, else its name.

    Built-in providers declare one: ``ddgs(backend)`` from :data:`DDGS_UPSTREAM_INDEX`,
    ``brave()`` ``"brave"``, ``searxng()`` whatever ``upstream_index=`` said (its own
    name by default). A custom provider without the attribute is a group of its own.
    """
    index = getattr(provider, "upstream_index", None)
    if isinstance(index, str) and 0 < len(index) <= 100 and index.isprintable():
        return index
    return check_provider(provider)


@dataclass(frozen=True, slots=True)
class _Occurrence:
    member: int
    rank: int
    hit: RawHit


def fuse_rankings(
    rankings: Sequence[tuple[int, Sequence[RawHit]]],
    *,
    groups: Sequence[str],
    weights: Sequence[float],
    k: int = DEFAULT_K,
    config: ReaderConfig | None = None,
) -> list[tuple[RawHit, float]]:
    """Fuse per-member rankings into one list of ``(hit, score)``, best first.

    Args:
        rankings: ``(member index, hits in that member's order)`` for each member that answered.
        groups: the correlation group of every member (by member index).
        weights: the weight of every member (by member index).
        k: the RRF constant.
        config: decides which hit URLs count (a default config when ``None``).
    """
    normalized = [(member, normalize_hits(hits, config)) for member, hits in rankings]
    return fuse_candidates(normalized, groups=groups, weights=weights, k=k)


def fuse_candidates(
    rankings: Sequence[tuple[int, Sequence[CandidateHit]]],
    *,
    groups: Sequence[str],
    weights: Sequence[float],
    k: int = DEFAULT_K,
) -> list[tuple[RawHit, float]]:
    """:func:`fuse_rankings` for hits that are already normalized (and deduplicated per member)."""
    # key -> group -> (weighted term, best rank, member) ; key -> best occurrence
    terms: dict[str, dict[str, tuple[float, int, int]]] = {}
    best: dict[str, _Occurrence] = {}
    for member, candidates in rankings:
        weight = weights[member]
        group = groups[member]
        for rank, candidate in enumerate(candidates, 1):
            per_group = terms.setdefault(candidate.key, {})
            current = per_group.get(group)
            if current is None or (rank, -weight) < (current[1], -weights[current[2]]):
                per_group[group] = (weight / (k + rank), rank, member)
            occurrence = best.get(candidate.key)
            if occurrence is None or (rank, member) < (occurrence.rank, occurrence.member):
                best[candidate.key] = _Occurrence(
                    member, rank, RawHit(url=candidate.url, title=candidate.title, snippet=candidate.snippet)
                )
    scored = [
        (sum(term for term, _, _ in terms[key].values()), occurrence) for key, occurrence in best.items()
    ]
    scored.sort(key=lambda item: (-item[0], item[1].rank, item[1].member))
    return [(occurrence.hit, score) for score, occurrence in scored]


def _failure(name: str, exc: PagewardenError) -> ProviderFailure:
    return ProviderFailure(
        provider=name,
        code=exc.code.value,
        reason=exc.reason,
        retryable=exc.retryable,
        retry_after=exc.retry_after,
    )


class FusedProvider(ChainProvider):
    """Providers asked concurrently and fused by weighted, de-correlated RRF; build it with :func:`fused`."""

    def __init__(
        self,
        providers: tuple[SearchProvider, ...],
        *,
        names: tuple[str, ...],
        weights: tuple[float, ...],
        groups: tuple[str, ...],
        k: int,
        name: str,
        config: ReaderConfig | None,
    ) -> None:
        self._config = config
        self.providers = providers
        self.names = names
        self.weights = weights
        self.groups = groups
        self.k = k
        self.name = name

    def __repr__(self) -> str:
        return f"FusedProvider(name={self.name!r}, members={list(self.names)!r})"

    async def search_chain(
        self,
        query: SearchQuery,
        *,
        deadline: float,
        cooldowns: Cooldowns | None,
        failures: list[ProviderFailure] | None = None,
    ) -> ProviderAnswer:
        """Ask every member at once, fuse what answered; see the module docstring."""
        answers: list[tuple[int, Sequence[CandidateHit]] | None] = [None] * len(self.providers)
        errors: list[PagewardenError | None] = [None] * len(self.providers)

        async def ask(index: int) -> None:
            sink: list[ProviderFailure] = []
            try:
                hits, _ = await call_provider(
                    self.providers[index], query, deadline=deadline, cooldowns=cooldowns, failures=sink
                )
            except PagewardenError as exc:
                errors[index] = exc
            else:
                # Normalized as each member answers, while the slower ones are still awaited.
                answers[index] = (index, normalize_hits(hits, self._config))
            if failures is not None:
                failures.extend(sink)

        left = deadline - anyio.current_time()
        margin = min(_MAX_MARGIN, max(0.0, left) * _MARGIN_SHARE) if math.isfinite(left) else 0.0
        with anyio.move_on_after(left - margin if math.isfinite(left) else math.inf):
            async with anyio.create_task_group() as group:
                for index in range(len(self.providers)):
                    group.start_soon(ask, index)
        for index, name in enumerate(self.names):
            if answers[index] is None and errors[index] is None:
                errors[index] = Timeout(
                    f"search provider {name[:60]} did not answer in time", reason="provider_timeout", stage="search"
                )
        failed = [(name, exc) for name, exc in zip(self.names, errors, strict=True) if exc is not None]
        if failures is not None:
            failures.extend(_failure(name, exc) for name, exc in failed)
        answered = [answer for answer in answers if answer is not None]
        if not answered:
            raise _worst([exc for _, exc in failed])
        fused_hits = fuse_candidates(answered, groups=self.groups, weights=self.weights, k=self.k)
        return tuple(hit for hit, _ in fused_hits), self.name


def _worst(errors: list[PagewardenError]) -> PagewardenError:
    for exc in errors:
        if not advances(exc) and not (isinstance(exc, UpstreamHTTP) and exc.retryable):
            return exc
    return most_informative(errors)


def _check_weights(weights: object, names: tuple[str, ...]) -> tuple[float, ...]:
    if weights is None:
        return tuple(1.0 for _ in names)
    if isinstance(weights, Mapping):
        unknown = set(weights) - set(names)
        if unknown:
            raise InvalidInput("weights name a provider that is not a member", reason="invalid_weights")
        values = [weights.get(name, 1.0) for name in names]
    elif isinstance(weights, Iterable) and not isinstance(weights, str | bytes):
        values = list(weights)
        if len(values) != len(names):
            raise InvalidInput("weights must give one number per provider", reason="invalid_weights")
    else:
        raise InvalidInput("weights must be a list of numbers or a mapping of names", reason="invalid_weights")
    checked: list[float] = []
    for value in values:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise InvalidInput("every weight must be a number", reason="invalid_weights")
        number = float(value)
        if not math.isfinite(number) or not 0 < number <= MAX_WEIGHT:
            raise InvalidInput(f"every weight must be in (0, {MAX_WEIGHT:g}]", reason="invalid_weights")
        checked.append(number)
    return tuple(checked)


def fused(
    providers: Iterable[SearchProvider],
    *,
    weights: Sequence[float] | Mapping[str, float] | None = None,
    upstream_indexes: Mapping[str, str] | None = None,
    k: int = DEFAULT_K,
    name: str | None = None,
    config: ReaderConfig | None = None,
) -> FusedProvider:
    """A provider that asks ``providers`` concurrently and merges their hits by reciprocal-rank fusion.

    Args:
        providers: 1..16 providers with distinct names (any provider, fallback
            chains and fused providers included).
        weights: one positive number per provider (a list in member order, or
            a mapping from provider name to weight; missing names weigh 1).
        upstream_indexes: overrides of the correlation group by provider name
            (for example ``{"searxng": "google"}`` for an instance that only
            runs Google); see :func:`upstream_index_of` for the defaults.
        k: the RRF constant, 1..1000 (60 by default).
        name: the provider's name; ``fused(<member names>)`` by default.
        config: decides which hit URLs take part in the fusion (its
            ``unsafe_allow_destinations``; a default config when ``None``); the
            reader's own config still filters the fused hits afterwards.

    Raises:
        InvalidInput: no provider, too many, duplicate names, bad weights, ``k`` or groups.
    """
    if isinstance(providers, str | bytes) or not isinstance(providers, Iterable):
        raise InvalidInput("fused() needs a list of search providers", reason="invalid_provider")
    members = tuple(providers)
    if not 1 <= len(members) <= MAX_MEMBERS:
        raise InvalidInput(f"fused() needs 1..{MAX_MEMBERS} providers", reason="invalid_provider")
    names = tuple(check_provider(member) for member in members)
    if len(set(names)) != len(names):
        raise InvalidInput("fused() providers need distinct names", reason="duplicate_provider_name")
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= 1000:
        raise InvalidInput("k must be an integer in 1..1000", reason="invalid_k")
    overrides = dict(upstream_indexes or {})
    if set(overrides) - set(names):
        raise InvalidInput("upstream_indexes name a provider that is not a member", reason="invalid_upstream_index")
    groups = tuple(
        check_name(overrides[member_name]) if member_name in overrides else upstream_index_of(member)
        for member, member_name in zip(members, names, strict=True)
    )
    fused_name = name if name is not None else ("fused(" + ",".join(names) + ")")[:100]
    return FusedProvider(
        members,
        names=names,
        weights=_check_weights(weights, names),
        groups=groups,
        k=k,
        name=check_name(fused_name),
        config=_check_config(config),
    )


def _check_config(config: object) -> ReaderConfig | None:
    if config is not None and not isinstance(config, ReaderConfig):
        raise InvalidInput("config must be a ReaderConfig", reason="invalid_config")
    return config
