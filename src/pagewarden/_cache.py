"""The engine of a reader's in-memory caches: LRU with a TTL, plus in-flight deduplication.

One :class:`ResultCache` holds one kind of result for one reader; there is no
process-wide cache. Its two users each own their keys: the document cache
(:mod:`pagewarden._reader.documents`) and the search result cache
(:mod:`pagewarden._search.cache`). Entries expire on
a monotonic clock (injectable for tests) and the least recently used entry is
evicted beyond ``max_entries``. ``max_entries=0`` turns the cache off
entirely (no storing, no sharing); a TTL of 0 keeps the sharing of identical
concurrent requests but stores nothing.

In-flight deduplication: the first caller for a key (the *leader*) runs the
work in its own task; identical callers arriving meanwhile wait for its
outcome. A success is stored and handed to every waiter; an error is handed
to every waiter but never stored. The work lives in the leader's task, so it
is cancelled when the leader is: if every waiter is gone that is exactly what
should happen, and a waiter that is still there takes over and runs the work
again as the new leader, so one caller's cancellation never becomes another
caller's failure. (anyio has no detached tasks; the hand-over keeps the
cache free of background tasks that would outlive their callers.)
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

import anyio

# The upper bound of ``CacheConfig.max_entries``: the cache is per reader and
# in memory, so its size stays bounded whatever the configuration says.
from ._config import MAX_CACHE_ENTRIES

__all__ = ["CacheStats", "ResultCache"]

V = TypeVar("V")


@dataclass(slots=True)
class CacheStats:
    """Counters for observability and tests.

    Attributes:
        hits: answers served from a stored entry.
        misses: calls that ran the work as leader.
        shared: calls that received another caller's in-flight outcome.
        evictions: entries dropped to stay within ``max_entries``.
    """

    hits: int = 0
    misses: int = 0
    shared: int = 0
    evictions: int = 0


@dataclass(slots=True)
class _Entry(Generic[V]):
    value: V
    expires: float


@dataclass(slots=True)
class _Flight(Generic[V]):
    done: anyio.Event = field(default_factory=anyio.Event)
    value: V | None = None
    succeeded: bool = False
    error: Exception | None = None


class ResultCache(Generic[V]):
    """An LRU mapping ``key -> value`` with a TTL per entry and shared in-flight work.

    Args:
        max_entries: the most entries kept (0 disables the cache: every call
            runs its own work).
        ttl: seconds an entry stays fresh (0 stores nothing).
        clock: a monotonic clock in seconds (``time.monotonic`` by default).
    """

    def __init__(self, max_entries: int, ttl: float, *, clock: Callable[[], float] = time.monotonic) -> None:
        if not 0 <= max_entries <= MAX_CACHE_ENTRIES:
            raise ValueError(f"max_entries must be in 0..{MAX_CACHE_ENTRIES}")
        self._max_entries = max_entries
        self._ttl = ttl
        self._clock = clock
        self._entries: OrderedDict[Hashable, _Entry[V]] = OrderedDict()
        self._flights: dict[Hashable, _Flight[V]] = {}
        # Bumped by clear(): work that started before a clear must not refill the cache.
        self._generation = 0
        self.stats = CacheStats()

    @property
    def enabled(self) -> bool:
        """Whether the cache stores or shares anything at all."""
        return self._max_entries > 0

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        """Drop every stored entry; work already running will not store its result."""
        self._entries.clear()
        self._generation += 1

    def get(self, key: Hashable) -> tuple[bool, V | None]:
        """``(True, value)`` for a fresh entry (marking it recently used), else ``(False, None)``."""
        entry = self._entries.get(key)
        if entry is None:
            return False, None
        if self._clock() >= entry.expires:
            del self._entries[key]
            return False, None
        self._entries.move_to_end(key)
        return True, entry.value

    def put(self, key: Hashable, value: V) -> None:
        """Store ``value`` for the TTL, evicting the least recently used entries beyond the bound."""
        if not self.enabled or self._ttl <= 0:
            return
        self._entries[key] = _Entry(value, self._clock() + self._ttl)
        self._entries.move_to_end(key)
        while len(self._entries) > self._max_entries:
            self._entries.popitem(last=False)
            self.stats.evictions += 1

    async def get_or_run(self, key: Hashable, work: Callable[[], Awaitable[V]]) -> V:
        """The fresh value for ``key``, the outcome of identical in-flight work, or ``await work()``.

        Errors of ``work`` propagate to the caller and to every waiter sharing
        it, and are never stored. Cancellation of a waiter only concerns that
        waiter (see the module docstring for the leader's hand-over).
        """
        if not self.enabled:
            return await work()
        while True:
            found, value = self.get(key)
            if found:
                self.stats.hits += 1
                return value  # type: ignore[return-value]  # found implies a stored V
            flight = self._flights.get(key)
            if flight is None:
                break
            await flight.done.wait()
            if flight.error is not None:
                self.stats.shared += 1
                raise flight.error
            if flight.succeeded:
                self.stats.shared += 1
                return flight.value  # type: ignore[return-value]  # succeeded implies a V
            # The leader was cancelled before finishing: look again, and lead if nobody else does.
        return await self._lead(key, work)

    async def _lead(self, key: Hashable, work: Callable[[], Awaitable[V]]) -> V:
        self.stats.misses += 1
        flight: _Flight[V] = _Flight()
        self._flights[key] = flight
        generation = self._generation
        try:
            value = await work()
        except anyio.get_cancelled_exc_class():
            raise
        except Exception as error:
            flight.error = error
            raise
        else:
            flight.value, flight.succeeded = value, True
            if generation == self._generation:
                self.put(key, value)
            return value
        finally:
            # Set last, whatever happened: waiters must never wait for a flight that ended.
            if self._flights.get(key) is flight:
                del self._flights[key]
            flight.done.set()
