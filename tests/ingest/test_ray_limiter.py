"""The shared per-host limiter of the Ray integration, without Ray: caps, spacing, expiry, validation."""

from __future__ import annotations

import itertools
import time
from typing import Any

import anyio
import pytest

from pagewarden import InvalidInput
from pagewarden._apps.ray.limiter import HostLeases

pytestmark = pytest.mark.anyio

# (constructor arguments, expected reason)
INVALID: list[tuple[dict[str, Any], str]] = [
    ({"per_host": 0}, "invalid_per_host"),
    ({"per_host": True}, "invalid_per_host"),
    ({"per_host": 65}, "invalid_per_host"),
    ({"per_host": 1, "min_delay": -0.1}, "invalid_min_delay"),
    ({"per_host": 1, "min_delay": float("nan")}, "invalid_min_delay"),
    ({"per_host": 1, "lease_seconds": 0.5}, "invalid_lease_seconds"),
]


@pytest.mark.parametrize(("arguments", "reason"), INVALID)
def test_invalid_arguments_are_refused(arguments: dict[str, Any], reason: str) -> None:
    """Out-of-range limiter settings raise INVALID_INPUT with a named reason."""
    with pytest.raises(InvalidInput) as caught:
        HostLeases(**arguments)
    assert caught.value.reason == reason


async def _hold(leases: HostLeases, host: str, seconds: float, starts: list[float]) -> None:
    token = await leases.acquire(host)
    starts.append(time.monotonic())
    await anyio.sleep(seconds)
    assert await leases.release(token)


@pytest.mark.parametrize("per_host", [1, 2, 3])
async def test_at_most_per_host_leases_at_once(per_host: int) -> None:
    """Ten holders of one host never exceed per_host at once, while another host is not held up."""
    leases = HostLeases(per_host)
    starts: list[float] = []
    async with anyio.create_task_group() as group:
        for _ in range(10):
            group.start_soon(_hold, leases, "a.example", 0.02, starts)
        group.start_soon(_hold, leases, "b.example", 0.0, [])
    assert leases.peak_concurrency() == {"a.example": per_host, "b.example": 1}


async def test_min_delay_spaces_grants() -> None:
    """With min_delay the grants of one host are at least that far apart, even with free slots."""
    leases = HostLeases(4, min_delay=0.05)
    starts: list[float] = []
    async with anyio.create_task_group() as group:
        for _ in range(4):
            group.start_soon(_hold, leases, "a.example", 0.0, starts)
    gaps = [later - earlier for earlier, later in itertools.pairwise(starts)]
    assert len(gaps) == 3 and min(gaps) >= 0.045


async def test_lease_of_a_dead_holder_expires() -> None:
    """A lease never returned (its actor died) frees its slot after lease_seconds, and its late release is False."""
    leases = HostLeases(1, lease_seconds=1.0)
    lost = await leases.acquire("a.example")
    began = time.monotonic()
    token = await leases.acquire("a.example")
    assert 0.9 <= time.monotonic() - began < 3
    assert await leases.release(lost) is False
    assert await leases.release(token) is True
