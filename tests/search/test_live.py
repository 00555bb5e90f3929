"""Opt-in live checks: one real query per provider (skipped unless PAGEWARDEN_LIVE=1).

Run with ``PAGEWARDEN_LIVE=1 pytest -m live tests/search``; the Brave check
also needs ``BRAVE_SEARCH_API_KEY``. They disable the socket tripwire for
their own duration only, and print nothing but counts and error codes.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from pagewarden import BotChallenge, RateLimited
from pagewarden._search.brave import brave
from pagewarden._search.cooldown import Cooldowns
from pagewarden._search.ddgs_provider import ddgs
from pagewarden._search.query import validate_query
from pagewarden._search.run import run_search
from tests.support.tripwire import SocketTripwire

LIVE = os.environ.get("PAGEWARDEN_LIVE") == "1"
pytestmark = [
    pytest.mark.live,
    pytest.mark.anyio,
    pytest.mark.skipif(not LIVE, reason="live search tests need PAGEWARDEN_LIVE=1"),
]


@pytest.fixture
def network(socket_tripwire: SocketTripwire) -> Iterator[None]:
    """Lift the socket tripwire for this test only."""
    socket_tripwire.uninstall()
    try:
        yield
    finally:
        socket_tripwire.install()


@pytest.mark.usefixtures("network")
async def test_ddgs_live() -> None:
    """DuckDuckGo through ddgs answers a common query with hits (or a typed block, reported as a skip)."""
    try:
        results = await run_search(ddgs(), validate_query("python programming language"), cooldowns=Cooldowns())
    except (RateLimited, BotChallenge) as exc:
        pytest.skip(f"provider blocked this network: {exc.code}")
    assert results.hits and all(h.url.startswith(("https://", "http://")) for h in results.hits)


@pytest.mark.usefixtures("network")
async def test_brave_live() -> None:
    """The Brave API answers a common query with hits."""
    key = os.environ.get("BRAVE_SEARCH_API_KEY")
    if not key:
        pytest.skip("BRAVE_SEARCH_API_KEY is not set")
    results = await run_search(brave(key), validate_query("python programming language"), cooldowns=Cooldowns())
    assert results.hits
