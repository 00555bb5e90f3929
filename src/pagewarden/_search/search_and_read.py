"""search_and_read: one search, then the hits read concurrently, all under one deadline.

The controller here knows nothing about readers: it gets a ``search`` and a
``read`` function (the reader passes its own, so reads use the normal read
path with its cache, guard and browser escalation) and returns a
:class:`SearchAndReadResult`.

The rules:

* One deadline covers the search and every read. A search failure, or the
  deadline expiring during the search, propagates (``TIMEOUT`` for the
  latter): there is nothing partial to return yet.
* Hits are read in rank order, at most ``concurrency`` at a time and at most
  ``per_host`` per host (lower-cased, trailing dot removed). Each read's own
  deadline is bounded by the time left.
* A read that fails is recorded as a :class:`ReadFailure` and the others go
  on. ``page_timeout``: the page's own deadline; ``overall_timeout``: the
  shared deadline fired while the read ran; ``not_started``: the shared
  deadline fired before the read got its slots; ``page_failure``: anything
  else. When the shared deadline fires after the search, the documents read
  so far are kept and ``timed_out`` is true.
* The caller's own cancellation is never turned into a result: it propagates.
"""

from __future__ import annotations

import time
import urllib.parse
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import anyio

from .._document import Document
from .._errors import ConfigMissing, ErrorCode, InvalidInput, PagewardenError, Timeout, UnknownError
from .types import ProviderFailure, SearchHit, SearchResults

__all__ = [
    "DEFAULT_CONCURRENCY",
    "DEFAULT_PER_HOST",
    "MAX_CONCURRENCY",
    "FailureKind",
    "ReadFailure",
    "SearchAndReadResult",
    "check_concurrency",
    "host_key",
    "search_then_read",
]

FailureKind = Literal["page_failure", "page_timeout", "overall_timeout", "not_started"]
DEFAULT_CONCURRENCY = 4
DEFAULT_PER_HOST = 2
MAX_CONCURRENCY = 16

SearchFunction = Callable[[float], Awaitable[SearchResults]]
ReadFunction = Callable[[SearchHit, float], Awaitable[Document]]


@dataclass(frozen=True, slots=True)
class ReadFailure:
    """One hit that did not become a document.

    Attributes:
        url: the hit's URL.
        rank: the hit's rank.
        kind: ``page_failure``, ``page_timeout``, ``overall_timeout`` or ``not_started``.
        code: the error code (``TIMEOUT`` for the three timeout kinds).
        reason: the error's named reason, if any.
        retryable: whether reading it again later can succeed.
    """

    url: str
    rank: int
    kind: FailureKind
    code: str
    reason: str | None
    retryable: bool

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "url": self.url,
            "rank": self.rank,
            "kind": self.kind,
            "code": self.code,
            "reason": self.reason,
            "retryable": self.retryable,
        }


@dataclass(frozen=True, slots=True)
class SearchAndReadResult:
    """What :meth:`AsyncReader.search_and_read` returns.

    Attributes:
        query: the validated query text.
        provider: the provider that answered.
        hits: every hit of the search (untrusted; guard-withheld hits excluded).
        documents: the hits read successfully, sorted by hit rank
            (``Document.url`` is the hit's URL).
        failures: the hits that were not read, sorted by rank.
        timed_out: whether the shared deadline fired during the reads.
        withheld: how many hits the guard withheld from ``hits``.
        duration: seconds the whole call took.
        provider_failures: the members of a fused or fallback provider that
            failed although the search answered (see ``SearchResults.failures``).
    """

    query: str
    provider: str
    hits: tuple[SearchHit, ...]
    documents: tuple[Document, ...]
    failures: tuple[ReadFailure, ...]
    timed_out: bool
    withheld: int
    duration: float
    provider_failures: tuple[ProviderFailure, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form; each document carries the ``rank`` of its hit."""
        ranks = {hit.url: hit.rank for hit in self.hits}
        return {
            "query": self.query,
            "provider": self.provider,
            "hits": [hit.to_dict() for hit in self.hits],
            "documents": [{"rank": ranks.get(doc.url), **doc.to_dict()} for doc in self.documents],
            "failures": [failure.to_dict() for failure in self.failures],
            "timed_out": self.timed_out,
            "withheld": self.withheld,
            "duration": self.duration,
            **(
                {"provider_failures": [failure.to_dict() for failure in self.provider_failures]}
                if self.provider_failures
                else {}
            ),
        }


def check_concurrency(concurrency: object, per_host: object) -> tuple[int, int]:
    """Validate ``concurrency`` (1..16) and ``per_host`` (1..concurrency, ``None``: ``min(2, concurrency)``)."""
    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or not 1 <= concurrency <= MAX_CONCURRENCY:
        raise InvalidInput(f"concurrency must be an integer in 1..{MAX_CONCURRENCY}", reason="invalid_concurrency")
    if per_host is None:
        return concurrency, min(DEFAULT_PER_HOST, concurrency)
    if isinstance(per_host, bool) or not isinstance(per_host, int) or not 1 <= per_host <= concurrency:
        raise InvalidInput("per_host must be an integer in 1..concurrency", reason="invalid_per_host")
    return concurrency, per_host


def host_key(url: str) -> str:
    """The per-host limit's key: the lower-cased host name without a trailing dot."""
    try:
        host = urllib.parse.urlsplit(url).hostname or ""
    except ValueError:
        host = ""
    return host.lower().rstrip(".")


@dataclass(slots=True)
class _Slot:
    hit: SearchHit
    started: bool = False
    document: Document | None = None
    failure: ReadFailure | None = None


def _failure(hit: SearchHit, kind: FailureKind, error: PagewardenError) -> ReadFailure:
    return ReadFailure(
        url=hit.url, rank=hit.rank, kind=kind, code=str(error.code), reason=error.reason, retryable=error.retryable
    )


def _deadline_failure(hit: SearchHit, kind: FailureKind) -> ReadFailure:
    reason = "overall_deadline" if kind == "overall_timeout" else "not_started_before_deadline"
    return ReadFailure(url=hit.url, rank=hit.rank, kind=kind, code=str(ErrorCode.TIMEOUT), reason=reason,
                       retryable=True)


class _Reads:
    """The read phase: one task per hit, gated by a per-host and a global semaphore."""

    def __init__(self, read: ReadFunction, hits: Sequence[SearchHit], *, deadline: float,
                 concurrency: int, per_host: int) -> None:
        self._read = read
        self._deadline = deadline
        self._per_host = per_host
        self._global = anyio.Semaphore(concurrency)
        self._hosts: dict[str, anyio.Semaphore] = {}
        self.slots = [_Slot(hit) for hit in hits]

    async def run(self) -> bool:
        """Read every hit; whether the shared deadline fired."""
        with anyio.CancelScope(deadline=self._deadline) as scope:
            async with anyio.create_task_group() as tasks:
                # Started in rank order; the semaphores are FIFO, so reads begin in rank order too.
                for slot in self.slots:
                    tasks.start_soon(self._read_one, slot)
        return scope.cancelled_caught

    async def _read_one(self, slot: _Slot) -> None:
        host = self._hosts.setdefault(host_key(slot.hit.url), anyio.Semaphore(self._per_host))
        # The host slot first: a read waiting for its host must not hold a global slot others could use.
        async with host, self._global:
            slot.started = True
            budget = max(self._deadline - anyio.current_time(), 0.001)
            try:
                slot.document = await self._read(slot.hit, budget)
            except PagewardenError as error:
                slot.failure = _failure(slot.hit, self._classify(error), error)
            except Exception:
                # The read path raises only PagewardenError; should anything
                # else escape, it concerns this page only and must not lose
                # the other documents.
                unexpected = UnknownError("the read failed unexpectedly", reason="unexpected_error")
                slot.failure = _failure(slot.hit, "page_failure", unexpected)

    def _classify(self, error: PagewardenError) -> FailureKind:
        if error.code != ErrorCode.TIMEOUT:
            return "page_failure"
        # The read's own deadline is bounded by the shared one; when both
        # fire together, the shared deadline is the cause.
        return "overall_timeout" if anyio.current_time() >= self._deadline else "page_timeout"

    def outcome(self) -> tuple[tuple[Document, ...], tuple[ReadFailure, ...]]:
        """Documents and failures, each in rank order, unfinished reads classified."""
        documents: list[Document] = []
        failures: list[ReadFailure] = []
        for slot in sorted(self.slots, key=lambda s: s.hit.rank):
            if slot.document is not None:
                documents.append(slot.document)
            elif slot.failure is not None:
                failures.append(slot.failure)
            else:
                failures.append(_deadline_failure(slot.hit, "overall_timeout" if slot.started else "not_started"))
        return tuple(documents), tuple(failures)


async def search_then_read(
    search: SearchFunction,
    read: ReadFunction,
    *,
    timeout: float,
    concurrency: int,
    per_host: int,
    is_closed: Callable[[], bool],
) -> SearchAndReadResult:
    """Run ``search`` then ``read`` every hit, under one deadline of ``timeout`` seconds.

    ``search(seconds_left)`` returns the :class:`SearchResults`;
    ``read(hit, seconds_left)`` returns a Document or raises a
    ``PagewardenError``. ``is_closed()`` tells whether the reader was closed
    meanwhile (then ``CONFIG_MISSING`` is raised, not a result).

    Raises:
        PagewardenError: the search failed (``TIMEOUT`` when the deadline
            expired during it), or the reader was closed.
    """
    started = time.perf_counter()
    deadline = anyio.current_time() + timeout
    try:
        with anyio.fail_after(timeout):
            results = await search(timeout)
    except TimeoutError:
        raise Timeout(
            f"the search did not finish within the {timeout:g} s deadline of search_and_read",
            reason="search_and_read_deadline", stage="search",
        ) from None
    reads = _Reads(read, results.hits, deadline=deadline, concurrency=concurrency, per_host=per_host)
    deadline_fired = await reads.run()
    if is_closed():
        raise ConfigMissing("the reader was closed during search_and_read", reason="reader_closed")
    documents, failures = reads.outcome()
    timed_out = deadline_fired or any(f.kind in ("overall_timeout", "not_started") for f in failures)
    return SearchAndReadResult(
        query=results.query.text,
        provider=results.provider,
        hits=results.hits,
        documents=documents,
        failures=failures,
        timed_out=timed_out,
        withheld=results.withheld,
        duration=time.perf_counter() - started,
        provider_failures=results.failures,
    )
