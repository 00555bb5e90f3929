"""fused(): concurrent members, weighted de-correlated reciprocal-rank fusion, partial results, typed failures."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from pagewarden import (
    BotChallenge,
    ConfigMissing,
    InvalidInput,
    NetworkError,
    RateLimited,
    Timeout,
    fallback,
    fused,
)
from pagewarden._search.cooldown import Cooldowns
from pagewarden._search.fused import fuse_rankings, upstream_index_of
from pagewarden._search.query import validate_query
from pagewarden._search.run import run_search
from pagewarden._search.types import RawHit, SearchResults
from tests.search.provider_fakes import ScriptedProvider, hits

pytestmark = pytest.mark.anyio

A, B, C, D = (f"https://{name}.example.org/page" for name in "abcd")


class IndexedProvider(ScriptedProvider):
    """A scripted provider that declares the upstream index it serves."""

    def __init__(self, name: str, index: str, *steps: Any) -> None:
        super().__init__(name, *steps)
        self.upstream_index = index


async def _search(provider: Any, *, timeout: float = 5.0, limit: int = 10) -> SearchResults:
    return await run_search(provider, validate_query("tides", limit=limit), timeout=timeout, cooldowns=Cooldowns())


def _urls(results: SearchResults) -> list[str]:
    return [hit.url for hit in results.hits]


async def test_rrf_orders_by_summed_reciprocal_ranks() -> None:
    """A URL two independent providers agree on beats each provider's own first hit."""
    one = ScriptedProvider("one", hits(A, C))
    two = ScriptedProvider("two", hits(B, C))
    results = await _search(fused([one, two]))
    assert _urls(results) == [C, A, B]
    assert results.provider == "fused(one,two)"
    assert [hit.rank for hit in results.hits] == [1, 2, 3]


async def test_weights_shift_the_order() -> None:
    """A heavier provider's first hit outranks a lighter provider's first hit (list and mapping forms)."""
    one = ScriptedProvider("one", hits(A))
    two = ScriptedProvider("two", hits(B))
    assert _urls(await _search(fused([one, two], weights=[1.0, 3.0]))) == [B, A]
    assert _urls(await _search(fused([one, two], weights={"one": 2.0}))) == [A, B]


async def test_providers_sharing_an_index_count_once() -> None:
    """Two front-ends of one index agreeing on a URL are one vote; an independent index is another."""
    bing_one = IndexedProvider("ddgs:yahoo", "bing", hits(A, B))
    bing_two = IndexedProvider("ddgs:bing", "bing", hits(A, B))
    brave = IndexedProvider("brave", "brave", hits(B, A))
    # By index, A and B each get one "bing" term and one "brave" term: equal scores.
    fused_hits = fuse_rankings(
        [(0, bing_one.steps[0]), (1, bing_two.steps[0]), (2, brave.steps[0])],  # type: ignore[list-item]
        groups=["bing", "bing", "brave"],
        weights=[1.0, 1.0, 1.0],
    )
    scores = {hit.url: score for hit, score in fused_hits}
    assert scores[A] == pytest.approx(1 / 61 + 1 / 62)
    assert scores[B] == pytest.approx(1 / 62 + 1 / 61)
    naive = fuse_rankings(
        [(0, bing_one.steps[0]), (1, bing_two.steps[0]), (2, brave.steps[0])],  # type: ignore[list-item]
        groups=["x", "y", "z"],
        weights=[1.0, 1.0, 1.0],
    )
    assert next(hit.url for hit, _ in naive) == A
    assert dict((hit.url, s) for hit, s in naive)[A] == pytest.approx(2 / 61 + 1 / 62)


async def test_correlated_consensus_does_not_outvote_independent_agreement() -> None:
    """Three Bing front-ends ranking X first do not outvote Y, found by Bing (rank 40) and Brave (the docs example)."""
    x, y = "https://x.example.org/", "https://y.example.org/"
    bing_list = [x, *(f"https://filler{i}.example.org/" for i in range(2, 40)), y]
    members = [
        IndexedProvider("ddgs:bing", "bing", hits(*bing_list)),
        IndexedProvider("ddgs:yahoo", "bing", hits(*bing_list)),
        IndexedProvider("ddgs:duckduckgo", "bing", hits(*bing_list)),
        IndexedProvider("brave", "brave", hits(y)),
    ]
    # By index: y = 1/100 + 1/61 = 0.0264 > x = 1/61 = 0.0164.
    assert _urls(await _search(fused(members)))[:2] == [y, x]
    # Counted per provider: x = 3/61 = 0.0492 > y = 3/100 + 1/61 = 0.0464.
    naive = fused(members, upstream_indexes={m.name: m.name for m in members})
    assert _urls(await _search(naive))[0] == x


def test_builtin_providers_declare_their_index() -> None:
    """ddgs backends map to the index they serve; brave() and ddgs("brave") share one; custom is its own group."""
    from pagewarden import brave, custom, ddgs, searxng

    assert upstream_index_of(ddgs("duckduckgo")) == "bing"
    assert upstream_index_of(ddgs("brave")) == upstream_index_of(brave("k" * 20)) == "brave"
    assert upstream_index_of(custom(lambda q: [], name="mine")) == "mine"
    assert upstream_index_of(searxng("https://search.example.org")) == "searxng"
    assert upstream_index_of(searxng("https://search.example.org", upstream_index="google")) == "google"


async def test_urls_are_canonicalized_and_deduplicated_across_providers() -> None:
    """Tracking parameters, a trailing slash and a redirect wrapper do not make two URLs out of one."""
    one = ScriptedProvider("one", hits("https://a.example.org/x?utm_source=feed"))
    two = ScriptedProvider("two", hits("https://duckduckgo.com/l/?uddg=https%3A%2F%2Fa.example.org%2Fx%2F"))
    results = await _search(fused([one, two]))
    assert _urls(results) == ["https://a.example.org/x"]


async def test_members_run_concurrently_under_one_deadline() -> None:
    """Three members that each take 0.3 s answer together in well under 0.9 s."""
    members = [ScriptedProvider(f"p{i}", 0.3) for i in range(3)]
    started = anyio.current_time()
    await _search(fused(members))
    assert anyio.current_time() - started < 0.6
    assert all(member.calls == 1 for member in members)
    assert len({d for m in members for d in m.deadlines}) == 1


async def test_partial_results_with_typed_failures() -> None:
    """A rate-limited and a silent member are reported as failures; the others' hits still come back."""
    ok = ScriptedProvider("ok", hits(A))
    limited = ScriptedProvider("limited", RateLimited("slow down", reason="http_429", retry_after=30))
    silent = ScriptedProvider("silent", 10.0)
    started = anyio.current_time()
    results = await _search(fused([ok, limited, silent]), timeout=1.0)
    assert anyio.current_time() - started < 5.0  # far less than the silent member's 10 s
    assert _urls(results) == [A]
    failures = {f.provider: f for f in results.failures}
    assert failures["limited"].code == "RATE_LIMITED" and failures["limited"].retry_after == 30
    assert failures["silent"].code == "TIMEOUT" and failures["silent"].reason == "provider_timeout"
    assert results.to_dict()["failures"][0]["provider"] in {"limited", "silent"}


@pytest.mark.parametrize(
    ("errors", "expected"),
    [
        ((NetworkError("x"), BotChallenge("y"), RateLimited("z")), BotChallenge),
        ((NetworkError("x"), NetworkError("y")), NetworkError),
        ((RateLimited("z"), ConfigMissing("no key", reason="api_key_missing")), ConfigMissing),
    ],
)
async def test_every_member_failing_raises_the_worst(errors: tuple[Exception, ...], expected: type) -> None:
    """All members failed: a configuration error first, else the most informative failure."""
    members = [ScriptedProvider(f"p{i}", exc) for i, exc in enumerate(errors)]
    with pytest.raises(expected):
        await _search(fused(members))


async def test_nested_inside_fallback_and_with_cooldowns() -> None:
    """A fused provider nests in a fallback chain, and each member keeps its own cooldown."""
    limited = ScriptedProvider("limited", RateLimited("slow", reason="http_429", retry_after=60), hits(B))
    ok = ScriptedProvider("ok", hits(A))
    chain = fallback([fused([limited, ok])])
    cooldowns = Cooldowns()
    query = validate_query("tides")
    first = await run_search(chain, query, cooldowns=cooldowns)
    second = await run_search(chain, query, cooldowns=cooldowns)
    assert _urls(first) == _urls(second) == [A]
    assert limited.calls == 1  # cooling down the second time: not called
    assert second.failures[0].code == "RATE_LIMITED"


async def test_whole_search_still_times_out_when_nothing_answers() -> None:
    """Members that never answer make the search a TIMEOUT, not an empty result."""
    with pytest.raises(Timeout):
        await _search(fused([ScriptedProvider("a", 10.0), ScriptedProvider("b", 10.0)]), timeout=0.3)


@pytest.mark.parametrize(
    ("kwargs", "reason"),
    [
        ({"providers": []}, "invalid_provider"),
        ({"providers": "ddgs"}, "invalid_provider"),
        ({"providers": [ScriptedProvider("a"), ScriptedProvider("a")]}, "duplicate_provider_name"),
        ({"providers": [ScriptedProvider("a")], "weights": [1, 2]}, "invalid_weights"),
        ({"providers": [ScriptedProvider("a")], "weights": [0]}, "invalid_weights"),
        ({"providers": [ScriptedProvider("a")], "weights": [float("nan")]}, "invalid_weights"),
        ({"providers": [ScriptedProvider("a")], "weights": {"b": 1.0}}, "invalid_weights"),
        ({"providers": [ScriptedProvider("a")], "k": 0}, "invalid_k"),
        ({"providers": [ScriptedProvider("a")], "upstream_indexes": {"b": "x"}}, "invalid_upstream_index"),
    ],
)
def test_invalid_arguments(kwargs: dict[str, Any], reason: str) -> None:
    """Bad members, weights, k or groups are INVALID_INPUT with a named reason."""
    with pytest.raises(InvalidInput) as caught:
        fused(**kwargs)
    assert caught.value.reason == reason


def test_fused_hits_keep_the_best_ranked_title() -> None:
    """Title and snippet come from the member that ranked the URL best."""
    ranked = fuse_rankings(
        [(0, [RawHit(B, "b"), RawHit(A, "late")]), (1, [RawHit(A, "early")])],
        groups=["x", "y"],
        weights=[1.0, 1.0],
    )
    assert {hit.url: hit.title for hit, _ in ranked}[A] == "early"
