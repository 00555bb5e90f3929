"""Per-host politeness for batch reads: a concurrency cap and a minimum spacing of request starts.

:class:`HostLimiter` keeps one small entry per host *while it is in use*
(entries are dropped when their last holder leaves and the spacing has
passed), so memory follows the number of hosts in flight, not the number of
hosts seen. The host key is the lowercased host name of the URL: two names on
one address count as two hosts.
"""

from __future__ import annotations

import time
import urllib.parse
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import anyio

__all__ = ["HostLimiter", "host_key"]


def host_key(url: str) -> str:
    """The politeness key of ``url``: its lowercased host name (``""`` when there is none)."""
    try:
        return (urllib.parse.urlsplit(url).hostname or "").lower()
    except ValueError:
        return ""


@dataclass
class _Host:
    slots: anyio.Semaphore
    lock: anyio.Lock = field(default_factory=anyio.Lock)
    next_start: float = 0.0
    users: int = 0


class HostLimiter:
    """At most ``per_host`` reads at a time per host, starts at least ``min_delay`` seconds apart."""

    def __init__(self, per_host: int, min_delay: float) -> None:
        if per_host < 1:
            raise ValueError("per_host must be at least 1")
        if min_delay < 0:
            raise ValueError("min_delay must not be negative")
        self._per_host = per_host
        self._min_delay = min_delay
        self._hosts: dict[str, _Host] = {}

    @property
    def active_hosts(self) -> int:
        """Hosts with a read in flight or waiting (for tests and progress)."""
        return len(self._hosts)

    @asynccontextmanager
    async def slot(self, host: str, delay: float | None = None) -> AsyncIterator[None]:
        """Hold one of ``host``'s slots, entered no sooner than ``min_delay`` after the previous start.

        ``delay`` (a robots.txt ``Crawl-delay``) raises the spacing for this
        start when it is longer than ``min_delay``.
        """
        spacing = max(self._min_delay, delay or 0.0)
        entry = self._hosts.get(host)
        if entry is None:
            entry = self._hosts[host] = _Host(anyio.Semaphore(self._per_host))
        entry.users += 1
        try:
            async with entry.slots:
                if spacing:
                    # The lock orders the waiters, so each start is spaced from the one before.
                    async with entry.lock:
                        wait = entry.next_start - time.monotonic()
                        if wait > 0:
                            await anyio.sleep(wait)
                        entry.next_start = time.monotonic() + spacing
                yield
        finally:
            entry.users -= 1
            if entry.users == 0 and entry.next_start <= time.monotonic():
                del self._hosts[host]
            elif entry.users == 0:
                # Keep the spacing for a host that comes back soon; a later slot() cleans it up.
                self._forget_idle()

    def _forget_idle(self) -> None:
        now = time.monotonic()
        for name in [name for name, entry in self._hosts.items() if entry.users == 0 and entry.next_start <= now]:
            del self._hosts[name]
