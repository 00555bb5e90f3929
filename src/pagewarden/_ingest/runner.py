"""The one-machine batch runner behind ``pagewarden ingest``.

Data flow, with bounded memory at every step::

    input lines --(parse, skip resumed, --max-pages)--> bounded queue --> N workers --> sink
                                                                       (per-host slot,
                                                                        robots, read)

The producer blocks when the queue is full (``queue_size`` items, default
twice the concurrency), so at most ``queue_size + concurrency`` inputs are in
memory. Each worker writes its record to the sink as soon as it has it; the
order of output lines is completion order, not input order.

Cancelling the surrounding scope (Ctrl-C in the CLI) cancels the in-flight
reads; records already written stay complete. Closing the reader is the
caller's job (the CLI does it shielded, so the browser is closed on Ctrl-C).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import AsyncIterable, Callable, Container
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio
from anyio.abc import ObjectReceiveStream

from .hosts import HostLimiter, host_key
from .records import parse_input_line, read_record

if TYPE_CHECKING:
    from .protocol import PageReader
    from .robots_cache import RobotsCache

__all__ = ["IngestOptions", "IngestStats", "ingest"]


@dataclass(frozen=True, slots=True)
class IngestOptions:
    """How a batch is read.

    Attributes:
        render: the render mode of every read (``never``, ``auto``, ``always``).
        concurrency: reads at a time over all hosts.
        per_host: reads at a time per host.
        min_delay: seconds between two request starts on one host.
        max_pages: stop after this many inputs (resumed ones not counted).
        max_characters, timeout, requested_use: passed to every read
            (``None``: the reader's defaults).
        queue_size: inputs buffered between the reader of the input and the
            workers (default ``2 * concurrency``).
    """

    render: str = "auto"
    concurrency: int = 8
    per_host: int = 2
    min_delay: float = 0.5
    max_pages: int | None = None
    max_characters: int | None = None
    timeout: float | None = None
    requested_use: str = "answer_with_citation"
    queue_size: int | None = None

    def __post_init__(self) -> None:
        if self.concurrency < 1 or self.per_host < 1:
            raise ValueError("concurrency and per_host must be at least 1")
        if self.min_delay < 0:
            raise ValueError("min_delay must not be negative")
        if self.max_pages is not None and self.max_pages < 0:
            raise ValueError("max_pages must not be negative")


@dataclass
class IngestStats:
    """Live counters of a run (read by the progress display)."""

    total: int | None = None
    done: int = 0
    ok: int = 0
    failed: int = 0
    skipped: int = 0
    escalations: int = 0
    queued_peak: int = 0
    failures: Counter[str] = field(default_factory=Counter)
    started: float = field(default_factory=time.monotonic)
    finished: float | None = None
    interrupted: bool = False
    command: str = "ingest"

    def detail_lines(self) -> list[str]:
        """Extra summary lines of the command (none for ``ingest``)."""
        return []

    @property
    def elapsed(self) -> float:
        """Seconds since the run started (until it finished)."""
        return (self.finished or time.monotonic()) - self.started

    @property
    def rate(self) -> float:
        """Pages per second so far."""
        elapsed = self.elapsed
        return self.done / elapsed if elapsed > 0 else 0.0

    @property
    def remaining(self) -> float | None:
        """Estimated seconds left, when the total is known and pages have finished."""
        if self.total is None or not self.done:
            return None
        return max(self.total - self.done, 0) / self.rate if self.rate else None

    def count(self, record: dict[str, Any]) -> None:
        """Account for one finished record."""
        self.done += 1
        if record.get("ok"):
            self.ok += 1
            fetch = record.get("fetch")
            if isinstance(fetch, dict) and fetch.get("method") == "browser":
                self.escalations += 1
        else:
            self.failed += 1
            self.failures[str(record.get("code"))] += 1

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary."""
        return {
            "done": self.done, "ok": self.ok, "failed": self.failed, "skipped": self.skipped,
            "escalations": self.escalations, "failures": dict(sorted(self.failures.items())),
            "elapsed": round(self.elapsed, 3), "pages_per_second": round(self.rate, 3),
            "interrupted": self.interrupted,
        }


Item = tuple[str, dict[str, Any]]


async def ingest(
    reader: PageReader,
    lines: AsyncIterable[str],
    sink: Callable[[dict[str, Any]], None],
    options: IngestOptions | None = None,
    *,
    robots: RobotsCache | None = None,
    skip: Container[str] = frozenset(),
    stats: IngestStats | None = None,
) -> IngestStats:
    """Read every input line's URL with ``reader`` and hand one record per input to ``sink``.

    ``skip`` holds URLs already done (``--resume``); ``robots`` checks
    robots.txt first when given. Returns ``stats`` (a new one when omitted),
    updated live as records arrive.
    """
    options = options or IngestOptions()
    stats = stats if stats is not None else IngestStats()
    limiter = HostLimiter(options.per_host, options.min_delay)
    size = options.queue_size or 2 * options.concurrency
    send, receive = anyio.create_memory_object_stream[Item](max_buffer_size=size)

    async def produce() -> None:
        taken = 0
        async with send:
            async for line in lines:
                if options.max_pages is not None and taken >= options.max_pages:
                    return
                item = parse_input_line(line)
                if item is None:
                    continue
                if item[0] in skip:
                    stats.skipped += 1
                    continue
                taken += 1
                await send.send(item)
                stats.queued_peak = max(stats.queued_peak, send.statistics().current_buffer_used)

    async def work(items: ObjectReceiveStream[Item]) -> None:
        async with items:
            async for url, extra in items:
                async with limiter.slot(host_key(url)):
                    record = await read_record(
                        reader, url, extra, render=options.render, robots=robots,
                        max_characters=options.max_characters, timeout=options.timeout,
                        requested_use=options.requested_use,
                    )
                sink(record)
                stats.count(record)

    try:
        async with anyio.create_task_group() as group:
            group.start_soon(produce)
            async with receive:
                for _ in range(options.concurrency):
                    group.start_soon(work, receive.clone())
    finally:
        stats.finished = time.monotonic()
    return stats
