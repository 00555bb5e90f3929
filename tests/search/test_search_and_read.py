"""The search_and_read controller with fake search and read functions: deadline, limits, failure kinds."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

import anyio
import pytest

import pagewarden
from pagewarden._search.search_and_read import check_concurrency, host_key, search_then_read
from pagewarden._search.types import SearchHit, SearchQuery, SearchResults

SearchFn = Callable[[float], Awaitable[SearchResults]]


def _hits(*urls: str) -> tuple[SearchHit, ...]:
    return tuple(
        SearchHit(url=url, title=f"Title {rank}", snippet="", rank=rank, provider="fake")
        for rank, url in enumerate(urls, start=1)
    )


def _results(hits: tuple[SearchHit, ...], withheld: int = 0) -> SearchResults:
    return SearchResults(query=SearchQuery("rivers"), hits=hits, withheld=withheld, provider="fake")


def _searcher(hits: tuple[SearchHit, ...], *, delay: float = 0.0, withheld: int = 0,
              budgets: list[float] | None = None) -> SearchFn:
    async def search(left: float) -> SearchResults:
        if budgets is not None:
            budgets.append(left)
        await anyio.sleep(delay)
        return _results(hits, withheld)

    return search


@dataclass
class FakeReads:
    """A read function whose behaviour per URL is scripted: delay, then a document or an error."""

    delays: dict[str, float] = field(default_factory=dict)
    errors: dict[str, BaseException] = field(default_factory=dict)
    budgets: dict[str, float] = field(default_factory=dict)
    active: dict[str, int] = field(default_factory=dict)
    max_active: dict[str, int] = field(default_factory=dict)
    total: int = 0
    max_total: int = 0
    order: list[int] = field(default_factory=list)

    async def __call__(self, hit: SearchHit, left: float) -> pagewarden.Document:
        host = host_key(hit.url)
        self.budgets[hit.url] = left
        self.order.append(hit.rank)
        self.active[host] = self.active.get(host, 0) + 1
        self.max_active[host] = max(self.max_active.get(host, 0), self.active[host])
        self.total += 1
        self.max_total = max(self.max_total, self.total)
        try:
            with anyio.fail_after(left):
                await anyio.sleep(self.delays.get(hit.url, 0.01))
        except TimeoutError:
            raise pagewarden.Timeout("page deadline", reason="read_deadline") from None
        finally:
            self.active[host] -= 1
            self.total -= 1
        if hit.url in self.errors:
            raise self.errors[hit.url]
        return _document(hit.url)


def _document(url: str) -> pagewarden.Document:
    return pagewarden.Document(
        url=url, final_url=url, title="t", markdown="m", text="m", links=(),
        metadata=pagewarden.Metadata(), retrieved_at=datetime.now(UTC), truncated=False,
        content_sha256="0" * 64,
        fetch=pagewarden.FetchInfo(method="http", status=200, content_type="text/html", charset="utf-8",
                                   compressed_bytes=1, decoded_bytes=1, redirects=0,
                                   timings=pagewarden.Timings(total=0.0)),
        security=pagewarden.SecurityReport(decision=pagewarden.Decision.ALLOW, findings=(), limitations=()),
    )


async def _run(search: SearchFn, reads: FakeReads, *, timeout: float = 5.0, concurrency: int = 4,
               per_host: int = 2, closed: bool = False) -> pagewarden.SearchAndReadResult:
    return await search_then_read(search, reads, timeout=timeout, concurrency=concurrency, per_host=per_host,
                                  is_closed=lambda: closed)


@pytest.mark.anyio
async def test_documents_and_failures_are_sorted_by_rank() -> None:
    """Each failure keeps its kind and code, the other pages still become documents, all in rank order."""
    hits = _hits("https://a.example/1", "https://b.example/2", "https://c.example/3", "https://d.example/4")
    reads = FakeReads(
        delays={"https://a.example/1": 0.2, "https://c.example/3": 0.1},
        errors={"https://b.example/2": pagewarden.GuardDenied("withheld", reason="guard_deny"),
                "https://d.example/4": pagewarden.UnsafeURL("private", reason="private_address_10_8")},
    )
    result = await _run(_searcher(hits, withheld=2), reads)
    assert [d.url for d in result.documents] == ["https://a.example/1", "https://c.example/3"]
    assert [(f.rank, f.kind, f.code, f.reason) for f in result.failures] == [
        (2, "page_failure", "GUARD_DENIED", "guard_deny"),
        (4, "page_failure", "UNSAFE_URL", "private_address_10_8"),
    ]
    assert result.timed_out is False
    assert result.withheld == 2
    assert result.hits == hits


@pytest.mark.anyio
async def test_page_timeout_is_the_pages_own_deadline() -> None:
    """A page whose own read deadline fires (before the shared one) is a retryable page_timeout."""
    hits = _hits("https://a.example/1", "https://b.example/2")
    reads = FakeReads(errors={"https://a.example/1": pagewarden.Timeout("slow", reason="read_deadline")})
    result = await _run(_searcher(hits), reads)
    assert [(f.rank, f.kind, f.code, f.retryable) for f in result.failures] == [(1, "page_timeout", "TIMEOUT", True)]
    assert len(result.documents) == 1
    assert result.timed_out is False


@pytest.mark.anyio
async def test_overall_timeout_keeps_completed_documents() -> None:
    """When the shared deadline fires mid-reads: finished documents stay, running reads are overall_timeout,
    reads that never started are not_started, and timed_out is set."""
    hits = _hits("https://a.example/1", "https://b.example/2", "https://c.example/3")
    reads = FakeReads(delays={"https://b.example/2": 30.0})
    started = anyio.current_time()
    result = await _run(_searcher(hits), reads, timeout=0.5, concurrency=1, per_host=1)
    assert anyio.current_time() - started < 2.0
    assert [d.url for d in result.documents] == ["https://a.example/1"]
    assert [(f.rank, f.kind, f.code, f.retryable) for f in result.failures] == [
        (2, "overall_timeout", "TIMEOUT", True),
        (3, "not_started", "TIMEOUT", True),
    ]
    assert result.timed_out is True
    assert reads.order == [1, 2]


@pytest.mark.anyio
async def test_one_deadline_covers_search_and_reads() -> None:
    """The time the search took is taken from the reads' budget: no read gets more than what is left."""
    hits = _hits("https://a.example/1")
    search_budgets: list[float] = []
    reads = FakeReads()
    await _run(_searcher(hits, delay=0.4, budgets=search_budgets), reads, timeout=1.0)
    assert search_budgets == [1.0]
    assert reads.budgets["https://a.example/1"] <= 0.61


@pytest.mark.anyio
async def test_a_read_that_would_fit_alone_times_out_after_a_slow_search() -> None:
    """A 0.4 s page after a 0.4 s search does not fit a 0.6 s deadline: overall_timeout, not a document."""
    hits = _hits("https://a.example/1")
    reads = FakeReads(delays={"https://a.example/1": 0.4})
    result = await _run(_searcher(hits, delay=0.4), reads, timeout=0.6)
    assert result.documents == ()
    assert [f.kind for f in result.failures] == ["overall_timeout"]
    assert result.timed_out is True


@pytest.mark.anyio
async def test_deadline_during_the_search_raises_timeout() -> None:
    """A search still running at the deadline raises TIMEOUT; there is no partial result."""
    with pytest.raises(pagewarden.Timeout) as caught:
        await _run(_searcher(_hits("https://a.example/1"), delay=5.0), FakeReads(), timeout=0.2)
    assert caught.value.reason == "search_and_read_deadline"


SEARCH_ERRORS = [
    pagewarden.RateLimited("slow down", reason="provider_cooling_down", retry_after=30.0),
    pagewarden.BotChallenge("challenge", reason="challenge_page"),
    pagewarden.ParseChanged("layout", reason="empty_parse"),
]


@pytest.mark.parametrize("error", SEARCH_ERRORS, ids=lambda e: str(e.code))
@pytest.mark.anyio
async def test_search_failure_propagates(error: pagewarden.PagewardenError) -> None:
    """The search's own failure is raised as is, never turned into an empty result."""
    async def failing(left: float) -> SearchResults:
        raise error

    with pytest.raises(type(error)) as caught:
        await _run(failing, FakeReads())
    assert caught.value is error


@pytest.mark.anyio
async def test_caller_cancellation_mid_reads_propagates() -> None:
    """Cancelling the caller's scope while reads run raises cancellation, not a partial result."""
    hits = _hits("https://a.example/1", "https://b.example/2")
    reads = FakeReads(delays={"https://b.example/2": 30.0})
    first_done, second_started = anyio.Event(), anyio.Event()
    outcome: list[object] = []

    async def read(hit: SearchHit, left: float) -> pagewarden.Document:
        if hit.rank == 2:
            second_started.set()
        document = await reads(hit, left)
        first_done.set()
        return document

    async def caller() -> None:
        try:
            outcome.append(await search_then_read(_searcher(hits), read, timeout=60.0, concurrency=4, per_host=2,
                                                  is_closed=lambda: False))
        except anyio.get_cancelled_exc_class() as exc:
            outcome.append(type(exc))
            raise

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(caller)
        with anyio.fail_after(5):
            await first_done.wait()
            await second_started.wait()
        tasks.cancel_scope.cancel()
    assert outcome == [anyio.get_cancelled_exc_class()]


@pytest.mark.anyio
async def test_caller_cancellation_during_search_propagates() -> None:
    """A cancelled caller during the search gets cancellation, not TIMEOUT."""
    outcome: list[object] = []
    with anyio.move_on_after(0.1) as scope:
        try:
            outcome.append(await _run(_searcher(_hits("https://a.example/1"), delay=5.0), FakeReads()))
        except anyio.get_cancelled_exc_class() as exc:
            outcome.append(type(exc))
            raise
    assert scope.cancelled_caught
    assert outcome == [anyio.get_cancelled_exc_class()]


@pytest.mark.anyio
async def test_closed_reader_during_the_run_raises_config_missing() -> None:
    """A reader closed while reads ran yields CONFIG_MISSING instead of a result."""
    with pytest.raises(pagewarden.ConfigMissing) as caught:
        await _run(_searcher(_hits("https://a.example/1")), FakeReads(), closed=True)
    assert caught.value.reason == "reader_closed"


LIMIT_CASES = [
    # (urls, concurrency, per_host, expected max per host, expected max total)
    (["a", "a", "a", "a", "b", "b", "b", "b"], 4, 2, {"a": 2, "b": 2}, 4),
    (["a", "a", "a", "b", "b", "c"], 3, 1, {"a": 1, "b": 1, "c": 1}, 3),
    (["a", "b", "c", "d", "e", "f"], 2, 2, dict.fromkeys("abcdef", 1), 2),
    (["a", "a", "a"], 16, 16, {"a": 3}, 3),
]


@pytest.mark.parametrize(("hosts", "concurrency", "per_host", "per_host_max", "total_max"), LIMIT_CASES)
@pytest.mark.anyio
async def test_concurrency_limits_hold(hosts: list[str], concurrency: int, per_host: int,
                                       per_host_max: dict[str, int], total_max: int) -> None:
    """Reads never exceed concurrency overall nor per_host per host name, and do reach them."""
    urls = [f"https://{host}.example/{i}" for i, host in enumerate(hosts)]
    expected = {f"{host}.example": count for host, count in per_host_max.items()}
    reads = FakeReads(delays=dict.fromkeys(urls, 0.1))
    result = await _run(_searcher(_hits(*urls)), reads, concurrency=concurrency, per_host=per_host)
    assert len(result.documents) == len(urls)
    assert reads.max_active == expected
    assert reads.max_total == total_max


@pytest.mark.anyio
async def test_host_names_differing_in_case_or_trailing_dot_share_a_limit() -> None:
    """EXAMPLE.org, example.org and example.org. count as one host."""
    urls = ["https://EXAMPLE.org/1", "https://example.org/2", "https://example.org./3"]
    reads = FakeReads(delays=dict.fromkeys(urls, 0.1))
    await _run(_searcher(_hits(*urls)), reads, per_host=1)
    assert reads.max_active == {"example.org": 1}


@pytest.mark.anyio
async def test_an_unexpected_exception_is_one_pages_failure() -> None:
    """A non-pagewarden exception from one read becomes that page's UNKNOWN failure; the others survive."""
    hits = _hits("https://a.example/1", "https://b.example/2")
    reads = FakeReads(errors={"https://a.example/1": RuntimeError("bug")})
    result = await _run(_searcher(hits), reads)
    assert [(f.kind, f.code, f.reason) for f in result.failures] == [("page_failure", "UNKNOWN", "unexpected_error")]
    assert [d.url for d in result.documents] == ["https://b.example/2"]


@pytest.mark.anyio
async def test_to_dict_is_json_ready() -> None:
    """to_dict() serializes hits, ranked documents, failures and the flags."""
    hits = _hits("https://a.example/1", "https://b.example/2")
    reads = FakeReads(errors={"https://a.example/1": pagewarden.UpstreamHTTP("404", reason="status_404")})
    result = await _run(_searcher(hits), reads)
    data = json.loads(json.dumps(result.to_dict()))
    assert data["query"] == "rivers"
    assert [doc["rank"] for doc in data["documents"]] == [2]
    assert data["failures"] == [{"url": "https://a.example/1", "rank": 1, "kind": "page_failure",
                                 "code": "UPSTREAM_HTTP", "reason": "status_404", "retryable": False}]
    assert data["timed_out"] is False
    assert data["hits"][0]["trust"] == "untrusted"


@pytest.mark.anyio
async def test_no_hits_is_an_empty_result() -> None:
    """A search without hits returns an empty, not timed-out result."""
    started = anyio.current_time()
    result = await _run(_searcher(()), FakeReads())
    assert (result.hits, result.documents, result.failures, result.timed_out) == ((), (), (), False)
    assert 0 <= result.duration <= anyio.current_time() - started


CONCURRENCY_CASES: list[tuple[object, object, tuple[int, int] | str]] = [
    (4, None, (4, 2)),
    (1, None, (1, 1)),
    (16, 16, (16, 16)),
    (3, 3, (3, 3)),
    (0, None, "invalid_concurrency"),
    (17, None, "invalid_concurrency"),
    (True, None, "invalid_concurrency"),
    (4, 5, "invalid_per_host"),
    (4, 0, "invalid_per_host"),
    (4, 1.5, "invalid_per_host"),
]


@pytest.mark.parametrize(("concurrency", "per_host", "expected"), CONCURRENCY_CASES)
def test_concurrency_arguments(concurrency: object, per_host: object, expected: tuple[int, int] | str) -> None:
    """concurrency is 1..16, per_host 1..concurrency with default min(2, concurrency)."""
    if isinstance(expected, str):
        with pytest.raises(pagewarden.InvalidInput) as caught:
            check_concurrency(concurrency, per_host)
        assert caught.value.reason == expected
    else:
        assert check_concurrency(concurrency, per_host) == expected


@pytest.mark.anyio
async def test_provider_failures_are_carried_over() -> None:
    """Members of a fused provider that failed are reported on the search_and_read result too."""
    from pagewarden import ProviderFailure

    failure = ProviderFailure(provider="ddgs:mojeek", code="RATE_LIMITED", reason="http_429", retryable=True)

    async def search(left: float) -> SearchResults:
        return SearchResults(
            query=SearchQuery("rivers"), hits=_hits("https://a.example/1"), withheld=0, provider="fused",
            failures=(failure,),
        )

    result = await _run(search, FakeReads())
    assert result.provider_failures == (failure,)
    assert result.to_dict()["provider_failures"][0]["provider"] == "ddgs:mojeek"
    plain = await _run(_searcher(_hits("https://a.example/1")), FakeReads())
    assert "provider_failures" not in plain.to_dict()
