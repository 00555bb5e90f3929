"""Per-host politeness shared by every reader actor of a Ray read.

One :class:`HostLeases` instance runs as a Ray *async actor*
(:func:`pagewarden.integrations.ray.read_dataset` starts it); every reader
actor asks it for a lease before each page and returns the lease after. A
lease is granted for a host when fewer than ``per_host`` leases of that host
are out and at least ``min_delay`` seconds passed since the host's previous
grant. So the bound holds across actors and nodes, not just inside one actor.

A reader actor that dies while holding leases would block its hosts forever;
every lease therefore expires ``lease_seconds`` after it was granted (longer
than any read's deadline). The class itself knows nothing about Ray: it runs
on whatever asyncio loop calls it (Ray's async actors run asyncio, which is
why this uses asyncio primitives directly). Hosts are keyed as the
one-machine runner keys them (:func:`pagewarden._ingest.hosts.host_key`).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import math
import time
from dataclasses import dataclass

from ..._errors import InvalidInput

__all__ = ["HostLeases"]

@dataclass(slots=True)
class _Lease:
    host: str
    granted: float


class HostLeases:
    """Grants at most ``per_host`` concurrent leases per host, spaced by ``min_delay`` seconds."""

    def __init__(self, per_host: int, min_delay: float = 0.0, lease_seconds: float = 300.0) -> None:
        if isinstance(per_host, bool) or not isinstance(per_host, int) or not 1 <= per_host <= 64:
            raise InvalidInput("per_host must be an integer in 1..64", reason="invalid_per_host")
        if not isinstance(min_delay, int | float) or not math.isfinite(min_delay) or not 0 <= min_delay <= 60:
            raise InvalidInput("min_delay must be in [0, 60] seconds", reason="invalid_min_delay")
        if not isinstance(lease_seconds, int | float) or not 1 <= lease_seconds <= 3_600:
            raise InvalidInput("lease_seconds must be in [1, 3600] seconds", reason="invalid_lease_seconds")
        self._per_host = per_host
        self._min_delay = float(min_delay)
        self._lease_seconds = float(lease_seconds)
        self._leases: dict[int, _Lease] = {}
        self._active: dict[str, int] = {}
        self._last_grant: dict[str, float] = {}
        self._peak: dict[str, int] = {}
        self._tokens = itertools.count(1)
        # Created lazily: the constructor may run outside the loop that later serves calls.
        self._changed: asyncio.Condition | None = None

    def _condition(self) -> asyncio.Condition:
        if self._changed is None:
            self._changed = asyncio.Condition()
        return self._changed

    def _expire(self, now: float) -> None:
        for token, lease in list(self._leases.items()):
            if now - lease.granted >= self._lease_seconds:
                self._drop(token)

    def _drop(self, token: int) -> bool:
        lease = self._leases.pop(token, None)
        if lease is None:
            return False
        left = self._active[lease.host] - 1
        if left:
            self._active[lease.host] = left
        else:
            del self._active[lease.host]
        return True

    def _wait_for(self, host: str, now: float) -> float:
        """Seconds until ``host`` may be granted (0: now; inf: when a lease comes back)."""
        if self._active.get(host, 0) >= self._per_host:
            return math.inf
        last = self._last_grant.get(host)
        if last is None:
            return 0.0
        return max(0.0, last + self._min_delay - now)

    async def acquire(self, host: str) -> int:
        """Wait for a lease on ``host`` and return its token (pass it to :meth:`release`)."""
        changed = self._condition()
        async with changed:
            while True:
                now = time.monotonic()
                self._expire(now)
                wait = self._wait_for(host, now)
                if wait <= 0:
                    token = next(self._tokens)
                    self._leases[token] = _Lease(host, now)
                    active = self._active.get(host, 0) + 1
                    self._active[host] = active
                    self._peak[host] = max(self._peak.get(host, 0), active)
                    self._last_grant[host] = now
                    return token
                # Wake on a release, when the spacing ends, or when the oldest lease may expire.
                timeout = min(wait, self._lease_seconds)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(changed.wait(), timeout=timeout)

    async def release(self, token: int) -> bool:
        """Return a lease; ``False`` when it had expired (or was unknown)."""
        changed = self._condition()
        async with changed:
            dropped = self._drop(token)
            changed.notify_all()
        return dropped

    def peak_concurrency(self) -> dict[str, int]:
        """The most leases held at once, per host, since this limiter started."""
        return dict(self._peak)
