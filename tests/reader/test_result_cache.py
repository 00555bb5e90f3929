"""The result cache on its own: LRU, TTL on an injected clock, in-flight sharing, cancellation, config."""

from __future__ import annotations

from collections.abc import Callable

import anyio
import pytest

import pagewarden
from pagewarden._cache import ResultCache


class Clock:
    """A manual monotonic clock."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Work:
    """Counts how often the cached work really ran; optionally waits for a release or fails."""

    def __init__(self, value: str = "v", *, error: Exception | None = None) -> None:
        self.value = value
        self.error = error
        self.runs = 0
        self.finished = 0
        self.cancelled = 0
        self.release = anyio.Event()
        self.blocking = False

    async def __call__(self) -> str:
        self.runs += 1
        try:
            if self.blocking:
                await self.release.wait()
        except anyio.get_cancelled_exc_class():
            self.cancelled += 1
            raise
        if self.error is not None:
            raise self.error
        self.finished += 1
        return f"{self.value}{self.runs}"


def _cache(max_entries: int = 10, ttl: float = 30.0) -> tuple[ResultCache[str], Clock]:
    clock = Clock()
    return ResultCache(max_entries, ttl, clock=clock), clock


@pytest.mark.anyio
async def test_second_call_is_a_hit() -> None:
    """The same key within the TTL returns the stored value without running the work again."""
    cache, _ = _cache()
    work = Work()
    assert await cache.get_or_run("k", work) == "v1"
    assert await cache.get_or_run("k", work) == "v1"
    assert work.runs == 1
    assert (cache.stats.hits, cache.stats.misses) == (1, 1)


@pytest.mark.anyio
async def test_distinct_keys_are_distinct_entries() -> None:
    """Different keys never share a value."""
    cache, _ = _cache()
    work = Work()
    assert await cache.get_or_run(("a", 1), work) == "v1"
    assert await cache.get_or_run(("a", 2), work) == "v2"
    assert len(cache) == 2


TTL_CASES = [
    (29.999, True),
    (30.0, False),
    (31.0, False),
]


@pytest.mark.parametrize(("after", "fresh"), TTL_CASES)
@pytest.mark.anyio
async def test_entries_expire_on_the_monotonic_clock(after: float, fresh: bool) -> None:
    """An entry is fresh strictly before its TTL elapses and re-run at or after it."""
    cache, clock = _cache(ttl=30.0)
    work = Work()
    await cache.get_or_run("k", work)
    clock.now += after
    value = await cache.get_or_run("k", work)
    assert (value == "v1") is fresh
    assert work.runs == (1 if fresh else 2)


@pytest.mark.anyio
async def test_least_recently_used_is_evicted() -> None:
    """Beyond max_entries the least recently *used* entry goes, not the oldest stored."""
    cache, _ = _cache(max_entries=2)
    work = Work()
    await cache.get_or_run("a", work)
    await cache.get_or_run("b", work)
    await cache.get_or_run("a", work)  # touch a: b is now the least recently used
    await cache.get_or_run("c", work)
    assert len(cache) == 2
    assert cache.get("a")[0] and cache.get("c")[0]
    assert cache.get("b") == (False, None)
    assert cache.stats.evictions == 1


@pytest.mark.anyio
async def test_max_entries_zero_disables_storing_and_sharing() -> None:
    """max_entries=0: every call runs its own work, concurrent ones included."""
    cache, _ = _cache(max_entries=0)
    work = Work()
    work.blocking = True
    results: list[str] = []

    async def call() -> None:
        results.append(await cache.get_or_run("k", work))

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(call)
        tasks.start_soon(call)
        await anyio.wait_all_tasks_blocked()
        work.release.set()
    assert work.runs == 2
    assert not cache.enabled
    assert len(cache) == 0


@pytest.mark.anyio
async def test_zero_ttl_stores_nothing() -> None:
    """A TTL of 0 keeps nothing: the next call runs the work again."""
    cache, _ = _cache(ttl=0.0)
    work = Work()
    await cache.get_or_run("k", work)
    await cache.get_or_run("k", work)
    assert work.runs == 2
    assert len(cache) == 0


@pytest.mark.anyio
async def test_concurrent_identical_calls_share_one_run() -> None:
    """A second caller arriving while the first runs awaits the first's result instead of running again."""
    cache, _ = _cache()
    work = Work()
    work.blocking = True
    results: list[str] = []

    async def call() -> None:
        results.append(await cache.get_or_run("k", work))

    async with anyio.create_task_group() as tasks:
        for _ in range(3):
            tasks.start_soon(call)
        await anyio.wait_all_tasks_blocked()
        assert work.runs == 1
        work.release.set()
    assert results == ["v1", "v1", "v1"]
    assert cache.stats.shared == 2


@pytest.mark.anyio
async def test_errors_are_shared_but_not_cached() -> None:
    """Waiters receive the leader's error; the next call runs the work again."""
    cache, _ = _cache()
    work = Work(error=pagewarden.NetworkError("down", reason="test_down"))
    work.blocking = True
    errors: list[str | None] = []

    async def call() -> None:
        try:
            await cache.get_or_run("k", work)
        except pagewarden.NetworkError as error:
            errors.append(error.reason)

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(call)
        tasks.start_soon(call)
        await anyio.wait_all_tasks_blocked()
        work.release.set()
    assert errors == ["test_down", "test_down"]
    assert work.runs == 1
    assert len(cache) == 0
    work.error = None
    assert await cache.get_or_run("k", work) == "v2"


@pytest.mark.anyio
async def test_cancelled_follower_leaves_the_leader_running() -> None:
    """Cancelling a waiter does not cancel the shared work the leader still waits for."""
    cache, _ = _cache()
    work = Work()
    work.blocking = True
    results: list[str] = []

    async def leader() -> None:
        results.append(await cache.get_or_run("k", work))

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(leader)
        await anyio.wait_all_tasks_blocked()
        with anyio.move_on_after(0.05):
            await cache.get_or_run("k", work)
        work.release.set()
    assert results == ["v1"]
    assert (work.runs, work.cancelled) == (1, 0)


@pytest.mark.anyio
async def test_cancelled_leader_hands_over_to_a_waiter() -> None:
    """When the leader is cancelled, a remaining waiter runs the work itself and still gets a value."""
    cache, _ = _cache()
    work = Work()
    work.blocking = True
    results: list[str] = []
    leader_scope = anyio.CancelScope()

    async def leader() -> None:
        with leader_scope:
            await cache.get_or_run("k", work)

    async def follower() -> None:
        results.append(await cache.get_or_run("k", work))

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(leader)
        await anyio.wait_all_tasks_blocked()
        tasks.start_soon(follower)
        await anyio.wait_all_tasks_blocked()
        leader_scope.cancel()
        await anyio.wait_all_tasks_blocked()
        work.release.set()
    assert results == ["v2"]
    assert (work.runs, work.cancelled, work.finished) == (2, 1, 1)


@pytest.mark.anyio
async def test_every_waiter_cancelled_cancels_the_work() -> None:
    """When all callers are gone, the shared work is cancelled and nothing is stored."""
    cache, _ = _cache()
    work = Work()
    work.blocking = True
    with anyio.move_on_after(0.1):
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(cache.get_or_run, "k", work)
            tasks.start_soon(cache.get_or_run, "k", work)
    await anyio.wait_all_tasks_blocked()
    assert work.cancelled == 1
    assert work.finished == 0
    assert len(cache) == 0


@pytest.mark.anyio
async def test_clear_during_flight_does_not_refill() -> None:
    """Work that started before clear() does not store its result afterwards."""
    cache, _ = _cache()
    work = Work()
    work.blocking = True
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(cache.get_or_run, "k", work)
        await anyio.wait_all_tasks_blocked()
        cache.clear()
        work.release.set()
    assert len(cache) == 0


BAD_CACHE_CONFIGS: list[tuple[dict[str, object], str]] = [
    ({"max_entries": -1}, "invalid_max_entries"),
    ({"max_entries": 10_001}, "invalid_max_entries"),
    ({"max_entries": True}, "invalid_max_entries"),
    ({"search_ttl": -1}, "invalid_search_ttl"),
    ({"search_ttl": float("nan")}, "invalid_search_ttl"),
    ({"document_ttl": 86_401}, "invalid_document_ttl"),
    ({"document_ttl": "60"}, "invalid_document_ttl"),
]


@pytest.mark.parametrize(("changes", "reason"), BAD_CACHE_CONFIGS)
def test_cache_config_is_validated(changes: dict[str, object], reason: str) -> None:
    """Out-of-range cache settings are INVALID_INPUT with a named reason."""
    with pytest.raises(pagewarden.InvalidInput) as caught:
        pagewarden.CacheConfig(**changes)  # type: ignore[arg-type]
    assert caught.value.reason == reason


GOOD_CACHE_CONFIGS: list[dict[str, object]] = [
    {"max_entries": 0},
    {"max_entries": 10_000},
    {"search_ttl": 0, "document_ttl": 0},
    {"document_ttl": 86_400},
]


@pytest.mark.parametrize("changes", GOOD_CACHE_CONFIGS)
def test_cache_config_bounds_are_inclusive(changes: dict[str, object]) -> None:
    """The documented bounds themselves are accepted and stored as given."""
    config = pagewarden.CacheConfig(**changes)  # type: ignore[arg-type]
    for name, value in changes.items():
        assert getattr(config, name) == value


def test_reader_config_rejects_a_non_cache_config() -> None:
    """ReaderConfig.cache must be a CacheConfig."""
    with pytest.raises(pagewarden.InvalidInput) as caught:
        pagewarden.ReaderConfig(cache={"max_entries": 5})  # type: ignore[arg-type]
    assert caught.value.reason == "invalid_cache_config"


def test_result_cache_refuses_unbounded_sizes() -> None:
    """The cache itself refuses a bound above 10,000 entries whatever the caller passes."""
    make: Callable[[], ResultCache[str]] = lambda: ResultCache(10_001, 1.0)  # noqa: E731
    with pytest.raises(ValueError, match="max_entries"):
        make()
